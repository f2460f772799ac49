//! Sessions: one long-lived adapter process per port, spoken to in JSON lines.
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
//! - `strict_json`: reply lines parsed with duplicate object keys refused;
//! - [`process`]: spawn, line reading with a byte cap, deadlines, the stderr tail, group kill;
//! - [`evidence`]: the closed fault taxonomy and the evidence attached to it;
//! - [`serve`](mod@serve): the adapter side of the protocol, the loop every Rust-side adapter runs;
//! - [`fault`]: deliberate misbehaviour for `serve` (`adapter --fault MODE`), to test the runner.
//!
//! Pipelining: [`Session::send`] queues a `run` request and [`Session::receive`] takes the reply
//! to the oldest one in flight, so a caller can keep the next cases in the adapter's stdin while
//! it finishes the current one ([`IN_FLIGHT`]); the adapter then never waits on the runner.
//! Replies come back in request order, as the protocol requires. Each case's deadline runs from
//! the later of its sending and the previous reply: the time the adapter had for it. After a
//! fault, the requests still in flight are sent again to the new process.
//! [`Session::run`] is one `send` and one `receive`.
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
mod strict_json;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

pub use evidence::{Fault, FaultEvidence, FaultKind, HandshakeProblem, Phase, StderrTail};
pub use fault::{FaultInjection, FaultMode, UnknownFaultMode, FAULT_CASES_ENV};
pub use process::{AdapterCommand, AdapterProcess, DEFAULT_LINE_CAP};
pub use protocol::{
    check_run_reply, protocol_schema, HelloReply, ProfileRun, Request, RunRequest, PROTOCOL_VERSION,
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

/// How many `run` requests the runner keeps in flight on one adapter: enough that the next case
/// is always waiting in the adapter's stdin while the runner handles a reply.
pub(crate) const IN_FLIGHT: usize = 4;

/// A live conversation with one adapter, restarted after every fault.
pub struct Session {
    spec: AdapterCommand,
    timeouts: Timeouts,
    /// `None` only while broken (or after close).
    process: Option<AdapterProcess>,
    hello: HelloReply,
    restarts: u32,
    broken: Option<FaultEvidence>,
    /// Sent requests without a reply yet, oldest first.
    in_flight: VecDeque<InFlight>,
    /// When the latest reply arrived (`None` since the latest start).
    last_reply: Option<Instant>,
}

/// A `run` request written to the adapter (or due to be, once the session is not broken).
struct InFlight {
    request: RunRequest,
    line: String,
    sent: Instant,
    /// Stdout spoke before this request was written: the fault its reply will be.
    early: Option<Fault>,
}

/// The outcome of one `run` request.
#[derive(Debug)]
pub struct Received {
    pub request: RunRequest,
    /// The reply, checked to be an object with the right `case` and either `error` or result
    /// fields, but otherwise as the adapter wrote it; or why there is none.
    pub reply: Result<Value, FaultEvidence>,
    /// From the later of sending and the previous reply, to this reply (or the fault).
    pub duration: Duration,
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
            in_flight: VecDeque::new(),
            last_reply: None,
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
    /// Nothing else may be in flight (see [`Session::send`]).
    pub fn run(&mut self, request: &RunRequest) -> Result<Value, FaultEvidence> {
        assert!(
            self.in_flight.is_empty(),
            "Session::run with requests in flight"
        );
        self.send(request.clone());
        self.receive()
            .expect("the request just sent is in flight")
            .reply
    }

    /// How many requests are waiting for their reply.
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Writes a `run` request without waiting for its reply; [`Session::receive`] takes the
    /// replies in the order the requests were sent.
    pub fn send(&mut self, request: RunRequest) {
        let line = Request::Run(request.clone()).to_line();
        let mut early = None;
        if let Some(process) = self.process.as_mut() {
            // Only a quiet adapter can be caught speaking out of turn: with requests in flight,
            // any line is the next reply.
            if self.in_flight.is_empty() {
                early = process.take_unsolicited();
            }
            if early.is_none() {
                process.send_line(&line);
            }
        }
        self.in_flight.push_back(InFlight {
            request,
            line,
            sent: Instant::now(),
            early,
        });
    }

    /// Waits for the reply to the oldest request in flight; `None` if there is none.
    ///
    /// On a fault the process group is killed and the adapter restarted (the requests still in
    /// flight are sent again) before this returns. While the session is broken, every request
    /// gets the failed restart's evidence at once.
    pub fn receive(&mut self) -> Option<Received> {
        let InFlight {
            request,
            sent,
            early,
            ..
        } = self.in_flight.pop_front()?;
        let began = self.last_reply.map_or(sent, |last| last.max(sent));
        if let Some(evidence) = &self.broken {
            return Some(Received {
                request,
                reply: Err(evidence.clone()),
                duration: Duration::ZERO,
            });
        }
        let process = self
            .process
            .as_mut()
            .expect("a session that is not broken has a process");
        let read = match early {
            Some(fault) => Err(fault),
            None => process.read_line(began + self.timeouts.run, self.timeouts.run),
        };
        let fault = match read {
            Ok(reply) => match check_run_reply(&reply, &request.case) {
                Ok(value) => {
                    let now = Instant::now();
                    self.last_reply = Some(now);
                    return Some(Received {
                        request,
                        reply: Ok(value),
                        duration: now.saturating_duration_since(began),
                    });
                }
                Err(rejection) => rejection_fault(rejection, &reply, &request.case),
            },
            Err(fault) => fault,
        };
        let mut evidence = collect(process, fault, Phase::Run, Some(request.case.clone()));
        let duration = began.elapsed();
        if let Err(failed) = self.restart() {
            evidence.restart_failed = Some(Box::new(failed));
        }
        Some(Received {
            request,
            reply: Err(evidence),
            duration,
        })
    }

    /// Kills the current process (if any) and starts a new one with a fresh handshake, then sends
    /// it the requests still in flight. On failure the session is broken until a later restart
    /// succeeds.
    pub fn restart(&mut self) -> Result<(), FaultEvidence> {
        if let Some(mut process) = self.process.take() {
            process.kill();
        }
        self.restarts += 1;
        self.last_reply = None;
        match launch(&self.spec, &self.timeouts) {
            Ok((mut process, hello)) => {
                // What the old process had not answered goes to the new one.
                let now = Instant::now();
                for waiting in &mut self.in_flight {
                    process.send_line(&waiting.line);
                    waiting.sent = now;
                    waiting.early = None;
                }
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
    /// Replies still in flight are not waited for.
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
