//! Shared helpers for skill-conform's integration tests: the repository, the binary run from it,
//! copying parts of the repository, counting the toolnexus profile's fixture cases, and the
//! browser tests' headless `chromium` (`report_html`, `corpus_html`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The toolnexus profile's cases and what the mutants command says of them (which cases kill
/// each mutant), computed once per test binary: two tests read them, and one computation runs
/// every mutant over every case.
pub fn mutant_outcomes() -> &'static (
    Vec<skill_conform::case::CaseSpec>,
    Vec<skill_conform::mutants::MutantOutcome>,
) {
    static OUTCOMES: std::sync::OnceLock<(
        Vec<skill_conform::case::CaseSpec>,
        Vec<skill_conform::mutants::MutantOutcome>,
    )> = std::sync::OnceLock::new();
    OUTCOMES.get_or_init(|| {
        let fixtures = skill_conform::goldens::Layout::under(&repo()).fixtures;
        let cases = skill_conform::case::discover(&fixtures).expect("fixtures parse");
        let outcomes = skill_conform::mutants::run_mutants(&cases).expect("mutants run");
        (cases, outcomes)
    })
}

/// A fresh temporary directory: under `$TMPDIR` when it is set (the user's choice), else in
/// memory (`/dev/shm`) when this machine has it, else under the system's temporary directory.
/// The suite makes and deletes tens of thousands of small files; on an ext4 `/tmp` the kernel's
/// inode allocation alone took a third of its time (BENCHMARKS.md, "First use").
pub fn tempdir() -> tempfile::TempDir {
    if std::env::var_os("TMPDIR").is_none() {
        if let Ok(dir) = tempfile::tempdir_in("/dev/shm") {
            return dir;
        }
    }
    tempfile::tempdir().expect("a temporary directory")
}

/// The repository root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the binary from the repository root, outside CI and without injected faults.
pub fn skill_conform(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(args)
        .current_dir(repo())
        .env_remove("CI")
        .env_remove("SKILL_CONFORM_FAULT_CASES")
        .output()
        .expect("skill-conform runs")
}

/// Every `.rs` file under `dir` (this crate's own folder, say `src`), in sorted order, with
/// its path and text: what the source-scanning tests read.
pub fn rust_sources(dir: &str) -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    walkdir::WalkDir::new(&root)
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        })
        .collect()
}

/// Copies the directory `from` to `to` (created), files and directories, in sorted order.
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Copies `rel` (a file or directory) from the repository to the same place under `to`.
pub fn copy_from_repo(rel: &str, to: &Path) {
    let (from, to) = (repo().join(rel), to.join(rel));
    if from.is_dir() {
        copy_tree(&from, &to);
    } else {
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(from, to).unwrap();
    }
}

/// Every `case.toml` of the toolnexus profile (`conformance-fixtures/agentskills/` is another
/// profile's), counted by walking the tree rather than through the library.
fn case_manifests() -> Vec<PathBuf> {
    let other_profile = repo().join("conformance-fixtures/agentskills");
    walkdir::WalkDir::new(repo().join("conformance-fixtures"))
        .sort_by_file_name()
        .into_iter()
        .map(|entry| entry.unwrap())
        .filter(|e| e.file_name() == "case.toml" && !e.path().starts_with(&other_profile))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// How many cases the toolnexus fixtures hold.
pub fn case_count() -> usize {
    case_manifests().len()
}

/// How many of them are pinned (`pinned = true`).
pub fn pinned_case_count() -> usize {
    case_manifests()
        .iter()
        .filter(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            text.lines()
                .any(|line| line.replace(' ', "") == "pinned=true")
        })
        .count()
}

/// chromium's path, or `None` after printing why the test is skipped; with
/// `SKILL_CONFORM_REQUIRE_CHROMIUM=1` (CI) a missing chromium fails instead.
pub fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        let out = Command::new("which").arg(name).output().ok()?;
        out.status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    if found.is_none() {
        let required = std::env::var("SKILL_CONFORM_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "chromium is not installed and SKILL_CONFORM_REQUIRE_CHROMIUM=1 (hint: apt-get install -y chromium)"
        );
        println!("skipped: chromium is not installed (set SKILL_CONFORM_REQUIRE_CHROMIUM=1 to fail instead)");
    }
    found
}

