//! The determinism check (`run --repeat N`) and order independence, end to end: an adapter
//! whose output changes between runs of a case is `nondeterministic`; the reference repeated
//! (or with its cases shuffled) writes the same reports byte for byte as a single pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use skill_conform::run::pass_orders;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");
/// The report files compared byte for byte (report.json without its `repeat` block).
const FILES: [&str; 4] = ["report.json", "junit.xml", "summary.md", "matrix.txt"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `skill-conform run --repo REPO --report-dir DIR --redact-volatile ARGS…`, clean environment.
fn run(report_dir: &Path, args: &[&str]) -> Output {
    let mut command = Command::new(BIN);
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

#[test]
fn an_adapter_that_changes_between_runs_is_nondeterministic() {
    let tmp = tempfile::tempdir().unwrap();
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
    assert_eq!(
        trial["evidence"]["repro"],
        "skill-conform run --port nd --repeat 2 -- --exact nd::frontmatter/plain"
    );
    assert_eq!(report["repeat"]["passes"], 2);
    assert_eq!(report["repeat"]["seed"], 7);

    // A single pass cannot see it.
    let single = tmp.path().join("single");
    let out = run(&single, &["--adapter", &adapter, "--case", "frontmatter/*"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(report_has_no_repeat(&single));
}

fn report_has_no_repeat(dir: &Path) -> bool {
    report(dir).get("repeat").is_none()
}

#[test]
fn the_reference_repeated_writes_the_reports_of_one_pass() {
    let tmp = tempfile::tempdir().unwrap();
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

#[test]
fn shuffled_case_order_writes_byte_identical_reports() {
    let tmp = tempfile::tempdir().unwrap();
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

#[test]
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
