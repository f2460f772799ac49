//! `skill-conform corpus` and `gen-corpus` end to end, on generated trees: the folder is read
//! in place and never changed, agreement is quiet, a mutant's disagreements are located, the
//! reports are deterministic, and the exit codes follow the flags.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use skill_conform::corpus_gen::generate;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The binary with a clean environment (no `SKILL_CONFORM_*`, no `CI`).
fn skill_conform<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    let mut command = Command::new(BIN);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy().into_owned();
        if key.starts_with("SKILL_CONFORM_") || key == "CI" {
            command.env_remove(key);
        }
    }
    command.args(args).output().expect("skill-conform runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every entry under `dir` with its kind and content (a symlink's target), sorted: compared
/// before and after a run, it proves nothing was written, renamed or removed.
fn snapshot(dir: &Path) -> Vec<(String, String, Vec<u8>)> {
    let mut out: Vec<(String, String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|entry| {
            let entry = entry.unwrap();
            let relative = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .display()
                .to_string();
            let kind = entry.file_type();
            if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).unwrap();
                (
                    relative,
                    "link".into(),
                    target.display().to_string().into_bytes(),
                )
            } else if kind.is_dir() {
                (relative, "dir".into(), Vec::new())
            } else {
                (
                    relative,
                    "file".into(),
                    std::fs::read(entry.path()).unwrap(),
                )
            }
        })
        .collect();
    out.sort();
    out
}

fn mutant_adapter() -> String {
    format!("mutant-ldw={BIN} adapter --reference --mutant last-duplicate-wins")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_mutant_disagrees_in_place_and_the_tree_is_unchanged() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("skills");
    generate(&tree, 300, 2).unwrap();
    let before = snapshot(&tree);
    let (reports, again) = (tmp.path().join("reports"), tmp.path().join("again"));
    let repo = repo();
    let adapter = mutant_adapter();
    let args = |dir: &Path| {
        vec![
            "corpus".to_owned(),
            tree.display().to_string(),
            "--adapter".into(),
            adapter.clone(),
            "--report-dir".into(),
            dir.display().to_string(),
            "--repo".into(),
            repo.display().to_string(),
        ]
    };
    let out = skill_conform(&args(&reports));
    let stdout = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}\n{}",
        text(&out.stderr)
    );
    assert_eq!(snapshot(&tree), before, "corpus wrote to the tree");

    assert!(
        stdout.contains("- disagreeing with the reference: `mutant-ldw`"),
        "{stdout}"
    );
    assert!(
        stdout.contains("## Duplicated names: which copy won"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  - mutant-ldw: skipped (duplicate-name)"),
        "{stdout}"
    );
    assert!(stdout.contains("- mutant-ldw: "), "{stdout}");
    assert!(stdout.contains("loads differ; prompt differs"), "{stdout}");

    let report = read_json(&reports.join("corpus.json"));
    let schema = jsonschema::validator_for(&skill_conform::corpus::schema()).unwrap();
    let errors: Vec<String> = schema.iter_errors(&report).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "corpus.json breaks its schema: {errors:#?}"
    );
    assert_eq!(report["agreement"], Value::Bool(false));
    assert_eq!(
        report["roots"][0],
        Value::String(tree.display().to_string())
    );
    assert_eq!(report["ports"]["reference"]["cluster"], 1);
    assert_eq!(report["ports"]["mutant-ldw"]["cluster"], 2);
    assert_eq!(report["ports"]["mutant-ldw"]["agreesWithReference"], false);
    let rows = report["disagreements"].as_array().unwrap();
    assert!(!rows.is_empty());
    // Every reported location is redacted, and one the reference accepts is dropped.
    assert!(rows
        .iter()
        .all(|r| r["location"].as_str().unwrap().starts_with("{root0}/")));
    assert!(rows.iter().any(|r| r["referenceAcceptsPortDrops"] == true));
    assert!(!report["duplicates"].as_array().unwrap().is_empty());
    assert!(reports.join("corpus.md").is_file());

    // Same tree, same ports: byte-identical reports; --fail-on-disagreement makes it exit 1.
    let mut failing = args(&again);
    failing.push("--fail-on-disagreement".into());
    let out = skill_conform(&failing);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    for name in ["corpus.json", "corpus.md"] {
        assert_eq!(
            std::fs::read(reports.join(name)).unwrap(),
            std::fs::read(again.join(name)).unwrap(),
            "{name} differs between two runs"
        );
    }
    assert_eq!(snapshot(&tree), before, "corpus wrote to the tree");
}

#[test]
fn the_reference_agrees_with_itself_and_unavailable_ports_are_listed() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("skills");
    generate(&tree, 120, 5).unwrap();
    let reports = tmp.path().join("reports");
    let adapter = format!("itself={BIN} adapter --reference");
    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--adapter",
        "ghost=/nonexistent/adapter",
        "--fail-on-disagreement",
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    // The ghost never started: it is listed with the cause, and a port that did not answer
    // does not agree, so --fail-on-disagreement fails.
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("## Disagreements: 0 SKILL.md locations"),
        "{stdout}"
    );
    assert!(
        stdout.contains("  - ghost: broken: the adapter did not start"),
        "{stdout}"
    );
    assert!(stdout.contains("- itself: all "), "{stdout}");
    assert!(stdout.contains("loads match; prompt matches"), "{stdout}");
    let report = read_json(&reports.join("corpus.json"));
    assert_eq!(
        report["clusters"][0]["ports"],
        serde_json::json!(["reference", "itself"])
    );
    assert_eq!(report["ports"]["itself"]["agreesWithReference"], true);

    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--fail-on-disagreement",
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("every port that ran agrees with the reference"));
}

#[test]
fn a_port_that_fails_the_smoke_pair_is_broken_not_a_disagreement() {
    let tmp = tempfile::tempdir().unwrap();
    let tree = tmp.path().join("skills");
    generate(&tree, 20, 3).unwrap();
    let reports = tmp.path().join("reports");
    // Answers with another case id: the smoke pair catches it before the corpus request.
    let adapter = format!("liar={BIN} adapter --reference --fault wrong-id");
    let out = skill_conform(&[
        "corpus",
        tree.to_str().unwrap(),
        "--adapter",
        &adapter,
        "--report-dir",
        reports.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("  - liar: broken: the smoke pair failed: "),
        "{stdout}"
    );
    let report = read_json(&reports.join("corpus.json"));
    assert_eq!(report["ports"]["liar"]["state"], "broken");
    assert_eq!(report["ports"]["liar"]["fault"]["kind"], "wrong-case");
}

#[test]
fn a_missing_folder_is_a_one_line_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = tmp.path().join("no-such-folder");
    let out = skill_conform(&[
        "corpus",
        missing.to_str().unwrap(),
        "--repo",
        repo().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(missing.to_str().unwrap()), "{stderr}");
    assert!(out.stdout.is_empty());
}

#[test]
fn gen_corpus_is_seeded_and_refuses_a_non_empty_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for dir in [&a, &b] {
        let out = skill_conform(&[
            "gen-corpus",
            dir.to_str().unwrap(),
            "--skills",
            "80",
            "--seed",
            "9",
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(text(&out.stdout).starts_with("wrote 80 SKILL.md files"));
    }
    assert_eq!(snapshot(&a), snapshot(&b));
    let before = snapshot(&a);
    let out = skill_conform(&[
        "gen-corpus",
        a.to_str().unwrap(),
        "--skills",
        "5",
        "--seed",
        "1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not an empty directory"));
    assert_eq!(snapshot(&a), before);
}
