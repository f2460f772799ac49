//! Runs `action.yml` as GitHub's runner would, without GitHub: its shell steps in order, with
//! `${{ … }}` expressions substituted and `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and
//! `GITHUB_WORKSPACE` in a temporary directory. `uses:` steps are skipped and listed, except the
//! artifact pair, played by a folder: upload-artifact copies `path` to `<store>/<name>`,
//! download-artifact copies every stored artifact matching `pattern` to `<path>/<name>`.
//! One job per port in mode `run`, then one job in mode `merge`; the merged matrix is checked.
//! A pull request's merge job also finds the base branch's run (`gh`, played by a stub that
//! answers with a run id) and downloads that run's artifacts (`run-id`: a folder of stored runs).
//!
//! By default the ports are two stand-ins (the reference served as an adapter, no network).
//! `SKILL_CONFORM_ACTION_PORT=python` runs the real python port instead (`.ci/run` does).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use crate::common::{copy_tree, pinned_case_count, repo, stand_in_repo};

#[derive(Deserialize)]
struct Action {
    inputs: BTreeMap<String, Input>,
    runs: Runs,
}

#[derive(Deserialize)]
struct Input {
    #[serde(default)]
    default: Option<String>,
}

#[derive(Deserialize)]
struct Runs {
    using: String,
    steps: Vec<Step>,
}

#[derive(Deserialize)]
struct Step {
    name: Option<String>,
    id: Option<String>,
    #[serde(rename = "if")]
    condition: Option<String>,
    uses: Option<String>,
    run: Option<String>,
    shell: Option<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    with: BTreeMap<String, String>,
}

fn action_text() -> String {
    std::fs::read_to_string(repo().join("action.yml")).expect("action.yml exists")
}

/// Where the jobs of one workflow run share things: the artifact store and the action's folder.
struct Workflow {
    action: Action,
    action_path: PathBuf,
    store: PathBuf,
    bin: PathBuf,
    /// `push` or `pull_request`.
    event: &'static str,
    /// Earlier runs' artifact stores, by run id (`<runs>/<id>/<artifact>`).
    runs: PathBuf,
    /// A folder with the `gh` stub, first on `PATH`.
    gh_dir: PathBuf,
}

/// One job: a fresh workspace, the inputs, the step outputs so far, what was skipped.
struct Job<'w> {
    workflow: &'w Workflow,
    workspace: PathBuf,
    summary: PathBuf,
    inputs: BTreeMap<String, String>,
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    skipped_uses: Vec<String>,
    failed_step: Option<String>,
}

impl<'w> Job<'w> {
    fn new(workflow: &'w Workflow, dir: &Path, given: &[(&str, &str)]) -> Self {
        let workspace = dir.join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        let mut inputs: BTreeMap<String, String> = (workflow.action.inputs.iter())
            .map(|(k, v)| (k.clone(), v.default.clone().unwrap_or_default()))
            .collect();
        for (key, value) in given {
            assert!(inputs.contains_key(*key), "action.yml has no input {key}");
            inputs.insert((*key).to_owned(), (*value).to_owned());
        }
        Job {
            workflow,
            summary: dir.join("step_summary.md"),
            workspace,
            inputs,
            outputs: BTreeMap::new(),
            skipped_uses: Vec::new(),
            failed_step: None,
        }
    }

