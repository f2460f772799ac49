//! Benchmark: what the runner costs. Not a test: it prints Markdown tables for BENCHMARKS.md.
//!
//! Run with `just bench` (or `cargo bench -p skill-conform --bench runner`). For each port
//! (the reference adapter, and toolnexus-python when `adapters/python/.cache` is set up):
//!
//! - **piped**: every case's `run` request, with real sandbox roots, written once to a file
//!   (hello, one `run` per non-vacuous case, bye); then `ADAPTER < requests`, its stdout read to
//!   the end. The adapter alone, at full speed — nothing to wait for between requests.
//! - **runner**: `skill-conform run --port PORT` as a child process, wall clock: resolving and
//!   setting up the port, planning (the reference over every case for the load lists), a
//!   sandbox per case, the smoke pair, the requests (four in flight), judging, four report
//!   files. Target (docs/architecture.md): ≤ 1.10 × piped. Timed again with `TMPDIR=/tmp`, which
//!   puts the sandboxes on disk instead of `/dev/shm`.
//!   Two of its fixed costs are timed alone: the port's set-up command (`setup.sh`, which
//!   checks the cached venv) and planning (`skill-conform run --port PORT -- --list`); what
//!   is left, per case, is the sandbox, the round trip, judging and the reports.
//! - **per case**: a fresh adapter process per case (hello, run, bye) — what a runner that
//!   started a process per trial (nextest) would pay. Target: one process per port ≥ 10×
//!   faster for Python.
//!
//! Medians of `BENCH_RUNS` (default 11) after one warm-up, piped and runner timed in turns; the
//! per-case loop, itself a sum over every case, runs `BENCH_SLOW_RUNS` times (default 1) without
//! a warm-up (`BENCH_SLOW_RUNS=0` skips it).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skill_conform::goldens::Layout;
use skill_conform::plan::plan_cases;
use skill_conform::port::{self, PortRequest, Resolved};
use skill_conform::sandbox::Sandbox;
use skill_conform::session::{AdapterCommand, Request, RunRequest, PROTOCOL_VERSION};

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

mod common;
use common::{env_runs, median, time_runs};

fn command(adapter: &AdapterCommand) -> Command {
    let (program, args) = adapter.argv.split_first().expect("a program");
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(adapter.env.iter().map(|(k, v)| (k, v)))
        .stderr(Stdio::null());
    if let Some(cwd) = &adapter.cwd {
        command.current_dir(cwd);
    }
    command
}

/// Starts the adapter with `input` on stdin, reads its stdout to the end; returns the lines.
fn pipe_through(adapter: &AdapterCommand, input: Stdio, feed: Option<&[u8]>) -> usize {
    let mut child = command(adapter)
        .stdin(input)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the adapter starts");
    if let Some(bytes) = feed {
        let mut stdin = child.stdin.take().expect("piped");
        stdin
            .write_all(bytes)
            .expect("the adapter reads its requests");
    }
    let mut out = Vec::new();
    child
        .stdout
        .take()
        .expect("piped")
        .read_to_end(&mut out)
        .expect("stdout reads");
    let status = child.wait().expect("the adapter exits");
    assert!(status.success(), "the adapter failed: {status}");
    out.iter().filter(|b| **b == b'\n').count()
}

fn line(request: &Request) -> String {
    format!("{}\n", request.to_line())
}

/// One port's timings.
struct Row {
    port: &'static str,
    cases: usize,
    piped: Duration,
    runner: Duration,
    runner_on_tmp: Duration,
    /// runner / piped, round by round, the median: pairing keeps the ratio meaningful when
    /// the machine's speed drifts during the bench (medians of each column alone do not).
    ratio: f64,
    ratio_on_tmp: f64,
    setup: Option<Duration>,
    planning: Duration,
    per_case: Option<Duration>,
}

/// Times a child process to completion (its output discarded); `ok` judges the exit code.
fn time_child(command: &mut Command, ok: fn(Option<i32>) -> bool) -> Duration {
    let start = Instant::now();
    let status = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the child starts");
    let elapsed = start.elapsed();
    assert!(ok(status.code()), "{command:?} failed: {status}");
    elapsed
}

