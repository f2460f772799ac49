//! Ports: `adapters/ports.toml` and the command line resolve into adapters ready to start, or
//! into `unavailable` rows that keep their reason.
//!
//! A [`PortSpec`] says how to probe a port's toolchain, set its adapter up (cached under
//! `adapters/<port>/.cache`), and run it. `--port NAME@VERSION` installs another library
//! version, `--port NAME=PATH` builds a local checkout, `--adapter NAME=COMMAND` runs any
//! protocol-speaking program as port NAME. The reference is always available as port
//! `reference` (this binary's `adapter --reference`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::Deserialize;

use crate::bounded::{self, Failure, PROBE_TIMEOUT, SETUP_TIMEOUT};
use crate::error::Error;
use crate::session::AdapterCommand;
use crate::setup_memory;

/// Adds every `(key, value)` of `env` to an adapter command.
trait WithEnv {
    fn envs(self, env: Vec<(String, std::ffi::OsString)>) -> Self;
}

impl WithEnv for AdapterCommand {
    fn envs(self, env: Vec<(String, std::ffi::OsString)>) -> Self {
        env.into_iter().fold(self, |cmd, (k, v)| cmd.env(k, v))
    }
}

/// The port name of the built-in reference adapter.
pub(crate) const REFERENCE: &str = "reference";

/// One `[ports.NAME]` table of `adapters/ports.toml`.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    /// The language, for reports.
    pub language: String,
    /// Commands that must each exit 0, else the port is unavailable.
    #[serde(default)]
    pub probe: Vec<Vec<String>>,
    /// The set-up command; `{version}` becomes the version or the local path; its last stdout
    /// line becomes `{setup}` in `run`.
    #[serde(default)]
    pub setup: Vec<String>,
    /// The adapter command.
    pub run: Vec<String>,
    /// The pinned library version.
    pub version: String,
    /// Environment variables pointing under `adapters/<port>/.cache` (values are relative).
    #[serde(default)]
    pub cache_env: BTreeMap<String, String>,
    /// Whether the adapter has been run on any machine we have.
    #[serde(default)]
    pub tested: bool,
    /// The contract the port is judged against (absent: `toolnexus`).
    #[serde(default)]
    pub profile: crate::profile::Profile,
}

/// `adapters/ports.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PortsFile {
    pub ports: BTreeMap<String, PortSpec>,
    /// Writing tools (not ports): read by [`crate::writing_tool`].
    #[serde(default)]
    pub tools: BTreeMap<String, crate::writing_tool::ToolSpec>,
}

/// Reads the toolnexus ports of `adapters/ports.toml` under `repo` (a plain `run`'s ports).
pub fn read_ports(repo: &Path) -> Result<BTreeMap<String, PortSpec>, Error> {
    read_profile_ports(repo, crate::profile::Profile::Toolnexus)
}

/// Reads the ports of `adapters/ports.toml` under `repo` that declare `profile`.
pub(crate) fn read_profile_ports(
    repo: &Path,
    profile: crate::profile::Profile,
) -> Result<BTreeMap<String, PortSpec>, Error> {
    let mut ports = read_all_ports(repo)?;
    ports.retain(|_, spec| spec.profile == profile);
    Ok(ports)
}

/// Reads every port of `adapters/ports.toml` under `repo`, whatever its profile.
fn read_all_ports(repo: &Path) -> Result<BTreeMap<String, PortSpec>, Error> {
    read_ports_file(repo).map(|file| file.ports)
}

/// Reads `adapters/ports.toml` under `repo`: its ports and its writing tools.
pub(crate) fn read_ports_file(repo: &Path) -> Result<PortsFile, Error> {
    let path = repo.join("adapters/ports.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::Usage(format!(
            "error reading `{}`: {e} (hint: run from the repository root or pass --repo DIR)",
            path.display()
        ))
    })?;
    crate::toml_file::parse(&path, &text).map_err(|problem| {
        Error::Usage(format!(
            "{problem} (hint: see the schema in adapters/PROTOCOL.md)"
        ))
    })
}

