//! Snapshots of the report renderers (terminal matrix, failure blocks, `summary.md`, and the
//! other report files) for fixed, hand-built `Results`, with durations, paths and versions
//! redacted; and a check that insertion order never changes a byte.

use std::collections::BTreeSet;

use serde_json::{json, Value};
use skill_conform::case::CaseId;
use skill_conform::judge::expected::{parse_expected, ExpectationError};
use skill_conform::judge::{
    judge_trial, CaseInfo, Evidence, ExpectationProblem, ExpectedEntry, FaultDetails, Outcome,
    PortInfo, PortKind, PortStatus, Results, Status, TrialInput, Verdict,
};
use skill_conform::report::model::{trial_details, Model, Trial};
use skill_conform::report::{
    json as json_report, junit, markdown, terminal, write_reports, Redactor,
};
use skill_conform::session::{Fault, FaultEvidence, HandshakeProblem, Phase, StderrTail};
use skill_ref::canonical::to_canonical_string;

const SANDBOX_DIR: &str = "/tmp/skill-conform-sandbox.Xy12";
const REPO_DIR: &str = "/checkout/skill-conform";

fn id(text: &str) -> CaseId {
    CaseId::parse(text).unwrap()
}

fn redactor() -> Redactor {
    Redactor::none()
        .durations(true)
        .versions(true)
        .sandbox(SANDBOX_DIR)
        .repo(REPO_DIR)
}

fn golden_value() -> Value {
    json!({
        "inventory": {
            "skills": [{"name": "alpha", "description": "Does alpha.", "location": "{root0}/alpha/SKILL.md"}],
            "skipped": [{"location": "{root0}/beta/SKILL.md", "reason": "missing-name"}],
        },
        "loads": [
            {"name": "alpha", "isError": false, "output": "<skill_content name=\"alpha\">\n# Alpha\n\nStep one.\n</skill_content>"},
        ],
        "prompt": "## Skills\n- alpha: Does alpha.\n",
    })
}

/// A raw reply as an adapter would send it: real sandbox paths, `case`, and `detail`.
fn raw_of(normalized: &Value, case: &CaseId) -> Value {
    let text = serde_json::to_string(normalized)
        .unwrap()
        .replace("{root0}", &format!("{SANDBOX_DIR}/{}/skills", case.case()));
    let mut raw: Value = serde_json::from_str(&text).unwrap();
    raw["case"] = json!(case.as_str());
    if let Some(skipped) = raw["inventory"]["skipped"].as_array_mut() {
        for entry in skipped {
            entry["detail"] = json!("frontmatter has no `name`");
        }
    }
    raw
}

fn with_description(description: &str) -> Value {
    let mut value = golden_value();
    value["inventory"]["skills"][0]["description"] = json!(description);
    value
}

fn with_output(output: &str) -> Value {
    let mut value = golden_value();
    value["loads"][0]["output"] = json!(output);
    value
}

/// One trial judged for real, as the runner would.
fn judged(
    port: &str,
    case: &CaseId,
    pinned: bool,
    outcome: Outcome,
    expected: &[ExpectedEntry],
    stderr: Option<&str>,
) -> Verdict {
    let golden = to_canonical_string(&golden_value());
    judge_trial(TrialInput {
        port,
        case,
        pinned,
        golden: &golden,
        outcome,
        expected,
        port_version: Some("0.21.0"),
        stderr_tail: stderr.map(str::to_owned),
        duration_ms: Some(17),
    })
}

fn reply(normalized: Value, case: &CaseId) -> Outcome {
    Outcome::Reply {
        raw: raw_of(&normalized, case),
        normalized,
    }
}

fn fault(fault: Fault, phase: Phase) -> FaultDetails {
    FaultDetails::new(fault, phase)
}

fn timeout(ms: u64) -> Fault {
    Fault::Timeout {
        after: std::time::Duration::from_millis(ms),
    }
}

fn expected_entries() -> Vec<ExpectedEntry> {
    parse_expected(
        std::path::Path::new("adapters/python/expected.toml"),
        r#"
[[divergence]]
cases = "status/expected-fail"
reason = "PyYAML resolves YAML 1.1 booleans"
link = "https://example.invalid/toolnexus/issues/7"

[[divergence]]
cases = "status/unexpected-pass"
reason = "fixed upstream in 0.22"
"#,
    )
    .unwrap()
}

