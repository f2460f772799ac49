//! The determinism check (`run --repeat N`) and order independence, end to end: an adapter
//! whose output changes between runs of a case is `nondeterministic`; the reference repeated
//! (or with its cases shuffled) writes the same reports byte for byte as a single pass.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use skill_conform::run::pass_orders;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");
/// The report files compared byte for byte (report.json without its `repeat` block).
const FILES: [&str; 4] = ["report.json", "junit.xml", "summary.md", "matrix.txt"];

use crate::common::repo;

/// `skill-conform run --repo REPO --report-dir DIR --redact-volatile ARGS…`, clean environment.
fn run(report_dir: &Path, args: &[&str]) -> Output {
    run_in(report_dir, std::env::var_os("TMPDIR").as_deref(), args)
}

/// [`run`] with `TMPDIR` set to `tmpdir`, or unset.
fn run_in(report_dir: &Path, tmpdir: Option<&std::ffi::OsStr>, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
    match tmpdir {
        Some(dir) => command.env("TMPDIR", dir),
        None => command.env_remove("TMPDIR"),
    };
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("SKILL_CONFORM_") || key == "CI" {
            command.env_remove(key);
        }
    }
    command
        .args(["run", "--repo"])
        .arg(repo())
        .arg("--report-dir")
        .arg(report_dir)
        .arg("--redact-volatile")
        .args(args)
        .output()
        .expect("skill-conform runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// The file's bytes; for report.json, with the `repeat` block (passes, seed) taken out.
fn comparable(dir: &Path, name: &str) -> Vec<u8> {
    if name == "report.json" {
        let mut value = report(dir);
        value.as_object_mut().unwrap().remove("repeat");
        skill_ref::canonical::to_canonical_string(&value).into_bytes()
    } else {
        std::fs::read(dir.join(name)).unwrap()
    }
}

fn statuses(report: &Value, port: &str) -> Vec<(String, String)> {
    report["trials"][port]
        .as_object()
        .unwrap()
        .iter()
        .map(|(case, trial)| (case.clone(), trial["status"].as_str().unwrap().to_owned()))
        .collect()
}

fn an_adapter_that_changes_between_runs_is_nondeterministic() {
    let tmp = crate::common::tempdir();
    let adapter = format!(
        "nd={BIN} adapter --reference --fault nondeterministic --fault-cases frontmatter/plain,frontmatter/url-colon"
    );
    let out = run(
        tmp.path(),
        &[
            "--port",
            "reference",
            "--adapter",
            &adapter,
            "--case",
            "frontmatter/*",
            "--repeat",
            "2",
            "--seed",
            "7",
        ],
    );
    let stderr = text(&out.stderr);
    // Pinned cases that are nondeterministic fail the run.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}\n{stderr}",
        text(&out.stdout)
    );
    assert!(
        stderr.contains("seed 7 (replay: --repeat 2 --seed 7)"),
        "{stderr}"
    );
    let report = report(tmp.path());
    for (case, status) in statuses(&report, "nd") {
        let expected = if case == "frontmatter/plain" || case == "frontmatter/url-colon" {
            "nondeterministic"
        } else {
            "pass"
        };
        assert_eq!(status, expected, "nd::{case}");
    }
    assert!(statuses(&report, "reference")
        .iter()
        .all(|(_, s)| s == "pass"));
    let trial = &report["trials"]["nd"]["frontmatter/plain"];
    assert_eq!(trial["evidence"]["mismatches"][0]["pointer"], "/prompt");
    // The reproduce line names the adapter as given, the repository (not the current
    // directory) and the repetition that showed the status (the report says `[REPO]`).
    assert_eq!(
        trial["evidence"]["repro"],
        format!(
            "skill-conform run --adapter '{}' --repo [REPO] --repeat 2 --seed 7 -- --exact nd::frontmatter/plain",
            adapter.replace(&repo().canonicalize().unwrap().display().to_string(), "[REPO]")
        )
    );
    assert_eq!(report["repeat"]["passes"], 2);
    assert_eq!(report["repeat"]["seed"], 7);

    // A single pass cannot see it.
    let single = tmp.path().join("single");
    let out = run(&single, &["--adapter", &adapter, "--case", "frontmatter/*"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(report_has_no_repeat(&single));
}

/// The fault adapter whose output follows directory read order (`tests/fixtures`).
fn raw_order_adapter() -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/raw-order-adapter.py");
    format!("raw=python3 {} {BIN}", script.display())
}

/// The cases of `port` whose status is `nondeterministic`.
fn nondeterministic(report: &Value, port: &str) -> Vec<String> {
    statuses(report, port)
        .into_iter()
        .filter(|(_, status)| status == "nondeterministic")
        .map(|(case, _)| case)
        .collect()
}

/// A port that lists directories in raw filesystem order passes where the sandbox's entries
/// come back sorted and fails elsewhere. `--repeat 3` builds the later passes with their entries
/// created in a seeded shuffled order, alternating `/dev/shm` and `/tmp` where both exist, so
/// the port is `nondeterministic` on those cases: with a `TMPDIR` on tmpfs (one base: only the
/// shuffle can show it) and without one (both bases).
fn a_port_that_follows_directory_read_order_is_nondeterministic_under_repeat() {
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("skipped: no /dev/shm");
        return;
    }
    let tmp = crate::common::tempdir();
    let memory = tempfile::tempdir_in(shm).unwrap();
    let adapter = raw_order_adapter();
    let args = [
        "--adapter",
        &adapter,
        "--case",
        "discovery/*",
        "--case",
        "hazards/symlink-alias",
        "--repeat",
        "3",
        "--seed",
        "11",
    ];
    let one_base = tmp.path().join("one-base");
    let out = run_in(&one_base, Some(memory.path().as_os_str()), &args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let said = report(&one_base);
    let shown = nondeterministic(&said, "raw");
    assert!(
        shown.len() >= 2,
        "the shuffled entry order shows the port's read order: {shown:?}"
    );
    // Its only copied entry is `real`; `0alias` is a link made after the copy: only adding
    // every entry again, links too, in shuffled order shows the order there.
    assert!(
        shown.contains(&"hazards/symlink-alias".to_owned()),
        "{shown:?}"
    );
    let base = memory.path().canonicalize().unwrap();
    for (pass, entries) in ["sorted", "shuffled", "shuffled"].iter().enumerate() {
        let placement = &said["repeat"]["sandboxes"][pass];
        assert_eq!(placement["entries"], *entries, "pass {}", pass + 1);
        assert_eq!(placement["base"], memory.path().display().to_string());
    }
    assert!(base.starts_with(shm));

    let two_bases = tmp.path().join("two-bases");
    let out = run_in(&two_bases, None, &args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let said = report(&two_bases);
    assert!(nondeterministic(&said, "raw").len() >= 2);
    let bases: Vec<&str> = (0..3)
        .map(|pass| said["repeat"]["sandboxes"][pass]["base"].as_str().unwrap())
        .collect();
    assert_eq!(bases, ["/dev/shm", "/tmp", "/dev/shm"]);
    assert!(text(&out.stderr).contains(
        "sandboxes: pass 1 in /dev/shm (entries sorted), pass 2 in /tmp (entries shuffled), pass 3 in /dev/shm (entries shuffled)"
    ));

    // One pass in memory, in sorted order: the port looks deterministic there.
    let single = tmp.path().join("single");
    let out = run_in(&single, None, &args[..6]);
    let said = report(&single);
    assert!(
        nondeterministic(&said, "raw").is_empty(),
        "{}",
        text(&out.stdout)
    );
}

fn report_has_no_repeat(dir: &Path) -> bool {
    report(dir).get("repeat").is_none()
}

fn the_reference_repeated_writes_the_reports_of_one_pass() {
    let tmp = crate::common::tempdir();
    let (once, twice) = (tmp.path().join("once"), tmp.path().join("twice"));
    let out = run(&once, &["--port", "reference"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        !text(&out.stderr).contains("seed"),
        "a single plan-order pass draws no seed"
    );
    // No --seed: one is drawn and printed so the run can be replayed.
    let out = run(&twice, &["--port", "reference", "--repeat", "2"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    let seed: u64 = stderr
        .split("--seed ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no seed on stderr: {stderr}"));
    let repeated = report(&twice);
    assert_eq!(repeated["repeat"]["seed"], seed);
    assert_eq!(repeated["repeat"]["rawDifferences"], serde_json::json!({}));
    assert!(statuses(&repeated, "reference")
        .iter()
        .all(|(_, s)| s == "pass"));
    for name in FILES {
        assert!(
            comparable(&once, name) == comparable(&twice, name),
            "{name} differs between --repeat 1 and --repeat 2"
        );
    }
}

fn shuffled_case_order_writes_byte_identical_reports() {
    let tmp = crate::common::tempdir();
    let (plain, shuffled) = (tmp.path().join("plain"), tmp.path().join("shuffled"));
    let out = run(&plain, &["--port", "reference"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let out = run(
        &shuffled,
        &["--port", "reference", "--shuffle", "--seed", "3"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    for name in FILES {
        assert!(
            std::fs::read(plain.join(name)).unwrap() == std::fs::read(shuffled.join(name)).unwrap(),
            "{name} depends on the order the cases ran in"
        );
    }
    // Nothing volatile is left: no sandbox path, no duration.
    let json = std::fs::read_to_string(plain.join("report.json")).unwrap();
    assert!(
        !json.contains("/skill-conform-"),
        "a sandbox path is left in report.json"
    );
    fn numeric_duration(value: &Value) -> bool {
        match value {
            Value::Object(map) => map
                .iter()
                .any(|(k, v)| (k == "durationMs" && v.is_number()) || numeric_duration(v)),
            Value::Array(items) => items.iter().any(numeric_duration),
            _ => false,
        }
    }
    assert!(json.contains("[DURATION]"));
    assert!(
        !numeric_duration(&report(&plain)),
        "a duration is left in report.json"
    );
}

fn pass_orders_are_seeded_and_the_first_keeps_plan_order() {
    let orders = pass_orders(50, 3, false, 11);
    assert_eq!(orders.len(), 3);
    assert_eq!(orders[0], (0..50).collect::<Vec<_>>());
    assert_ne!(orders[1], orders[0]);
    assert_ne!(orders[1], orders[2]);
    for order in &orders {
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
    }
    assert_eq!(pass_orders(50, 3, false, 11), orders);
    assert_ne!(pass_orders(50, 3, false, 12), orders);
    assert_ne!(pass_orders(50, 1, true, 11)[0], orders[0]);
    assert_eq!(pass_orders(5, 0, false, 1).len(), 1);
}

crate::tests![
    an_adapter_that_changes_between_runs_is_nondeterministic,
    a_port_that_follows_directory_read_order_is_nondeterministic_under_repeat,
    the_reference_repeated_writes_the_reports_of_one_pass,
    shuffled_case_order_writes_byte_identical_reports,
    pass_orders_are_seeded_and_the_first_keeps_plan_order,
];
