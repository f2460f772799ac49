//! Ports: `adapters/ports.toml` and the command line resolve into adapters ready to start, or
//! into `unavailable` rows that keep their reason.
//!
//! A [`PortSpec`] says how to probe a port's toolchain, set its adapter up (cached under
//! `adapters/<port>/.cache`), and run it. `--port NAME@VERSION` installs another library
//! version, `--port NAME=PATH` builds a local checkout, `--adapter NAME=COMMAND` runs any
//! protocol-speaking program as port NAME. The reference is always available as port
//! `reference` (this binary's `adapter --reference`).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::error::Error;
use crate::session::AdapterCommand;

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
pub const REFERENCE: &str = "reference";

/// How long a port's set-up may take (installing packages, compiling).
pub const SETUP_TIMEOUT: Duration = Duration::from_secs(20 * 60);

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
}

/// `adapters/ports.toml`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortsFile {
    pub ports: BTreeMap<String, PortSpec>,
}

/// Reads `adapters/ports.toml` under `repo`.
pub fn read_ports(repo: &Path) -> Result<BTreeMap<String, PortSpec>, Error> {
    let path = repo.join("adapters/ports.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        Error::Usage(format!(
            "error reading `{}`: {e} (hint: run from the repository root or pass --repo DIR)",
            path.display()
        ))
    })?;
    let file: PortsFile = toml::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "error reading `{}`: {} (hint: see the schema in adapters/PROTOCOL.md)",
            path.display(),
            e.message()
        ))
    })?;
    Ok(file.ports)
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

    /// The request exactly as the user gave it, for reproduce lines: `--port NAME`,
    /// `--port NAME@VERSION`, `--port NAME=PATH` or `--adapter NAME=COMMAND`.
    pub fn as_given(&self) -> String {
        match self {
            PortRequest::Named {
                name,
                version: Some(version),
                ..
            } => format!("--port {name}@{version}"),
            PortRequest::Named {
                name,
                path: Some(path),
                ..
            } => format!("--port {name}={}", path.display()),
            PortRequest::Named { name, .. } => format!("--port {name}"),
            PortRequest::Command { name, argv } => {
                format!("--adapter '{name}={}'", argv.join(" "))
            }
        }
    }

    /// Parses a `--port` value.
    pub fn parse_port(text: &str) -> Result<PortRequest, String> {
        let (name, version, path) = if let Some((name, path)) = text.split_once('=') {
            (name, None, Some(PathBuf::from(path)))
        } else if let Some((name, version)) = text.split_once('@') {
            (name, Some(version.to_owned()), None)
        } else {
            (text, None, None)
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(format!("`{text}` is not NAME, NAME@VERSION or NAME=PATH"));
        }
        Ok(PortRequest::Named {
            name: name.to_owned(),
            version,
            path,
        })
    }

    /// Parses an `--adapter NAME=COMMAND` value (the command split on whitespace).
    pub fn parse_adapter(text: &str) -> Result<PortRequest, String> {
        let (name, command) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}` is not NAME=COMMAND"))?;
        let argv: Vec<String> = command.split_whitespace().map(str::to_owned).collect();
        if name.is_empty() || argv.is_empty() {
            return Err(format!("`{text}` is not NAME=COMMAND"));
        }
        Ok(PortRequest::Command {
            name: name.to_owned(),
            argv,
        })
    }
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
pub fn check_known(request: &PortRequest, ports: &BTreeMap<String, PortSpec>) -> Result<(), Error> {
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

/// Resolves one requested port: probe, set up, and build the adapter command.
pub fn resolve(
    request: &PortRequest,
    ports: &BTreeMap<String, PortSpec>,
    repo: &Path,
    home: &Path,
) -> Resolved {
    let (name, version, path) = match request {
        PortRequest::Command { name, argv } => {
            return Resolved::Ready {
                name: name.clone(),
                command: AdapterCommand::new(argv.clone())
                    .cwd(repo.to_path_buf())
                    .envs(adapter_env(repo, name, None, home)),
                asked: argv.join(" "),
                tested: true,
            }
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
        return Resolved::Ready {
            name: name.clone(),
            command: AdapterCommand::new(vec![exe, "adapter".into(), "--reference".into()])
                .cwd(repo.to_path_buf())
                .envs(adapter_env(repo, name, None, home)),
            asked: skill_ref::CONTRACT_REVISION.to_owned(),
            tested: true,
        };
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
    // The probes run while set-up runs: both are usually quick, but a JVM probe or an
    // install is not, and a missing toolchain only makes set-up fail fast. A failed probe
    // still wins, since it names the cause.
    let (probed, setup_line) = std::thread::scope(|scope| {
        let setup = asked.as_ref().ok().map(|asked| {
            scope.spawn(move || {
                if spec.setup.is_empty() {
                    return Ok(String::new());
                }
                let argv: Vec<String> = spec
                    .setup
                    .iter()
                    .map(|a| a.replace("{version}", asked))
                    .collect();
                run_setup(
                    &argv,
                    repo,
                    &adapter_env(repo, name, Some(spec), home),
                    spec,
                )
            })
        });
        let probed = spec.probe.iter().try_for_each(|probe| probe_ok(probe));
        let setup_line = setup.map(|thread| thread.join().expect("set-up does not panic"));
        (probed, setup_line)
    });
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
            a.replace("{setup}", &setup_line)
                .replace("{version}", &asked)
        })
        .collect();
    Resolved::Ready {
        name: name.clone(),
        command: AdapterCommand::new(argv)
            .cwd(repo.to_path_buf())
            .envs(adapter_env(repo, name, Some(spec), home)),
        asked,
        tested: spec.tested,
    }
}

fn probe_ok(argv: &[String]) -> Result<(), String> {
    let Some((program, args)) = argv.split_first() else {
        return Ok(());
    };
    match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => Err(format!(
            "toolchain probe `{}` failed ({status})",
            argv.join(" ")
        )),
        Err(e) => Err(format!("toolchain missing: `{program}` ({e})")),
    }
}

/// Runs a set-up command; its last stdout line is the result, its last stderr line the reason
/// on failure.
fn run_setup(
    argv: &[String],
    repo: &Path,
    env: &[(String, std::ffi::OsString)],
    spec: &PortSpec,
) -> Result<String, String> {
    let (program, args) = argv.split_first().ok_or("empty setup command")?;
    let mut child = Command::new(program)
        .args(args)
        .current_dir(repo)
        // Set-up needs the user's network configuration and tools, so it inherits the
        // environment; only the caches are redirected.
        .envs(
            env.iter()
                .filter(|(k, _)| spec.cache_env.contains_key(k))
                .cloned(),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("set-up `{}` could not start: {e}", argv.join(" ")))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    // Set-up usually answers from its cache in a few milliseconds (it runs on every run) and
    // sometimes installs for minutes: poll often at first, then back off to 50 ms.
    let mut poll = Duration::from_millis(1);
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if start.elapsed() > SETUP_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!(
                "set-up `{}` took longer than {:?}",
                argv.join(" "),
                SETUP_TIMEOUT
            ));
        }
        std::thread::sleep(poll);
        poll = (poll * 2).min(Duration::from_millis(50));
    };
    let out = out_thread.join().unwrap_or_default();
    let err = err_thread.join().unwrap_or_default();
    if !status.success() {
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no message");
        return Err(format!("set-up failed ({status}): {last}"));
    }
    out.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_owned())
        .ok_or_else(|| format!("set-up `{}` printed nothing", argv.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_prints_as_given() {
        for given in ["python", "python@0.18.1", "js=/src/toolnexus"] {
            let request = PortRequest::parse_port(given).unwrap();
            assert_eq!(request.as_given(), format!("--port {given}"));
        }
        let adapter = PortRequest::parse_adapter("mine=./serve --fast").unwrap();
        assert_eq!(adapter.as_given(), "--adapter 'mine=./serve --fast'");
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
        };
        [("fake".to_owned(), spec)].into_iter().collect()
    }

    fn resolve_fake(ports: &BTreeMap<String, PortSpec>, request: &str) -> Resolved {
        let home = tempfile::tempdir().unwrap();
        let request = PortRequest::parse_port(request).unwrap();
        resolve(&request, ports, Path::new("/"), home.path())
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
    fn a_missing_local_checkout_is_unavailable_and_skips_set_up() {
        let marker = tempfile::tempdir().unwrap();
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
