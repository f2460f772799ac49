//! Helper commands (toolchain probes, port set-up) run like adapter sessions: in their own
//! process group, under a named timeout, and on timeout the whole group is killed — the shell
//! and whatever it started (npm, mvn, go build), not just the shell.
//!
//! [`HELPER_TIMEOUT_ENV`] (milliseconds) shortens every helper timeout, for tests.

use std::io::{BufRead, Read};
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitStatus, Stdio};
use std::time::Duration;

/// How long one toolchain probe (`python3 --version`, `mvn -v`) may take.
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a port's set-up may take (installing packages, compiling).
pub(crate) const SETUP_TIMEOUT: Duration = Duration::from_secs(20 * 60);

/// Environment variable: milliseconds that cap every helper timeout (tests shorten them).
pub(crate) const HELPER_TIMEOUT_ENV: &str = "SKILL_CONFORM_HELPER_TIMEOUT_MS";

/// `named`, or less when [`HELPER_TIMEOUT_ENV`] says so.
pub(crate) fn effective(named: Duration) -> Duration {
    shortened(named, std::env::var(HELPER_TIMEOUT_ENV).ok().as_deref())
}

fn shortened(named: Duration, cap_ms: Option<&str>) -> Duration {
    cap_ms
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .map_or(named, |ms| named.min(Duration::from_millis(ms)))
}

/// A helper that ran to its end, with what it printed.
#[derive(Debug)]
pub(crate) struct Finished {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Why a helper has no [`Finished`].
#[derive(Debug)]
pub(crate) enum Failure {
    /// It could not be started.
    Spawn(std::io::Error),
    /// It ran past its timeout; its whole process group was killed.
    TimedOut(Duration),
}

/// Runs `command` (stdin closed, stdout and stderr captured) in a new process group; after
/// `timeout` the whole group gets SIGKILL.
pub fn run(command: &mut Command, timeout: Duration) -> Result<Finished, Failure> {
    run_watching(command, timeout, Box::new(|_| {}))
}

/// [`run`], handing each stderr line to `on_stderr_line` as it arrives (set-up's progress).
pub(crate) fn run_watching(
    command: &mut Command,
    timeout: Duration,
    on_stderr_line: Box<dyn Fn(&str) + Send>,
) -> Result<Finished, Failure> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(Failure::Spawn)?;
    let group = i32::try_from(child.id()).expect("a pid fits in i32");
    let _interrupt = crate::interrupt::register_group(child.id());
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = child.stderr.take().map(|pipe| {
        std::thread::spawn(move || {
            let mut text = String::new();
            for line in std::io::BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                on_stderr_line(&line);
                text.push_str(&line);
                text.push('\n');
            }
            text
        })
    });
    // A waiter blocks until the child has exited without reaping it (`WNOWAIT`), so the group
    // id stays the child's until `child.wait()` below: a kill after the timeout can never hit
    // a reused group, and a helper that answers from a cache in milliseconds is seen at once
    // (no polling interval on the path of every run's set-up).
    let pid = child.id();
    let (exited_tx, exited_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        wait_without_reaping(pid);
        let _ = exited_tx.send(());
    });
    if exited_rx.recv_timeout(timeout).is_err() {
        kill_group(group);
        let _ = child.wait();
        return Err(Failure::TimedOut(timeout));
    }
    let status = child.wait().map_err(Failure::Spawn)?;
    Ok(Finished {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.and_then(|err| err.join().ok()).unwrap_or_default(),
    })
}

/// Blocks until the process `pid` has exited, leaving it a zombie for its owner to reap.
fn wait_without_reaping(pid: u32) {
    loop {
        // SAFETY: `info` is a plain C struct that waitid fills; an error (the child already
        // reaped, say) ends the wait.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let done =
            unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if done == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: killpg has no memory effects; a stale group only yields ESRCH, which is ignored.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// Whether `pid` still runs (a zombie waiting for its reaper does not).
    fn running(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| stat.rsplit(')').next().map(str::trim).map(str::to_owned))
            .is_some_and(|rest| !rest.starts_with('Z'))
    }

    #[test]
    fn a_hanging_helper_ends_at_its_timeout_with_its_whole_group() {
        let dir = crate::test_tempdir::tempdir();
        let pidfile = dir.path().join("child.pid");
        let script = format!("sleep 600 & echo $! > '{}'; wait", pidfile.display());
        let start = Instant::now();
        let result = run(
            Command::new("sh").args(["-c", &script]),
            Duration::from_millis(300),
        );
        assert!(matches!(result, Err(Failure::TimedOut(_))), "{result:?}");
        assert!(start.elapsed() < Duration::from_secs(5));
        let child = std::fs::read_to_string(&pidfile).unwrap();
        let child = child.trim();
        let deadline = Instant::now() + Duration::from_secs(5);
        while running(child) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(!running(child), "the shell's child {child} survived");
    }

    #[test]
    fn a_finished_helper_gives_its_output_and_timeouts_shorten() {
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(
            (done.stdout.as_str(), done.stderr.as_str()),
            ("out\n", "err\n")
        );
        assert_eq!(done.status.code(), Some(3));
        assert!(matches!(
            run(&mut Command::new("/no/such/program"), PROBE_TIMEOUT),
            Err(Failure::Spawn(_))
        ));
        assert_eq!(
            shortened(SETUP_TIMEOUT, Some("250")),
            Duration::from_millis(250)
        );
        assert_eq!(shortened(PROBE_TIMEOUT, None), PROBE_TIMEOUT);
        assert_eq!(shortened(PROBE_TIMEOUT, Some("x")), PROBE_TIMEOUT);
    }
}