/// What the user asked for one port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortRequest {
    /// `NAME`, `NAME@VERSION` or `NAME=PATH`.
    Named {
        name: String,
        version: Option<String>,
        path: Option<PathBuf>,
    },
    /// `--adapter NAME=COMMAND`: any program speaking the protocol.
    Command { name: String, argv: Vec<String> },
}

impl PortRequest {
    pub fn name(&self) -> &str {
        match self {
            PortRequest::Named { name, .. } | PortRequest::Command { name, .. } => name,
        }
    }

    /// The request exactly as the user gave it, as shell words for reproduce lines: `--port NAME`,
    /// `--port NAME@VERSION`, `--port NAME=PATH` or `--adapter 'NAME=COMMAND'`. A version or a
    /// path is shell-quoted; an adapter command is joined with shell quoting
    /// ([`shell_words::join`]) and the whole `NAME=COMMAND` quoted again, so that the shell and
    /// [`PortRequest::parse_adapter`] give back the same argument vector.
    pub(crate) fn as_given(&self) -> String {
        match self {
            PortRequest::Named {
                name,
                version: Some(version),
                ..
            } => format!("--port {name}@{}", shell_word(version)),
            PortRequest::Named {
                name,
                path: Some(path),
                ..
            } => format!("--port {name}={}", shell_word(&path.display().to_string())),
            PortRequest::Named { name, .. } => format!("--port {name}"),
            PortRequest::Command { name, argv } => {
                let command = format!("{name}={}", shell_words::join(argv));
                format!("--adapter {}", always_quoted(&command))
            }
        }
    }

    /// Parses a `--port` value.
    pub(crate) fn parse_port(text: &str) -> Result<PortRequest, String> {
        let (name, version, path) = if let Some((name, path)) = text.split_once('=') {
            (name, None, Some(PathBuf::from(path)))
        } else if let Some((name, version)) = text.split_once('@') {
            (name, Some(version.to_owned()), None)
        } else {
            (text, None, None)
        };
        if !is_port_name(name) {
            return Err(format!("`{text}` is not NAME, NAME@VERSION or NAME=PATH"));
        }
        Ok(PortRequest::Named {
            name: name.to_owned(),
            version,
            path,
        })
    }

