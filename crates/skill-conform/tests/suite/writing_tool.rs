//! The writing-tool observer against a stand-in that replays replies recorded from the real
//! `claude plugin validate --json` (2.1.328) on our own fixtures, its timeout and process-group
//! kill, the not-measured path, and the checks `goldens --check` makes on
//! `goldens/writing-tool.json`. One ignored test runs the real tool (`.ci/run` runs it when npm
//! can install it).

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use skill_conform::case::{self, CaseId, CaseSpec, WritingTool};
use skill_conform::goldens::{self, Expected, Layout};
use skill_conform::writing_tool::{
    self, observe_case, tool, CaseObservation, CaseOutcome, Column, Observation, Observations, Tool,
};

use crate::common::repo;

fn fixture_case(id: &str) -> CaseSpec {
    let cases = case::discover(&Layout::under(&repo()).fixtures).expect("fixtures parse");
    cases
        .into_iter()
        .find(|c| c.id.to_string() == id)
        .expect("the case exists")
}

/// A stand-in `claude`: `--version` says 2.1.328; `plugin validate --json DIR` prints the reply
/// recorded for the case (`probe.json` once the probe text is planted, else `plain.json`) with
/// `{plugin}` replaced by DIR, and exits 1 when the reply says `"success": false`.
const STAND_IN: &str = r#"rec=$1; shift
[ "$1" = --version ] && { echo "2.1.328 (Claude Code)"; exit 0; }
dir=$4
if grep -rqsF -- '[unclosed' "$dir/skills"; then f=probe.json; else f=plain.json; fi
sed "s#{plugin}#$dir#g" "$rec/$f"
grep -q '"success": false' "$rec/$f" && exit 1
exit 0
"#;

fn stand_in(case: &str) -> Tool {
    let recorded = repo()
        .join("crates/skill-conform/tests/fixtures/writing-tool")
        .join(case);
    Tool {
        program: PathBuf::from("/bin/sh"),
        leading_args: vec![
            "-c".into(),
            STAND_IN.into(),
            "stand-in".into(),
            recorded.into(),
        ],
        timeout: Duration::from_secs(10),
    }
}

fn observe(id: &str) -> CaseObservation {
    let home = crate::common::tempdir();
    observe_case(&stand_in(id), home.path(), &fixture_case(id)).expect("observed")
}

fn a_file_the_tool_reaches_and_says_nothing_about_is_accepted() {
    let seen = observe("frontmatter/colon-space");
    assert_eq!(seen.validated, ["."]);
    assert_eq!(
        seen.skill_md["{root0}/colon-space/SKILL.md"],
        Observation::Accepts { warnings: vec![] }
    );
    assert_eq!(seen.skill_md.len(), 1);
}

fn the_tools_error_is_recorded_with_its_message() {
    let seen = observe("frontmatter/broken-tab");
    let Observation::Errors { errors, .. } = &seen.skill_md["{root0}/broken-tab/SKILL.md"] else {
        panic!("{seen:?}");
    };
    assert!(
        errors[0].starts_with("YAML frontmatter failed to parse"),
        "{errors:?}"
    );
    assert!(seen.skill_md["{root0}/broken-tab/SKILL.md"]
        .cell()
        .starts_with("errors: YAML frontmatter failed to parse"));
}

fn a_warning_is_accepts_warns() {
    let seen = observe("frontmatter/no-frontmatter");
    let cell = seen.skill_md["{root0}/no-frontmatter/SKILL.md"].cell();
    assert!(
        cell.starts_with("accepts, warns: No frontmatter block found"),
        "{cell}"
    );
}

fn a_file_the_probe_does_not_reach_is_not_seen() {
    // The colon-space recording never mentions this case's files: not reached.
    let home = crate::common::tempdir();
    let case = fixture_case("discovery/duplicate-depths");
    let seen = observe_case(&stand_in("frontmatter/colon-space"), home.path(), &case).unwrap();
    assert!(
        seen.skill_md.values().all(|o| *o == Observation::NotSeen),
        "{seen:?}"
    );
    assert!(seen
        .skill_md
        .contains_key("{root0}/a-group/deep/dup/SKILL.md"));
}

