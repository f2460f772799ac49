//! The command line as a user meets it: bad input is one line on stderr naming the thing and the
//! fix, with exit 2; the reference passes its own suite; `--list` starts no adapter.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::{case_count, copy_from_repo, skill_conform};

/// Exit 2 and exactly one line on stderr that starts with `error: ` and contains `needle`.
fn assert_usage_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains(needle), "`{needle}` in {stderr}");
}

fn an_unknown_port_lists_the_valid_ones() {
    let out = skill_conform(&["run", "--port", "cobol"]);
    assert_usage_error(&out, "unknown port `cobol` (valid: clojure, csharp, elixir, golang, java, js, python, reference;");
}

fn a_missing_fixture_dir_names_it_and_the_fix() {
    let empty = crate::common::tempdir();
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--repo",
        empty.path().to_str().unwrap(),
    ]);
    assert_usage_error(&out, "conformance-fixtures` does not exist (hint: run from the repository root or pass --repo DIR)");
    let out = skill_conform(&[
        "goldens",
        "--check",
        "--repo",
        empty.path().to_str().unwrap(),
    ]);
    assert_usage_error(&out, "does not exist");
}

fn a_bad_manifest_names_the_file_and_the_field() {
    let tmp = crate::common::tempdir();
    let case = tmp.path().join("conformance-fixtures/frontmatter/bad");
    std::fs::create_dir_all(case.join("skills/x")).unwrap();
    std::fs::write(
        case.join("case.toml"),
        "summary = \"s\"\npinnedd = true\nrules = [\"TN-YAML-1\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(tmp.path().join("goldens")).unwrap();
    let out = skill_conform(&["goldens", "--check", "--repo", tmp.path().to_str().unwrap()]);
    assert_usage_error(&out, "frontmatter/bad/case.toml");
    assert!(String::from_utf8_lossy(&out.stderr).contains("pinnedd"));
}

fn a_case_glob_that_matches_nothing_is_an_error() {
    let out = skill_conform(&["run", "--port", "reference", "--case", "nothing/here"]);
    assert_usage_error(&out, "--case `nothing/here` matches no case");
}

fn ref_refuses_a_missing_root() {
    let out = skill_conform(&["ref", "/no/such/root"]);
    assert_usage_error(&out, "root `/no/such/root` is not a directory");
}

fn bad_flags_are_usage_errors() {
    let out = skill_conform(&["run", "--require", ""]);
    assert_eq!(out.status.code(), Some(2));
    let out = skill_conform(&["ref", "x", "--filter", "nobool"]);
    assert_eq!(out.status.code(), Some(2));
    let out = skill_conform(&["adapter", "--reference", "--mutant", "no-such-mutant"]);
    assert_eq!(out.status.code(), Some(2));
}

fn the_reference_passes_its_own_suite() {
    let reports = crate::common::tempdir();
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--require",
        "reference",
        "--report-dir",
        reports.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    // By default: the matrix with its legend and the terse summary, no libtest listing.
    let expected = format!("skill-conform: {n} trials in ", n = case_count());
    assert!(stdout.contains(&expected), "{stdout}");
    assert!(
        stdout.ends_with(&format!(": {} pass; 0 failing\n", case_count())),
        "{stdout}"
    );
    assert!(stdout.contains("\nlegend: ok pass"), "{stdout}");
    assert!(!stdout.contains("test result:"), "{stdout}");
    assert!(!stdout.contains("finished in 0.00s"), "{stdout}");
    // One status line per port on stderr.
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("reference: setting up…\nreference: ready"),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("reference: {} cases run in ", case_count())),
        "{stderr}"
    );
}

fn the_libtest_listing_is_behind_a_flag() {
    let reports = crate::common::tempdir();
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--libtest",
        "--report-dir",
        reports.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let expected = format!("test result: ok. {} passed; 0 failed", case_count());
    assert!(stdout.contains(&expected), "{stdout}");
    assert!(stdout.contains("test reference::frontmatter/"), "{stdout}");
}

fn list_names_every_trial_without_starting_adapters() {
    let reports = crate::common::tempdir();
    let report_dir = reports.path().join("never");
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--port",
        "golang",
        "--report-dir",
        report_dir.to_str().unwrap(),
        "--",
        "--list",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout.contains("golang::frontmatter/colon-space: test"),
        "{stdout}"
    );
    assert!(stdout.contains("reference::tool/declaration: test"));
    // Listing ran nothing: no port was set up or judged, so no report was written.
    assert!(!stdout.contains("reports written"), "{stdout}");
    assert!(!report_dir.exists());
}

