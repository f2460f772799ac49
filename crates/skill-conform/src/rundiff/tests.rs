//! Each transition from small hand-built reports, and the edges: no golden hashes, no base.

use std::collections::BTreeMap;

use super::*;
use crate::judge::{CaseInfo, Evidence, HelloFacts, PortKind, PortStatus};
use crate::report::format::{PortEntry, TrialEntry, FORMAT};

fn id(text: &str) -> CaseId {
    CaseId::parse(text).unwrap()
}

/// A report with the reference and `python` at `version`; `cases` are (case, pinned, golden,
/// python's status). The reference passes everything.
fn report(version: &str, cases: &[(&str, bool, Option<&str>, Status)]) -> Report {
    let mut report = Report {
        format: FORMAT,
        ports: BTreeMap::new(),
        cases: BTreeMap::new(),
        trials: BTreeMap::new(),
        clusters: BTreeMap::new(),
        notes: Vec::new(),
        repeat: None,
        expectation_errors: Vec::new(),
        interop: None,
        tampered: Vec::new(),
        interrupted: None,
    };
    for (port, kind, version) in [
        ("reference", PortKind::Reference, "0.1.0"),
        ("python", PortKind::Real, version),
    ] {
        let entry = PortEntry {
            name: port.into(),
            kind,
            hello: HelloFacts {
                library_version: Some(version.into()),
                ..HelloFacts::default()
            },
            status: Some(PortStatus::Available),
            isolation: None,
            origin: None,
            totals: BTreeMap::new(),
            pinned: 0,
            pinned_pass: 0,
        };
        report.ports.insert(port.into(), entry);
    }
    for (case, pinned, golden, status) in cases {
        let info = CaseInfo {
            pinned: *pinned,
            rules: Vec::new(),
            golden_sha256: golden.map(golden_sha256),
        };
        report.cases.insert(id(case), info);
        for (port, status) in [("reference", Status::Pass), ("python", *status)] {
            let trial = TrialEntry {
                trial: format!("{port}::{case}"),
                pinned: *pinned,
                status,
                evidence: Evidence::default(),
            };
            let trials = report.trials.entry(port.into()).or_default();
            trials.insert(id(case), trial);
        }
    }
    report
}

fn kinds(base: &Report, new: &Report) -> Vec<(Kind, Option<String>, Option<String>)> {
    diff(base, new)
        .into_iter()
        .map(|t| (t.kind, t.port, t.case.map(|c| c.as_str().to_owned())))
        .collect()
}

fn one(kind: Kind, port: &str, case: &str) -> (Kind, Option<String>, Option<String>) {
    (kind, Some(port.into()), Some(case.into()))
}

#[test]
fn regression_and_fix_when_the_golden_stayed() {
    let base = report(
        "1",
        &[
            ("g/a", true, Some("A"), Status::Pass),
            ("g/b", true, Some("B"), Status::Fail),
        ],
    );
    let new = report(
        "1",
        &[
            ("g/a", true, Some("A"), Status::Fail),
            ("g/b", true, Some("B"), Status::Pass),
        ],
    );
    assert_eq!(
        kinds(&base, &new),
        [
            one(Kind::Regression, "python", "g/a"),
            one(Kind::Fixed, "python", "g/b")
        ]
    );
    let diff = RunDiff::Compared {
        transitions: diff(&base, &new),
    };
    assert!(diff.has_regression());
    assert!(render::terminal(&diff).contains("  regression  python  g/a   ok    FAIL\n"));
}

#[test]
fn a_moved_golden_is_spec_moved_never_a_regression() {
    let base = report("1", &[("g/a", true, Some("A"), Status::Pass)]);
    let new = report("1", &[("g/a", true, Some("A2"), Status::Fail)]);
    let got = diff(&base, &new);
    assert!(got.iter().all(|t| t.kind == Kind::SpecMoved), "{got:?}");
    assert_eq!(got.len(), 2, "the case, and python's status under it");
    assert_eq!(got[0].from, golden_sha256("A")[..12]);
}

#[test]
fn reports_without_golden_hashes_give_unknown() {
    let base = report("1", &[("g/a", true, None, Status::Pass)]);
    let new = report("1", &[("g/a", true, Some("A"), Status::Fail)]);
    assert_eq!(kinds(&base, &new), [one(Kind::Unknown, "python", "g/a")]);
}

#[test]
fn expectations_newly_declared_dropped_and_outgrown() {
    let base = report(
        "1",
        &[
            ("g/a", true, Some("A"), Status::Fail),
            ("g/b", true, Some("B"), Status::ExpectedFail),
            ("g/c", true, Some("C"), Status::ExpectedFail),
        ],
    );
    let new = report(
        "1",
        &[
            ("g/a", true, Some("A"), Status::ExpectedFail),
            ("g/b", true, Some("B"), Status::Fail),
            ("g/c", true, Some("C"), Status::UnexpectedPass),
        ],
    );
    assert_eq!(
        kinds(&base, &new),
        [
            one(Kind::ExpectationDropped, "python", "g/b"),
            one(Kind::Fixed, "python", "g/c"),
            one(Kind::NewlyExpected, "python", "g/a"),
        ]
    );
}