fn roots_not_named_skills_are_validated_nowhere() {
    let case = fixture_case("discovery/two-roots-ab");
    let home = crate::common::tempdir();
    let seen = observe_case(&stand_in("frontmatter/colon-space"), home.path(), &case).unwrap();
    assert!(seen.validated.is_empty());
    assert!(seen.skill_md.values().all(|o| *o == Observation::NotSeen));
    let nested = fixture_case("hazards/root-in-node-modules");
    let dir = repo()
        .join("conformance-fixtures")
        .join(nested.id.to_string());
    assert_eq!(
        writing_tool::plugin_dirs(&nested, &dir),
        ["node_modules/pkg"]
    );
}

fn sh(script: &str, timeout: Duration) -> Tool {
    Tool {
        program: PathBuf::from("/bin/sh"),
        leading_args: vec!["-c".into(), script.into(), "sh".into()],
        timeout,
    }
}

fn a_hanging_tool_times_out_and_its_whole_group_is_killed() {
    let dir = crate::common::tempdir();
    let pidfile = dir.path().join("pid");
    let script = format!("sleep 30 & echo $! > {}; wait", pidfile.display());
    let began = Instant::now();
    let error = sh(&script, Duration::from_millis(300))
        .validate(dir.path(), dir.path())
        .unwrap_err();
    assert!(error.contains("took longer than"), "{error}");
    assert!(began.elapsed() < Duration::from_secs(5));
    let pid: i32 = fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = |pid: i32| {
        fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| stat.contains(") Z "))
            .unwrap_or(true)
    };
    let deadline = Instant::now() + Duration::from_secs(2);
    while !gone(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(gone(pid), "the grandchild {pid} outlived the timeout");
}

fn the_tool_runs_with_a_temporary_home_and_no_network_env_only() {
    let home = crate::common::tempdir();
    let tool = sh(
        "printf '{\"contents\":[],\"env\":\"%s\"}' \"$(env | sort | tr '\\n' ' ')\"",
        Duration::from_secs(5),
    );
    let reply = tool.validate(home.path(), home.path()).unwrap();
    let env = reply["env"].as_str().unwrap();
    assert!(
        env.contains(&format!("HOME={} ", home.path().display())),
        "{env}"
    );
    assert!(env.contains("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 "));
    std::env::set_var("SKILL_CONFORM_LEAK_PROBE", "1");
    let again = tool.validate(home.path(), home.path()).unwrap();
    assert!(!again["env"].as_str().unwrap().contains("LEAK_PROBE"));
}

fn a_reply_that_is_not_json_or_a_crash_is_an_error_not_an_observation() {
    let home = crate::common::tempdir();
    let garbage = sh("echo nope", Duration::from_secs(5));
    assert!(garbage
        .validate(home.path(), home.path())
        .unwrap_err()
        .contains("printed no JSON"));
    let crash = sh("echo boom >&2; exit 3", Duration::from_secs(5));
    assert!(crash
        .validate(home.path(), home.path())
        .unwrap_err()
        .contains("boom"));
}

/// A repository with a `[tools.claude-code]` whose set-up fails, and the given goldens file.
fn repo_without_tool(recorded: Option<&str>) -> (tempfile::TempDir, Layout) {
    let dir = crate::common::tempdir();
    fs::create_dir_all(dir.path().join("adapters")).unwrap();
    fs::write(
        dir.path().join("adapters/ports.toml"),
        "[ports]\n[tools.claude-code]\npackage = \"p\"\nversion = \"1\"\n\
         probe = [[\"sh\", \"-c\", \"exit 0\"]]\nsetup = [\"sh\", \"-c\", \"echo no npm here >&2; exit 1\"]\n",
    )
    .unwrap();
    fs::create_dir_all(dir.path().join("goldens")).unwrap();
    if let Some(text) = recorded {
        fs::write(dir.path().join("goldens").join(writing_tool::FILE), text).unwrap();
    }
    let layout = Layout {
        fixtures: repo().join("conformance-fixtures"),
        goldens: dir.path().join("goldens"),
    };
    (dir, layout)
}

