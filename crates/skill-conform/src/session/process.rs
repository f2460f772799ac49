//! One adapter process: spawn it in its own process group, exchange lines with a deadline, kill it.
//!
//! This module knows pipes, deadlines and signals, and nothing about what the lines mean (that is
//! [`super::protocol`] and the [`super::Session`]). Three helper threads serve one process:
//!
//! - a **writer** owns the child's stdin, so a request that fills the pipe of an adapter that is
//!   not reading can never block the caller past its deadline;
//! - a **stdout reader** splits stdout into lines with a byte cap: a line that grows past the cap
//!   is reported as [`Fault::Oversize`] and reading stops there, so a 100 MB reply never sits in
//!   memory;
//! - a **stderr reader** keeps a rolling tail (64 KiB, shown as at most 40 lines) for evidence.
//!
//! The writer and the stdout reader send into one bounded channel, which [`AdapterProcess::request`]
//! waits on until the deadline. [`AdapterProcess::kill`] sends `SIGKILL` to the whole process group,
//! which also ends grandchildren that inherited the pipes, reaps the child, and gives the reader
//! threads a bounded time to finish before leaving them detached; it never hangs the caller.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::evidence::{Fault, StderrTail};
use super::protocol::evidence_line;

/// The default cap on one stdout line: 16 MiB.
pub const DEFAULT_LINE_CAP: usize = 16 * 1024 * 1024;
/// How much stderr is kept: the last 64 KiB …
pub(crate) const STDERR_TAIL_BYTES: usize = 64 * 1024;
/// … shown as at most the last 40 lines.
pub(crate) const STDERR_TAIL_LINES: usize = 40;

/// How long to wait for a process whose stdout closed to exit, before calling its status unknown.
const EXIT_GRACE: Duration = Duration::from_secs(1);
/// How long a reply may still arrive after the direct child exited (its last line may be in the
/// pipe), before the exit is reported as [`Fault::Exited`]. Generous: on a loaded machine the
/// reader thread can take a while to hand over a line the adapter wrote just before dying (at
/// 200 ms a reply written right before a crash was, rarely, taken for the crash).
pub(crate) const DEATH_GRACE: Duration = Duration::from_secs(1);
/// How often a wait for a reply checks whether the direct child is still alive.
const DEATH_POLL: Duration = Duration::from_millis(20);
/// How long [`AdapterProcess::kill`] waits for the reader threads before leaving them detached.
const JOIN_GRACE: Duration = Duration::from_millis(500);
/// How often exits and thread ends are checked: the runner waits on these at the end of a run.
const POLL: Duration = Duration::from_millis(1);

/// How to start one adapter: the command line, its directory and its whole environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterCommand {
    /// Program and arguments; the program is looked up on the `PATH` given in `env`.
    pub argv: Vec<OsString>,
    /// Working directory; `None` keeps the runner's.
    pub cwd: Option<PathBuf>,
    /// The complete environment: nothing is inherited from the runner.
    pub env: Vec<(OsString, OsString)>,
    /// The longest stdout line accepted, in bytes without the newline.
    pub line_cap: usize,
}

impl AdapterCommand {
    /// A command with an empty environment, the runner's cwd and the default line cap.
    pub fn new<I, S>(argv: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        AdapterCommand {
            argv: argv.into_iter().map(Into::into).collect(),
            cwd: None,
            env: Vec::new(),
            line_cap: DEFAULT_LINE_CAP,
        }
    }

    /// Sets the working directory.
    pub fn cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }

    /// Adds one environment variable.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Sets the stdout line cap.
    pub fn line_cap(mut self, bytes: usize) -> Self {
        self.line_cap = bytes;
        self
    }
}

/// What the writer and the stdout reader report.
enum Event {
    /// One complete stdout line, without its newline.
    Line(Vec<u8>),
    /// A line passed the cap after this many bytes; the reader stopped.
    Oversize(u64),
    /// Stdout closed (or failed); the bytes after the last newline.
    Eof(Vec<u8>),
    /// Writing a request failed.
    WriteFailed(std::io::Error),
}

