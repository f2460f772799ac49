//! The id-coverage test: `CONTRACT.md`, the rule checks and the fixtures cite the same rules.
//!
//! It fails when a rule of `CONTRACT.md` has no rule check (a `rules: &[…]` entry in a test of
//! this crate) or no fixture (a `case.toml` whose `rules` names it), when a `case.toml` names
//! something that is not a rule id, or when any code, fixture or document in the repository
//! cites an id `CONTRACT.md` does not define.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use skill_ref::rules;
use walkdir::WalkDir;

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir` (relative to the repository) whose name ends with one of `suffixes`,
/// leaving out build output and adapter caches.
fn files(dir: &str, suffixes: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = WalkDir::new(repo_root().join(dir))
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | ".cache" | ".git")))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            suffixes.iter().any(|s| name.ends_with(s))
        })
        .collect();
    out.sort();
    out
}

/// Every id-shaped token (`PROFILE-AREA-N`) in `text`.
fn cited_ids(text: &str) -> BTreeSet<String> {
    text.split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '-'))
        .filter(|token| rules::looks_like_id(token))
        .map(str::to_owned)
        .collect()
}

/// The ids named inside the `rules: &[…]` entries of the rule-check tables.
fn ids_with_a_rule_check() -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    for path in files("crates/skill-ref/tests", &[".rs"]) {
        let text = fs::read_to_string(&path).unwrap();
        for (_, rest) in text
            .match_indices("rules: &[")
            .map(|(i, _)| text.split_at(i + 9))
        {
            let list = rest.split(']').next().unwrap_or_default();
            ids.extend(cited_ids(list));
        }
    }
    ids
}

/// Each case directory with the `rules` of its `case.toml`.
fn case_rules() -> Vec<(String, Vec<String>)> {
    // conformance-fixtures/agentskills/ is another profile's (its codes: AGENTSKILLS.md).
    let other_profile = repo_root().join("conformance-fixtures/agentskills");
    files("conformance-fixtures", &["case.toml"])
        .into_iter()
        .filter(|path| !path.starts_with(&other_profile))
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let table: toml::Table = text.parse().unwrap();
            let rules = table["rules"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_owned())
                .collect();
            let case = path.parent().unwrap().strip_prefix(repo_root()).unwrap();
            (case.display().to_string(), rules)
        })
        .collect()
}

#[test]
fn every_rule_has_a_rule_check() {
    let checked = ids_with_a_rule_check();
    let missing: Vec<&str> = rules::all()
        .iter()
        .map(|r| r.id)
        .filter(|id| !checked.contains(*id))
        .collect();
    assert!(
        missing.is_empty(),
        "rules without a rule check in crates/skill-ref/tests: {missing:?}"
    );
}

#[test]
fn every_rule_has_a_fixture() {
    let cited: BTreeSet<String> = case_rules().into_iter().flat_map(|(_, r)| r).collect();
    let missing: Vec<&str> = rules::all()
        .iter()
        .map(|r| r.id)
        .filter(|id| !cited.contains(*id))
        .collect();
    assert!(missing.is_empty(), "rules no case.toml cites: {missing:?}");
}

#[test]
fn every_case_cites_only_contract_rule_ids() {
    let wrong: Vec<String> = case_rules()
        .into_iter()
        .flat_map(|(case, rules)| {
            rules
                .into_iter()
                .filter(|id| rules::lookup(id).is_none())
                .map(move |id| format!("{case}: `{id}`"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "case.toml rules that are not CONTRACT.md ids: {wrong:?}"
    );
}

#[test]
fn every_mutant_names_existing_rules() {
    let wrong: Vec<String> = skill_ref::Mutant::ALL
        .iter()
        .filter(|m| {
            m.rule().split(' ').next().is_none()
                || m.rule().split(' ').any(|id| rules::lookup(id).is_none())
        })
        .map(|m| format!("{m}: `{}`", m.rule()))
        .collect();
    assert!(wrong.is_empty(), "mutants citing unknown rules: {wrong:?}");
}

#[test]
fn no_file_cites_an_unknown_rule_id() {
    let mut paths = files("crates", &[".rs", ".md", ".toml"]);
    paths.extend(files("conformance-fixtures", &[".toml", ".md"]));
    paths.extend(files("adapters", &[".toml", ".md"]));
    paths.extend(files("docs", &[".md"]));
    paths.push(repo_root().join("README.md"));
    let unknown: Vec<String> = paths
        .iter()
        .flat_map(|path| {
            let text = fs::read_to_string(path).unwrap_or_default();
            cited_ids(&text)
                .into_iter()
                .filter(|id| rules::lookup(id).is_none())
                .map(move |id| format!("{}: {id}", path.display()))
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "ids CONTRACT.md does not define: {unknown:?}"
    );
}