fn without_the_tool_the_file_is_kept_and_the_reason_printed() {
    let (dir, layout) = repo_without_tool(Some("kept\n"));
    let note = writing_tool::refresh_in(dir.path(), &layout).unwrap();
    assert!(note.contains("not measured here (set-up failed"), "{note}");
    assert!(note.contains("no npm here"), "{note}");
    let kept = fs::read_to_string(layout.goldens.join(writing_tool::FILE)).unwrap();
    assert_eq!(kept, "kept\n");
}

fn a_failed_probe_is_the_reason() {
    let spec = tool::ToolSpec {
        package: "p".into(),
        version: "1".into(),
        probe: vec![vec!["no-such-program-skill-conform".into()]],
        setup: vec!["true".into()],
        cache_env: BTreeMap::new(),
    };
    let why = tool::set_up(&repo(), &spec).unwrap_err();
    assert!(why.contains("no-such-program-skill-conform"), "{why}");
}

fn without_a_file_every_cell_says_not_measured() {
    let (_dir, layout) = repo_without_tool(None);
    let column = Column::load(&layout.goldens);
    let id = CaseId::new("frontmatter", "colon-space").unwrap();
    assert!(column
        .cell(&id, "{root0}/colon-space/SKILL.md")
        .starts_with("not measured: no goldens/writing-tool.json"));
    let cases = case::discover(&layout.fixtures).unwrap();
    let table = goldens::table(&cases, &BTreeMap::new(), &column);
    assert!(table.contains("Not measured: no goldens/writing-tool.json"));
    let findings = writing_tool::check(&layout, &cases);
    assert!(findings.problems.is_empty() && !findings.notes.is_empty());
}

fn observations(cases: BTreeMap<String, CaseOutcome>) -> Observations {
    Observations {
        tool: writing_tool::COLUMN.into(),
        observer: writing_tool::OBSERVER_FORMAT,
        package: "p".into(),
        version: "1".into(),
        cases,
    }
}

fn one(location: &str, observation: Observation) -> CaseOutcome {
    CaseOutcome::Observed(CaseObservation {
        fixture: "0".into(),
        validated: vec![".".into()],
        skill_md: BTreeMap::from([(location.to_owned(), observation)]),
        other: BTreeMap::new(),
    })
}

fn check_flags_a_hand_edit_an_unknown_case_and_a_broken_expectation() {
    let errors = Observation::Errors {
        errors: vec!["bad".into()],
        warnings: vec![],
    };
    let mut colon_space = one("{root0}/colon-space/SKILL.md", errors);
    if let CaseOutcome::Observed(seen) = &mut colon_space {
        seen.fixture =
            writing_tool::fixture_fingerprint(&fixture_case("frontmatter/colon-space").dir);
    }
    let recorded = observations(BTreeMap::from([
        ("frontmatter/colon-space".to_owned(), colon_space),
        (
            "frontmatter/broken-tab".to_owned(),
            one("{root0}/broken-tab/SKILL.md", Observation::NotSeen),
        ),
        (
            "no/such-case".to_owned(),
            one("{root0}/x/SKILL.md", Observation::NotSeen),
        ),
    ]));
    let text = recorded.to_text().replace("  ", "   ");
    let (_dir, layout) = repo_without_tool(Some(&text));
    let cases = case::discover(&layout.fixtures).unwrap();
    let problems = writing_tool::check(&layout, &cases).problems.join("\n");
    assert!(problems.contains("not in canonical form"), "{problems}");
    assert!(
        problems.contains("`frontmatter/broken-tab` was observed on other fixture files"),
        "{problems}"
    );
    assert!(
        problems.contains("observes `no/such-case`, which is no case"),
        "{problems}"
    );
    assert!(problems.contains("`frontmatter/colon-space` expects `writing_tool = \"accepts\"`, the tool says errors: bad"), "{problems}");
}