    /// Parses an `--adapter NAME=COMMAND` value. The command is split into words as a POSIX
    /// shell would ([`shell_words::split`]): plain words split on whitespace, and quotes keep an
    /// argument with spaces or quotes in it whole (`sh -c 'exec x "$@"'`).
    pub(crate) fn parse_adapter(text: &str) -> Result<PortRequest, String> {
        let (name, command) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}` is not NAME=COMMAND"))?;
        let argv = shell_words::split(command).map_err(|e| {
            format!("`{text}`: the command does not split into words ({e}) (hint: quote as in a POSIX shell)")
        })?;
        if argv.is_empty() {
            return Err(format!("`{text}` is not NAME=COMMAND"));
        }
        if !is_port_name(name) {
            // The name becomes a path (adapters/NAME/expected.toml) and a trial name.
            return Err(format!(
                "`{name}` is not a port name (hint: use ASCII letters, digits, `-` and `_`)"
            ));
        }
        Ok(PortRequest::Command {
            name: name.to_owned(),
            argv,
        })
    }
}

/// `text` as one single-quoted shell word, even when it would need no quotes (so an
/// `--adapter` value always reads `'NAME=COMMAND'`).
fn always_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// `text` as one shell word: as it is when it holds only characters no shell treats specially
/// (`[A-Za-z0-9._/@%+=:,-]`, not empty), else single-quoted. Stricter than
/// [`shell_words::quote`], which leaves `{`, `}` and `!` (brace expansion, history) bare.
pub(crate) fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._/@%+=:,-".contains(&b));
    if plain {
        text.to_owned()
    } else {
        always_quoted(text)
    }
}

/// The port-name rule: ASCII letters, digits, `-` and `_`, at least one. A name is used as a
/// directory under `adapters/` and in trial names, so nothing else may pass.
pub(crate) fn is_port_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// A port resolved: ready to start, or unavailable with the reason.
#[derive(Clone, Debug)]
pub enum Resolved {
    Ready {
        name: String,
        command: AdapterCommand,
        /// The version asked for (pinned or overridden), or the local path.
        asked: String,
        tested: bool,
    },
    Unavailable {
        name: String,
        reason: String,
    },
}

impl Resolved {
    /// The same port under the id its results go by ([`crate::plan::PortPlan::column`]).
    pub fn named(mut self, column: &str) -> Resolved {
        match &mut self {
            Resolved::Ready { name, .. } | Resolved::Unavailable { name, .. } => {
                column.clone_into(name);
            }
        }
        self
    }

    pub fn name(&self) -> &str {
        match self {
            Resolved::Ready { name, .. } | Resolved::Unavailable { name, .. } => name,
        }
    }
}

/// Checks a request against the known ports; an unknown name is a usage error.
pub(crate) fn check_known(
    request: &PortRequest,
    ports: &BTreeMap<String, PortSpec>,
) -> Result<(), Error> {
    match request {
        PortRequest::Named { name, .. } if name != REFERENCE && !ports.contains_key(name) => {
            let mut valid: Vec<&str> = ports.keys().map(String::as_str).collect();
            valid.push(REFERENCE);
            valid.sort();
            Err(Error::Usage(format!(
                "unknown port `{name}` (valid: {}; hint: add it to adapters/ports.toml or use --adapter {name}=COMMAND)",
                valid.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

/// The environment every adapter process gets: the sandbox basics plus the port's caches.
pub fn adapter_env(
    repo: &Path,
    port: &str,
    spec: Option<&PortSpec>,
    home: &Path,
) -> Vec<(String, std::ffi::OsString)> {
    let mut env = crate::sandbox::adapter_env(home);
    if let Some(spec) = spec {
        let cache = repo.join("adapters").join(port).join(".cache");
        for (key, relative) in &spec.cache_env {
            env.push((key.clone(), cache.join(relative).into_os_string()));
        }
    }
    env.sort();
    env
}

/// The placeholder in `adapters/ports.toml` for the repository's absolute path.
pub(crate) const REPO_PLACEHOLDER: &str = "{repo}";

/// `arg` with [`REPO_PLACEHOLDER`] replaced by `repo`.
fn with_repo(arg: &str, repo: &Path) -> String {
    arg.replace(REPO_PLACEHOLDER, &repo.display().to_string())
}

/// The port's own temporary working directory below `home` (created), where its set-up and its
/// adapter start: never the repository.
pub(crate) fn work_dir(home: &Path, port: &str) -> PathBuf {
    let dir = home.join(".skill-conform-work").join(port);
    // A failure shows as the adapter's or set-up's own spawn error, naming the directory.
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// `command` started in the port's [`work_dir`], confined ([`crate::confine::confine`]).
fn confined(
    command: AdapterCommand,
    home: &Path,
    port: &str,
    cache: Option<PathBuf>,
) -> AdapterCommand {
    let dir = work_dir(home, port);
    crate::confine::confine(command.cwd(dir.clone()), &dir, home, cache)
}

/// A `--adapter` command line with a relative program path (`./serve`, `bin/serve`) resolved
/// against the directory skill-conform was started from; a bare name stays a `PATH` lookup.
fn resolve_program(argv: &[String]) -> Vec<String> {
    let mut argv = argv.to_vec();
    if let Some(program) = argv.first_mut() {
        let path = Path::new(program.as_str());
        if program.contains('/') && path.is_relative() {
            if let Ok(cwd) = std::env::current_dir() {
                *program = cwd.join(path).display().to_string();
            }
        }
    }
    argv
}

/// A port with no `ports.toml` entry (an `--adapter` command, the reference): ready, with no
/// cache, no set-up and no probe.
fn unnamed_port(
    name: &str,
    argv: Vec<String>,
    asked: String,
    repo: &Path,
    home: &Path,
) -> Resolved {
    let adapter = AdapterCommand::new(argv).envs(adapter_env(repo, name, None, home));
    Resolved::Ready {
        name: name.to_owned(),
        command: confined(adapter, home, name, None),
        asked,
        tested: true,
    }
}

/// Resolves one requested port: probe, set up, and build the adapter command.
pub fn resolve(
    request: &PortRequest,
    ports: &BTreeMap<String, PortSpec>,
    repo: &Path,
    home: &Path,
) -> Resolved {
    let (name, version, path) = match request {
        PortRequest::Command { name, argv } => {
            let asked = argv.join(" ");
            return unnamed_port(name, resolve_program(argv), asked, repo, home);
        }
        PortRequest::Named {
            name,
            version,
            path,
        } => (name, version, path),
    };
    if name == REFERENCE {
        let exe = std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|_| "skill-conform".to_owned());
        let argv = vec![exe, "adapter".into(), "--reference".into()];
        let asked = skill_ref::CONTRACT_REVISION.to_owned();
        return unnamed_port(name, argv, asked, repo, home);
    }
    let spec = &ports[name];
    let unavailable = |reason: String| Resolved::Unavailable {
        name: name.clone(),
        reason,
    };
    let asked = match (path, version) {
        (Some(path), _) => std::fs::canonicalize(path)
            .map(|p| p.display().to_string())
            .map_err(|e| format!("local checkout `{}`: {e}", path.display())),
        (None, Some(version)) => Ok(version.clone()),
        (None, None) => Ok(spec.version.clone()),
    };
    let (probed, setup_line) = probe_and_set_up(spec, asked.as_ref().ok(), name, repo, home);
    if let Err(reason) = probed {
        return unavailable(reason);
    }
    let asked = match asked {
        Ok(asked) => asked,
        Err(reason) => return unavailable(reason),
    };
    let setup_line = match setup_line.expect("set-up ran, since the version is known") {
        Ok(line) => line,
        Err(reason) => return unavailable(reason),
    };
    let argv: Vec<String> = spec
        .run
        .iter()
        .map(|a| {
            with_repo(a, repo)
                .replace("{setup}", &setup_line)
                .replace("{version}", &asked)
        })
        .collect();
    Resolved::Ready {
        name: name.clone(),
        command: confined(
            AdapterCommand::new(argv).envs(adapter_env(repo, name, Some(spec), home)),
            home,
            name,
            Some(repo.join("adapters").join(name.as_str()).join(".cache")),
        ),
        asked,
        tested: spec.tested,
    }
}

/// The probes and the set-up of a named port (set-up only once its version is known).
///
/// The probes run while set-up runs: both are usually quick, but a JVM probe or an install is
/// not, and a missing toolchain only makes set-up fail fast. The caller lets a failed probe
/// win, since it names the cause. A failed set-up is remembered ([`crate::setup_memory`]):
/// when a marker exists, the probes run first and a marker for the same version and probe
/// output stands for the set-up.
fn probe_and_set_up(
    spec: &PortSpec,
    asked: Option<&String>,
    name: &str,
    repo: &Path,
    home: &Path,
) -> (Result<(), String>, Option<Result<String, String>>) {
    let set_up = |asked: &String| {
        if spec.setup.is_empty() {
            return Ok(String::new());
        }
        let argv: Vec<String> = spec
            .setup
            .iter()
            .map(|a| with_repo(a, repo).replace("{version}", asked))
            .collect();
        let dir = work_dir(home, name);
        let cache = repo.join("adapters").join(name).join(".cache");
        // Isolation needs every writable directory to exist; a fresh clone has no cache yet.
        let _ = std::fs::create_dir_all(&cache);
        let mut writable = vec![dir.clone(), home.to_owned(), cache];
        if asked.starts_with('/') {
            writable.push(PathBuf::from(asked)); // the `NAME=PATH` checkout
        }
        let confined = crate::confine::setup_argv(&argv, &writable);
        let env = adapter_env(repo, name, Some(spec), home);
        let timeout = bounded::effective(SETUP_TIMEOUT);
        run_setup(name, &argv, &confined, (&dir, home), &env, spec, timeout)
    };
    let key = |asked: &String, probes: &str| setup_key(spec, asked, probes);
    let remember = |asked: &String, probes: &str, outcome: &Result<String, String>| {
        setup_memory::record(repo, name, &key(asked, probes), outcome);
    };
    if let Some(asked) = asked.filter(|_| setup_memory::has_marker(repo, name)) {
        let probes = match probe_all(spec) {
            Ok(probes) => probes,
            Err(reason) => return (Err(reason), None),
        };
        if let Some(reason) = setup_memory::recall(repo, name, &key(asked, &probes)) {
            return (Ok(()), Some(Err(reason)));
        }
        let outcome = set_up(asked);
        remember(asked, &probes, &outcome);
        return (Ok(()), Some(outcome));
    }
    std::thread::scope(|scope| {
        let setup = asked.map(|asked| scope.spawn(move || set_up(asked)));
        let probed = probe_all(spec);
        let setup_line = setup.map(|thread| thread.join().expect("set-up does not panic"));
        if let (Some(asked), Ok(probes), Some(outcome)) = (asked, &probed, &setup_line) {
            remember(asked, probes, outcome);
        }
        (probed.map(drop), setup_line)
    })
}

/// What a remembered set-up outcome of `spec` holds for: the version asked for, the set-up
/// command (a changed `ports.toml` entry runs set-up again) and the probes' output.
pub(crate) fn setup_key(spec: &PortSpec, asked: &str, probes: &str) -> setup_memory::SetupKey {
    setup_memory::SetupKey::new(&format!("{asked}\n{}", spec.setup.join(" ")), probes)
}

/// Runs every toolchain probe in order; their output together, or the first failure.
pub(crate) fn probe_all(spec: &PortSpec) -> Result<String, String> {
    let probe_timeout = bounded::effective(PROBE_TIMEOUT);
    let mut output = String::new();
    for probe in &spec.probe {
        output.push_str(&probe_ok(probe, probe_timeout)?);
    }
    Ok(output)
}

/// Runs one toolchain probe in its own process group, killed with its group after `timeout`;
/// what it printed (stdout, then stderr) when it succeeds.
fn probe_ok(argv: &[String], timeout: Duration) -> Result<String, String> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(String::new());
    };
    match bounded::run(Command::new(program).args(args), timeout) {
        Ok(done) if done.status.success() => Ok(format!("{}{}", done.stdout, done.stderr)),
        Ok(done) => Err(format!(
            "toolchain probe `{}` failed ({})",
            argv.join(" "),
            done.status
        )),
        Err(Failure::Spawn(e)) => Err(format!("toolchain missing: `{program}` ({e})")),
        Err(Failure::TimedOut(after)) => Err(format!(
            "toolchain probe `{}` took longer than {after:?} (its process group was killed)",
            argv.join(" ")
        )),
    }
}

/// Runs a set-up command in its own process group, killed with its group after `timeout`; its
/// last stdout line is the result, its last stderr line the reason on failure.
fn run_setup(
    port: &str,
    argv: &[String],
    confined: &[std::ffi::OsString],
    (work_dir, home): (&Path, &Path),
    env: &[(String, std::ffi::OsString)],
    spec: &PortSpec,
    timeout: Duration,
) -> Result<String, String> {
    let (program, args) = confined.split_first().ok_or("empty setup command")?;
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(work_dir)
        .env("HOME", home)
        .env("TMPDIR", work_dir)
        // Set-up needs the user's network configuration and tools, so it inherits the
        // environment; the caches, HOME and TMPDIR are redirected (and, with Landlock, are
        // all it may write, with a `NAME=PATH` checkout).
        .envs(
            env.iter()
                .filter(|(k, _)| spec.cache_env.contains_key(k))
                .cloned(),
        );
    let watcher = crate::progress::setup_line_watcher(port);
    let done =
        bounded::run_watching(&mut command, timeout, watcher).map_err(|failure| match failure {
            Failure::Spawn(e) => format!("set-up `{}` could not start: {e}", argv.join(" ")),
            Failure::TimedOut(after) => format!(
                "set-up `{}` took longer than {after:?} (its process group was killed)",
                argv.join(" ")
            ),
        })?;
    if !done.status.success() {
        let last = last_line(&done.stderr).unwrap_or("no message");
        return Err(format!("set-up failed ({}): {last}", done.status));
    }
    last_line(&done.stdout)
        .map(str::to_owned)
        .ok_or_else(|| format!("set-up `{}` printed nothing", argv.join(" ")))
}

/// The last line with something on it, trimmed.
fn last_line(text: &str) -> Option<&str> {
    text.lines().rev().map(str::trim).find(|l| !l.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapter_names_follow_the_port_name_rule() {
        for bad in ["../../x", "a/b", "", "x y", ".", "naïve"] {
            let error = PortRequest::parse_adapter(&format!("{bad}=/bin/true")).unwrap_err();
            assert!(error.contains("not a port name"), "{bad}: {error}");
        }
        assert!(matches!(
            PortRequest::parse_adapter("my-port_2=/bin/true --flag"),
            Ok(PortRequest::Command { ref name, ref argv }) if name == "my-port_2" && argv.len() == 2
        ));
    }

    /// A shell that starts a long child and waits for it: what `npm` under `sh` looks like.
    fn hanging(dir: &Path) -> Vec<String> {
        let pidfile = dir.join("child.pid");
        vec![
            "sh".into(),
            "-c".into(),
            format!("sleep 600 & echo $! > '{}'; wait", pidfile.display()),
        ]
    }

    /// Whether the shell's child, named in `child.pid`, still runs (zombies do not count).
    fn survivor(dir: &Path) -> bool {
        let pid = std::fs::read_to_string(dir.join("child.pid")).unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
            let alive =
                stat.is_ok_and(|s| !s.rsplit(')').next().unwrap_or("").trim().starts_with('Z'));
            if !alive || std::time::Instant::now() > deadline {
                return alive;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn a_hanging_probe_and_a_hanging_setup_end_at_their_timeout_with_no_survivor() {
        let dir = crate::test_tempdir::tempdir();
        let timeout = Duration::from_millis(300);
        let err = probe_ok(&hanging(dir.path()), timeout).unwrap_err();
        assert!(err.contains("took longer than 300ms"), "{err}");
        assert!(!survivor(dir.path()), "the probe's child survived");

        let spec: PortSpec =
            toml::from_str("language = \"sh\"\nrun = [\"true\"]\nversion = \"1\"").unwrap();
        let argv = hanging(dir.path());
        let plain: Vec<std::ffi::OsString> = argv.iter().map(Into::into).collect();
        let dirs = (dir.path(), dir.path());
        let err = run_setup("fake", &argv, &plain, dirs, &[], &spec, timeout).unwrap_err();
        assert!(err.contains("its process group was killed"), "{err}");
        assert!(!survivor(dir.path()), "the set-up's child survived");
    }

    #[test]
    fn a_bad_ports_toml_names_file_and_line() {
        let repo = crate::test_tempdir::tempdir();
        std::fs::create_dir(repo.path().join("adapters")).unwrap();
        let text =
            "[ports.py]\nlanguage = \"python\"\nrun = [\"x\"]\nversion = \"1\"\nprobes = []\n";
        std::fs::write(repo.path().join("adapters/ports.toml"), text).unwrap();
        let err = read_ports(repo.path()).unwrap_err().to_string();
        assert!(
            err.contains("ports.toml`: line 5: unknown field `probes`"),
            "{err}"
        );
    }

    #[test]
    fn a_request_prints_as_given() {
        for given in ["python", "python@0.18.1", "js=/src/toolnexus"] {
            let request = PortRequest::parse_port(given).unwrap();
            assert_eq!(request.as_given(), format!("--port {given}"));
        }
        let adapter = PortRequest::parse_adapter("mine=./serve --fast").unwrap();
        assert_eq!(adapter.as_given(), "--adapter 'mine=./serve --fast'");
        let spaced = PortRequest::parse_port("js=../my toolnexus").unwrap();
        assert_eq!(spaced.as_given(), "--port js='../my toolnexus'");
        let braces = PortRequest::parse_port("js=/src/{a,b}").unwrap();
        assert_eq!(braces.as_given(), "--port js='/src/{a,b}'");
    }

    #[test]
    fn an_adapter_command_splits_as_a_shell_would() {
        let quoted = PortRequest::parse_adapter(r#"m=sh -c 'exec x "$@"' -- "a b""#).unwrap();
        assert_eq!(
            quoted,
            PortRequest::Command {
                name: "m".into(),
                argv: ["sh", "-c", "exec x \"$@\"", "--", "a b"]
                    .map(String::from)
                    .to_vec(),
            }
        );
        let plain = PortRequest::parse_adapter("m=  ./serve\t--fast  x ").unwrap();
        assert!(
            matches!(plain, PortRequest::Command { ref argv, .. } if argv == &["./serve", "--fast", "x"])
        );
        let error = PortRequest::parse_adapter("m=sh -c 'unclosed").unwrap_err();
        assert!(error.contains("does not split into words"), "{error}");
    }

    #[test]
    fn port_requests_parse() {
        assert_eq!(
            PortRequest::parse_port("python@0.18.1").unwrap(),
            PortRequest::Named {
                name: "python".into(),
                version: Some("0.18.1".into()),
                path: None
            }
        );
        assert_eq!(
            PortRequest::parse_port("js=/src/toolnexus").unwrap(),
            PortRequest::Named {
                name: "js".into(),
                version: None,
                path: Some("/src/toolnexus".into())
            }
        );
        assert!(PortRequest::parse_port("").is_err());
        assert!(PortRequest::parse_port("a b").is_err());
        assert_eq!(
            PortRequest::parse_adapter("fake=./x --fault hang").unwrap(),
            PortRequest::Command {
                name: "fake".into(),
                argv: vec!["./x".into(), "--fault".into(), "hang".into()]
            }
        );
    }

    #[test]
    fn the_committed_ports_file_parses_and_names_seven_ports() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let ports = read_ports(&repo).unwrap();
        let names: Vec<&str> = ports.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            ["clojure", "csharp", "elixir", "golang", "java", "js", "python"]
        );
    }

    #[test]
    fn the_agentskills_ports_are_read_only_for_their_profile() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let ports = read_profile_ports(&repo, crate::profile::Profile::Agentskills).unwrap();
        let names: Vec<&str> = ports.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "agentskills-fs",
                "skill-tools",
                "skills-ref-js",
                "skills-ref-py",
                "skills-ref-rs"
            ]
        );
    }

    fn sh(script: &str) -> Vec<String> {
        vec!["sh".into(), "-c".into(), script.into()]
    }

    fn spec(probe: &str, setup: &str) -> BTreeMap<String, PortSpec> {
        let spec = PortSpec {
            language: "Shell".into(),
            probe: vec![sh(probe)],
            setup: vec![
                "sh".into(),
                "-c".into(),
                setup.into(),
                "setup".into(),
                "{version}".into(),
            ],
            run: vec!["{setup}".into(), "--version={version}".into()],
            version: "1.2.3".into(),
            cache_env: BTreeMap::new(),
            tested: false,
            profile: Default::default(),
        };
        [("fake".to_owned(), spec)].into_iter().collect()
    }

    fn resolve_fake(ports: &BTreeMap<String, PortSpec>, request: &str) -> Resolved {
        let repo = crate::test_tempdir::tempdir();
        resolve_fake_in(repo.path(), ports, request)
    }

    /// Resolves in `repo` (where a failed set-up leaves its marker).
    fn resolve_fake_in(repo: &Path, ports: &BTreeMap<String, PortSpec>, request: &str) -> Resolved {
        let home = crate::test_tempdir::tempdir();
        let request = PortRequest::parse_port(request).unwrap();
        resolve(&request, ports, repo, home.path())
    }

    fn reason(resolved: Resolved) -> String {
        match resolved {
            Resolved::Unavailable { reason, .. } => reason,
            Resolved::Ready { command, .. } => panic!("expected unavailable, got {command:?}"),
        }
    }

    #[test]
    fn set_up_output_and_the_version_fill_the_run_command() {
        let ports = spec("true", "echo noise; echo /opt/adapter-$1");
        let Resolved::Ready { command, asked, .. } = resolve_fake(&ports, "fake@9.9") else {
            panic!("fake resolves");
        };
        assert_eq!(asked, "9.9");
        assert_eq!(command.argv, ["/opt/adapter-9.9", "--version=9.9"]);
    }

    /// Isolation refuses a writable directory that does not exist, and a fresh clone has no
    /// `adapters/<port>/.cache` yet: set-up makes it first.
    #[test]
    fn set_up_creates_the_port_cache_it_may_write() {
        let repo = crate::test_tempdir::tempdir();
        let ports = spec("true", "echo /opt/adapter");
        let cache = repo.path().join("adapters/fake/.cache");
        assert!(!cache.exists());
        let resolved = resolve_fake_in(repo.path(), &ports, "fake");
        assert!(matches!(resolved, Resolved::Ready { .. }));
        assert!(cache.is_dir());
    }

    #[test]
    fn a_failed_probe_wins_over_a_failed_set_up() {
        let ports = spec("exit 1", "echo 'set-up broke' >&2; exit 1");
        let reason = reason(resolve_fake(&ports, "fake"));
        assert!(
            reason.starts_with("toolchain probe `sh -c exit 1` failed"),
            "{reason}"
        );
    }

    #[test]
    fn a_failed_set_up_gives_its_last_stderr_line() {
        let ports = spec(
            "true",
            "echo first >&2; echo 'pip could not install' >&2; exit 1",
        );
        let reason = reason(resolve_fake(&ports, "fake"));
        assert!(reason.starts_with("set-up failed ("), "{reason}");
        assert!(reason.ends_with(": pip could not install"), "{reason}");
    }

    #[test]
    fn a_failed_set_up_is_remembered_until_the_version_or_the_probes_change() {
        let repo = crate::test_tempdir::tempdir();
        let runs = repo.path().join("runs");
        let failing = format!(
            "echo run >> {}; echo 'no network' >&2; exit 1",
            runs.display()
        );
        let ports = spec("echo toolchain 1", &failing);
        let first = reason(resolve_fake_in(repo.path(), &ports, "fake"));
        assert!(first.ends_with(": no network"), "{first}");
        let second = reason(resolve_fake_in(repo.path(), &ports, "fake"));
        assert!(second.starts_with(&first), "{second}");
        assert!(second.contains("remembered") && second.contains("--retry-setup"));
        let count = |expected: usize| {
            let text = std::fs::read_to_string(&runs).unwrap();
            assert_eq!(text.lines().count(), expected, "set-up runs");
        };
        count(1);
        // Another version, then another toolchain: set-up runs again.
        reason(resolve_fake_in(repo.path(), &ports, "fake@2.0"));
        count(2);
        let ports = spec("echo toolchain 2", &failing);
        reason(resolve_fake_in(repo.path(), &ports, "fake"));
        count(3);
        // Another set-up command runs, and one that works removes the marker.
        let ports = spec("echo toolchain 2", "echo /opt/adapter");
        assert!(matches!(
            resolve_fake_in(repo.path(), &ports, "fake"),
            Resolved::Ready { .. }
        ));
        assert!(!setup_memory::marker_path(repo.path(), "fake").exists());
    }

    #[test]
    fn a_missing_local_checkout_is_unavailable_and_skips_set_up() {
        let marker = crate::test_tempdir::tempdir();
        let ran = marker.path().join("ran");
        let ports = spec("true", &format!("touch {}", ran.display()));
        let reason = reason(resolve_fake(&ports, "fake=/nonexistent/checkout"));
        assert!(
            reason.starts_with("local checkout `/nonexistent/checkout`"),
            "{reason}"
        );
        assert!(!ran.exists(), "set-up ran for a checkout that is not there");
    }

    #[test]
    fn unknown_ports_are_usage_errors_listing_the_valid_ones() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let ports = read_ports(&repo).unwrap();
        let err = check_known(&PortRequest::parse_port("cobol").unwrap(), &ports).unwrap_err();
        assert!(err.to_string().starts_with("unknown port `cobol` (valid: clojure, csharp, elixir, golang, java, js, python, reference;"));
    }
}