fn port_info(name: &str, version: &str, runtime: &str) -> PortInfo {
    let mut info = PortInfo::available(name);
    info.hello.library_version = Some(version.into());
    info.hello.runtime = Some(runtime.into());
    info
}

fn case_info(pinned: bool) -> CaseInfo {
    CaseInfo {
        pinned,
        rules: vec!["TN-YAML-7".into()],
        golden_sha256: None,
    }
}

/// One case per status on port `python`, the reference passing everything.
fn one_case_per_status() -> Results {
    let expected = expected_entries();
    let mut results = Results::new();
    results.add_port(port_info("reference", "0.1.0", "rust"));
    results.add_port(port_info("python", "0.21.0", "CPython 3.11.7"));
    for status in Status::all() {
        let case = id(&format!("status/{}", status.as_str()));
        let pinned = !matches!(status, Status::Gap);
        results.add_case(case.clone(), case_info(pinned));
        results.insert(
            "reference",
            case.clone(),
            judged(
                "reference",
                &case,
                pinned,
                reply(golden_value(), &case),
                &[],
                None,
            ),
        );
        let verdict = match status {
            Status::Pass | Status::UnexpectedPass => judged(
                "python",
                &case,
                pinned,
                reply(golden_value(), &case),
                &expected,
                None,
            ),
            Status::Fail | Status::Gap | Status::ExpectedFail => judged(
                "python",
                &case,
                pinned,
                reply(with_description("Does\talpha. "), &case),
                &expected,
                None,
            ),
            Status::Error => judged(
                "python",
                &case,
                pinned,
                Outcome::Reply {
                    raw: json!({"case": case.as_str(), "error": format!("ScannerError: while scanning {SANDBOX_DIR}/status/skills/alpha/SKILL.md\nline 3")}),
                    normalized: json!({}),
                },
                &[],
                Some("Traceback (most recent call last):\n  File \"adapter.py\", line 40\nScannerError\n"),
            ),
            Status::Timeout => {
                let details = fault(timeout(10_000), Phase::Run);
                judged("python", &case, pinned, Outcome::Fault(details), &[], Some("loading...\n"))
            }
            Status::Crash => {
                let details = fault(
                    Fault::Exited {
                        status: None,
                        signal: Some(11),
                        partial: Some("{\"case\":\"status/cr".into()),
                    },
                    Phase::Run,
                );
                judged("python", &case, pinned, Outcome::Fault(details), &[], Some("Segmentation fault\n"))
            }
            Status::ProtocolError => {
                let details = FaultDetails::from(&FaultEvidence {
                    fault: Fault::NotJson {
                        line: "Loading skills from /tmp/skill-conform-sandbox.Xy12/x\t…".into(),
                        bytes: 57,
                    },
                    phase: Phase::Run,
                    case: Some(case.to_string()),
                    stderr_tail: StderrTail::default(),
                    restart_failed: None,
                });
                judged("python", &case, pinned, Outcome::Fault(details), &[], None)
            }
            Status::Broken => {
                let details = fault(
                    Fault::BadHandshake {
                        reason: HandshakeProblem::WrongProtocol { expected: 1, got: 2 },
                    },
                    Phase::Handshake,
                );
                judged("python", &case, pinned, Outcome::Fault(details), &[], None)
            }
            Status::Unavailable => Verdict::unavailable("python", &case, "`python3` not found on PATH"),
            Status::NotRun => Verdict::not_run(
                "python",
                &case,
                "the port timed out on 3 cases in a row (--max-timeouts 3) and is broken for the rest of the run",
            ),
            Status::Vacuous => judged(
                "python",
                &case,
                pinned,
                Outcome::Vacuous {
                    reason: "the filesystem folds case: `A` and `a` are one directory".into(),
                },
                &[],
                None,
            ),
            Status::Nondeterministic => {
                let first = judged("python", &case, pinned, reply(golden_value(), &case), &[], None);
                let second = judged(
                    "python",
                    &case,
                    pinned,
                    reply(with_output("<skill_content name=\"alpha\">\n# Alpha\n\nStep two.\n</skill_content>"), &case),
                    &[],
                    None,
                );
                skill_conform::judge::judge_repeats(vec![first, second]).unwrap()
            }
            Status::SandboxModified => Verdict {
                status,
                evidence: Evidence {
                    reason: Some("the adapter modified its sandbox, which it may only read:\nadded skills/dropped".into()),
                    repro: format!("skill-conform run --port python -- --exact python::{case}"),
                    ..Evidence::default()
                },
            },
        };
        assert_eq!(verdict.status, status, "fixture for {status}");
        results.insert("python", case, verdict);
    }
    results.expectation_errors.push(stale_entry("python"));
    results.tampered = vec!["changed goldens/status/fail.json".into()];
    results
}