fn an_expectation_holds_only_on_what_it_says() {
    let mut case = fixture_case("frontmatter/colon-space");
    let seen = |o: Observation| CaseObservation {
        fixture: "0".into(),
        validated: vec![],
        skill_md: BTreeMap::from([("{root0}/a/SKILL.md".to_owned(), o)]),
        other: BTreeMap::new(),
    };
    let accepts = seen(Observation::Accepts {
        warnings: vec!["w".into()],
    });
    let errors = seen(Observation::Errors {
        errors: vec!["e".into()],
        warnings: vec![],
    });
    let unseen = seen(Observation::NotSeen);
    case.writing_tool = Some(WritingTool::Accepts);
    assert_eq!(writing_tool::expectation_problem(&case, &accepts), None);
    assert!(writing_tool::expectation_problem(&case, &errors).is_some());
    assert!(writing_tool::expectation_problem(&case, &unseen)
        .unwrap()
        .contains("not seen"));
    case.writing_tool = Some(WritingTool::Errors);
    assert_eq!(writing_tool::expectation_problem(&case, &errors), None);
    assert!(writing_tool::expectation_problem(&case, &accepts).is_some());
}

fn the_table_lists_where_the_reference_and_the_tool_part_ways() {
    let cases: Vec<CaseSpec> = [
        "frontmatter/no-frontmatter",
        "frontmatter/broken-tab",
        "frontmatter/colon-space",
        "hazards/same-root-twice",
    ]
    .map(fixture_case)
    .to_vec();
    let expected: BTreeMap<CaseId, Expected> = goldens::expected_all(&cases).unwrap();
    let accepts = Observation::Accepts { warnings: vec![] };
    let errors = Observation::Errors {
        errors: vec!["bad".into()],
        warnings: vec![],
    };
    let column = Column::Measured(observations(BTreeMap::from([
        (
            "frontmatter/no-frontmatter".to_owned(),
            one("{root0}/no-frontmatter/SKILL.md", accepts.clone()),
        ),
        (
            "frontmatter/broken-tab".to_owned(),
            one("{root0}/broken-tab/SKILL.md", errors),
        ),
        (
            "frontmatter/colon-space".to_owned(),
            one("{root0}/colon-space/SKILL.md", accepts.clone()),
        ),
        // A duplicate-name skip the tool accepts is left out: no static check sees names.
        (
            "hazards/same-root-twice".to_owned(),
            one("{root0}/alpha/SKILL.md", accepts),
        ),
    ])));
    let parted = column.parted(&cases, &expected).join("\n");
    assert_eq!(
        parted,
        "frontmatter/no-frontmatter `{root0}/no-frontmatter/SKILL.md` (TN-READ-1): reference skips (missing-name), the tool accepts\n\
         frontmatter/broken-tab `{root0}/broken-tab/SKILL.md` (TN-YAML-7, TN-RESC-1, TN-RESC-2): reference accepts, the tool errors: bad"
    );
    let table = goldens::table(&cases, &expected, &column);
    assert!(table.contains("| ok `colon-space` | `Summarises meeting notes. Use when: the user pastes a call transcript.` | accepts |"), "{table}");
}

/// The real tool, set up from npm, observes what goldens/writing-tool.json records.
/// `.ci/run` runs it when npm can install the tool: `cargo test --test writing_tool -- --ignored`.
fn the_real_tool_observes_what_the_goldens_record() {
    let spec = tool::read_spec(&repo()).unwrap();
    let program = tool::set_up(&repo(), &spec).expect("the tool sets up");
    let cases = case::discover(&Layout::under(&repo()).fixtures).unwrap();
    let (fresh, _) = writing_tool::observe_all(&Tool::at(program), &spec, &cases, None).unwrap();
    let Column::Measured(recorded) = Column::load(&repo().join("goldens")) else {
        panic!("goldens/writing-tool.json is missing");
    };
    let differ: Vec<&String> = fresh
        .cases
        .keys()
        .filter(|id| fresh.cases.get(*id) != recorded.cases.get(*id))
        .collect();
    assert!(
        differ.is_empty(),
        "observed differently: {differ:?} (hint: goldens --write)"
    );
    assert_eq!(fresh, recorded);
}

