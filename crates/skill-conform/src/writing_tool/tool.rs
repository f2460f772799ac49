//! The writing tool as a program: its `[tools.NAME]` table in `adapters/ports.toml`, its
//! set-up, and one bounded run of `claude plugin validate --json DIR`.
//!
//! Every process here runs in its own process group under a deadline; on timeout the whole
//! group gets `SIGKILL` (the tool may leave helpers behind). Its stdout and stderr go to
//! temporary files, so a chatty process can never block on a full pipe. The validation run
//! gets a fixed environment: a temporary `HOME`, `PATH`, UTF-8 locale, UTC, and the two
//! variables that keep Claude Code off the network (no telemetry, no auto-update).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Seek};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

/// The name of the writing tool's table in `adapters/ports.toml`.
pub(crate) const TOOL: &str = "claude-code";

/// How long one validation may take (the adapters' per-case run timeout).
pub(crate) const VALIDATE_TIMEOUT: Duration = Duration::from_secs(10);

/// How long set-up may take (a ~370 MB download on a cold cache).
pub(crate) const SETUP_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// The environment variables that keep Claude Code from calling home.
pub(crate) const NO_NETWORK_ENV: [(&str, &str); 2] = [
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
    ("DISABLE_AUTOUPDATER", "1"),
];

/// One `[tools.NAME]` table of `adapters/ports.toml`: a writing tool, not a port.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// The published package the tool comes from, for the record.
    pub package: String,
    /// The pinned package version.
    pub version: String,
    /// Commands that must each exit 0, else the tool is not measured (with the reason).
    #[serde(default)]
    pub probe: Vec<Vec<String>>,
    /// The set-up command (`{version}` replaced); its last stdout line is the executable.
    pub setup: Vec<String>,
    /// Environment variables pointing under `adapters/<tool>/.cache` (values relative).
    #[serde(default)]
    pub cache_env: BTreeMap<String, String>,
}

/// Reads the writing tool's table from `adapters/ports.toml` under `repo` (read whole, the
/// one way [`crate::port`] reads it).
pub fn read_spec(repo: &Path) -> Result<ToolSpec, String> {
    let path = repo.join("adapters/ports.toml");
    let file = crate::port::read_ports_file(repo).map_err(|error| error.to_string())?;
    file.tools.get(TOOL).cloned().ok_or_else(|| {
        format!(
            "`{}` has no [tools.{TOOL}] table (hint: see adapters/claude-code/README.md)",
            path.display()
        )
    })
}

/// How one bounded run ended.
#[derive(Debug)]
pub(crate) struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Why a bounded run gave no result.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum RunError {
    #[error("`{command}` could not start: {error}")]
    Spawn { command: String, error: String },
    #[error("`{command}` took longer than {timeout:?} (its process group was killed)")]
    Timeout { command: String, timeout: Duration },
    #[error("`{command}`: {error}")]
    Io { command: String, error: String },
}