fn bench_port(
    port: &'static str,
    adapter: &AdapterCommand,
    setup: Option<&[String]>,
    requests: &[RunRequest],
    requests_file: &Path,
    repo: &Path,
) -> Row {
    let runs = env_runs("BENCH_RUNS", 11);
    let piped_once = || {
        let start = Instant::now();
        let file = std::fs::File::open(requests_file).expect("requests file");
        let lines = pipe_through(adapter, Stdio::from(file), None);
        let elapsed = start.elapsed();
        assert_eq!(lines, requests.len() + 1, "hello and one reply per run");
        elapsed
    };
    let reports = tempfile::tempdir().expect("temp dir");
    let run = || {
        let mut command = Command::new(BIN);
        command
            .args(["run", "--port", port, "--repo"])
            .arg(repo)
            .arg("--report-dir")
            .arg(reports.path());
        command
    };
    // 0, or 1 when the port diverges on a pinned case: either way the suite ran.
    let ran = |c: Option<i32>| matches!(c, Some(0 | 1));
    // Piped, the runner, and the runner with its sandboxes on the disk `/tmp` is on
    // (TMPDIR=/tmp, to show what the filesystem costs), taken in turns, so that a machine
    // whose speed drifts during the bench slows all three alike.
    piped_once();
    let (mut piped, mut runner, mut runner_on_tmp) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        piped.push(piped_once());
        runner.push(time_child(&mut run(), ran));
        runner_on_tmp.push(time_child(run().env("TMPDIR", "/tmp"), ran));
    }
    let ratio = paired_ratio(&runner, &piped);
    let ratio_on_tmp = paired_ratio(&runner_on_tmp, &piped);
    let (piped, runner, runner_on_tmp) = (median(piped), median(runner), median(runner_on_tmp));
    let planning = time_runs(runs, || {
        time_child(run().args(["--", "--list"]), |c| c == Some(0))
    });
    let setup = setup.map(|argv| {
        // ports.toml names repository paths as `{repo}`, as the runner expands them.
        let repo_text = repo.display().to_string();
        let argv: Vec<String> = argv
            .iter()
            .map(|a| a.replace("{repo}", &repo_text))
            .collect();
        time_runs(runs, || {
            time_child(
                Command::new(&argv[0]).args(&argv[1..]).current_dir(repo),
                |c| c == Some(0),
            )
        })
    });
    let hello = line(&Request::Hello {
        protocol: PROTOCOL_VERSION,
    });
    let bye = line(&Request::Bye);
    // BENCH_SLOW_RUNS=0 skips the per-case loop (minutes for Python) when only the overhead
    // is wanted.
    let slow_runs = env_runs("BENCH_SLOW_RUNS", 1);
    let per_case = (slow_runs > 0).then(|| {
        median(
            (0..slow_runs)
                .map(|_| {
                    let start = Instant::now();
                    for request in requests {
                        let input = format!("{hello}{}{bye}", line(&Request::Run(request.clone())));
                        let lines = pipe_through(adapter, Stdio::piped(), Some(input.as_bytes()));
                        assert_eq!(lines, 2, "hello and one reply");
                    }
                    start.elapsed()
                })
                .collect(),
        )
    });
    Row {
        port,
        cases: requests.len(),
        piped,
        runner,
        runner_on_tmp,
        ratio,
        ratio_on_tmp,
        setup,
        planning,
        per_case,
    }
}