/// `run` reads the recorded observations (it never starts the tool) and its summary.md says
/// where the reference and the tool part ways for the cases it ran.
fn the_run_summary_lists_where_the_reference_and_the_tool_part_ways() {
    let reports = crate::common::tempdir();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args([
            "run",
            "--port",
            "reference",
            "--case",
            "frontmatter/broken-tab",
        ])
        .arg("--report-dir")
        .arg(reports.path())
        .current_dir(repo())
        .env_remove("CI")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = fs::read_to_string(reports.path().join("summary.md")).unwrap();
    assert!(
        summary.contains("## Where the reference and `claude plugin validate` part ways"),
        "{summary}"
    );
    assert!(summary.contains(
        "- frontmatter/broken-tab `{root0}/broken-tab/SKILL.md` (TN-YAML-7, TN-RESC-1, TN-RESC-2): reference accepts, the tool errors: YAML"
    ), "{summary}");
}

/// `corpus --writing-tool`: a real folder is copied as a plugin's `skills/` (never written),
/// observed, and a skill the tool accepts that the reference skips is listed.
fn corpus_lists_a_skill_the_tool_accepts_that_the_reference_drops() {
    use skill_conform::writing_tool::corpus;
    let folder = crate::common::tempdir();
    let fixtures = repo().join("conformance-fixtures/frontmatter");
    for case in ["colon-space", "no-frontmatter"] {
        let skill = folder.path().join(case);
        fs::create_dir_all(&skill).unwrap();
        let text = fs::read(
            fixtures
                .join(case)
                .join("skills")
                .join(case)
                .join("SKILL.md"),
        )
        .unwrap();
        fs::write(skill.join("SKILL.md"), text).unwrap();
    }
    let before = fs::read(folder.path().join("colon-space/SKILL.md")).unwrap();
    let roots = vec![folder.path().display().to_string()];
    let seen = corpus::observe_with(&stand_in("frontmatter/colon-space"), &roots).unwrap();
    assert_eq!(
        fs::read(folder.path().join("colon-space/SKILL.md")).unwrap(),
        before
    );
    assert_eq!(
        seen["{root0}/colon-space/SKILL.md"],
        Observation::Accepts { warnings: vec![] }
    );
    // The colon-space recording says nothing about the second skill: not reached.
    assert_eq!(
        seen["{root0}/no-frontmatter/SKILL.md"],
        Observation::NotSeen
    );
    let mut seen = seen;
    seen.insert(
        "{root0}/no-frontmatter/SKILL.md".into(),
        Observation::Accepts { warnings: vec![] },
    );
    let report = skill_conform::corpus::analyse(roots.clone(), 0, vec![]);
    let section = corpus::section(&report, &corpus::reference_skips(&roots), &seen);
    assert!(
        section.contains("2 `SKILL.md`: 2 accepted, 0 with errors, 0 not seen"),
        "{section}"
    );
    assert!(section.contains(
        "- `{root0}/no-frontmatter/SKILL.md`: the tool accepts; dropped by the reference and every port that answered (missing-name)"
    ), "{section}");
    assert!(
        !section.contains("colon-space/SKILL.md`: the tool"),
        "{section}"
    );
}

fn the_fixture_fingerprint_sees_bytes_names_and_link_targets() {
    let dir = crate::common::tempdir();
    let print = || writing_tool::fixture_fingerprint(dir.path());
    fs::write(dir.path().join("SKILL.md"), "a").unwrap();
    let first = print();
    assert_eq!(first, print());
    fs::write(dir.path().join("SKILL.md"), "b").unwrap();
    let second = print();
    assert_ne!(first, second);
    std::os::unix::fs::symlink("x", dir.path().join("link")).unwrap();
    let third = print();
    assert_ne!(second, third);
    fs::remove_file(dir.path().join("link")).unwrap();
    std::os::unix::fs::symlink("y", dir.path().join("link")).unwrap();
    assert_ne!(third, print());
}

