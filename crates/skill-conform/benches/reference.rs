//! Benchmark: the reference loader against the physical floor (and toolnexus-python when its
//! venv is set up) on generated trees. Not a test: it prints a Markdown table for BENCHMARKS.md.
//!
//! Run with `just bench` (which also runs the `runner` bench). Each workload is run once to warm
//! the page cache, then `RUNS` times (`BENCH_RUNS` overrides); the table quotes medians from one
//! run. `BENCH_SKILLS=1000,10000` picks the tree sizes (`just bench-large`: 100,000).
//!
//! - floor: `find DIR -name SKILL.md -exec cat {} +` — lists every directory and reads every
//!   SKILL.md once, which no loader can beat.
//! - reference: inventory + every accepted skill loaded (default sample of 10) + one unknown
//!   name + the prompt, in process.
//! - toolnexus-python: the same work through the published package, timed inside Python
//!   (interpreter start-up and import excluded).
//! - peak memory: the maximum resident set (`getrusage` of the reaped child, via `wait4`) of a
//!   process doing the work once: `skill-conform ref DIR` (which also prints the whole reply as
//!   JSON) against the Python script above (interpreter and import included).
//! - growth: each time divided by the time at the previous size, beside the size ratio.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skill_ref::{Options, Source};

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

mod common;

fn runs() -> usize {
    common::env_runs("BENCH_RUNS", 7)
}

/// Peak resident set of a child process that runs `command` to completion, in MiB.
// The child is reaped by `wait4`, which clippy cannot see.
#[allow(clippy::zombie_processes)]
fn peak_rss_mib(command: &mut Command) -> f64 {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the child starts");
    let pid = libc::pid_t::try_from(child.id()).expect("pids fit");
    let mut status = 0;
    // SAFETY: `rusage` is plain data; wait4 fills it for the child we own and reaps it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(reaped, pid, "wait4 reaps the child");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the child failed: {command:?}"
    );
    // Linux reports ru_maxrss in KiB.
    usage.ru_maxrss as f64 / 1024.0
}

fn time_runs(f: impl FnMut() -> Duration) -> Duration {
    common::time_runs(runs(), f)
}

fn floor(dir: &Path) -> Duration {
    time_runs(|| {
        let start = Instant::now();
        let status = Command::new("find")
            .arg(dir)
            .args(["-name", "SKILL.md", "-exec", "cat", "{}", "+"])
            .stdout(Stdio::null())
            .status()
            .expect("find runs");
        assert!(status.success());
        start.elapsed()
    })
}

fn reference(dir: &Path) -> Duration {
    time_runs(|| {
        let start = Instant::now();
        let source = Source::load(&[dir.to_path_buf()], &Options::default()).expect("cwd");
        let mut names = source.accepted_names();
        names.push("no-such-skill".into());
        let output = source.output(&names, false);
        std::hint::black_box(output);
        start.elapsed()
    })
}

/// One tree size's measurements.
struct Row {
    skills: usize,
    floor: Duration,
    reference: Duration,
    python: Option<Duration>,
    /// Peak RSS in MiB.
    reference_rss: f64,
    python_rss: Option<f64>,
}

const PYTHON_WORK: &str = r#"
import asyncio, sys, time
from toolnexus import list_skills, load_skills
root = sys.argv[1]
async def main():
    start = time.perf_counter()
    inv = list_skills([root])
    src = load_skills([root])
    names = sorted(s.name for s in inv.skills) + ["no-such-skill"]
    for n in names:
        await src.tool.execute({"name": n})
    src.prompt()
    return time.perf_counter() - start
print(asyncio.run(main()))
"#;

fn python(dir: &Path, python: &Path) -> Duration {
    time_runs(|| {
        let out = Command::new(python)
            .args(["-c", PYTHON_WORK])
            .arg(dir)
            .stderr(Stdio::null())
            .output()
            .expect("python runs");
        assert!(out.status.success(), "toolnexus-python failed");
        let seconds: f64 = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("seconds");
        Duration::from_secs_f64(seconds)
    })
}

fn main() {
    // `cargo bench` passes `--bench`; ignore harness flags.
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let venv_python = repo.join("adapters/python/.cache/venv-0.21.0/bin/python");
    let sizes: Vec<usize> = std::env::var("BENCH_SKILLS")
        .map(|v| {
            v.split(',')
                .map(|n| n.trim().parse().expect("BENCH_SKILLS=1000,10000"))
                .collect()
        })
        .unwrap_or_else(|_| vec![1_000, 10_000]);
    let has_python = venv_python.exists();
    println!("## Time: reference vs floor vs toolnexus-python\n");
    println!("| skills | files | floor (find+cat) | reference | reference / floor | toolnexus-python | python / reference |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    let mut rows: Vec<Row> = Vec::new();
    for skills in sizes {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("tree");
        let tree = skill_conform::corpus_gen::generate(&dir, skills, 1).expect("generate");
        let floor = floor(&dir);
        let reference = reference(&dir);
        let py = has_python.then(|| python(&dir, &venv_python));
        let (py_text, ratio) = match py {
            Some(py) => (
                format!("{:.3} s", py.as_secs_f64()),
                format!("{:.1}×", py.as_secs_f64() / reference.as_secs_f64()),
            ),
            None => ("not set up".to_owned(), "–".to_owned()),
        };
        println!(
            "| {skills} | {} | {:.3} s | {:.3} s | {:.2}× | {py_text} | {ratio} |",
            tree.skill_files + tree.other_files,
            floor.as_secs_f64(),
            reference.as_secs_f64(),
            reference.as_secs_f64() / floor.as_secs_f64(),
        );
        let reference_rss = peak_rss_mib(Command::new(BIN).arg("ref").arg(&dir));
        let python_rss = has_python.then(|| {
            peak_rss_mib(
                Command::new(&venv_python)
                    .args(["-c", PYTHON_WORK])
                    .arg(&dir),
            )
        });
        rows.push(Row {
            skills,
            floor,
            reference,
            python: py,
            reference_rss,
            python_rss,
        });
    }

    println!("\n## Peak memory (max RSS of a child process doing the work once)\n");
    println!("| skills | `skill-conform ref DIR` | toolnexus-python | python / reference |");
    println!("|---:|---:|---:|---:|");
    for row in &rows {
        let (skills, reference_rss) = (row.skills, row.reference_rss);
        let (py, ratio) = match row.python_rss {
            Some(py) => (
                format!("{py:.1} MiB"),
                format!("{:.1}×", py / reference_rss),
            ),
            None => ("not set up".to_owned(), "–".to_owned()),
        };
        println!("| {skills} | {reference_rss:.1} MiB | {py} | {ratio} |");
    }

    if rows.len() > 1 {
        println!("\n## Growth (time at this size / time at the previous size)\n");
        println!("| skills | size × | floor × | reference × | toolnexus-python × |");
        println!("|---:|---:|---:|---:|---:|");
        for pair in rows.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let ratio =
                |x: Duration, y: Duration| format!("{:.1}×", y.as_secs_f64() / x.as_secs_f64());
            let py = match (a.python, b.python) {
                (Some(x), Some(y)) => ratio(x, y),
                _ => "–".to_owned(),
            };
            println!(
                "| {} → {} | {:.1}× | {} | {} | {py} |",
                a.skills,
                b.skills,
                b.skills as f64 / a.skills as f64,
                ratio(a.floor, b.floor),
                ratio(a.reference, b.reference),
            );
        }
    }
    println!(
        "\nmedians of {} runs after one warm-up; seed 1; {} cores",
        runs(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}