/// The median of `a[i] / b[i]` over rounds taken in turns.
fn paired_ratio(a: &[Duration], b: &[Duration]) -> f64 {
    let mut ratios: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn main() {
    let repo = std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .expect("the repository");
    let specs = port::read_ports(&repo).expect("adapters/ports.toml");
    let home = tempfile::tempdir().expect("temp home");

    // The suite's requests, with real sandbox roots, made where the runner makes its own
    // (`/dev/shm` unless TMPDIR is set), so both read the same kind of filesystem.
    let cases = plan_cases(&Layout::under(&repo), &[]).expect("the suite plans");
    let mut sandboxes = Vec::new();
    let mut requests = Vec::new();
    for case in &cases {
        let sandbox = Sandbox::prepare(&case.spec, false).expect("a sandbox");
        if sandbox.vacuous().is_some() {
            continue;
        }
        requests.push(case.request(sandbox.roots().to_vec()));
        sandboxes.push(sandbox);
    }
    let requests_file = home.path().join("requests.jsonl");
    let mut text = line(&Request::Hello {
        protocol: PROTOCOL_VERSION,
    });
    for request in &requests {
        text.push_str(&line(&Request::Run(request.clone())));
    }
    text.push_str(&line(&Request::Bye));
    std::fs::write(&requests_file, text).expect("requests file");

    let mut reference = AdapterCommand::new([BIN, "adapter", "--reference"]).cwd(repo.clone());
    for (key, value) in port::adapter_env(&repo, "reference", None, home.path()) {
        reference = reference.env(key, value);
    }
    let mut rows = vec![bench_port(
        "reference",
        &reference,
        None,
        &requests,
        &requests_file,
        &repo,
    )];
    let python = PortRequest::Named {
        name: "python".into(),
        version: None,
        path: None,
    };
    match port::resolve(&python, &specs, &repo, home.path()) {
        Resolved::Ready { command, .. } => rows.push(bench_port(
            "python",
            &command,
            Some(&setup_argv(
                &specs["python"].setup,
                &specs["python"].version,
            )),
            &requests,
            &requests_file,
            &repo,
        )),
        Resolved::Unavailable { reason, .. } => println!("python: unavailable ({reason})\n"),
    }

    println!("## Runner overhead: the whole suite through `skill-conform run` vs piped into the adapter\n");
    println!("| port | cases | adapter < requests | skill-conform run --port PORT | run / piped | of which: set-up | planning | the rest, per case | run, TMPDIR=/tmp | / piped |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in &rows {
        let rest = row.runner.as_secs_f64()
            - row.piped.as_secs_f64()
            - row.setup.map_or(0.0, |d| d.as_secs_f64())
            - row.planning.as_secs_f64();
        println!(
            "| {} | {} | {:.3} s | {:.3} s | {:.2}× | {} | {:.3} s | {:.1} ms | {:.3} s | {:.2}× |",
            row.port,
            row.cases,
            row.piped.as_secs_f64(),
            row.runner.as_secs_f64(),
            row.ratio,
            row.setup
                .map_or_else(|| "–".to_owned(), |d| format!("{:.3} s", d.as_secs_f64())),
            row.planning.as_secs_f64(),
            rest * 1000.0 / row.cases as f64,
            row.runner_on_tmp.as_secs_f64(),
            row.ratio_on_tmp,
        );
    }
    println!("\n## One process per port vs one process per case\n");
    println!("| port | cases | one process (piped) | a process per case | per case / per port |");
    println!("|---|---:|---:|---:|---:|");
    for row in &rows {
        let Some(per_case) = row.per_case else {
            continue;
        };
        println!(
            "| {} | {} | {:.3} s | {:.3} s | {:.1}× |",
            row.port,
            row.cases,
            row.piped.as_secs_f64(),
            per_case.as_secs_f64(),
            per_case.as_secs_f64() / row.piped.as_secs_f64()
        );
    }
    println!(
        "\nmedians of {} runs after one warm-up, ratios the median of each round's ratio ({} cold run of the per-case loop); {} cores",
        env_runs("BENCH_RUNS", 11),
        env_runs("BENCH_SLOW_RUNS", 1),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    drop(sandboxes);
}

/// A port's set-up command with `{version}` filled in, as `port::resolve` runs it.
fn setup_argv(setup: &[String], version: &str) -> Vec<String> {
    setup
        .iter()
        .map(|a| a.replace("{version}", version))
        .collect()
}