fn goldens_write_keeps_a_case_whose_fixture_tool_and_observer_are_unchanged() {
    let cases: Vec<CaseSpec> = ["frontmatter/colon-space", "frontmatter/broken-tab"]
        .map(fixture_case)
        .to_vec();
    let sentinel = |case: &CaseSpec, fixture: String| {
        let seen = CaseObservation {
            fixture,
            validated: vec!["sentinel".into()],
            skill_md: BTreeMap::new(),
            other: BTreeMap::new(),
        };
        (case.id.to_string(), CaseOutcome::Observed(seen))
    };
    let mut previous = observations(BTreeMap::from([
        sentinel(&cases[0], writing_tool::fixture_fingerprint(&cases[0].dir)),
        sentinel(&cases[1], "an older fixture".into()),
    ]));
    previous.version = "2.1.328".into();
    let spec = tool::ToolSpec {
        package: "p".into(),
        version: "2.1.328".into(),
        probe: vec![],
        setup: vec![],
        cache_env: BTreeMap::new(),
    };
    let tool = stand_in("frontmatter/colon-space");
    let (now, reused) = writing_tool::observe_all(&tool, &spec, &cases, Some(&previous)).unwrap();
    assert_eq!(reused, 1);
    assert_eq!(
        now.cases["frontmatter/colon-space"],
        previous.cases["frontmatter/colon-space"]
    );
    assert_ne!(
        now.cases["frontmatter/broken-tab"],
        previous.cases["frontmatter/broken-tab"]
    );
    previous.observer += 1;
    let (_, reused) = writing_tool::observe_all(&tool, &spec, &cases, Some(&previous)).unwrap();
    assert_eq!(
        reused, 0,
        "another observer format observes every case again"
    );
    previous.observer -= 1;
    previous.version = "2.1.0".into();
    let (_, reused) = writing_tool::observe_all(&tool, &spec, &cases, Some(&previous)).unwrap();
    assert_eq!(reused, 0, "another tool version observes every case again");
}

/// The tool prints `a<U+E000>/SKILL.md` as `a/SKILL.md` (recorded from 2.1.328): the one file
/// that printed path can only mean is the one observed, not a file it never reached.
fn a_path_printed_without_a_private_use_character_is_the_file_it_means() {
    let seen = observe("discovery/codepoint-astral");
    assert_eq!(
        seen.skill_md["{root0}/a\u{E000}/SKILL.md"],
        Observation::Accepts { warnings: vec![] }
    );
    assert_eq!(
        seen.skill_md["{root0}/a😀/SKILL.md"],
        Observation::Accepts { warnings: vec![] }
    );
    assert!(
        !seen.skill_md.contains_key("{case}/skills/a/SKILL.md"),
        "{seen:?}"
    );
}

crate::tests![
    a_file_the_tool_reaches_and_says_nothing_about_is_accepted,
    the_tools_error_is_recorded_with_its_message,
    a_warning_is_accepts_warns,
    a_file_the_probe_does_not_reach_is_not_seen,
    roots_not_named_skills_are_validated_nowhere,
    a_hanging_tool_times_out_and_its_whole_group_is_killed,
    the_tool_runs_with_a_temporary_home_and_no_network_env_only,
    a_reply_that_is_not_json_or_a_crash_is_an_error_not_an_observation,
    without_the_tool_the_file_is_kept_and_the_reason_printed,
    a_failed_probe_is_the_reason,
    without_a_file_every_cell_says_not_measured,
    check_flags_a_hand_edit_an_unknown_case_and_a_broken_expectation,
    an_expectation_holds_only_on_what_it_says,
    the_table_lists_where_the_reference_and_the_tool_part_ways,
    the_real_tool_observes_what_the_goldens_record = ignore "installs ~370 MB from npm; run by .ci/run",
    the_run_summary_lists_where_the_reference_and_the_tool_part_ways,
    corpus_lists_a_skill_the_tool_accepts_that_the_reference_drops,
    the_fixture_fingerprint_sees_bytes_names_and_link_targets,
    goldens_write_keeps_a_case_whose_fixture_tool_and_observer_are_unchanged,
    a_path_printed_without_a_private_use_character_is_the_file_it_means,
];
