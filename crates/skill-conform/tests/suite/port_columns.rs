//! One port selected in two versions runs as two columns, each with its own verdicts: the
//! reference stands in for a port here (`reference` and `reference@other`), so the test needs
//! no toolchain.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::repo;

fn a_port_in_two_versions_gets_two_columns() {
    let tmp = crate::common::tempdir();
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

/// Every column names where its library came from, a versioned one (`standin@2.0.0`) too: a
/// stand-in repository whose one port is the reference served as an adapter.
fn each_column_of_a_port_in_two_versions_names_its_origin() {
    let tmp = crate::common::tempdir();
    let bin = Path::new(env!("CARGO_BIN_EXE_skill-conform"));
    let root = crate::common::stand_in_repo(tmp.path(), &["standin"], bin);
    let out = Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(["run", "--port", "standin@2.0.0", "--port", "standin"])
        .args(["--case", "discovery/**", "--repo"])
        .arg(&root)
        .arg("--report-dir")
        .arg(tmp.path().join("reports"))
        .env_remove("CI")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(tmp.path().join("reports/report.json")).unwrap(),
    )
    .unwrap();
    let origin = |column: &str| {
        report["ports"][column]["origin"]
            .as_str()
            .map(str::to_owned)
    };
    let ports: Vec<&String> = report["ports"].as_object().unwrap().keys().collect();
    let versioned = ports
        .iter()
        .find(|p| p.contains("2.0.0"))
        .expect("a 2.0.0 column");
    let pinned = ports.iter().find(|p| !p.contains("2.0.0")).unwrap();
    assert!(
        origin(versioned).is_some_and(|o| o.contains("@2.0.0")),
        "{report}"
    );
    assert!(
        origin(pinned).is_some_and(|o| o.contains("1.0.0")),
        "{report}"
    );
}

crate::tests![
    a_port_in_two_versions_gets_two_columns,
    each_column_of_a_port_in_two_versions_names_its_origin,
];