fn a_stale_expectation_fails_the_run_and_is_in_every_report() {
    let tmp = crate::common::tempdir();
    for rel in [
        "conformance-fixtures/frontmatter/colon-space",
        "goldens/frontmatter/colon-space.json",
        "goldens/VERSION",
        "adapters/ports.toml",
    ] {
        copy_from_repo(rel, tmp.path());
    }
    std::fs::create_dir_all(tmp.path().join("adapters/reference")).unwrap();
    std::fs::write(
        tmp.path().join("adapters/reference/expected.toml"),
        "[[divergence]]\ncases = \"gone/*\"\nreason = \"a case deleted since\"\n",
    )
    .unwrap();
    let reports = tmp.path().join("reports");
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--repo",
        tmp.path().to_str().unwrap(),
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(": 1 pass; 1 failing"), "{stdout}");
    // The terminal shows the real path (to paste); the shared files say [REPO].
    let repo = std::fs::canonicalize(tmp.path()).unwrap();
    let message =
        "/adapters/reference/expected.toml`: line 2: entry 1, field `cases`: `gone/*` matches no case";
    assert!(
        stdout.contains(&format!(
            "expectation errors, failing (1)\n\nreference: error in `{}{message}",
            repo.display()
        )),
        "{stdout}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("report.json")).unwrap())
            .unwrap();
    assert_eq!(report["expectationErrors"][0]["port"], "reference");
    let summary = std::fs::read_to_string(reports.join("summary.md")).unwrap();
    assert!(summary.contains("## Expectation errors (1)"), "{summary}");
    assert!(
        summary.contains("`[REPO]/adapters/reference/expected.toml`"),
        "{summary}"
    );
    let junit = std::fs::read_to_string(reports.join("junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<testcase name="expected.toml" classname="reference">"#),
        "{junit}"
    );
}

fn every_report_names_where_a_port_came_from() {
    let reports = crate::common::tempdir();
    let adapter = format!(
        "other={} adapter --reference",
        env!("CARGO_BIN_EXE_skill-conform")
    );
    let out = skill_conform(&[
        "run",
        "--adapter",
        &adapter,
        "--case",
        "frontmatter/colon-space",
        "--report-dir",
        reports.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.path().join("report.json")).unwrap())
            .unwrap();
    let origin = report["ports"]["other"]["origin"].as_str().unwrap();
    assert!(origin.starts_with("adapter `") && origin.ends_with(" adapter --reference`"));
    // The matrix header and the totals carry the version and the origin too.
    assert!(stdout.contains("  other@"), "{stdout}");
    assert!(stdout.contains(", from adapter `"), "{stdout}");
}

fn explain_shows_the_rules_the_bytes_and_the_golden() {
    let out = skill_conform(&["explain", "frontmatter/colon-space"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let rule = skill_ref::rules::lookup("TN-RESC-2").unwrap();
    assert!(stdout.contains(&format!("rule: {rule}\n")), "{stdout}");
    assert!(
        stdout.contains("  skills/colon-space/SKILL.md ("),
        "{stdout}"
    );
    assert!(
        stdout.contains("golden (goldens/frontmatter/colon-space.json):"),
        "{stdout}"
    );
    let out = skill_conform(&["explain", "frontmatter/colon-spaces"]);
    assert_usage_error(&out, "did you mean `frontmatter/colon-space`?");
}

fn a_failing_pinned_case_names_its_rules_with_their_text() {
    let exe = env!("CARGO_BIN_EXE_skill-conform");
    let adapter = format!("wrong={exe} adapter --reference --mutant rescue-keeps-quotes");
    let reports = crate::common::tempdir();
    let out = skill_conform(&[
        "run",
        "--adapter",
        &adapter,
        "--case",
        "frontmatter/rescue-quoted",
        "--report-dir",
        reports.path().to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let rule = skill_ref::rules::lookup("TN-RESC-2").unwrap();
    assert!(stdout.contains(&format!("rule: {rule}\n")), "{stdout}");
    let summary = std::fs::read_to_string(reports.path().join("summary.md")).unwrap();
    assert!(summary.contains(&format!("rule: {rule}\n")), "{summary}");
}

/// Every numeric flag is bounded when parsed: the largest u64 (and zero where it makes no sense)
/// is a usage error naming the flag and its range, never a panic or a run that overflows later.
fn every_numeric_flag_is_bounded_when_parsed() {
    const HUGE: &str = "18446744073709551615";
    let tmp = crate::common::tempdir();
    let dir = tmp.path().join("tree");
    let dir = dir.to_str().unwrap();
    let cases: [&[&str]; 9] = [
        &["run", "--run-timeout", HUGE],
        &["run", "--handshake-timeout", HUGE],
        &["run", "--run-timeout", "0"],
        &["run", "--repeat", HUGE],
        &["run", "--max-timeouts", HUGE],
        &["run", "--max-timeouts", "0"],
        &["corpus", dir, "--run-timeout", HUGE],
        &["corpus", dir, "--handshake-timeout", HUGE],
        &["gen-corpus", dir, "--skills", HUGE],
    ];
    for args in cases {
        let out = skill_conform(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with(&format!("error: invalid value '{}'", args[args.len() - 1])),
            "{args:?}: {stderr}"
        );
    }
    let out = skill_conform(&["gen-corpus", dir, "--skills", "1000001"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not in 1..=1000000"),
        "gen-corpus states its bound"
    );
    assert!(!Path::new(dir).exists(), "nothing written");
}

/// A fixture no sandbox can be built from (here a FIFO in its tree) is a fixture problem: exit 2
/// naming the case, before any port is judged, not an `error` verdict on every port.
fn a_fifo_in_a_fixture_is_exit_2_naming_the_case() {
    let tmp = crate::common::tempdir();
    for rel in [
        "conformance-fixtures/frontmatter/colon-space",
        "goldens/frontmatter/colon-space.json",
        "goldens/VERSION",
        "adapters/ports.toml",
    ] {
        copy_from_repo(rel, tmp.path());
    }
    let skills = tmp
        .path()
        .join("conformance-fixtures/frontmatter/colon-space/skills");
    let fifo = walkdir::WalkDir::new(&skills)
        .into_iter()
        .flatten()
        .find(|entry| entry.file_type().is_dir() && entry.path() != skills)
        .expect("a skill directory")
        .path()
        .join("pipe");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reports = tmp.path().join("reports");
    let out = skill_conform(&[
        "run",
        "--port",
        "reference",
        "--repo",
        tmp.path().to_str().unwrap(),
        "--report-dir",
        reports.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("frontmatter/colon-space"), "{stderr}");
    assert!(
        !reports.join("report.json").exists(),
        "no verdicts on the ports"
    );
}

/// A report directory that cannot be written is refused before the first adapter starts.
fn an_unwritable_report_dir_is_refused_before_anything_runs() {
    let tmp = crate::common::tempdir();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    let bad = file.join("reports");
    let began = std::time::Instant::now();
    let out = skill_conform(&["run", "--report-dir", bad.to_str().unwrap()]);
    assert_usage_error(&out, "cannot write reports to");
    assert!(
        String::from_utf8_lossy(&out.stdout).is_empty(),
        "no port ran"
    );
    assert!(began.elapsed().as_secs() < 10, "refused at the start");
    let out = skill_conform(&[
        "corpus",
        "conformance-fixtures",
        "--report-dir",
        bad.to_str().unwrap(),
    ]);
    assert_usage_error(&out, "cannot write reports to");
}

crate::tests![
    an_unknown_port_lists_the_valid_ones,
    a_missing_fixture_dir_names_it_and_the_fix,
    a_bad_manifest_names_the_file_and_the_field,
    a_case_glob_that_matches_nothing_is_an_error,
    ref_refuses_a_missing_root,
    bad_flags_are_usage_errors,
    the_reference_passes_its_own_suite,
    the_libtest_listing_is_behind_a_flag,
    list_names_every_trial_without_starting_adapters,
    a_stale_expectation_fails_the_run_and_is_in_every_report,
    every_report_names_where_a_port_came_from,
    explain_shows_the_rules_the_bytes_and_the_golden,
    a_failing_pinned_case_names_its_rules_with_their_text,
    every_numeric_flag_is_bounded_when_parsed,
    a_fifo_in_a_fixture_is_exit_2_naming_the_case,
    an_unwritable_report_dir_is_refused_before_anything_runs,
];
