//! `skill-conform diff` end to end: two runs of the reference give no transition and exit 0;
//! a verdict that breaks with the golden unchanged is a regression (exit 1) and with the golden
//! moved is `spec moved` (exit 0); Markdown and JSON land in the files asked for.

use std::path::Path;

use serde_json::Value;

use crate::common::skill_conform;

fn run_reference(dir: &Path) {
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--case",
        "discovery/**",
        "--report-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

fn edit(dir: &Path, change: impl FnOnce(&mut Value)) {
    let path = dir.join("report.json");
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    change(&mut value);
    std::fs::write(path, value.to_string()).unwrap();
}

fn diff_of_two_reference_runs_then_a_regression_then_a_moved_spec() {
    let tmp = crate::common::tempdir();
    let (base, new) = (tmp.path().join("base"), tmp.path().join("new"));
    run_reference(&base);
    run_reference(&new);
    let arg = |path: &Path| path.to_str().unwrap().to_owned();
    let out = skill_conform(&["diff", &arg(&base), &arg(&new)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("no transitions"), "{stdout}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(new.join("report.json")).unwrap()).unwrap();
    let case = report["cases"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    edit(&new, |value| {
        value["trials"]["reference"][&case]["status"] = Value::from("fail");
    });
    let (markdown, json) = (tmp.path().join("diff.md"), tmp.path().join("diff.json"));
    let out = skill_conform(&[
        "diff",
        &arg(&base.join("report.json")),
        &arg(&new),
        "--markdown",
        &arg(&markdown),
        "--json",
        &arg(&json),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains(&format!("regression  reference  {case}")),
        "{stdout}"
    );
    let md = std::fs::read_to_string(&markdown).unwrap();
    assert!(
        md.starts_with("## skill-conform diff\n\n1 transition: 1 regression\n"),
        "{md}"
    );
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(json["regression"], Value::Bool(true));

    edit(&new, |value| {
        value["cases"][&case]["goldenSha256"] = Value::from("0123456789abcdef");
    });
    let out = skill_conform(&["diff", &arg(&base), &arg(&new)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("spec moved"), "{stdout}");
    assert!(!stdout.contains("regression"), "{stdout}");
}

crate::tests![diff_of_two_reference_runs_then_a_regression_then_a_moved_spec,];