    /// The value of one expression; anything the action should not use panics.
    fn expression(&self, expr: &str) -> String {
        let parts: Vec<&str> = expr.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => (self.inputs.get(*name))
                .unwrap_or_else(|| panic!("action.yml uses undeclared input {name}"))
                .clone(),
            ["steps", id, "outputs", key] => (self.outputs.get(*id))
                .and_then(|o| o.get(*key))
                .cloned()
                .unwrap_or_default(),
            ["github", "action_path"] => self.workflow.action_path.display().to_string(),
            ["github", "action_ref" | "action_repository"] => String::new(),
            ["github", "event_name"] => self.workflow.event.to_owned(),
            ["github", "token"] => "token-of-the-test".to_owned(),
            ["github", "repository"] => "toolnexus/toolnexus".to_owned(),
            ["github", "workflow"] => "conformance".to_owned(),
            ["github", "base_ref"] => "main".to_owned(),
            ["runner", "os"] => "Linux".to_owned(),
            ["runner", "arch"] => "X64".to_owned(),
            _ => panic!("the test does not know the expression `{expr}`"),
        }
    }

    fn substitute(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            let end = rest[start..].find("}}").expect("unclosed ${{") + start;
            out.push_str(&rest[..start]);
            out.push_str(&self.expression(rest[start + 3..end].trim()));
            rest = &rest[end + 2..];
        }
        out + rest
    }

    /// `if:` conditions: terms joined by `&&`, each `always()`, `EXPR == 'literal'` or
    /// `EXPR != 'literal'`.
    fn holds(&self, condition: &Option<String>) -> bool {
        let Some(condition) = condition else {
            return self.failed_step.is_none();
        };
        let mut always = false;
        let all = condition.split("&&").map(str::trim).all(|term| {
            if term == "always()" {
                always = true;
                return true;
            }
            let (lhs, rhs, equal) = match term.split_once("!=") {
                Some((lhs, rhs)) => (lhs, rhs, false),
                None => {
                    let (lhs, rhs) = term.split_once("==").expect("a == or != comparison");
                    (lhs, rhs, true)
                }
            };
            (self.expression(lhs.trim()) == rhs.trim().trim_matches('\'')) == equal
        });
        all && (always || self.failed_step.is_none())
    }

    fn run(mut self) -> Self {
        assert_eq!(self.workflow.action.runs.using, "composite");
        for step in &self.workflow.action.runs.steps {
            if !self.holds(&step.condition) {
                continue;
            }
            match (&step.uses, &step.run) {
                (Some(uses), None) => self.uses(uses, &step.with),
                (None, Some(script)) => self.shell(step, script),
                _ => panic!("a step needs exactly one of uses and run"),
            }
        }
        self
    }

    fn uses(&mut self, uses: &str, with: &BTreeMap<String, String>) {
        let with = |key: &str| self.substitute(with.get(key).map_or("", String::as_str));
        let store = &self.workflow.store;
        if uses.starts_with("actions/upload-artifact@") {
            let target = store.join(with("name"));
            assert!(!target.exists(), "artifact {} uploaded twice", with("name"));
            copy_tree(Path::new(&with("path")), &target);
        } else if uses.starts_with("actions/download-artifact@") {
            // With `run-id`, another run's artifacts; without, this run's.
            let run_id = with("run-id");
            let store = &match run_id.is_empty() {
                true => store.clone(),
                false => self.workflow.runs.join(&run_id),
            };
            let Ok(stored) = std::fs::read_dir(store) else {
                return; // no such run: the step fails, and it may (continue-on-error).
            };
            let pattern = globset::Glob::new(&with("pattern"))
                .unwrap()
                .compile_matcher();
            for entry in stored {
                let name = entry.unwrap().file_name();
                if pattern.is_match(&name) {
                    copy_tree(&store.join(&name), &Path::new(&with("path")).join(&name));
                }
            }
        } else {
            self.skipped_uses.push(uses.to_owned());
        }
    }

    fn shell(&mut self, step: &Step, script: &str) {
        assert_eq!(
            step.shell.as_deref(),
            Some("bash"),
            "every run step says shell: bash"
        );
        let output_file = self.workspace.join("../github_output");
        std::fs::write(&output_file, "").unwrap();
        let mut command = Command::new("bash");
        command
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c"])
            .arg(self.substitute(script))
            .current_dir(&self.workspace)
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_STEP_SUMMARY", &self.summary)
            .env("GITHUB_WORKSPACE", &self.workspace)
            .env("GITHUB_ACTION_PATH", &self.workflow.action_path)
            .env("RUNNER_TEMP", self.workspace.join("../runner_temp"))
            .env("SKILL_CONFORM_BIN", &self.workflow.bin)
            .env("PATH", path_with(&self.workflow.gh_dir));
        for (key, value) in &step.env {
            command.env(key, self.substitute(value));
        }
        let name = step.name.clone().unwrap_or_default();
        let out = command.output().expect("bash runs");
        eprintln!("--- step `{name}`: {}", out.status);
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            self.failed_step = Some(name);
        }
        let written = std::fs::read_to_string(&output_file).unwrap();
        if let Some(id) = &step.id {
            let outputs = self.outputs.entry(id.clone()).or_default();
            for line in written.lines() {
                let (key, value) = line
                    .split_once('=')
                    .expect("GITHUB_OUTPUT lines are key=value");
                outputs.insert(key.to_owned(), value.to_owned());
            }
        }
    }
}

