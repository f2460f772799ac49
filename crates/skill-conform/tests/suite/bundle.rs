//! `scripts/bundle.sh` builds the case bundle docs/bundle.md describes: every case with its
//! golden, listed in index.json, checksummed, and reproducible byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{case_count, copy_tree, pinned_case_count, repo};

/// A copy of the bundle's inputs; CONTRACT.md is the real one when this checkout has it.
fn inputs(dir: &Path) -> PathBuf {
    let root = dir.join("repo");
    for folder in ["conformance-fixtures", "goldens"] {
        copy_tree(&repo().join(folder), &root.join(folder));
    }
    for file in ["Cargo.toml", "adapters/PROTOCOL.md", "docs/bundle.md"] {
        std::fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
        std::fs::copy(repo().join(file), root.join(file)).unwrap();
    }
    let contract = repo().join("crates/skill-ref/CONTRACT.md");
    let text = std::fs::read_to_string(contract).unwrap_or_else(|_| "# stand-in\n".into());
    std::fs::create_dir_all(root.join("crates/skill-ref")).unwrap();
    std::fs::write(root.join("crates/skill-ref/CONTRACT.md"), text).unwrap();
    root
}

/// Runs the script on `inputs` into `out`; returns (exit code, stdout, stderr).
fn bundle(inputs: &Path, out: &Path) -> (Option<i32>, String, String) {
    let output = Command::new("bash")
        .arg(repo().join("scripts/bundle.sh"))
        .arg(out)
        .env("REPO", inputs)
        .output()
        .expect("bash runs");
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (
        output.status.code(),
        text(output.stdout),
        text(output.stderr),
    )
}

fn the_bundle_holds_every_case_with_its_golden_and_is_reproducible() {
    let dir = crate::common::tempdir();
    let inputs = inputs(dir.path());
    let (code, stdout, stderr) = bundle(&inputs, &dir.path().join("a"));
    assert_eq!(code, Some(0), "{stderr}");
    let tarball = PathBuf::from(stdout.trim_end());
    let name = tarball
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .trim_end_matches(".tar.gz");
    assert!(name.starts_with("skill-conform-cases-"), "{name}");
    let folder = tarball.with_file_name(name);
    for file in [
        "README.md",
        "VERSION",
        "CONTRACT.md",
        "TABLE.md",
        "FIXTURES.md",
        "PROTOCOL.md",
    ] {
        assert!(folder.join(file).is_file(), "the bundle has no {file}");
    }

    let index: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("index.json")).unwrap()).unwrap();
    let cases = index["cases"].as_array().unwrap();
    // The bundle is the toolnexus profile's: another profile's subtree is not in it.
    assert_eq!(cases.len(), case_count());
    let ids: Vec<&str> = cases.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert!(
        ids.windows(2).all(|w| w[0] < w[1]),
        "index.json is not in code-point order"
    );
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let golden = folder.join(case["golden"].as_str().unwrap());
        assert_eq!(
            std::fs::read(&golden).unwrap(),
            std::fs::read(repo().join(format!("goldens/{id}.json"))).unwrap()
        );
        assert!(folder
            .join(case["case"].as_str().unwrap())
            .join("case.toml")
            .is_file());
    }
    let pinned = cases.iter().filter(|c| c["pinned"] == true).count();
    assert_eq!(
        pinned,
        pinned_case_count(),
        "every pinned case is in the bundle, marked pinned"
    );

    let status = Command::new("sha256sum")
        .args(["-c", "--quiet", "SHA256SUMS"])
        .current_dir(&folder)
        .status()
        .unwrap();
    assert!(status.success(), "SHA256SUMS does not match the files");

    let (_, again, _) = bundle(&inputs, &dir.path().join("b"));
    let bytes = |p: &str| std::fs::read(p.trim_end()).unwrap();
    assert!(
        bytes(&stdout) == bytes(&again),
        "two builds of one input differ"
    );
}

fn a_missing_contract_stops_the_bundle_with_one_line() {
    let dir = crate::common::tempdir();
    let inputs = inputs(dir.path());
    std::fs::remove_file(inputs.join("crates/skill-ref/CONTRACT.md")).unwrap();
    let (code, stdout, stderr) = bundle(&inputs, &dir.path().join("out"));
    assert_eq!(code, Some(1));
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        format!(
            "bundle.sh: missing crates/skill-ref/CONTRACT.md in {} (every bundle carries it)\n",
            inputs.display()
        )
    );
}

crate::tests![
    the_bundle_holds_every_case_with_its_golden_and_is_reproducible,
    a_missing_contract_stops_the_bundle_with_one_line,
];
