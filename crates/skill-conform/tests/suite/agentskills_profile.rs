//! The `agentskills` profile in the harness: its goldens are fresh (TABLE.md and VERSION too),
//! toolnexus discovery and `goldens --write` leave its subtree alone, a toolnexus request
//! carries no profile field, and a bad `--profile` is a usage error.

use std::fs;
use std::path::Path;
use std::process::Command;

use skill_conform::goldens::{self, Layout};
use skill_conform::profile::agentskills::goldens as as_goldens;
use skill_conform::profile::Profile;
use skill_conform::session::{ProfileRun, Request, RunRequest};

use crate::common::repo;

fn the_profile_goldens_table_and_version_are_fresh() {
    let problems = as_goldens::check(&repo()).unwrap();
    assert!(problems.is_empty(), "{problems:#?}");
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn toolnexus_discovery_and_goldens_write_step_over_the_profile_subtree() {
    let dir = crate::common::tempdir();
    let root = dir.path();
    write(
        &root.join("conformance-fixtures/g/c/case.toml"),
        "summary = \"s\"\npinned = true\nrules = [\"§4\"]\n",
    );
    write(&root.join("conformance-fixtures/g/c/skills/.keep"), "");
    let profile_case = root.join("conformance-fixtures/agentskills/x/y/case.toml");
    write(
        &profile_case,
        "summary = \"s\"\npinned = true\nrules = [\"prompt\"]\n",
    );
    let profile_golden = root.join("goldens/agentskills/x/y.json");
    write(&profile_golden, "{}");
    let layout = Layout::under(root);
    let cases = skill_conform::case::discover(&layout.fixtures).unwrap();
    let ids: Vec<String> = cases.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(ids, ["g/c"]);
    let report = goldens::regenerate(&layout).unwrap();
    assert!(report.removed.is_empty(), "{:?}", report.removed);
    assert!(
        profile_golden.is_file(),
        "goldens --write removed the profile's golden"
    );
    assert!(root.join("goldens/g/c.json").is_file());
    let check = goldens::check(&layout).unwrap();
    assert!(check.orphaned.is_empty(), "{:?}", check.orphaned);
    assert_eq!(
        Profile::Agentskills.goldens(root),
        root.join("goldens/agentskills")
    );
}

fn a_toolnexus_request_carries_no_profile_and_an_agentskills_one_names_it() {
    let mut request = RunRequest {
        case: "g/c".into(),
        roots: vec!["/r".into()],
        sample_limit: 0,
        filter: Default::default(),
        load: vec![],
        tool: false,
        profile: None,
    };
    let line = Request::Run(request.clone()).to_line();
    assert!(
        !line.contains("profile") && !line.contains("skills"),
        "{line}"
    );
    request.profile = Some(ProfileRun {
        profile: Profile::Agentskills,
        skills: vec!["a".into()],
        prompt: vec![],
    });
    let line = Request::Run(request).to_line();
    assert!(
        line.contains(r#""profile":"agentskills","skills":["a"],"prompt":[]"#),
        "{line}"
    );
}

fn an_unknown_profile_is_a_usage_error_with_a_hint() {
    let out = Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(["run", "--profile", "agent-skills"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown profile `agent-skills`"),
        "{stderr}"
    );
}

fn the_readme_table_is_the_implementations_page_summary() {
    use skill_conform::profile::agentskills::table;
    let page = fs::read_to_string(repo().join(table::FILE)).unwrap();
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let summary = table::summary_of(&page).expect("the page has a summary table");
    let spliced = table::splice_readme(&readme, summary).expect("README has the markers");
    assert_eq!(
        spliced, readme,
        "README's table is stale (hint: run `skill-conform run --profile agentskills --write-table`)"
    );
}

/// A fake adapter speaking the profile: `skills` is what every reply says.
const FAKE: &str = r#"
import json, sys
skills = sys.argv[1]
for line in sys.stdin:
    req = json.loads(line)
    if req["cmd"] == "hello":
        print(json.dumps({"protocol": 1, "port": "fake", "library": "fake", "version": "1.0.0",
                          "runtime": "python", "profiles": {"agentskills": ["validate"]}}), flush=True)
    elif req["cmd"] == "run":
        answer = [{"dir": d, "verdict": "valid", "violations": []} for d in req["skills"]]
        print(json.dumps({"case": req["case"], "skills": answer if skills == "echo" else []}), flush=True)
    else:
        break
"#;

fn run_fake(mode: &str) -> (Option<i32>, String) {
    let dir = crate::common::tempdir();
    let script = dir.path().join("fake.py");
    fs::write(&script, FAKE).unwrap();
    let adapter = format!("fake=python3 {} {mode}", script.display());
    let out = Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(["run", "--profile", "agentskills", "--adapter", &adapter])
        .args(["--case", "fields/*", "--case", "name/uppercase", "--repo"])
        .arg(repo())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn an_adapter_that_fails_the_smoke_pair_is_broken_and_parts_it_lacks_are_not_offered() {
    let (code, stdout) = run_fake("empty");
    assert_eq!(code, Some(3), "{stdout}");
    assert!(stdout.contains("fake: broken"), "{stdout}");
    assert!(stdout.contains("smoke pair: fields/all-valid"), "{stdout}");
    let (code, stdout) = run_fake("echo");
    assert_eq!(code, Some(1), "name/uppercase is not valid: {stdout}");
    assert!(
        stdout.contains("not offered: prompt, properties, unknown-fields"),
        "{stdout}"
    );
}

crate::tests![
    the_profile_goldens_table_and_version_are_fresh,
    toolnexus_discovery_and_goldens_write_step_over_the_profile_subtree,
    a_toolnexus_request_carries_no_profile_and_an_agentskills_one_names_it,
    an_unknown_profile_is_a_usage_error_with_a_hint,
    the_readme_table_is_the_implementations_page_summary,
    an_adapter_that_fails_the_smoke_pair_is_broken_and_parts_it_lacks_are_not_offered,
];
