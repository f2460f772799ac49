# skill-conform tasks. `just` is optional: every recipe is one plain command.

# Run the whole test suite (the README's test command).
test:
    cargo test --workspace

# Run the conformance suite: the reference and every port whose toolchain is present.
conform *ARGS:
    cargo run -q -p skill-conform -- run {{ARGS}}

# Check the goldens against the reference (never writes).
goldens-check:
    cargo run -q -p skill-conform -- goldens --check

# Regenerate goldens after a contract change; review the printed impact and `git diff goldens/`.
goldens:
    cargo run -q -p skill-conform -- goldens --write

# Prove every mutant of the reference is killed by a case.
mutants:
    cargo run -q -p skill-conform -- mutants

# The benchmarks behind BENCHMARKS.md, ~5 minutes (python rows need `bash adapters/python/setup.sh`).
bench:
    cargo bench -q -p skill-conform --bench reference --bench runner

# Optional: the reference benchmark on a 100,000-skill tree (3 runs; a few minutes more).
bench-large:
    BENCH_SKILLS=10000,100000 BENCH_RUNS=3 cargo bench -q -p skill-conform --bench reference

# Lint as CI does.
lint:
    cargo fmt --check
    cargo clippy --workspace --all-targets -- -D warnings

# The versioned case bundle a port can run in its own tests (docs/bundle.md) → target/bundle/.
bundle:
    scripts/bundle.sh