/// Runs headless chromium on `url` with `extra` flags and a profile in `profile`; its stdout.
pub fn headless(chromium: &Path, profile: &Path, extra: &[&str], url: &str) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-dev-shm-usage",
            "--window-size=1400,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        // Else it makes ~/.config/chromium/Crash Reports, outside the test's directory.
        .env("HOME", profile)
        .env("XDG_CONFIG_HOME", profile)
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium starts");
    assert!(out.status.success(), "chromium failed: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A repository to run in (`DIR/action`): this one's cases and goldens, and a ports.toml whose
/// ports are the reference served as an adapter under other names (`port:MUTANT` serves that
/// mutant of the reference instead).
pub fn stand_in_repo(dir: &Path, ports: &[&str], bin: &Path) -> PathBuf {
    let root = dir.join("action");
    for folder in ["conformance-fixtures", "goldens"] {
        copy_tree(&repo().join(folder), &root.join(folder));
    }
    std::fs::copy(repo().join("Cargo.lock"), root.join("Cargo.lock")).unwrap();
    let mut toml = String::new();
    for port in ports {
        let (port, mutant) = match port.split_once(':') {
            Some((port, mutant)) => (port, format!(", \"--mutant\", {mutant:?}")),
            None => (*port, String::new()),
        };
        toml += &format!(
            "[ports.{port}]\nlanguage = \"stand-in\"\nprobe = []\nsetup = [\"sh\", \"-c\", \"echo {{version}}\"]\n\
             run = [{bin:?}, \"adapter\", \"--reference\"{mutant}]\nversion = \"1.0.0\"\ncache_env = {{}}\ntested = true\n\n"
        );
    }
    std::fs::create_dir_all(root.join("adapters/lib")).unwrap();
    std::fs::write(root.join("adapters/ports.toml"), toml).unwrap();
    root
}

/// Where `instance` breaks `schema` (JSON Schema 2020-12, as schemars writes it): one line per
/// failing keyword with its instance location; empty when it validates. boon, not jsonschema:
/// its dependency tree is a third smaller, and the test build waits for it (BENCHMARKS.md,
/// "First use").
pub fn schema_errors(schema: &serde_json::Value, instance: &serde_json::Value) -> Vec<String> {
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let url = "urn:skill-conform:schema";
    compiler
        .add_resource(url, schema.clone())
        .expect("the schema is a JSON Schema resource");
    let index = compiler
        .compile(url, &mut schemas)
        .unwrap_or_else(|error| panic!("the schema compiles: {error:#}"));
    match schemas.validate(instance, index) {
        Ok(()) => Vec::new(),
        Err(error) => leaves(&error.causes)
            .into_iter()
            .chain(error.causes.is_empty().then(|| error.to_string()))
            .collect(),
    }
}

/// The innermost causes of a validation error, as `at LOCATION: WHAT` lines.
fn leaves(causes: &[boon::ValidationError]) -> Vec<String> {
    causes
        .iter()
        .flat_map(|cause| match cause.causes.is_empty() {
            true => vec![format!("at {}: {}", cause.instance_location, cause.kind)],
            false => leaves(&cause.causes),
        })
        .collect()
}

/// Whether process `pid` has not ended, right now (a zombie awaiting its reaper has ended).
pub fn running(pid: impl std::fmt::Display) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The state is the first field after the parenthesised command name.
            let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
            state.map(|state| !matches!(state, Some('Z' | 'X')))
        })
        .unwrap_or(false)
}

/// Whether process `pid` ends within `wait`. SIGKILL is delivered asynchronously: on a loaded
/// machine a killed process can still be running for a moment after its killer returned.
pub fn ends_within(pid: impl std::fmt::Display, wait: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + wait;
    while running(&pid) {
        if std::time::Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    true
}