/// An `expected.toml` entry whose glob matches no case, as `run` records it.
fn stale_entry(port: &str) -> ExpectationProblem {
    ExpectationProblem {
        port: port.to_owned(),
        message: ExpectationError::NoMatch {
            path: format!("{REPO_DIR}/adapters/{port}/expected.toml").into(),
            line: 9,
            entry: 2,
            glob: "hazards/gone-*".into(),
        }
        .to_string(),
    }
}

fn one_matrix_line_per_status() {
    let results = one_case_per_status();
    let model = Model::new(&results);
    insta::assert_snapshot!(terminal::matrix(
        &model,
        &redactor(),
        terminal::Options::default()
    ));
}

fn one_details_block_per_status() {
    let results = one_case_per_status();
    let redactor = redactor();
    let mut out = String::new();
    for status in Status::all() {
        let case = id(&format!("status/{}", status.as_str()));
        let trial = Trial {
            port: "python",
            case: &case,
            pinned: results.is_pinned(&case),
            rules: results.rules(&case),
            verdict: results.verdict("python", &case).unwrap(),
        };
        out.push_str(&format!("=== {status}\n"));
        out.push_str(&trial_details(&trial, &redactor));
        out.push('\n');
    }
    insta::assert_snapshot!(out);
}

/// One change to the results, so a test can apply them in any order.
type Step = Box<dyn Fn(&mut Results)>;