#[test]
fn cases_added_removed_and_port_versions() {
    let base = report("0.18.1", &[("g/a", true, Some("A"), Status::Pass)]);
    let mut new = report("0.21.0", &[("g/b", false, Some("B"), Status::Gap)]);
    new.ports.remove("reference");
    let got = diff(&base, &new);
    let rows: Vec<(Kind, &str, &str)> = got
        .iter()
        .map(|t| (t.kind, t.from.as_str(), t.to.as_str()))
        .collect();
    assert_eq!(rows[0].0, Kind::CaseAdded);
    assert_eq!(rows[1].0, Kind::CaseRemoved);
    assert_eq!(rows[2], (Kind::PortRemoved, "0.1.0", "-"));
    assert_eq!(rows[3], (Kind::PortVersionChanged, "0.18.1", "0.21.0"));
    assert_eq!(got.len(), 4);
}

#[test]
fn two_runs_of_the_same_reference_give_no_transition() {
    let base = report(
        "1",
        &[
            ("g/a", true, Some("A"), Status::Pass),
            ("g/b", false, Some("B"), Status::Gap),
        ],
    );
    let same = RunDiff::Compared {
        transitions: diff(&base, &base.clone()),
    };
    assert_eq!(
        same,
        RunDiff::Compared {
            transitions: vec![]
        }
    );
    assert!(!same.has_regression());
    assert!(render::summary(&same).starts_with("no transitions"));
}

#[test]
fn a_missing_base_is_said_not_failed_and_a_missing_new_report_is_a_usage_error() {
    let dir = crate::test_tempdir::tempdir();
    let new = dir.path().join("new");
    std::fs::create_dir(&new).unwrap();
    let text = serde_json::to_string(&report("1", &[])).unwrap();
    std::fs::write(new.join("report.json"), text).unwrap();
    let got = diff_paths(&dir.path().join("base"), &new).unwrap();
    assert!(matches!(got, RunDiff::NoBase { .. }) && !got.has_regression());
    assert!(render::markdown(&got).contains("nothing to compare"));
    assert!(render::json(&got).contains("\"missingBase\""));
    let err = diff_paths(&new, &dir.path().join("nope")).unwrap_err();
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn markdown_escapes_untrusted_versions() {
    let base = report("1", &[]);
    let new = report("<b>|x`", &[]);
    let diff = RunDiff::Compared {
        transitions: diff(&base, &new),
    };
    let text = render::markdown(&diff);
    assert!(text.contains("| &lt;b&gt;\\|x\\` |"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&render::json(&diff)).unwrap();
    assert_eq!(json["transitions"][0]["kind"], "port-version-changed");
    assert_eq!(json["counts"]["port-version-changed"], 1);
}

#[test]
fn other_status_changes_and_new_ports_are_said() {
    let base = report("1", &[("g/a", false, Some("A"), Status::Pass)]);
    let mut new = report("1", &[("g/a", false, Some("A"), Status::Gap)]);
    let mut js = new.ports["python"].clone();
    js.name = "js".into();
    new.ports.insert("js".into(), js);
    assert_eq!(
        kinds(&base, &new),
        [
            one(Kind::Changed, "python", "g/a"),
            (Kind::PortAdded, Some("js".into()), None)
        ]
    );
}

/// `report` with python renamed to `port`.
fn report_of(port: &str, version: &str, cases: &[(&str, bool, Option<&str>, Status)]) -> Report {
    let mut report = report(version, cases);
    let mut entry = report.ports.remove("python").unwrap();
    entry.name = port.into();
    report.ports.insert(port.into(), entry);
    let trials = report.trials.remove("python").unwrap_or_default();
    report.trials.insert(port.into(), trials);
    report
}

/// Writes each report as `DIR/skill-conform-report-<port>/report.json`, as the action's merge
/// mode downloads them.
fn job_folders(dir: &Path, reports: &[(&str, Report)]) {
    for (port, report) in reports {
        let job = dir.join(format!("skill-conform-report-{port}"));
        std::fs::create_dir_all(&job).unwrap();
        std::fs::write(
            job.join("report.json"),
            serde_json::to_string(report).unwrap(),
        )
        .unwrap();
    }
}

#[test]
fn folders_of_job_reports_are_compared_as_one_run_each() {
    let dir = crate::test_tempdir::tempdir();
    let (base, new) = (dir.path().join("base"), dir.path().join("new"));
    let case = |status| [("g/a", true, Some("A"), status)];
    job_folders(
        &base,
        &[
            ("js", report_of("js", "1", &case(Status::Pass))),
            ("python", report_of("python", "1", &case(Status::Fail))),
        ],
    );
    job_folders(
        &new,
        &[
            ("js", report_of("js", "1", &case(Status::Fail))),
            ("python", report_of("python", "1", &case(Status::Pass))),
        ],
    );
    // Besides the jobs' folders, the merge job's own files and the base folder sit there.
    std::fs::create_dir_all(new.join("base")).unwrap();
    std::fs::write(new.join("matrix.md"), "x").unwrap();
    let RunDiff::Compared { transitions } = diff_paths(&base, &new).unwrap() else {
        panic!("both runs are there");
    };
    let kinds: Vec<_> = transitions
        .iter()
        .map(|t| (t.kind, t.port.as_deref().map(str::to_owned)))
        .collect();
    assert_eq!(
        kinds,
        [
            (Kind::Regression, Some("js".to_owned())),
            (Kind::Fixed, Some("python".to_owned()))
        ]
    );
    // One port in two jobs' reports is refused, naming the second file.
    job_folders(&new, &[("python-again", report_of("python", "1", &[]))]);
    let error = diff_paths(&base, &new).unwrap_err().to_string();
    assert!(
        error.contains("skill-conform-report-python-again/report.json"),
        "{error}"
    );
    // A folder with no report in it is no base.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(matches!(
        diff_paths(&empty, &new.join("skill-conform-report-js")).unwrap(),
        RunDiff::NoBase { .. }
    ));
}
