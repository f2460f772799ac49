//! The thread count of our libtest-mimic test binary (`suite`), read from the same knobs as
//! libtest: `--test-threads N`, else `RUST_TEST_THREADS`, else the binary's own default.

/// `--test-threads` if given, else `RUST_TEST_THREADS` as libtest reads it, else `default`.
pub fn test_threads(args: &libtest_mimic::Arguments, default: usize) -> usize {
    args.test_threads
        .or_else(|| {
            std::env::var("RUST_TEST_THREADS")
                .ok()
                .and_then(|value| value.parse().ok())
        })
        .filter(|&threads| threads > 0)
        .unwrap_or(default)
}
