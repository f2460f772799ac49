//! The integration tests, one binary: each module was a file of its own under `tests/`. One
//! binary links once, and its tests run side by side instead of one binary after another (a
//! fresh clone's `cargo test` spends its time here; BENCHMARKS.md, "First use"). Every module
//! keeps its own temporary directories, `TMPDIR` and process groups, so none sees another's.
//!
//! The harness is libtest-mimic (`harness = false`), for one reason: the thread count. Most
//! tests wait on the processes they start (a run, its adapters, chromium), so libtest's default
//! of one thread per core leaves cores idle; here it is two more than the cores (two cores:
//! 26.0 s with two threads, 21.0–22.7 s with three, before `session_faults`, whose trials mostly
//! sleep, joined; with them, 18.9–19.7 s with three and 17.8–18.4 s with four). `--test-threads` and `RUST_TEST_THREADS`
//! still decide when given, and filters, `--exact`, `--skip`, `--list` and `--ignored` work as
//! under libtest. Each module ends with `crate::tests![…]`, the list of its tests; a test is a
//! plain `fn()` that passes unless it panics.
//! The binary is also the fake adapter that `session_faults` starts (see its doc).

mod common;

mod adapter_hello;
mod adapter_pins;
mod agentskills_profile;
mod bundle;
mod case_discovery;
mod checkout_version;
mod cli;
mod compare_render;
mod composite_action;
mod containment;
mod corpus;
mod corpus_html;
mod determinism;
mod doc_blocks;
mod fault_injection;
mod fixture_escape;
mod function_length;
mod goldens;
mod goldens_review;
mod interrupt;
mod isolate;
mod msrv;
mod port_columns;
mod ports;
mod protocol_schema;
mod registration;
mod report_html;
mod report_schema;
mod report_snapshots;
mod reproduce;
mod rundiff_cli;
mod sandbox;
mod session_faults;
mod toml_errors;
mod writing_tool;

#[path = "../harness/mod.rs"]
mod harness;

use libtest_mimic::{Arguments, Trial};

/// `crate::tests![a, #[cfg(…)] b, c = ignore "why"]` at the end of a module: its `tests()`,
/// one trial per function, named `module::function` as libtest names them.
#[macro_export]
macro_rules! tests {
    ($($(#[$attr:meta])* $name:ident $(= ignore $reason:literal)?),* $(,)?) => {
        #[allow(clippy::vec_init_then_push)] // a `#[cfg]` can switch one push off
        pub(crate) fn tests() -> Vec<libtest_mimic::Trial> {
            let module = module_path!().rsplit("::").next().unwrap_or_default();
            let mut tests = Vec::new();
            $(
                $(#[$attr])*
                tests.push(
                    $crate::trial(module, stringify!($name), $name)
                        $(.with_ignored_flag({ let _why: &str = $reason; true }))?,
                );
            )*
            tests
        }
    };
}

/// A test function as a trial; libtest-mimic fails it with the panic's message. With
/// `SUITE_TIMES` set, each trial's wall time goes to stderr (`time 1.234 s module::name`), to
/// find where a slow suite spends it.
pub(crate) fn trial(module: &str, name: &str, body: fn()) -> Trial {
    let full = format!("{module}::{name}");
    Trial::test(full.clone(), move || {
        let began = std::time::Instant::now();
        body();
        if std::env::var_os("SUITE_TIMES").is_some() {
            eprintln!("time {:.3} s {full}", began.elapsed().as_secs_f64());
        }
        Ok(())
    })
}

fn main() -> std::process::ExitCode {
    if let Some(code) = session_faults::serve_if_child() {
        return code;
    }
    let mut args = Arguments::from_args();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    args.test_threads = Some(harness::test_threads(&args, cores + 2));
    let mut tests: Vec<Trial> = [
        adapter_hello::tests(),
        adapter_pins::tests(),
        agentskills_profile::tests(),
        bundle::tests(),
        case_discovery::tests(),
        checkout_version::tests(),
        cli::tests(),
        compare_render::tests(),
        composite_action::tests(),
        containment::tests(),
        corpus::tests(),
        corpus_html::tests(),
        determinism::tests(),
        doc_blocks::tests(),
        fault_injection::tests(),
        fixture_escape::tests(),
        function_length::tests(),
        goldens::tests(),
        goldens_review::tests(),
        interrupt::tests(),
        isolate::tests(),
        msrv::tests(),
        port_columns::tests(),
        ports::tests(),
        protocol_schema::tests(),
        report_html::tests(),
        report_schema::tests(),
        report_snapshots::tests(),
        registration::tests(),
        reproduce::tests(),
        rundiff_cli::tests(),
        sandbox::tests(),
        session_faults::tests(),
        toml_errors::tests(),
        writing_tool::tests(),
    ]
    .into_iter()
    .flatten()
    .collect();
    tests.sort_by(|a, b| a.name().cmp(b.name()));
    libtest_mimic::run(&args, tests).exit_code()
}
