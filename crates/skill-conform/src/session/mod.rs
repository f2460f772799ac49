//! Stage 3, sessions: one long-lived adapter process per port, spoken to in JSON lines.
//!
//! A [`Session`] starts the adapter ([`AdapterCommand`]) in its own process group, does the
//! `hello` handshake, and then answers [`Session::run`] with the reply as a
//! [`serde_json::Value`] or with [`FaultEvidence`]. Trouble is an outcome, never an abort (style
//! habit 3): on any fault the session kills the process group, keeps the evidence (the fault, the
//! stderr tail, the offending line) and starts a fresh process with a new handshake, so the next
//! case runs. Deciding what a fault *means* is the judge's: see [`Fault::kind`] and [`Phase`].
//!
//! Modules, in the order a message travels:
//!
//! - [`protocol`]: the message types of protocol version 1, the run-reply check, the JSON Schema;
//! - [`process`]: spawn, line reading with a byte cap, deadlines, the stderr tail, group kill;
//! - [`evidence`]: the closed fault taxonomy and the evidence attached to it;
//! - [`serve`](mod@serve): the adapter side of the protocol, the loop every Rust-side adapter runs;
//! - [`fault`]: deliberate misbehaviour for `serve` (`adapter --fault MODE`), to test the runner.
//!
//! Restart policy: after a fault the session restarts once. If that restart fails, the failing
//! call's evidence carries it in `restart_failed`, and the session is *broken*: every later call
//! returns the restart's evidence (phase [`Phase::Handshake`]) at once, without spawning again, so a
//! port that cannot start costs one handshake timeout, not one per case. [`Session::restart`] tries
//! again explicitly.

pub mod evidence;
pub mod fault;
pub mod process;
pub mod protocol;
pub mod serve;

use std::time::Duration;

use serde_json::Value;

pub use evidence::{Fault, FaultEvidence, FaultKind, HandshakeProblem, Phase, StderrTail};
pub use fault::{FaultInjection, FaultMode, UnknownFaultMode, FAULT_CASES_ENV};
pub use process::{AdapterCommand, AdapterProcess, DEFAULT_LINE_CAP};
pub use protocol::{
    check_run_reply, protocol_schema, HelloReply, Request, RunRequest, PROTOCOL_VERSION,
};
pub use serve::{serve, serve_with};

use protocol::ReplyRejection;

/// How long each exchange may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Spawn plus the hello reply (JVM and package imports are slow to start). Default 120 s.
    pub handshake: Duration,
    /// One `run` reply. Default 10 s.
    pub run: Duration,
    /// From `bye` until the process has exited, before its group is killed. Default 250 ms:
    /// nothing an adapter does after `bye` is judged, and an interpreter's shutdown (about
    /// 0.3 s for Python with toolnexus loaded) is not worth waiting for on every run.
    pub bye: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            handshake: Duration::from_secs(120),
            run: Duration::from_secs(10),
            bye: Duration::from_millis(250),
        }
    }
}

/// A live conversation with one adapter, restarted after every fault.
pub struct Session {
    spec: AdapterCommand,
    timeouts: Timeouts,
    /// `None` only while broken (or after close).
    process: Option<AdapterProcess>,
    hello: HelloReply,
    restarts: u32,
    broken: Option<FaultEvidence>,
}

// Evidence is big (it carries the offending line and the stderr tail) but travels only on the
// cold path; returning it unboxed keeps every caller's `match` plain.
#[allow(clippy::result_large_err)]
impl Session {
    /// Spawns the adapter and does the `hello` handshake.
    ///
    /// Every failure here has phase [`Phase::Handshake`]: the port is broken.
    pub fn start(spec: AdapterCommand, timeouts: Timeouts) -> Result<Session, FaultEvidence> {
        let (process, hello) = launch(&spec, &timeouts)?;
        Ok(Session {
            spec,
            timeouts,
            process: Some(process),
            hello,
            restarts: 0,
            broken: None,
        })
    }

    /// The reply to the latest successful handshake: port, library, version, runtime.
    pub fn hello(&self) -> &HelloReply {
        &self.hello
    }

    /// How many times the adapter was started again (after faults or by [`Session::restart`]).
    pub fn restarts(&self) -> u32 {
        self.restarts
    }

    /// The failed restart's evidence while the session is broken.
    pub fn broken(&self) -> Option<&FaultEvidence> {
        self.broken.as_ref()
    }