/// A run over the reference, six real ports and a mutant: three real ports agree against the
/// golden on a hazard, one port is unavailable, one broken; the mutant and the reference are
/// left out of clusters.
fn fixed_run(reverse: bool) -> Results {
    let cases: [(&str, bool); 6] = [
        ("discovery/basic", true),
        ("frontmatter/colon-space", true),
        ("frontmatter/crlf", true),
        ("hazards/bom", false),
        ("hazards/scalar-yes", false),
        ("tool/schema", true),
    ];
    let ports = [
        "reference",
        "golang",
        "js",
        "python",
        "csharp",
        "mutant-no-bom",
    ];
    let mut steps: Vec<Step> = Vec::new();

    for (name, pinned) in cases {
        steps.push(Box::new(move |results: &mut Results| {
            results.add_case(id(name), case_info(pinned))
        }));
    }
    // Each real port's hello names its YAML library, as the adapters' do. This reference names
    // none (the real one names serde_yaml_ng), so one column shows a blank under its header.
    for (port, version, runtime, yaml) in [
        ("reference", "0.1.0", "rust", None),
        (
            "golang",
            "0.21.0",
            "go1.22.1",
            Some(("gopkg.in/yaml.v3", "3.0.1")),
        ),
        ("js", "0.21.0", "node v20.11.0", Some(("yaml", "2.4.2"))),
        (
            "python",
            "0.21.0",
            "CPython 3.11.7",
            Some(("PyYAML", "6.0.1")),
        ),
        (
            "csharp",
            "0.20.3",
            ".NET 8.0.2",
            Some(("YamlDotNet", "16.3.0")),
        ),
    ] {
        steps.push(Box::new(move |results: &mut Results| {
            let mut info = port_info(port, version, runtime);
            if let Some((library, library_version)) = yaml {
                info.hello
                    .libraries
                    .insert(library.into(), library_version.into());
            }
            results.add_port(info)
        }));
    }
    steps.push(Box::new(|results: &mut Results| {
        let mut info = PortInfo::available("mutant-no-bom");
        info.kind = PortKind::Mutant;
        results.add_port(info)
    }));
    steps.push(Box::new(|results: &mut Results| {
        let mut info = PortInfo::available("java");
        info.status = PortStatus::Unavailable {
            reason: "`mvn` not found on PATH (hint: install Maven 3.9 or pass --port java=PATH)"
                .into(),
        };
        results.add_port(info);
        for (name, _) in [("discovery/basic", true), ("frontmatter/colon-space", true)] {
            let case = id(name);
            results.insert(
                "java",
                case.clone(),
                Verdict::unavailable("java", &case, "`mvn` not found on PATH"),
            );
        }
    }));
    steps.push(Box::new(|results: &mut Results| {
        let mut info = PortInfo::available("elixir");
        let details = fault(timeout(120_000), Phase::Handshake);
        info.status = PortStatus::Broken {
            evidence: Box::new(Evidence {
                fault: Some(details.clone()),
                stderr_tail: Some(format!("** (Mix) Could not compile dependency :yaml_elixir\n  in {REPO_DIR}/adapters/elixir/deps\n")),
                repro: "skill-conform run --port elixir".into(),
                duration_ms: Some(120_004),
                ..Evidence::default()
            }),
        };
        results.add_port(info);
    }));

    for port in ports {
        for (name, pinned) in cases {
            steps.push(Box::new(move |results: &mut Results| {
                let case = id(name);
                let normalized = match (port, name) {
                    ("python", "frontmatter/colon-space") => {
                        with_description("Does: alpha.")
                    }
                    ("js", "frontmatter/crlf") => with_output(
                        "<skill_content name=\"alpha\">\r\n# Alpha\r\n\r\nStep one.\r\n</skill_content>",
                    ),
                    ("golang" | "js" | "csharp", "hazards/bom") => with_description("\u{feff}Does alpha."),
                    ("python", "hazards/bom") => with_description("Does alpha"),
                    ("mutant-no-bom", "hazards/bom") => with_description("\u{feff}Does alpha."),
                    ("python", "hazards/scalar-yes") => with_description("true"),
                    _ => golden_value(),
                };
                let outcome = if (port, name) == ("csharp", "tool/schema") {
                    Outcome::Fault(fault(timeout(10_000), Phase::Run))
                } else if (port, name) == ("golang", "tool/schema") {
                    Outcome::Vacuous {
                        reason: "symlinks are not supported here".into(),
                    }
                } else {
                    reply(normalized, &case)
                };
                let stderr = (port == "csharp").then_some(
                    "warn: slow start\nat Toolnexus.Loader.Load()\n",
                );
                let verdict = judged(port, &case, pinned, outcome, &[], stderr);
                results.insert(port, case, verdict);
            }));
        }
    }
    if reverse {
        steps.reverse();
    }
    let mut results = Results::new();
    for step in steps {
        step(&mut results);
    }
    results.expectation_errors.push(stale_entry("js"));
    results
}

fn whole_terminal_report() {
    let results = fixed_run(false);
    insta::assert_snapshot!(terminal::render(
        &results,
        &redactor(),
        terminal::Options::default()
    ));
}

fn summary_md() {
    let results = fixed_run(false);
    insta::assert_snapshot!(markdown::render(&results, &redactor()));
}

fn junit_xml() {
    let results = one_case_per_status();
    insta::assert_snapshot!(junit::render(&results, &redactor()).unwrap());
}

