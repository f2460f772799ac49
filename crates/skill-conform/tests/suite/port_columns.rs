//! One port selected in two versions runs as two columns, each with its own verdicts: the
//! reference stands in for a port here (`reference` and `reference@other`), so the test needs
//! no toolchain.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn a_port_in_two_versions_gets_two_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(["run", "--port", "reference@other", "--port", "reference"])
        .args(["--case", "discovery/**", "--report-dir"])
        .arg(tmp.path())
        .current_dir(repo())
        .env_remove("CI")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(tmp.path().join("report.json")).unwrap())
            .unwrap();
    let ports: Vec<&String> = report["ports"].as_object().unwrap().keys().collect();
    assert_eq!(ports, ["reference", "reference@other"]);
    let trials = report["trials"]["reference@other"].as_object().unwrap();
    assert!(!trials.is_empty());
    assert!(trials.values().all(|trial| trial["status"] == "pass"));
    let matrix = std::fs::read_to_string(tmp.path().join("matrix.txt")).unwrap();
    let header = matrix.lines().find(|l| l.contains("case ")).unwrap();
    assert!(header.contains("  reference@0.1.0"), "{matrix}");
    assert!(header.ends_with("  reference@other"), "{matrix}");
}
