//! How a port's adapter is started confined: in its own working directory, with `TMPDIR` there,
//! through the `skill-conform isolate` exec step ([`crate::isolate`]) so that it may write only
//! below its cache, its temporary `HOME` and that directory, and may not open TCP connections.
//!
//! The level the kernel gives is probed once per process ([`level`]); where Landlock is
//! unavailable the adapter starts unrestricted and the report says `isolation: none` for the
//! port. Detection (`tampered`, `sandbox-modified`) never depends on it. The test hook
//! [`NO_ISOLATION_ENV`] turns isolation off, so tests can show what detection alone catches.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::isolate::{Isolation, Policy};
use crate::session::AdapterCommand;

/// Test hook: when set (to anything), adapters start unrestricted, as without Landlock.
pub const NO_ISOLATION_ENV: &str = "SKILL_CONFORM_TEST_NO_ISOLATION";

/// How much of the adapters' policy this process can enforce (probed once). `none` too when
/// this process is not the `skill-conform` binary (a test harness or a bench embedding the
/// library), which has no `isolate` step to execute.
pub fn level() -> Isolation {
    static LEVEL: OnceLock<Isolation> = OnceLock::new();
    *LEVEL.get_or_init(|| {
        let exe = std::env::current_exe().ok();
        let ours = exe.as_deref().and_then(Path::file_name) == Some("skill-conform".as_ref());
        if std::env::var_os(NO_ISOLATION_ENV).is_some() || !ours {
            return Isolation::None;
        }
        let policy = Policy {
            writable: Vec::new(),
            deny_tcp: true,
        };
        crate::isolate::probe(&policy).unwrap_or(Isolation::None)
    })
}

/// `command` started confined: `TMPDIR` set to `work_dir` (its working directory), and, where
/// [`level`] is not `none`, run through `skill-conform isolate` with writes allowed only below
/// `work_dir`, `home` and `cache` (created when missing) and TCP denied.
pub fn confine(
    command: AdapterCommand,
    work_dir: &Path,
    home: &Path,
    cache: Option<PathBuf>,
) -> AdapterCommand {
    let mut command = command.env("TMPDIR", work_dir.as_os_str());
    if level() == Isolation::None {
        return command;
    }
    let Ok(exe) = std::env::current_exe() else {
        return command;
    };
    let mut writable = vec![work_dir.to_owned(), home.to_owned()];
    if let Some(cache) = cache {
        // A cache that cannot be made is left out; the adapter then fails where it writes.
        if std::fs::create_dir_all(&cache).is_ok() {
            writable.push(cache);
        }
    }
    let mut argv: Vec<OsString> = vec![exe.into_os_string(), "isolate".into()];
    for dir in writable {
        argv.push("--write".into());
        argv.push(dir.into_os_string());
    }
    argv.push("--no-net".into());
    argv.push("--".into());
    argv.append(&mut command.argv);
    command.argv = argv;
    command
}

/// A set-up command line confined: where [`level`] is not `none`, run through `skill-conform
/// isolate` with writes allowed only below `writable` (each created when missing); the network
/// stays open (set-up installs packages).
pub fn setup_argv(argv: &[String], writable: &[PathBuf]) -> Vec<OsString> {
    let plain: Vec<OsString> = argv.iter().map(OsString::from).collect();
    if level() == Isolation::None {
        return plain;
    }
    let Ok(exe) = std::env::current_exe() else {
        return plain;
    };
    let mut confined: Vec<OsString> = vec![exe.into_os_string(), "isolate".into()];
    for dir in writable {
        if std::fs::create_dir_all(dir).is_ok() {
            confined.push("--write".into());
            confined.push(dir.as_os_str().to_owned());
        }
    }
    confined.push("--".into());
    confined.extend(plain);
    confined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confined_command_gets_its_tmpdir_and_the_isolate_step_when_available() {
        let dir = crate::test_tempdir::tempdir();
        let command = confine(AdapterCommand::new(["serve"]), dir.path(), dir.path(), None);
        assert!(command
            .env
            .contains(&("TMPDIR".into(), dir.path().as_os_str().to_owned())));
        let isolated = command.argv.iter().any(|arg| arg == "isolate");
        assert_eq!(isolated, level() != Isolation::None, "{:?}", command.argv);
        assert_eq!(command.argv.last().unwrap(), "serve");
    }
}
