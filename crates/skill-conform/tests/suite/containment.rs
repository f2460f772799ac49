//! Attacks on what a run depends on, each by a hostile adapter or set-up: editing the repository
//! (a fixture, a golden, a dropped file), writing into another port's sandboxes, a set-up that
//! edits a golden. Each run goes against a copy of the repository's fixtures and goldens with
//! `TMPDIR` pointing at a directory of the test's own (the memory and disk temporary bases), so
//! the test can check that nothing with the run's prefix is left behind.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use skill_conform::confine::NO_ISOLATION_ENV;
use skill_conform::isolate::Isolation;

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
        let root = crate::common::tempdir();
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

    /// Runs the ports with isolation off (detection alone), as where Landlock is unavailable.
    fn run(&self, ports: &[&str]) -> Output {
        self.run_with(ports, false)
    }

    fn run_with(&self, ports: &[&str], isolated: bool) -> Output {
        let mut command = Command::new(BIN);
        if isolated {
            command.env_remove(NO_ISOLATION_ENV);
        } else {
            command.env(NO_ISOLATION_ENV, "1");
        }
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

/// An adapter that appends to a golden and a fixture and drops a file in the goldens.
fn repository_editor(scene: &Scene) -> PathBuf {
    let repo = scene.repo.display();
    scene.script(
        "evil-adapter.sh",
        &format!(
            "printf x >> {repo}/goldens/frontmatter/block-folded.json\n\
             printf x >> {repo}/conformance-fixtures/frontmatter/block-folded/case.toml\n\
             printf x > {repo}/goldens/dropped\n\
             exec {BIN} adapter --reference\n"
        ),
    )
}

fn an_adapter_that_edits_the_repository_makes_the_run_tampered() {
    let scene = Scene::new();
    let evil = repository_editor(&scene);
    let out = scene.run(&["--adapter", &format!("evil={}", evil.display())]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(scene.report()["ports"]["evil"]["isolation"], "none");
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

fn with_landlock_the_adapters_writes_to_the_repository_are_denied() {
    let scene = Scene::new();
    let before = skill_conform::tamper::digest_repository(&scene.repo).unwrap();
    let evil = repository_editor(&scene);
    let out = scene.run_with(&["--adapter", &format!("evil={}", evil.display())], true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = scene.report();
    if report["ports"]["evil"]["isolation"] == Isolation::None.as_str() {
        return; // Without Landlock the write lands, and the run is `tampered` (test above).
    }
    assert_eq!(report["ports"]["evil"]["isolation"], "full");
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(tampered(&report).is_empty());
    let after = skill_conform::tamper::digest_repository(&scene.repo).unwrap();
    assert!(before.diff(&after).is_empty(), "{}", before.diff(&after));
    scene.assert_clean_tmp();
}

/// A scene whose only port `evil` has a set-up that appends to a golden.
fn golden_editing_set_up() -> Scene {
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
    scene
}

fn a_set_up_that_edits_a_golden_makes_the_run_tampered() {
    let scene = golden_editing_set_up();
    let out = scene.run(&["--port", "evil"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert_eq!(
        tampered(&scene.report()),
        ["changed goldens/frontmatter/block-folded.json"]
    );
    scene.assert_clean_tmp();
}

fn with_landlock_a_set_ups_write_to_a_golden_is_denied() {
    let scene = golden_editing_set_up();
    let out = scene.run_with(&["--port", "evil"], true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    if scene.report()["ports"]["evil"]["isolation"] == Isolation::None.as_str() {
        return; // Without Landlock the write lands, and the run is `tampered` (test above).
    }
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(tampered(&scene.report()).is_empty());
    scene.assert_clean_tmp();
}

fn an_adapter_that_writes_into_another_ports_sandboxes_fails_that_port() {
    let scene = Scene::new();
    // The victim is the reference, started late: its sandboxes are prepared (and digested)
    // at once, and the attacker writes into every sandbox in the base before the victim
    // replies. The attacker waits for both ports' sandboxes (three cases each) and a moment
    // for their digests, plants three times, then lets the victim start. (A write while a
    // sandbox is being prepared is caught by its own check: the case's names are not what
    // was copied.)
    let planted = scene.tmp.parent().unwrap().join("planted-everywhere");
    let victim = scene.script(
        "victim-adapter.sh",
        &format!(
            "while [ ! -e {planted} ]; do sleep 0.05; done\nexec {BIN} adapter --reference\n",
            planted = planted.display()
        ),
    );
    let evil = scene.script(
        "evil-adapter.sh",
        &format!(
            "until set -- {tmp}/skill-conform-*/ && [ \"$#\" -ge 6 ]; do sleep 0.05; done\n\
             sleep 0.3\n\
             for round in 1 2 3; do\n\
               for d in {tmp}/skill-conform-*/; do printf x > \"$d/planted\" 2>/dev/null; done\n\
               sleep 0.05\n\
             done\n\
             : > {planted}\n\
             exec {BIN} adapter --reference\n",
            tmp = scene.tmp.display(),
            planted = planted.display()
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

/// Waits up to `secs` for `path` to exist.
fn wait_for(path: &Path, secs: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !path.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Interrupts a run whose adapter `hung` never answers its hello (and has a child of its own)
/// with `signal`, after the reference has run; checks the exit code, the partial reports and
/// that nothing is left.
fn interrupt_mid_run(signal: &str, code: i32, name: &str) {
    let scene = Scene::new();
    let root = scene.repo.parent().unwrap().to_owned();
    let hung = scene.script(
        "hung-adapter.sh",
        &format!(
            "sleep 1000 &\necho $! > {root}/child.pid\necho $$ > {root}/adapter.pid\nexec sleep 1000\n",
            root = root.display()
        ),
    );
    let before = skill_conform::tamper::digest_repository(&scene.repo).unwrap();
    let mut command = Command::new(BIN);
    command
        .args(["run", "--repo"])
        .arg(&scene.repo)
        .arg("--report-dir")
        .arg(&scene.reports)
        .args(["--case", CASES, "--port", "reference", "--adapter"])
        .arg(format!("hung={}", hung.display()))
        .env("TMPDIR", &scene.tmp)
        // The hung adapter writes its pids beside the repository, which isolation forbids.
        .env(NO_ISOLATION_ENV, "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let mut run = command.spawn().unwrap();
    wait_for(&root.join("child.pid"), 30);
    // Mid-run: the reference is done (its progress line), the hung adapter is not.
    let mut stderr = std::io::BufReader::new(run.stderr.take().unwrap());
    let mut seen = String::new();
    while !seen.contains("reference: 3 cases run") {
        let read = std::io::BufRead::read_line(&mut stderr, &mut seen).unwrap();
        assert!(
            read > 0,
            "the run ended before the reference was done:\n{seen}"
        );
    }
    let sent = Command::new("kill")
        .args([signal, &run.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    std::io::Read::read_to_string(&mut stderr, &mut seen).unwrap();
    let status = run.wait().unwrap();
    assert_eq!(status.code(), Some(code), "{seen}");
    let report = scene.report();
    assert_eq!(report["interrupted"], name, "{report}");
    assert_eq!(report["trials"]["reference"].as_object().unwrap().len(), 3);
    for pid_file in ["adapter.pid", "child.pid"] {
        let pid = std::fs::read_to_string(root.join(pid_file)).unwrap();
        // Alive means alive for 5 s after the run exits.
        let gone = crate::common::ends_within(pid.trim(), std::time::Duration::from_secs(5));
        assert!(gone, "{pid_file} {pid} still runs");
    }
    scene.assert_clean_tmp();
    let after = skill_conform::tamper::digest_repository(&scene.repo).unwrap();
    assert!(before.diff(&after).is_empty());
}

fn sigint_mid_run_kills_the_hung_adapter_and_writes_partial_reports() {
    interrupt_mid_run("-INT", 130, "SIGINT");
}

fn sigterm_mid_run_kills_the_hung_adapter_and_writes_partial_reports() {
    interrupt_mid_run("-TERM", 143, "SIGTERM");
}

crate::tests![
    an_adapter_that_edits_the_repository_makes_the_run_tampered,
    with_landlock_the_adapters_writes_to_the_repository_are_denied,
    a_set_up_that_edits_a_golden_makes_the_run_tampered,
    with_landlock_a_set_ups_write_to_a_golden_is_denied,
    an_adapter_that_writes_into_another_ports_sandboxes_fails_that_port,
    sigint_mid_run_kills_the_hung_adapter_and_writes_partial_reports,
    sigterm_mid_run_kills_the_hung_adapter_and_writes_partial_reports,
];
