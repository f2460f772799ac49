//! The runner against misbehaving adapters: each fault gets its own status, the other ports'
//! verdicts are unchanged, and every report is still written. The faulty adapters are this
//! binary's own `adapter --reference --fault MODE`, misbehaving on one case only.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::repo;

/// Runs `skill-conform run ARGS` with a clean environment; returns the exit code, stdout and
/// the parsed report.json.
fn run(args: &[String], report_dir: &Path) -> (i32, String, Value) {
    let (code, stdout) = run_only(args, report_dir);
    let report =
        std::fs::read_to_string(report_dir.join("report.json")).expect("report.json written");
    let report = serde_json::from_str(&report).expect("report.json parses");
    (code, stdout, report)
}

/// Runs `skill-conform run ARGS` with a clean environment, without reading the report.
fn run_only(args: &[String], report_dir: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .arg("run")
        .args(["--repo".as_ref(), repo().as_os_str()])
        .args(["--report-dir".as_ref(), report_dir.as_os_str()])
        .args(args)
        .env_remove("CI")
        .env_remove("SKILL_CONFORM_FAULT_CASES")
        .output()
        .expect("skill-conform runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Each trial's status in a report.json, by port then case (sorted).
fn trial_statuses(report: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    #[derive(serde::Deserialize)]
    struct Report {
        trials: BTreeMap<String, BTreeMap<String, Trial>>,
    }
    #[derive(serde::Deserialize)]
    struct Trial {
        status: String,
    }
    let text = std::fs::read_to_string(report).expect("report.json written");
    let report: Report = serde_json::from_str(&text).expect("report.json parses");
    report
        .trials
        .into_iter()
        .map(|(port, trials)| {
            let statuses = trials.into_iter().map(|(case, t)| (case, t.status));
            (port, statuses.collect())
        })
        .collect()
}

fn status(report: &Value, port: &str, case: &str) -> String {
    report["trials"][port][case]["status"]
        .as_str()
        .unwrap_or("missing")
        .to_owned()
}

fn each_fault_gets_its_own_status_and_spares_the_other_ports() {
    let bin = env!("CARGO_BIN_EXE_skill-conform");
    let faults = [
        ("hang", "timeout"),
        ("crash", "crash"),
        ("exit", "broken"),
        ("banner", "protocol-error"),
        ("invalid-json", "protocol-error"),
        ("wrong-id", "protocol-error"),
        ("huge", "protocol-error"),
        ("bad-handshake", "broken"),
    ];
    let mut args: Vec<String> = vec!["--port".into(), "reference".into()];
    for (mode, _) in faults {
        args.push("--adapter".into());
        args.push(format!(
            "f-{mode}={bin} adapter --reference --fault {mode} --fault-cases frontmatter/plain"
        ));
    }
    for case in ["frontmatter/plain", "frontmatter/colon-space"] {
        args.push("--case".into());
        args.push(case.into());
    }
    // The hang costs one run timeout; a second is ample for the others' one case each.
    args.extend(["--run-timeout", "1", "--handshake-timeout", "20"].map(String::from));
    let dir = crate::common::tempdir();
    let (code, stdout, report) = run(&args, dir.path());

    assert_eq!(code, 3, "a broken port makes the run exit 3\n{stdout}");
    for case in ["frontmatter/plain", "frontmatter/colon-space"] {
        assert_eq!(status(&report, "reference", case), "pass", "{case}");
    }
    for (mode, expected) in faults {
        let port = format!("f-{mode}");
        assert_eq!(
            status(&report, &port, "frontmatter/plain"),
            expected,
            "{mode}\n{stdout}"
        );
        let after = if expected == "broken" {
            "broken"
        } else {
            "pass"
        };
        assert_eq!(
            status(&report, &port, "frontmatter/colon-space"),
            after,
            "{mode} after the fault"
        );
    }
    for file in ["report.json", "junit.xml", "summary.md", "matrix.txt"] {
        assert!(dir.path().join(file).is_file(), "{file} written");
    }
    // The stderr tail and a reproduction command travel with the failure; the command names
    // the adapter as given and the repository (not the current directory).
    let hang = args.iter().find(|arg| arg.starts_with("f-hang=")).unwrap();
    let repo = repo().canonicalize().unwrap();
    assert!(
        stdout.contains(&format!(
            "reproduce: skill-conform run --adapter '{hang}' --repo {} -- --exact f-hang::frontmatter/plain",
            repo.display()
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("injecting fault `exit`"),
        "stderr tail of the broken port\n{stdout}"
    );
}

fn every_mutant_adapter_fails_exactly_where_the_mutants_command_says() {
    let bin = env!("CARGO_BIN_EXE_skill-conform");
    let (cases, outcomes) = crate::common::mutant_outcomes();
    let mut args: Vec<String> = vec!["--port".into(), "reference".into()];
    for outcome in outcomes {
        args.push("--adapter".into());
        args.push(format!(
            "m-{m}={bin} adapter --reference --mutant {m}",
            m = outcome.mutant
        ));
    }
    let dir = crate::common::tempdir();
    let (code, stdout) = run_only(&args, dir.path());
    assert_eq!(
        code,
        1,
        "pinned mutants fail pinned cases\n{}",
        &stdout[stdout.len().saturating_sub(2000)..]
    );
    // Only the statuses: the 36 ports' report.json is ~19 MB, mostly evidence, which a typed
    // read skips instead of building it as a `Value`.
    let statuses = trial_statuses(&dir.path().join("report.json"));
    let status = |port: &str, case: &str| {
        statuses
            .get(port)
            .and_then(|trials| trials.get(case))
            .map_or("missing", String::as_str)
            .to_owned()
    };
    for case in cases {
        assert_eq!(status("reference", case.id.as_str()), "pass", "{}", case.id);
    }
    for outcome in outcomes {
        let port = format!("m-{}", outcome.mutant);
        let not_passing: Vec<String> = statuses[&port]
            .iter()
            .filter(|(_, status)| *status != "pass")
            .map(|(case, _)| case.clone())
            .collect();
        let killers: Vec<String> = outcome
            .killed_by
            .iter()
            .map(|(id, _)| id.to_string())
            .collect();
        assert_eq!(not_passing, killers, "{port}");
    }
}

/// A port that hangs on everything costs `--max-timeouts` timeouts, not one per case: after
/// three in a row it is broken and the rest of its cases are `not-run`.
fn a_port_that_hangs_on_everything_is_given_up_after_three_timeouts() {
    let bin = env!("CARGO_BIN_EXE_skill-conform");
    let args: Vec<String> = vec![
        "--adapter".into(),
        format!("f-hang={bin} adapter --reference --fault hang --fault-cases frontmatter/*"),
        "--case".into(),
        "frontmatter/*".into(),
        // Every case hangs, so nothing here needs the time: three short timeouts tell.
        "--run-timeout".into(),
        "0.5".into(),
    ];
    let dir = crate::common::tempdir();
    let began = std::time::Instant::now();
    let (code, stdout, report) = run(&args, dir.path());
    let took = began.elapsed();
    let trials = report["trials"]["f-hang"]
        .as_object()
        .expect("f-hang trials");
    let count = |wanted: &str| {
        trials
            .values()
            .filter(|trial| trial["status"] == wanted)
            .count()
    };
    assert!(trials.len() > 10, "enough cases to tell: {}", trials.len());
    assert_eq!(count("timeout"), 3, "{stdout}");
    assert_eq!(count("not-run"), trials.len() - 3, "{stdout}");
    assert_eq!(code, 3, "a given-up port is broken\n{stdout}");
    assert!(
        stdout.contains("timed out on 3 cases in a row (--max-timeouts 3)"),
        "{stdout}"
    );
    assert!(took.as_secs() < 20, "about three timeouts, took {took:?}");
}

crate::tests![
    each_fault_gets_its_own_status_and_spares_the_other_ports,
    every_mutant_adapter_fails_exactly_where_the_mutants_command_says,
    a_port_that_hangs_on_everything_is_given_up_after_three_timeouts,
];
