//! The Agent Skills profile's fixtures against its reference: every case's canonical output must
//! equal its golden in `goldens/agentskills/<group>/<case>.json`, every `case.toml`
//! must be well-formed, and every mutant of the profile must change the output of at least one
//! pinned case (the fixtures kill it).
//!
//! The goldens are written by the harness (`skill-conform goldens --write`, never by hand); this
//! test only checks them, so the reference crate catches a drift without the harness.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use skill_ref::agentskills::{self, AsConfig, AsMutant, Rule};
use skill_ref::canonical::to_canonical_string;

/// The label that stands for the case's skills folder in prompt locations (the harness writes
/// the first root as `{root0}`).
const ROOT_LABEL: &str = "{root0}";

/// The hazard ids `AGENTSKILLS.md` documents.
const HAZARDS: &[&str] = &[
    "ASH-TYPING",
    "ASH-FLOAT",
    "ASH-NULL",
    "ASH-TOOLS-LIST",
    "ASH-FLOW",
    "ASH-ANCHOR",
    "ASH-UNICODE-NAME",
    "ASH-TRIM",
    "ASH-BOM",
    "ASH-FENCE",
    "ASH-FILE-CASE",
    "ASH-BODY",
    "ASH-DUPLICATE-KEY",
    "ASH-LENGTH-UNIT",
    "ASH-EMPTY-FRONTMATTER",
    "ASH-PROMPT",
];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseToml {
    summary: String,
    pinned: bool,
    rules: Vec<String>,
    #[serde(default)]
    hazards: Vec<String>,
}

struct Case {
    id: String,
    dir: PathBuf,
    toml: CaseToml,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn cases() -> Vec<Case> {
    let fixtures = repo().join("conformance-fixtures/agentskills");
    let mut cases = Vec::new();
    for group in sorted_dirs(&fixtures) {
        for dir in sorted_dirs(&group) {
            let id = format!(
                "{}/{}",
                group.file_name().unwrap().to_str().unwrap(),
                dir.file_name().unwrap().to_str().unwrap()
            );
            let text = std::fs::read_to_string(dir.join("case.toml"))
                .unwrap_or_else(|e| panic!("{id}/case.toml: {e}"));
            let toml: CaseToml =
                toml::from_str(&text).unwrap_or_else(|e| panic!("{id}/case.toml: {e}"));
            cases.push(Case { id, dir, toml });
        }
    }
    cases
}

fn output(config: &AsConfig, case: &Case) -> String {
    let out = agentskills::run_case(config, &case.dir.join("skills"), ROOT_LABEL)
        .unwrap_or_else(|e| panic!("{}: {e}", case.id));
    to_canonical_string(&out)
}

#[test]
fn case_tomls_name_known_rules_and_hazards() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    for case in &cases {
        assert!(!case.toml.summary.is_empty(), "{}: empty summary", case.id);
        assert!(!case.toml.rules.is_empty(), "{}: no rules", case.id);
        for rule in case.toml.rules.iter().chain(&case.toml.hazards) {
            let known = rule == "prompt"
                || Rule::ALL.iter().any(|r| r.code() == rule)
                || HAZARDS.contains(&rule.as_str());
            assert!(known, "{}: unknown rule or hazard {rule}", case.id);
        }
        let hazard_case = case.id.starts_with("hazards/");
        assert_eq!(
            hazard_case, !case.toml.pinned,
            "{}: hazards/ and only it is not pinned",
            case.id
        );
    }
}

#[test]
fn every_rule_has_a_pinned_case() {
    let named: BTreeSet<String> = cases()
        .into_iter()
        .filter(|c| c.toml.pinned)
        .flat_map(|c| c.toml.rules)
        .collect();
    let missing: Vec<&str> = Rule::ALL
        .iter()
        .map(|r| r.code())
        .filter(|code| !named.contains(*code) && !TYPE_RULES_ONLY_IN_HAZARDS.contains(code))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a pinned case: {missing:?}"
    );
}

/// Type rules whose only triggers are YAML typing questions the specification leaves open.
const TYPE_RULES_ONLY_IN_HAZARDS: &[&str] = &[
    "AS-NAME-TYPE",
    "AS-DESCRIPTION-TYPE",
    "AS-LICENSE-TYPE",
    "AS-COMPATIBILITY-TYPE",
    "AS-ALLOWED-TOOLS-TYPE",
];

#[test]
fn goldens_match_the_reference() {
    let goldens = repo().join("goldens/agentskills");
    let mut stale = Vec::new();
    for case in cases() {
        let path = goldens.join(format!("{}.json", case.id));
        let actual = output(&AsConfig::default(), &case);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(actual.as_str()) {
            stale.push(case.id);
        }
    }
    assert!(
        stale.is_empty(),
        "goldens differ from the reference (regenerate with `skill-conform goldens --write`): {stale:?}"
    );
}

#[test]
fn every_mutant_is_killed_by_a_pinned_case() {
    let cases: Vec<Case> = cases().into_iter().filter(|c| c.toml.pinned).collect();
    let correct: Vec<String> = cases
        .iter()
        .map(|c| output(&AsConfig::default(), c))
        .collect();
    let mut survivors = Vec::new();
    for &mutant in AsMutant::ALL {
        let config = AsConfig::mutated(mutant);
        let killed = cases
            .iter()
            .zip(&correct)
            .any(|(case, good)| output(&config, case) != *good);
        if !killed {
            survivors.push(mutant.name());
        }
    }
    assert!(
        survivors.is_empty(),
        "mutants no pinned case kills: {survivors:?}"
    );
}