fn report_json_is_canonical_and_redacted() {
    let results = fixed_run(false);
    let text = json_report::render(&results, &redactor());
    assert!(!text.contains(SANDBOX_DIR), "sandbox path leaked");
    assert!(!text.contains(REPO_DIR), "repo path leaked");
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(to_canonical_string(&value), text);
    let errors = crate::common::schema_errors(&skill_conform::report::format::schema(), &value);
    assert!(
        errors.is_empty(),
        "report.json breaks its schema: {errors:#?}"
    );
    let trial = &value["trials"]["python"]["hazards/bom"];
    assert_eq!(trial["status"], json!("gap"));
    assert_eq!(trial["evidence"]["durationMs"], json!("[DURATION]"));
    assert_eq!(
        trial["evidence"]["raw"]["inventory"]["skipped"][0]["detail"],
        json!("frontmatter has no `name`")
    );
    assert_eq!(
        value["ports"]["python"]["libraryVersion"],
        json!("[VERSION]")
    );
    assert_eq!(value["notes"][0]["case"], json!("hazards/bom"));
    // Only discovery/basic passes on every real port that ran (java and elixir excluded).
    assert_eq!(
        value["interop"],
        json!({"allPass": 1, "pinned": 4, "ports": {"csharp": "[VERSION]", "golang": "[VERSION]", "js": "[VERSION]", "python": "[VERSION]"}})
    );
    assert_eq!(value["expectationErrors"][0]["port"], json!("js"));
    assert!(value["expectationErrors"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("error in `[REPO]/adapters/js/expected.toml`: line 9: entry 2"));
    // The whole file is long; snapshot its port table and one trial.
    insta::assert_snapshot!(to_canonical_string(&json!({
        "ports": value["ports"],
        "trials/python/hazards/bom": trial,
    })));
}

fn every_color_cell_keeps_the_plain_layout() {
    let results = one_case_per_status();
    let model = Model::new(&results);
    let plain = terminal::matrix(&model, &redactor(), terminal::Options::default());
    let colored = terminal::matrix(&model, &redactor(), terminal::Options { color: true });
    assert_ne!(plain, colored);
    let stripped = colored
        .split('\u{1b}')
        .enumerate()
        .map(|(index, part)| {
            if index == 0 {
                part
            } else {
                part.split_once('m').map_or(part, |(_, rest)| rest)
            }
        })
        .collect::<String>();
    assert_eq!(stripped, plain);
}

fn insertion_order_never_changes_a_byte() {
    let forward = fixed_run(false);
    let backward = fixed_run(true);
    let redactor = redactor();
    assert_eq!(
        terminal::render(&forward, &redactor, terminal::Options::default()),
        terminal::render(&backward, &redactor, terminal::Options::default())
    );
    assert_eq!(
        markdown::render(&forward, &redactor),
        markdown::render(&backward, &redactor)
    );
    assert_eq!(
        json_report::render(&forward, &redactor),
        json_report::render(&backward, &redactor)
    );
    assert_eq!(
        junit::render(&forward, &redactor).unwrap(),
        junit::render(&backward, &redactor).unwrap()
    );
    let one = crate::common::tempdir();
    let two = crate::common::tempdir();
    write_reports(&forward, one.path(), &redactor).unwrap();
    write_reports(&backward, two.path(), &redactor).unwrap();
    for name in skill_conform::report::REPORT_FILES {
        let a = std::fs::read(one.path().join(name)).unwrap();
        let b = std::fs::read(two.path().join(name)).unwrap();
        assert!(!a.is_empty(), "{name} is empty");
        assert_eq!(a, b, "{name}");
    }
    assert_eq!(
        std::fs::read_to_string(one.path().join("matrix.txt")).unwrap(),
        terminal::render(&forward, &redactor, terminal::Options::default())
    );
}

fn fixed_run_exit_code_is_port_trouble() {
    let results = fixed_run(false);
    assert_eq!(
        skill_conform::judge::exit_code(&results, &BTreeSet::new()),
        skill_conform::error::ExitCode::PortTrouble
    );
    // Without the broken port, the pinned failures give 1.
    let mut without = results.clone();
    without.ports.remove("elixir");
    assert_eq!(
        skill_conform::judge::exit_code(&without, &BTreeSet::new()),
        skill_conform::error::ExitCode::Divergence
    );
}

fn write_reports_writes_a_shields_badge_per_real_port() {
    let dir = crate::common::tempdir();
    write_reports(&fixed_run(false), dir.path(), &redactor()).unwrap();
    let badge = |port: &str| -> Option<Value> {
        let path = dir.path().join("badges").join(format!("{port}.json"));
        let text = std::fs::read_to_string(path).ok()?;
        Some(serde_json::from_str(&text).unwrap())
    };
    assert_eq!(
        badge("python").unwrap(),
        json!({"schemaVersion": 1, "label": "skill-conform python", "message": "3/4 pinned, 2 gaps", "color": "red"})
    );
    assert_eq!(badge("java").unwrap()["message"], json!("unavailable"));
    assert_eq!(badge("elixir").unwrap()["message"], json!("broken"));
    assert!(badge("reference").is_none() && badge("mutant-no-bom").is_none());
}

crate::tests![
    one_matrix_line_per_status,
    one_details_block_per_status,
    whole_terminal_report,
    summary_md,
    junit_xml,
    report_json_is_canonical_and_redacted,
    every_color_cell_keeps_the_plain_layout,
    insertion_order_never_changes_a_byte,
    fixed_run_exit_code_is_port_trouble,
    write_reports_writes_a_shields_badge_per_real_port,
];
