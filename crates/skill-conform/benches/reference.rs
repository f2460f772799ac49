//! Benchmark: the reference loader against the physical floor (and toolnexus-python when its
//! venv is set up) on generated trees. Not a test: it prints a Markdown table for BENCHMARKS.md.
//!
//! Run with `just bench` (= `cargo bench -p skill-conform --bench reference`). Each workload is
//! run once to warm the page cache, then `RUNS` times; the table quotes medians from one run.
//!
//! - floor: `find DIR -name SKILL.md -exec cat {} +` — lists every directory and reads every
//!   SKILL.md once, which no loader can beat.
//! - reference: inventory + every accepted skill loaded (default sample of 10) + one unknown
//!   name + the prompt, in process.
//! - toolnexus-python: the same work through the published package, timed inside Python
//!   (interpreter start-up and import excluded).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use skill_ref::{Options, Source};

const RUNS: usize = 7;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn time_runs(mut f: impl FnMut() -> Duration) -> Duration {
    f();
    median((0..RUNS).map(|_| f()).collect())
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
    println!("| skills | files | floor (find+cat) | reference | reference / floor | toolnexus-python | python / reference |");
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for skills in sizes {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir = tmp.path().join("tree");
        let tree = skill_conform::corpus_gen::generate(&dir, skills, 1).expect("generate");
        let floor = floor(&dir);
        let reference = reference(&dir);
        let (py, ratio) = if venv_python.exists() {
            let py = python(&dir, &venv_python);
            (
                format!("{:.3} s", py.as_secs_f64()),
                format!("{:.1}×", py.as_secs_f64() / reference.as_secs_f64()),
            )
        } else {
            ("not set up".to_owned(), "–".to_owned())
        };
        println!(
            "| {skills} | {} | {:.3} s | {:.3} s | {:.2}× | {py} | {ratio} |",
            tree.skill_files + tree.other_files,
            floor.as_secs_f64(),
            reference.as_secs_f64(),
            reference.as_secs_f64() / floor.as_secs_f64(),
        );
    }
    println!(
        "\nmedians of {RUNS} runs after one warm-up; seed 1; {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
}
