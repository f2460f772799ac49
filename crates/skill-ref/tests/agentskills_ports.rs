//! The agentskills ports' manifests agree: every port of `adapters/ports.toml` that says
//! `profile = "agentskills"` has a set-up that sources the shared preamble, a README and an
//! `expected.toml` whose cases are fixtures of the profile, and its pinned version is the one its
//! lock or constraints install.

use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn ports() -> Vec<(String, toml::Table)> {
    let manifest: toml::Table = read("adapters/ports.toml").parse().unwrap();
    let ports = manifest["ports"].as_table().expect("[ports.*] tables");
    ports
        .iter()
        .map(|(name, port)| (name.clone(), port.as_table().unwrap().clone()))
        .filter(|(_, port)| port.get("profile").and_then(|p| p.as_str()) == Some("agentskills"))
        .collect()
}

#[test]
fn every_port_declares_the_profile_and_has_its_files() {
    let ports = ports();
    assert_eq!(
        ports.len(),
        5,
        "{:?}",
        ports.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    for (name, port) in &ports {
        assert_eq!(port["profile"].as_str(), Some("agentskills"), "{name}");
        let setup = read(&format!("adapters/{name}/setup.sh"));
        assert!(
            setup.contains("/../lib/setup-common.sh\""),
            "{name}: setup.sh must source the preamble"
        );
        assert!(
            setup.contains(&format!("PORT={name}\n")),
            "{name}: setup.sh names another port"
        );
        for file in ["README.md", "expected.toml"] {
            assert!(
                repo().join(format!("adapters/{name}/{file}")).is_file(),
                "{name}: no {file}"
            );
        }
        for arg in port["run"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|a| a.as_str())
        {
            if let Some(arg) = arg.strip_prefix("{repo}/") {
                assert!(
                    repo().join(arg).is_file(),
                    "{name}: run names a missing {arg}"
                );
            }
        }
    }
}

#[test]
fn expected_entries_name_fixtures_of_the_profile() {
    for (name, _) in ports() {
        let expected: toml::Table = read(&format!("adapters/{name}/expected.toml"))
            .parse()
            .unwrap();
        let entries = expected
            .get("divergence")
            .and_then(|d| d.as_array())
            .cloned()
            .unwrap_or_default();
        for entry in entries {
            let case = entry["cases"].as_str().unwrap();
            let dir = repo().join("conformance-fixtures/agentskills").join(case);
            assert!(
                dir.join("case.toml").is_file(),
                "{name}: expected.toml names unknown case {case}"
            );
        }
    }
}

#[test]
fn pinned_versions_match_what_set_up_installs() {
    for (name, port) in ports() {
        let version = port["version"].as_str().unwrap();
        let lock = repo().join(format!("adapters/{name}/package-lock.json"));
        if lock.is_file() {
            let manifest: serde_json::Value =
                serde_json::from_str(&read(&format!("adapters/{name}/package.json"))).unwrap();
            let deps = manifest["dependencies"].as_object().unwrap();
            assert_eq!(
                deps.len(),
                1,
                "{name}: one dependency, the package under test"
            );
            let (package, pinned) = deps.iter().next().unwrap();
            assert_eq!(
                pinned.as_str(),
                Some(version),
                "{name}: package.json pins another version"
            );
            let lock: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&lock).unwrap()).unwrap();
            let locked = &lock["packages"][format!("node_modules/{package}")]["version"];
            assert_eq!(
                locked.as_str(),
                Some(version),
                "{name}: package-lock.json locks another version"
            );
        } else {
            assert!(
                repo()
                    .join(format!("adapters/{name}/constraints.txt"))
                    .is_file(),
                "{name}: no constraints.txt"
            );
        }
    }
}