/// `PATH` with `dir` first.
fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_owned()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).unwrap()
}

/// A `gh` that answers `gh run list …` with `run_id` (nothing: no run) and logs its arguments.
fn gh_stub(dir: &Path, run_id: Option<&str>) -> PathBuf {
    let gh_dir = dir.join("gh-stub");
    std::fs::create_dir_all(&gh_dir).unwrap();
    let script = format!(
        "#!/bin/sh\necho \"$*\" >>{log:?}\necho '{}'\n",
        run_id.unwrap_or(""),
        log = gh_dir.join("calls.log")
    );
    let gh = gh_dir.join("gh");
    std::fs::write(&gh, script).unwrap();
    std::fs::set_permissions(&gh, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    gh_dir
}

/// What one workflow run left: each port job's summary and skipped `uses:`, the merge job,
/// and the run's artifact store (kept while this lives).
struct Outcome {
    port_summaries: Vec<String>,
    port_skipped: Vec<Vec<String>>,
    port_failed: Vec<Option<String>>,
    merge_failed: Option<String>,
    merge_summary: String,
    /// The merge job's `gh` calls, one line each.
    gh_calls: String,
    dir: tempfile::TempDir,
}

impl Outcome {
    fn store(&self) -> PathBuf {
        self.dir.path().join("artifacts")
    }
}

/// The base branch's run a pull request compares with: the id `gh` answers (`None`: no run)
/// and that run's artifact store.
struct Base<'a> {
    run_id: Option<&'a str>,
    store: Option<&'a Path>,
}

/// Runs one job per port in mode `run`, then one in mode `merge`, with `action_yml` as the
/// action, as a push.
fn run_workflow(action_yml: &str, ports: &[&str], real_repo: bool) -> Outcome {
    let outcome = run_workflow_on("push", None, action_yml, ports, real_repo);
    assert_eq!(outcome.gh_calls, "", "a push compares with nothing");
    for (port, failed) in ports.iter().zip(&outcome.port_failed) {
        assert_eq!(failed, &None, "the {port} job failed");
    }
    outcome
}

/// [`run_workflow`] on `event`; a pull request's merge job finds `base`.
fn run_workflow_on(
    event: &'static str,
    base: Option<Base<'_>>,
    action_yml: &str,
    ports: &[&str],
    real_repo: bool,
) -> Outcome {
    let dir = crate::common::tempdir();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_skill-conform"));
    let action_path = match real_repo {
        true => repo().canonicalize().unwrap(),
        false => stand_in_repo(dir.path(), ports, &bin),
    };
    let base = base.unwrap_or(Base {
        run_id: None,
        store: None,
    });
    let runs = dir.path().join("runs");
    if let (Some(id), Some(store)) = (base.run_id, base.store) {
        copy_tree(store, &runs.join(id));
    }
    let workflow = Workflow {
        action: serde_yaml_ng::from_str(action_yml).expect("action.yml parses"),
        action_path,
        store: dir.path().join("artifacts"),
        bin,
        event,
        runs,
        gh_dir: gh_stub(dir.path(), base.run_id),
    };
    std::fs::create_dir_all(&workflow.store).unwrap();
    let (mut port_summaries, mut port_skipped, mut port_failed) =
        (Vec::new(), Vec::new(), Vec::new());
    for port in ports.iter().map(|p| p.split(':').next().unwrap()) {
        let job_dir = dir.path().join(format!("job-{port}"));
        let job = Job::new(&workflow, &job_dir, &[("port", port)]).run();
        port_failed.push(job.failed_step);
        port_summaries.push(std::fs::read_to_string(&job.summary).unwrap());
        port_skipped.push(job.skipped_uses);
    }
    let merge_dir = dir.path().join("job-merge");
    let merge = Job::new(&workflow, &merge_dir, &[("mode", "merge")]).run();
    let gh_calls = std::fs::read_to_string(workflow.gh_dir.join("calls.log")).unwrap_or_default();
    Outcome {
        port_summaries,
        port_skipped,
        port_failed,
        merge_failed: merge.failed_step,
        merge_summary: std::fs::read_to_string(&merge.summary).unwrap_or_default(),
        gh_calls,
        dir,
    }
}