/// Runs `command` in its own process group with stdout and stderr captured in temporary
/// files; kills the group when `timeout` passes.
pub(crate) fn run_bounded(mut command: Command, timeout: Duration) -> Result<Finished, RunError> {
    let shown = format!("{:?}", command.get_program());
    let io = |error: std::io::Error| RunError::Io {
        command: shown.clone(),
        error: error.to_string(),
    };
    let mut out = tempfile::tempfile().map_err(io)?;
    let mut err = tempfile::tempfile().map_err(io)?;
    command
        .stdin(Stdio::null())
        .stdout(out.try_clone().map_err(io)?)
        .stderr(err.try_clone().map_err(io)?)
        .process_group(0);
    let mut child = command.spawn().map_err(|e| RunError::Spawn {
        command: shown.clone(),
        error: e.to_string(),
    })?;
    let pgid = child.id() as i32;
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().map_err(io)? {
            break status;
        }
        if started.elapsed() > timeout {
            kill_group(pgid);
            let _ = child.wait();
            return Err(RunError::Timeout {
                command: shown,
                timeout,
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // Helpers the tool left running in its group go too: nothing outlives a run.
    kill_group(pgid);
    Ok(Finished {
        status,
        stdout: read_all(&mut out).map_err(io)?,
        stderr: read_all(&mut err).map_err(io)?,
    })
}

fn read_all(file: &mut std::fs::File) -> std::io::Result<String> {
    let mut bytes = Vec::new();
    file.rewind()?;
    file.read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn kill_group(pgid: i32) {
    // SAFETY: killpg has no memory effects; a group that is gone only yields ESRCH.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// The last non-empty line of `text`, trimmed.
fn last_line(text: &str) -> Option<&str> {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

/// Probes and sets the tool up; returns the executable, or why the tool cannot be measured.
pub fn set_up(repo: &Path, spec: &ToolSpec) -> Result<PathBuf, String> {
    for probe in &spec.probe {
        let Some((program, args)) = probe.split_first() else {
            continue;
        };
        let mut command = Command::new(program);
        command.args(args);
        match run_bounded(command, VALIDATE_TIMEOUT) {
            Ok(done) if done.status.success() => {}
            Ok(done) => {
                return Err(format!(
                    "probe `{}` failed ({})",
                    probe.join(" "),
                    done.status
                ))
            }
            Err(e) => return Err(format!("toolchain missing: {e}")),
        }
    }
    let argv: Vec<String> = spec
        .setup
        .iter()
        .map(|a| {
            a.replace("{repo}", &repo.display().to_string())
                .replace("{version}", &spec.version)
        })
        .collect();
    let (program, args) = argv.split_first().ok_or("empty setup command")?;
    let cache = repo.join("adapters").join(TOOL).join(".cache");
    let mut command = Command::new(program);
    // Set-up needs the user's network configuration, so it inherits the environment; only
    // the caches are redirected.
    command.args(args).current_dir(repo).envs(
        spec.cache_env
            .iter()
            .map(|(key, relative)| (key, cache.join(relative))),
    );
    let done = run_bounded(command, SETUP_TIMEOUT).map_err(|e| e.to_string())?;
    if !done.status.success() {
        let why = last_line(&done.stderr).unwrap_or("no message");
        return Err(format!("set-up failed ({}): {why}", done.status));
    }
    last_line(&done.stdout)
        .map(PathBuf::from)
        .ok_or_else(|| format!("set-up `{}` printed nothing", argv.join(" ")))
}

/// The executable of the writing tool and the environment its runs get.
#[derive(Clone, Debug)]
pub struct Tool {
    pub program: PathBuf,
    /// Arguments before `plugin validate --json DIR` (a stand-in script's path, in tests).
    pub leading_args: Vec<OsString>,
    pub timeout: Duration,
}

impl Tool {
    /// The real tool at `program`.
    pub fn at(program: PathBuf) -> Tool {
        Tool {
            program,
            leading_args: Vec::new(),
            timeout: VALIDATE_TIMEOUT,
        }
    }

    /// The command for `ARGS…` with a temporary `home`, nothing inherited but `PATH`.
    fn command(&self, home: &Path, args: &[&std::ffi::OsStr]) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.leading_args)
            .args(args)
            .current_dir(home)
            .env_clear()
            .envs(crate::sandbox::adapter_env(home))
            .envs(NO_NETWORK_ENV);
        command
    }

    /// `--version`'s first word: what the tool says it is.
    pub fn version(&self, home: &Path) -> Result<String, String> {
        let done = run_bounded(self.command(home, &["--version".as_ref()]), self.timeout)
            .map_err(|e| e.to_string())?;
        if !done.status.success() {
            return Err(format!("`--version` failed ({})", done.status));
        }
        done.stdout
            .split_whitespace()
            .next()
            .map(str::to_owned)
            .ok_or_else(|| "`--version` printed nothing".to_owned())
    }

    /// `plugin validate --json DIR`: the parsed reply (exit 0 or 1), or what went wrong.
    pub fn validate(&self, home: &Path, dir: &Path) -> Result<serde_json::Value, String> {
        let args = [
            "plugin".as_ref(),
            "validate".as_ref(),
            "--json".as_ref(),
            dir.as_os_str(),
        ];
        let done =
            run_bounded(self.command(home, &args), self.timeout).map_err(|e| e.to_string())?;
        if !matches!(done.status.code(), Some(0 | 1)) {
            let why = last_line(&done.stderr).unwrap_or("no message");
            return Err(format!("`plugin validate` ended {}: {why}", done.status));
        }
        serde_json::from_str(&done.stdout).map_err(|e| {
            format!(
                "`plugin validate --json` printed no JSON ({e}); stderr: {}",
                last_line(&done.stderr).unwrap_or("empty")
            )
        })
    }
}