/// A running adapter process and its helper threads.
pub struct AdapterProcess {
    child: Child,
    /// The child's pid, which is also its process group id.
    pgid: i32,
    line_cap: usize,
    requests: Option<Sender<Vec<u8>>>,
    events: Option<Receiver<Event>>,
    stderr: Arc<Mutex<TailBuffer>>,
    threads: Vec<JoinHandle<()>>,
    killed: bool,
    /// Keeps the group registered for SIGKILL on SIGINT/SIGTERM while the adapter lives.
    _interrupt: crate::interrupt::GroupGuard,
}

impl AdapterProcess {
    /// Starts the adapter in its own process group with piped stdio and the given environment.
    pub fn spawn(spec: &AdapterCommand) -> Result<AdapterProcess, Fault> {
        let Some((program, args)) = spec.argv.split_first() else {
            return Err(Fault::SpawnFailed {
                error: "empty command line".to_owned(),
            });
        };
        let mut command = Command::new(program);
        command
            .args(args)
            .env_clear()
            .envs(spec.env.iter().map(|(key, value)| (key, value)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(cwd) = &spec.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(|error| Fault::SpawnFailed {
            error: error.to_string(),
        })?;
        let pgid = i32::try_from(child.id()).expect("pids fit in i32");
        let interrupt = crate::interrupt::register_group(child.id());
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");

        let (event_tx, events) = mpsc::sync_channel(2);
        // Unbounded, so queueing a request never blocks the caller, even when the adapter has
        // stopped reading; the session keeps only a few requests in flight.
        let (requests, request_rx) = mpsc::channel::<Vec<u8>>();
        let stderr = Arc::new(Mutex::new(TailBuffer::default()));
        let line_cap = spec.line_cap;
        let threads = vec![
            spawn_thread("adapter-stdin", {
                let event_tx = event_tx.clone();
                move || write_requests(stdin, request_rx, event_tx)
            }),
            spawn_thread("adapter-stdout", move || {
                read_lines(stdout, line_cap, event_tx)
            }),
            spawn_thread("adapter-stderr", {
                let stderr = Arc::clone(&stderr);
                move || read_tail(stderr_pipe, stderr)
            }),
        ];
        Ok(AdapterProcess {
            child,
            pgid,
            line_cap,
            requests: Some(requests),
            events: Some(events),
            stderr,
            threads,
            killed: false,
            _interrupt: interrupt,
        })
    }

    /// The process id (also the process group id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Writes `line` and a newline, then waits until `timeout` for one stdout line.
    ///
    /// A line that arrived before the request was written is [`Fault::Unsolicited`]. After any
    /// fault the process is in an unknown state: kill it.
    pub fn request(&mut self, line: &str, timeout: Duration) -> Result<String, Fault> {
        let deadline = Instant::now() + timeout;
        if let Some(fault) = self.take_unsolicited() {
            return Err(fault);
        }
        self.send_line(line);
        self.read_line(deadline, timeout)
    }

    /// The fault for whatever stdout produced while nothing was asked of it: a line
    /// ([`Fault::Unsolicited`]), an oversized line, or the end of stdout. `None` if it was quiet.
    pub(crate) fn take_unsolicited(&mut self) -> Option<Fault> {
        let Some(events) = self.events.as_ref() else {
            return Some(gone());
        };
        match events.try_recv() {
            Ok(event) => Some(self.fault_from(event)),
            Err(TryRecvError::Disconnected) => Some(gone()),
            Err(TryRecvError::Empty) => None,
        }
    }

    /// Waits until `deadline` for the next stdout line; `timeout` is the budget that deadline
    /// stands for, as [`Fault::Timeout`] reports it.
    ///
    /// While it waits it also watches the direct child: if the child has exited and nothing more
    /// arrives within [`DEATH_GRACE`], that is [`Fault::Exited`] at once, even when a grandchild
    /// still holds stdout open (so no end of file ever comes).
    pub(crate) fn read_line(
        &mut self,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<String, Fault> {
        let mut died: Option<(Instant, ExitStatus)> = None;
        loop {
            let events = self.events.as_ref().ok_or_else(gone)?;
            let now = Instant::now();
            let mut until = deadline.min(now + DEATH_POLL);
            if let Some((at, _)) = died {
                until = until.min(at + DEATH_GRACE);
            }
            match events.recv_timeout(until.saturating_duration_since(now)) {
                Ok(Event::Line(bytes)) => {
                    return String::from_utf8(bytes).map_err(|error| {
                        let bytes = error.into_bytes();
                        not_json(&String::from_utf8_lossy(&bytes), bytes.len())
                    })
                }
                Ok(event) => return Err(self.fault_from(event)),
                Err(RecvTimeoutError::Disconnected) => return Err(gone()),
                Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                    return Err(Fault::Timeout { after: timeout })
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            match died {
                Some((at, status)) if Instant::now() >= at + DEATH_GRACE => {
                    return Err(Fault::Exited {
                        status: status.code(),
                        signal: status.signal(),
                        partial: None,
                    })
                }
                Some(_) => {}
                None => {
                    if let Ok(Some(status)) = self.child.try_wait() {
                        died = Some((Instant::now(), status));
                    }
                }
            }
        }
    }

    /// Queues `line` and a newline for the adapter's stdin without waiting for an answer.
    pub(crate) fn send_line(&mut self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        if let Some(requests) = &self.requests {
            // A closed writer has already reported why, as an event.
            let _ = requests.send(bytes);
        }
    }

    /// Closes the adapter's stdin (after any queued line is written).
    pub(crate) fn close_stdin(&mut self) {
        self.requests = None;
    }

    /// Waits up to `grace` for the process to exit on its own.
    pub(crate) fn wait_exit(&mut self, grace: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Some(status),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(POLL),
                _ => return None,
            }
        }
    }

    /// The stderr tail so far. After [`kill`](Self::kill) it holds everything the process wrote.
    pub fn stderr_tail(&self) -> StderrTail {
        lock(&self.stderr).snapshot()
    }

    /// Kills the whole process group, reaps the child and stops the helper threads. Idempotent;
    /// returns within about half a second even if something outside the group holds the pipes.
    pub fn kill(&mut self) {
        if self.killed {
            return;
        }
        self.killed = true;
        kill_group(self.pgid);
        let _ = self.child.kill();
        let _ = self.child.wait();
        // Unblock the threads: a closed request channel ends the writer, a dropped receiver makes
        // the stdout reader's next send fail.
        self.requests = None;
        self.events = None;
        let deadline = Instant::now() + JOIN_GRACE;
        for thread in self.threads.drain(..) {
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(POLL);
            }
            if thread.is_finished() {
                let _ = thread.join();
            }
            // Otherwise it stays detached; it ends when the last holder of the pipe exits.
        }
    }

    /// Turns a non-line event into its fault, waiting briefly to learn how the process ended.
    fn fault_from(&mut self, event: Event) -> Fault {
        match event {
            Event::Line(bytes) => Fault::Unsolicited {
                line: evidence_line(&String::from_utf8_lossy(&bytes)),
            },
            Event::Oversize(bytes) => Fault::Oversize {
                bytes,
                cap: self.line_cap as u64,
            },
            Event::Eof(partial) => self.exited(partial),
            Event::WriteFailed(error) => {
                // Usually the process is gone (EPIPE); then stdout closes too.
                let eof = self
                    .events
                    .as_ref()
                    .and_then(|events| events.recv_timeout(EXIT_GRACE).ok());
                match eof {
                    Some(Event::Eof(partial)) => self.exited(partial),
                    Some(other) => self.fault_from(other),
                    None => Fault::WriteFailed {
                        error: error.to_string(),
                    },
                }
            }
        }
    }

    fn exited(&mut self, partial: Vec<u8>) -> Fault {
        let status = self.wait_exit(EXIT_GRACE);
        Fault::Exited {
            status: status.and_then(|status| status.code()),
            signal: status.and_then(|status| status.signal()),
            partial: (!partial.is_empty())
                .then(|| evidence_line(&String::from_utf8_lossy(&partial))),
        }
    }
}

impl Drop for AdapterProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

fn gone() -> Fault {
    Fault::Exited {
        status: None,
        signal: None,
        partial: None,
    }
}

fn not_json(line: &str, bytes: usize) -> Fault {
    Fault::NotJson {
        line: evidence_line(line),
        bytes,
    }
}

/// `NotJson` evidence for a line that is valid UTF-8.
pub(crate) fn not_json_line(line: &str) -> Fault {
    not_json(line, line.len())
}

fn kill_group(pgid: i32) {
    // SAFETY: killpg has no memory effects; a stale or foreign pgid only yields ESRCH or EPERM,
    // which are ignored (the group is then already gone).
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

fn spawn_thread(name: &str, body: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(body)
        .expect("the OS can start a thread")
}

fn lock(tail: &Mutex<TailBuffer>) -> std::sync::MutexGuard<'_, TailBuffer> {
    // The buffer stays consistent even if a holder panicked.
    tail.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_requests(mut stdin: ChildStdin, requests: Receiver<Vec<u8>>, events: SyncSender<Event>) {
    for bytes in requests {
        if let Err(error) = stdin.write_all(&bytes).and_then(|()| stdin.flush()) {
            let _ = events.send(Event::WriteFailed(error));
            return;
        }
    }
}

/// Splits `stdout` into lines of at most `cap` bytes and sends them; stops at the first oversized
/// line or at end of file.
fn read_lines(stdout: ChildStdout, cap: usize, events: SyncSender<Event>) {
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    loop {
        let buffer = match reader.fill_buf() {
            Ok(buffer) => buffer,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => &[],
        };
        if buffer.is_empty() {
            let _ = events.send(Event::Eof(line));
            return;
        }
        let (take, complete) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(newline) => (newline, true),
            None => (buffer.len(), false),
        };
        if line.len() + take > cap {
            let _ = events.send(Event::Oversize((line.len() + take) as u64));
            return;
        }
        line.extend_from_slice(&buffer[..take]);
        reader.consume(take + usize::from(complete));
        if complete && events.send(Event::Line(std::mem::take(&mut line))).is_err() {
            return;
        }
    }
}

fn read_tail(mut stderr: ChildStderr, tail: Arc<Mutex<TailBuffer>>) {
    let mut chunk = [0u8; 8192];
    loop {
        match stderr.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => lock(&tail).push(&chunk[..n]),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

/// The last [`STDERR_TAIL_BYTES`] bytes written to stderr, and how many were written in all.
#[derive(Default)]
pub(crate) struct TailBuffer {
    bytes: VecDeque<u8>,
    total: u64,
}

impl TailBuffer {
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(STDERR_TAIL_BYTES)..];
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(STDERR_TAIL_BYTES);
        self.bytes.drain(..overflow);
        self.bytes.extend(chunk);
    }

    pub(crate) fn snapshot(&self) -> StderrTail {
        let (front, back) = self.bytes.as_slices();
        let text = String::from_utf8_lossy(&[front, back].concat()).into_owned();
        // Keep the last STDERR_TAIL_LINES lines; a trailing newline does not start a new line.
        let body = text.strip_suffix('\n').unwrap_or(&text);
        let start = body
            .rmatch_indices('\n')
            .nth(STDERR_TAIL_LINES - 1)
            .map_or(0, |(index, _)| index + 1);
        StderrTail {
            text: text[start..].to_owned(),
            total_bytes: self.total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tail_keeps_the_last_forty_lines() {
        let mut tail = TailBuffer::default();
        for n in 0..100 {
            tail.push(format!("line {n}\n").as_bytes());
        }
        let snapshot = tail.snapshot();
        assert_eq!(snapshot.text.lines().count(), STDERR_TAIL_LINES);
        assert!(snapshot.text.starts_with("line 60\n"));
        assert!(snapshot.text.ends_with("line 99\n"));
        assert_eq!(
            snapshot.total_bytes,
            (0..100)
                .map(|n| format!("line {n}\n").len() as u64)
                .sum::<u64>()
        );
    }

    #[test]
    fn tail_keeps_the_last_64_kib() {
        let mut tail = TailBuffer::default();
        tail.push(&vec![b'a'; 50_000]);
        tail.push(&vec![b'b'; 50_000]);
        tail.push(b"end");
        let snapshot = tail.snapshot();
        assert_eq!(snapshot.text.len(), STDERR_TAIL_BYTES);
        assert!(snapshot.text.ends_with("bbbend"));
        assert_eq!(snapshot.total_bytes, 100_003);
        let mut huge = TailBuffer::default();
        huge.push(&vec![b'c'; 3 * STDERR_TAIL_BYTES]);
        assert_eq!(huge.snapshot().text.len(), STDERR_TAIL_BYTES);
    }

    #[test]
    fn tail_without_trailing_newline_keeps_the_partial_line() {
        let mut tail = TailBuffer::default();
        tail.push(b"one\ntwo\nthree");
        assert_eq!(tail.snapshot().text, "one\ntwo\nthree");
    }

    fn sh(script: &str) -> AdapterCommand {
        AdapterCommand::new(["/bin/sh", "-c", script])
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    }

    #[test]
    fn lines_are_read_one_per_request() {
        let mut process =
            AdapterProcess::spawn(&sh("while read -r l; do echo \"got $l\"; done")).unwrap();
        let timeout = Duration::from_secs(5);
        assert_eq!(process.request("a", timeout).unwrap(), "got a");
        assert_eq!(process.request("b", timeout).unwrap(), "got b");
        process.kill();
    }

    #[test]
    fn environment_is_exactly_the_given_one() {
        let spec = sh("read -r l; echo \"$FOO|${HOME:-unset}\"").env("FOO", "bar");
        let mut process = AdapterProcess::spawn(&spec).unwrap();
        assert_eq!(
            process.request("x", Duration::from_secs(5)).unwrap(),
            "bar|unset"
        );
    }

    #[test]
    fn a_line_written_before_the_request_is_unsolicited() {
        let mut process = AdapterProcess::spawn(&sh("echo early; sleep 5")).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            process.request("x", Duration::from_secs(5)).unwrap_err(),
            Fault::Unsolicited {
                line: "early".into()
            }
        );
    }

    #[test]
    fn invalid_utf8_is_not_json() {
        let mut process = AdapterProcess::spawn(&sh("read -r l; printf '\\377x\\n'")).unwrap();
        assert_eq!(
            process.request("x", Duration::from_secs(5)).unwrap_err(),
            Fault::NotJson {
                line: "\u{FFFD}x".into(),
                bytes: 2
            }
        );
    }

    #[test]
    fn a_request_larger_than_the_pipe_still_times_out() {
        // The adapter never reads stdin, so writing 1 MiB would block a caller that wrote itself.
        let mut process = AdapterProcess::spawn(&sh("sleep 100")).unwrap();
        let began = Instant::now();
        let line = "x".repeat(1024 * 1024);
        assert_eq!(
            process.request(&line, Duration::from_millis(300)),
            Err(Fault::Timeout {
                after: Duration::from_millis(300)
            })
        );
        process.kill();
        assert!(began.elapsed() < Duration::from_secs(2));
    }

    #[test]
    fn kill_returns_even_if_an_escaped_grandchild_holds_the_pipes() {
        // `setsid` moves the sleeper out of the group, so the group kill cannot reach it and
        // stdout stays open until it ends by itself.
        let mut process = AdapterProcess::spawn(&sh("setsid sleep 2 & read -r l")).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let began = Instant::now();
        process.kill();
        assert!(began.elapsed() < JOIN_GRACE + Duration::from_millis(500));
    }

    #[test]
    fn a_missing_program_is_a_spawn_failure() {
        let spec = AdapterCommand::new(["/nonexistent/adapter"]);
        assert!(matches!(
            AdapterProcess::spawn(&spec),
            Err(Fault::SpawnFailed { .. })
        ));
        assert!(matches!(
            AdapterProcess::spawn(&AdapterCommand::new(Vec::<OsString>::new())),
            Err(Fault::SpawnFailed { .. })
        ));
    }
}