    /// The live process's id, if there is one.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(AdapterProcess::pid)
    }

    /// The live process's stderr tail so far (empty while broken).
    pub fn stderr_tail(&self) -> StderrTail {
        self.process
            .as_ref()
            .map(AdapterProcess::stderr_tail)
            .unwrap_or_default()
    }

    /// Runs one case and returns the reply, checked to be an object with the right `case` and
    /// either `error` or result fields, but otherwise as the adapter wrote it.
    ///
    /// On a fault the process group is killed and the adapter restarted before this returns.
    pub fn run(&mut self, request: &RunRequest) -> Result<Value, FaultEvidence> {
        if let Some(evidence) = &self.broken {
            return Err(evidence.clone());
        }
        let process = self
            .process
            .as_mut()
            .expect("a session that is not broken has a process");
        let line = Request::Run(request.clone()).to_line();
        let fault = match process.request(&line, self.timeouts.run) {
            Ok(reply) => match check_run_reply(&reply, &request.case) {
                Ok(value) => return Ok(value),
                Err(rejection) => rejection_fault(rejection, &reply, &request.case),
            },
            Err(fault) => fault,
        };
        let mut evidence = collect(process, fault, Phase::Run, Some(request.case.clone()));
        if let Err(failed) = self.restart() {
            evidence.restart_failed = Some(Box::new(failed));
        }
        Err(evidence)
    }

    /// Kills the current process (if any) and starts a new one with a fresh handshake. On failure
    /// the session is broken until a later restart succeeds.
    pub fn restart(&mut self) -> Result<(), FaultEvidence> {
        if let Some(mut process) = self.process.take() {
            process.kill();
        }
        self.restarts += 1;
        match launch(&self.spec, &self.timeouts) {
            Ok((process, hello)) => {
                self.process = Some(process);
                self.hello = hello;
                self.broken = None;
                Ok(())
            }
            Err(evidence) => {
                self.broken = Some(evidence.clone());
                Err(evidence)
            }
        }
    }

    /// Sends `bye`, waits up to the `bye` timeout for the process to exit, then kills its group.
    ///
    /// `Ok` when it exited with status 0 in time (or the session was broken, with nothing to
    /// close); otherwise the evidence, with phase [`Phase::Bye`]: `Timeout` when it had to be
    /// killed, `Exited` when it exited with another status.
    pub fn close(mut self) -> Result<(), FaultEvidence> {
        let Some(mut process) = self.process.take() else {
            return Ok(());
        };
        process.send_line(&Request::Bye.to_line());
        process.close_stdin();
        let fault = match process.wait_exit(self.timeouts.bye) {
            Some(status) if status.success() => None,
            Some(status) => {
                use std::os::unix::process::ExitStatusExt;
                Some(Fault::Exited {
                    status: status.code(),
                    signal: status.signal(),
                    partial: None,
                })
            }
            None => Some(Fault::Timeout {
                after: self.timeouts.bye,
            }),
        };
        // Kill even after a clean exit: grandchildren may be left in the group.
        process.kill();
        match fault {
            None => Ok(()),
            Some(fault) => Err(collect(&mut process, fault, Phase::Bye, None)),
        }
    }
}

/// Spawns and handshakes; on failure the process is already killed.
#[allow(clippy::result_large_err)]
fn launch(
    spec: &AdapterCommand,
    timeouts: &Timeouts,
) -> Result<(AdapterProcess, HelloReply), FaultEvidence> {
    let mut process = AdapterProcess::spawn(spec).map_err(|fault| FaultEvidence {
        fault,
        phase: Phase::Handshake,
        case: None,
        stderr_tail: StderrTail::default(),
        restart_failed: None,
    })?;
    let hello = Request::Hello {
        protocol: PROTOCOL_VERSION,
    };
    let result = process
        .request(&hello.to_line(), timeouts.handshake)
        .and_then(|line| check_hello(&line));
    match result {
        Ok(reply) => Ok((process, reply)),
        Err(fault) => Err(collect(&mut process, fault, Phase::Handshake, None)),
    }
}

/// Parses a hello reply: protocol version first, then the required fields.
fn check_hello(line: &str) -> Result<HelloReply, Fault> {
    let bad = |reason| Fault::BadHandshake { reason };
    let value: Value = serde_json::from_str(line).map_err(|_| {
        bad(HandshakeProblem::NotJson {
            line: protocol::evidence_line(line),
        })
    })?;
    if let Some(got) = value.get("protocol").and_then(Value::as_u64) {
        if got != u64::from(PROTOCOL_VERSION) {
            return Err(bad(HandshakeProblem::WrongProtocol {
                expected: PROTOCOL_VERSION,
                got: u32::try_from(got).unwrap_or(u32::MAX),
            }));
        }
    }
    serde_json::from_value(value).map_err(|error| {
        bad(HandshakeProblem::Malformed {
            error: error.to_string(),
            line: protocol::evidence_line(line),
        })
    })
}

fn rejection_fault(rejection: ReplyRejection, line: &str, expected: &str) -> Fault {
    match rejection {
        ReplyRejection::NotJson => process::not_json_line(line),
        ReplyRejection::WrongCase { got } => Fault::WrongCase {
            expected: expected.to_owned(),
            got,
        },
        ReplyRejection::Malformed(problem) => Fault::BadReply {
            problem,
            line: protocol::evidence_line(line),
        },
    }
}

/// Kills the process (so its stderr is complete) and wraps the fault with the evidence.
fn collect(
    process: &mut AdapterProcess,
    fault: Fault,
    phase: Phase,
    case: Option<String>,
) -> FaultEvidence {
    process.kill();
    FaultEvidence {
        fault,
        phase,
        case,
        stderr_tail: process.stderr_tail(),
        restart_failed: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_can_move_to_a_worker_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<Session>();
        assert_send::<FaultEvidence>();
    }

    #[test]
    fn hello_check_prefers_the_protocol_mismatch() {
        let fault = check_hello(r#"{"protocol":99}"#).unwrap_err();
        assert_eq!(
            fault,
            Fault::BadHandshake {
                reason: HandshakeProblem::WrongProtocol {
                    expected: 1,
                    got: 99
                }
            }
        );
        assert!(matches!(
            check_hello(r#"{"protocol":1,"port":"x"}"#),
            Err(Fault::BadHandshake {
                reason: HandshakeProblem::Malformed { .. }
            })
        ));
        assert!(matches!(
            check_hello("ready"),
            Err(Fault::BadHandshake {
                reason: HandshakeProblem::NotJson { .. }
            })
        ));
        let reply =
            check_hello(r#"{"protocol":1,"port":"p","library":"l","version":"v","runtime":"r"}"#)
                .unwrap();
        assert_eq!(reply, HelloReply::new("p", "l", "v", "r"));
    }
}
