//! Reproduce lines reproduce: every trial's printed command, run by a shell as it is, gives the
//! same verdict back — for the reference given as `NAME@VERSION`, a mutant given as
//! `--adapter 'NAME=COMMAND'`, a `NAME=PATH` port (a stand-in checkout whose path has a space),
//! and a port whose `nondeterministic` status only `--repeat` shows, with `TMPDIR` and a
//! repository other than the current directory.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

use crate::common::repo;

/// Copies `rel` (a file or directory) from the repository into `to`.
fn copy_from_repo(rel: &str, to: &Path) {
    let (from, to) = (repo().join(rel), to.join(rel));
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(&from).unwrap();
        let target = if rel.as_os_str().is_empty() {
            to.clone()
        } else {
            to.join(rel)
        };
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A repository with the `frontmatter` and `discovery` cases and a port `standin` whose local
/// checkout (`--port standin=PATH`) serves the reference with a mutant switched on.
fn scratch_repo(root: &Path) -> (PathBuf, PathBuf) {
    let repo = root.join("repo");
    for rel in [
        "conformance-fixtures/frontmatter",
        "conformance-fixtures/discovery",
        "goldens/frontmatter",
        "goldens/discovery",
        "goldens/VERSION",
        "adapters/ports.toml",
    ] {
        copy_from_repo(rel, &repo);
    }
    let standin = "\n[ports.standin]\nlanguage = \"Shell\"\nprobe = []\n\
        setup = [\"sh\", \"-c\", \"printf '%s\\\\n' \\\"$1/serve.sh\\\"\", \"setup\", \"{version}\"]\n\
        run = [\"sh\", \"{setup}\"]\nversion = \"0.0.0\"\ntested = true\n";
    let ports = repo.join("adapters/ports.toml");
    let mut text = std::fs::read_to_string(&ports).unwrap();
    text.push_str(standin);
    std::fs::write(&ports, text).unwrap();
    let checkout = root.join("stand-in checkout");
    std::fs::create_dir_all(&checkout).unwrap();
    std::fs::write(
        checkout.join("serve.sh"),
        format!("exec '{BIN}' adapter --reference --mutant rescue-keeps-quotes\n"),
    )
    .unwrap();
    (repo.canonicalize().unwrap(), checkout)
}

fn report(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap()
}

/// One trial per (port, status): its case and its reproduce line, `[REPO]` put back.
fn one_trial_per_status(
    report: &Value,
    repo: &Path,
) -> BTreeMap<(String, String), (String, String)> {
    let mut chosen = BTreeMap::new();
    for (port, trials) in report["trials"].as_object().unwrap() {
        for (case, trial) in trials.as_object().unwrap() {
            let status = trial["status"].as_str().unwrap().to_owned();
            let line = trial["evidence"]["repro"].as_str().unwrap();
            let line = line.replace("[REPO]", &repo.display().to_string());
            chosen
                .entry((port.clone(), status))
                .or_insert((case.clone(), line));
        }
    }
    chosen
}

/// Runs `line` with `sh -c` from `cwd`, `skill-conform` on `PATH` and no `TMPDIR` of its own.
fn run_line(line: &str, cwd: &Path, bin_dir: &Path) -> Output {
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    Command::new("sh")
        .args(["-c", line])
        .current_dir(cwd)
        .env("PATH", path)
        .env_remove("TMPDIR")
        .env_remove("CI")
        .output()
        .unwrap()
}

fn every_printed_reproduce_line_gives_the_same_verdict_back() {
    let shm = Path::new("/dev/shm");
    let memory = if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        crate::common::tempdir()
    };
    let root = crate::common::tempdir();
    let (repo, checkout) = scratch_repo(root.path());
    let elsewhere = root.path().join("elsewhere");
    let bin_dir = root.path().join("bin");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(BIN, bin_dir.join("skill-conform")).unwrap();
    let script = repo_script();
    let reports = root.path().join("reports");
    let out = Command::new(BIN)
        .arg("run")
        .args(["--port", "reference@other", "--port", "reference"])
        .arg("--port")
        .arg(format!("standin={}", checkout.display()))
        .arg("--adapter")
        .arg(format!(
            "m={BIN} adapter --reference --mutant rescue-keeps-quotes"
        ))
        .arg("--adapter")
        .arg(format!("raw=python3 '{}' {BIN}", script.display()))
        .args([
            "--case",
            "frontmatter/rescue-quoted",
            "--case",
            "discovery/*",
        ])
        .args(["--repeat", "3", "--seed", "11", "--repo"])
        .arg(&repo)
        .arg("--report-dir")
        .arg(&reports)
        .current_dir(&elsewhere)
        .env("TMPDIR", memory.path())
        .env_remove("CI")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let first = report(&reports);
    let chosen = one_trial_per_status(&first, &repo);
    for wanted in [
        ("m", "fail"),
        ("standin", "fail"),
        ("raw", "nondeterministic"),
        ("reference@other", "pass"),
    ] {
        let key = (wanted.0.to_owned(), wanted.1.to_owned());
        assert!(
            chosen.contains_key(&key),
            "no {wanted:?} trial: {chosen:#?}"
        );
    }
    for ((column, status), (case, line)) in &chosen {
        assert!(line.starts_with("TMPDIR="), "{line}");
        assert!(
            line.contains(&format!(" --repo {} ", repo.display())),
            "{line}"
        );
        assert_eq!(
            line.contains("--repeat 3 --seed 11"),
            status == "nondeterministic",
            "{line}"
        );
        if status != "pass" {
            assert!(
                stdout.contains(&format!("reproduce: {line}\n")),
                "{line}\n{stdout}"
            );
        }
        let _ = std::fs::remove_dir_all(repo.join("reports"));
        let again = run_line(line, &elsewhere, &bin_dir);
        let stderr = String::from_utf8_lossy(&again.stderr);
        assert!(
            matches!(again.status.code(), Some(0 | 1)),
            "{line}\n{stderr}"
        );
        let rerun = report(&repo.join("reports"));
        let port = column.split('@').next().unwrap();
        let trials = rerun["trials"].as_object().unwrap();
        assert_eq!(trials.len(), 1, "{line}: one port, named {port}");
        let verdict = &rerun["trials"][port][case]["status"];
        assert_eq!(
            verdict,
            status.as_str(),
            "{line}\n{}",
            String::from_utf8_lossy(&again.stdout)
        );
    }
}

/// The fault adapter whose output follows directory read order.
fn repo_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/raw-order-adapter.py")
}

crate::tests![every_printed_reproduce_line_gives_the_same_verdict_back,];
