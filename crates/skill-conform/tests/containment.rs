//! Attacks on what a run depends on, each by a hostile adapter or set-up: editing the repository
//! (a fixture, a golden, a dropped file), writing into another port's sandboxes, a set-up that
//! edits a golden. Each run goes against a copy of the repository's fixtures and goldens with
//! `TMPDIR` pointing at a directory of the test's own (the memory and disk temporary bases), so
//! the test can check that nothing with the run's prefix is left behind.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

/// The cases each attack runs: few, so that each run is short.
const CASES: &str = "frontmatter/block-*";

fn source_repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A scratch repository (fixtures, goldens, ports.toml), a temporary base, a report directory.
struct Scene {
    _root: tempfile::TempDir,
    repo: PathBuf,
    tmp: PathBuf,
    reports: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let root = tempfile::tempdir().unwrap();
        let repo = root.path().join("repo");
        for rel in ["conformance-fixtures", "goldens", "adapters/ports.toml"] {
            copy_tree(&source_repo().join(rel), &repo.join(rel));
        }
        let (tmp, reports) = (root.path().join("tmp"), root.path().join("reports"));
        std::fs::create_dir_all(&tmp).unwrap();
        Scene {
            _root: root,
            repo,
            tmp,
            reports,
        }
    }

    /// Writes an executable shell script named `name` beside the repository.
    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = self.repo.parent().unwrap().join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn run(&self, ports: &[&str]) -> Output {
        let mut command = Command::new(BIN);
        command
            .args(["run", "--repo"])
            .arg(&self.repo)
            .arg("--report-dir")
            .arg(&self.reports)
            .args(["--case", CASES])
            .args(ports)
            .env("TMPDIR", &self.tmp)
            .env_remove("CI")
            .env_remove("SKILL_CONFORM_FAULT_CASES");
        command.output().expect("skill-conform runs")
    }

    fn report(&self) -> Value {
        let text = std::fs::read_to_string(self.reports.join("report.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    /// Nothing the run made is left in its temporary base.
    fn assert_clean_tmp(&self) {
        let left: Vec<String> = std::fs::read_dir(&self.tmp)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with("skill-conform-"))
            .collect();
        assert!(left.is_empty(), "left in the temporary base: {left:?}");
    }
}

/// `cp -a`: keeps the fixtures' special entries (links, modes) as they are.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap();
    assert!(status.success(), "cp -a {}", from.display());
}

fn tampered(report: &Value) -> Vec<String> {
    report["tampered"]
        .as_array()
        .map(|lines| {
            lines
                .iter()
                .map(|l| l.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn an_adapter_that_edits_the_repository_makes_the_run_tampered() {
    let scene = Scene::new();
    let repo = scene.repo.display();
    let evil = scene.script(
        "evil-adapter.sh",
        &format!(
            "printf x >> {repo}/goldens/frontmatter/block-folded.json\n\
             printf x >> {repo}/conformance-fixtures/frontmatter/block-folded/case.toml\n\
             printf x > {repo}/goldens/dropped\n\
             exec {BIN} adapter --reference\n"
        ),
    );
    let out = scene.run(&["--adapter", &format!("evil={}", evil.display())]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(
        tampered(&scene.report()),
        [
            "changed conformance-fixtures/frontmatter/block-folded/case.toml",
            "changed goldens/frontmatter/block-folded.json",
            "added goldens/dropped",
        ]
    );
    assert!(
        stdout.contains("tampered: guarded files changed"),
        "{stdout}"
    );
    scene.assert_clean_tmp();
}

#[test]
fn a_set_up_that_edits_a_golden_makes_the_run_tampered() {
    let scene = Scene::new();
    let setup = scene.script(
        "evil-setup.sh",
        &format!(
            "printf x >> {}/goldens/frontmatter/block-folded.json\necho {BIN}\n",
            scene.repo.display()
        ),
    );
    let ports = format!(
        "[ports.evil]\nlanguage = \"Shell\"\nsetup = [\"{}\"]\nrun = [\"{{setup}}\", \"adapter\", \"--reference\"]\nversion = \"1\"\n",
        setup.display()
    );
    std::fs::write(scene.repo.join("adapters/ports.toml"), ports).unwrap();
    let out = scene.run(&["--port", "evil"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(
        tampered(&scene.report()),
        ["changed goldens/frontmatter/block-folded.json"]
    );
    scene.assert_clean_tmp();
}

#[test]
fn an_adapter_that_writes_into_another_ports_sandboxes_fails_that_port() {
    let scene = Scene::new();
    // The victim is the reference, started late: its sandboxes are prepared (and digested)
    // at once, and the attacker, a second later, writes into every sandbox in the base before
    // the victim replies. (A write while a sandbox is being prepared is caught by its own
    // check: the case's names are not what was copied.)
    let victim = scene.script(
        "victim-adapter.sh",
        &format!("sleep 3\nexec {BIN} adapter --reference\n"),
    );
    let evil = scene.script(
        "evil-adapter.sh",
        &format!(
            "sleep 1\n\
             for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do\n\
               for d in {tmp}/skill-conform-*/; do printf x > \"$d/planted\" 2>/dev/null; done\n\
               sleep 0.1\n\
             done\n\
             exec {BIN} adapter --reference\n",
            tmp = scene.tmp.display()
        ),
    );
    let out = scene.run(&[
        "--adapter",
        &format!("victim={}", victim.display()),
        "--adapter",
        &format!("evil={}", evil.display()),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let report = scene.report();
    let victim_trials = report["trials"]["victim"].as_object().unwrap();
    assert!(!victim_trials.is_empty());
    for (case, trial) in victim_trials {
        assert_eq!(trial["status"], "sandbox-modified", "{case}: {trial}");
        let reason = trial["evidence"]["reason"].as_str().unwrap();
        assert!(reason.contains("added planted"), "{reason}");
    }
    assert!(tampered(&report).is_empty());
    scene.assert_clean_tmp();
}