fn a_pull_requests_merge_job_puts_the_diff_against_the_base_run_first() {
    let base = run_workflow(&action_text(), &["standin-a", "standin-b"], false);
    // The pull request breaks standin-b: its job fails, and the matrix job says it regressed.
    let pull = run_workflow_on(
        "pull_request",
        Some(Base {
            run_id: Some("4242"),
            store: Some(&base.store()),
        }),
        &action_text(),
        &["standin-a", "standin-b:keep-hash-tail"],
        false,
    );
    assert_eq!(pull.port_failed[0], None);
    assert!(pull.port_failed[1].is_some(), "the broken port's job fails");
    assert!(
        pull.gh_calls.contains("run list --repo toolnexus/toolnexus --workflow conformance --branch main --event push --status success"),
        "{}",
        pull.gh_calls
    );
    let summary = &pull.merge_summary;
    assert!(summary.starts_with("## skill-conform diff\n"), "{summary}");
    assert!(
        summary.contains("| regression | standin-b | frontmatter/hash-inline | ok | FAIL |"),
        "{summary}"
    );
    assert!(
        summary.contains("# skill-conform: cross-port matrix\n"),
        "{summary}"
    );
    assert_eq!(
        pull.merge_failed.as_deref(),
        Some("merge the reports into one matrix")
    );
    // The first pull request: no base run yet. Said at the top, not failed.
    let first = run_workflow_on(
        "pull_request",
        Some(Base {
            run_id: None,
            store: None,
        }),
        &action_text(),
        &["standin-a"],
        false,
    );
    assert_eq!(first.merge_failed, None);
    assert!(
        first
            .merge_summary
            .starts_with("## skill-conform diff\n\nno base report at "),
        "{}",
        first.merge_summary
    );
}

fn each_port_job_reports_and_the_merge_job_builds_one_matrix() {
    let python = std::env::var("SKILL_CONFORM_ACTION_PORT").is_ok_and(|p| p == "python");
    let ports: &[&str] = if python {
        &["python"]
    } else {
        &["standin-a", "standin-b"]
    };
    let outcome = run_workflow(&action_text(), ports, python);
    let pinned = pinned_case_count();
    for (port, summary) in ports.iter().zip(&outcome.port_summaries) {
        assert!(
            summary.contains(&format!("**{port}** {pinned}/{pinned}")),
            "{port}'s job summary:\n{summary}"
        );
    }
    for skipped in &outcome.port_skipped {
        // Set up by the caller or by GitHub: the port's set-up cache. (The build cache and the
        // Rust toolchain are not needed: the binary is preinstalled.)
        assert_eq!(skipped, &["actions/cache@v4"]);
    }
    assert_eq!(outcome.merge_failed, None);
    let matrix = &outcome.merge_summary;
    assert!(
        matrix.starts_with("# skill-conform: cross-port matrix\n"),
        "{matrix}"
    );
    assert!(matrix.contains("| reference | "), "{matrix}");
    for port in ports {
        assert!(
            matrix.contains(&format!("| {port} | ")),
            "no row for {port}:\n{matrix}"
        );
    }
    let rows = matrix
        .lines()
        .filter(|l| l.contains(&format!(" | {pinned}/{pinned} |")))
        .count();
    assert_eq!(rows, ports.len() + 1, "{matrix}");
}

fn renaming_the_artifact_on_either_side_breaks_the_merge() {
    let text = action_text();
    let upload = "name: skill-conform-report-${{ inputs.port }}";
    let download = "pattern: skill-conform-report-*";
    assert!(text.contains(upload) && text.contains(download));
    for (side, renamed) in [
        (
            "upload",
            text.replace(upload, "name: skill-conform-${{ inputs.port }}"),
        ),
        ("download", text.replace(download, "pattern: report-*")),
    ] {
        let outcome = run_workflow(&renamed, &["standin-a"], false);
        assert_eq!(
            outcome.merge_failed.as_deref(),
            Some("merge the reports into one matrix"),
            "renaming the artifact on the {side} side went unnoticed"
        );
    }
}

crate::tests![
    a_pull_requests_merge_job_puts_the_diff_against_the_base_run_first,
    each_port_job_reports_and_the_merge_job_builds_one_matrix,
    renaming_the_artifact_on_either_side_breaks_the_merge,
];
