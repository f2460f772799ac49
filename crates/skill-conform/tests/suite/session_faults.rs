//! Sessions against misbehaving adapters: every fault mode yields its own evidence, the session
//! recovers for the next case, and no process outlives its session.
//!
//! The suite's binary is also the fake adapter: started with `SESSION_FAULT_CHILD=1`, its `main`
//! calls [`serve_if_child`], which serves the adapter protocol through `session::serve` with a
//! dummy handler and the fault mode in `SESSION_FAULT_MODE`, instead of running tests. (A libtest
//! harness would print "running N tests" on stdout first, which would itself be a protocol
//! error; libtest-mimic prints nothing before `main` hands over.) More knobs for the child:
//!
//! - `SKILL_CONFORM_FAULT_CASES`: which cases the fault applies to (the real variable);
//! - `SESSION_FAULT_GRANDCHILD=FILE`: start `sleep 1000`, which inherits the pipes, and append
//!   its pid to FILE;
//! - `SESSION_FAULT_ONCE=FILE`: exit at once (status 1) if FILE exists, else create it and
//!   serve — so the first start works and every restart fails;
//! - `SESSION_FAULT_SLOW_MS=N`: take N milliseconds over every run request.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use libtest_mimic::{Failed, Trial};
use serde_json::{json, Value};
use skill_conform::session::{
    serve, AdapterCommand, Fault, FaultEvidence, FaultMode, HandshakeProblem, HelloReply, Phase,
    RunRequest, Session, Timeouts, FAULT_CASES_ENV,
};

const CHILD: &str = "SESSION_FAULT_CHILD";
const MODE: &str = "SESSION_FAULT_MODE";
const GRANDCHILD: &str = "SESSION_FAULT_GRANDCHILD";
const ONCE: &str = "SESSION_FAULT_ONCE";
const SLOW_MS: &str = "SESSION_FAULT_SLOW_MS";

/// Serves as the fake adapter when started as one (`SESSION_FAULT_CHILD` set); `None` otherwise.
pub(crate) fn serve_if_child() -> Option<ExitCode> {
    std::env::var_os(CHILD).is_some().then(fake_adapter)
}

/// The trials, named `session_faults::…`. They wait on timeouts and children, hardly on the
/// CPU, so they overlap with the suite's CPU-bound tests (as a binary of their own they took
/// 1.2 s of every `cargo test` alone).
pub(crate) fn tests() -> Vec<Trial> {
    vec![
        trial("normal_run_round_trips", normal_run_round_trips),
        trial("hang_times_out_and_the_next_case_runs", hang_times_out),
        trial("crash_is_exited_with_stderr_and_restarts", crash_restarts),
        trial(
            "crash_with_a_grandchild_holding_stdout_is_exited_at_once",
            crash_with_grandchild,
        ),
        trial("exit_at_once_fails_the_start", exit_at_once),
        trial("missing_program_is_spawn_failed", missing_program),
        trial("banner_is_not_json", banner),
        trial("invalid_json_is_not_json", invalid_json),
        trial("wrong_id_is_wrong_case", wrong_id),
        trial("huge_is_oversize_without_buffering_it", huge),
        trial("bad_handshake_is_refused", bad_handshake),
        trial("flaky_crashes_every_second_run", flaky),
        trial(
            "nondeterministic_differs_on_the_second_run",
            nondeterministic,
        ),
        trial(
            "failed_restart_is_reported_on_the_next_call",
            failed_restart,
        ),
        trial("killed_group_leaves_no_grandchild", no_orphans),
        trial("close_kills_an_adapter_that_ignores_bye", close_ignored_bye),
        trial("pipelined_replies_come_back_in_order", pipelined_in_order),
        trial(
            "pipelined_crash_sends_the_rest_again",
            pipelined_crash_resends,
        ),
        trial(
            "pipelined_hang_times_out_and_the_queue_goes_on",
            pipelined_hang,
        ),
        trial(
            "pipelined_deadlines_run_from_the_previous_reply",
            pipelined_deadlines,
        ),
        trial(
            "pipelined_flaky_crashes_every_second_request_of_a_process",
            pipelined_flaky,
        ),
    ]
}

fn trial(name: &'static str, body: fn() -> Result<(), Failed>) -> Trial {
    Trial::test(format!("session_faults::{name}"), body)
}

// ---------------------------------------------------------------------------------------------
// The fake adapter.

fn fake_adapter() -> ExitCode {
    if let Some(path) = std::env::var_os(ONCE) {
        if Path::new(&path).exists() {
            eprintln!(
                "fake adapter: {} exists, exiting at once",
                path.to_string_lossy()
            );
            std::process::exit(1);
        }
        std::fs::write(&path, b"started").expect("the test's temp dir is writable");
    }
    if let Some(path) = std::env::var_os(GRANDCHILD) {
        let sleeper = std::process::Command::new("sleep")
            .arg("1000")
            .spawn()
            .expect("sleep starts");
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .expect("the test's temp dir is writable");
        writeln!(file, "{}", sleeper.id()).expect("pid file is writable");
        // Deliberately never waited for: the test checks that the group kill ends it.
        std::mem::forget(sleeper);
    }
    let mode = std::env::var(MODE)
        .ok()
        .map(|name| name.parse::<FaultMode>().expect("tests pass valid modes"));
    let hello = HelloReply::new("fake", "toolnexus", "0.0.0-test", "rust");
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match serve(stdin.lock(), stdout.lock(), hello, &mut dummy_reply, mode) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("fake adapter: {error}");
            ExitCode::from(2)
        }
    }
}

/// One skill per requested load name, so reordering is visible.
fn dummy_reply(request: &RunRequest) -> Value {
    if let Some(ms) = std::env::var(SLOW_MS).ok().and_then(|ms| ms.parse().ok()) {
        std::thread::sleep(Duration::from_millis(ms));
    }
    let skills: Vec<Value> = request
        .load
        .iter()
        .map(|name| json!({"name": name, "description": null, "location": format!("/r/{name}/SKILL.md")}))
        .collect();
    let loads: Vec<Value> = request
        .load
        .iter()
        .map(|name| json!({"name": name, "isError": false, "output": format!("<skill_content name=\"{name}\">")}))
        .collect();
    json!({
        "inventory": {"skills": skills, "skipped": []},
        "loads": loads,
        "prompt": format!("{} skills", request.load.len()),
    })
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn adapter(mode: Option<&str>) -> AdapterCommand {
    let exe = std::env::current_exe().expect("the test binary knows its path");
    let mut spec = AdapterCommand::new([exe])
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env(CHILD, "1");
    if let Some(mode) = mode {
        spec = spec.env(MODE, mode);
    }
    spec
}

fn timeouts() -> Timeouts {
    Timeouts {
        handshake: Duration::from_secs(10),
        run: Duration::from_secs(1),
        bye: Duration::from_secs(2),
    }
}

fn request(case: &str) -> RunRequest {
    RunRequest {
        case: case.to_owned(),
        roots: vec!["/abs/root0".to_owned()],
        sample_limit: 0,
        filter: Default::default(),
        load: vec!["beta".to_owned(), "alpha".to_owned()],
        tool: false,
        profile: None,
    }
}

fn start(spec: AdapterCommand) -> Result<Session, Failed> {
    Session::start(spec, timeouts())
        .map_err(|evidence| format!("start failed: {evidence:?}").into())
}

fn expect_fault(session: &mut Session, case: &str) -> Result<FaultEvidence, Failed> {
    match session.run(&request(case)) {
        Ok(reply) => Err(format!("expected a fault for {case}, got {reply}").into()),
        Err(evidence) => {
            check(evidence.phase == Phase::Run, "phase is run")?;
            check(
                evidence.case.as_deref() == Some(case),
                "evidence names the case",
            )?;
            Ok(evidence)
        }
    }
}

fn expect_ok(session: &mut Session, case: &str) -> Result<Value, Failed> {
    let reply = session
        .run(&request(case))
        .map_err(|evidence| format!("{case} failed: {evidence:?}"))?;
    check(reply["case"] == case, "reply echoes the case")?;
    Ok(reply)
}

fn check(condition: bool, what: &str) -> Result<(), Failed> {
    if condition {
        Ok(())
    } else {
        Err(format!("check failed: {what}").into())
    }
}

/// Peak resident memory of this test process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Trials.

fn normal_run_round_trips() -> Result<(), Failed> {
    let mut session = start(adapter(None))?;
    let hello = session.hello().clone();
    check(
        hello.port == "fake" && hello.library == "toolnexus",
        "hello fields",
    )?;
    check(
        hello.version == "0.0.0-test" && hello.runtime == "rust",
        "hello fields",
    )?;
    let reply = expect_ok(&mut session, "frontmatter/colon-space")?;
    check(
        reply["loads"][1]["name"] == "alpha",
        "loads in request order",
    )?;
    check(reply["prompt"] == "2 skills", "prompt from the handler")?;
    expect_ok(&mut session, "frontmatter/second")?;
    check(session.restarts() == 0, "no restarts")?;
    session
        .close()
        .map_err(|evidence| format!("close: {evidence:?}"))?;
    Ok(())
}

fn hang_times_out() -> Result<(), Failed> {
    let spec = adapter(Some("hang")).env(FAULT_CASES_ENV, "hang/*");
    let mut session = start(spec)?;
    let began = Instant::now();
    let evidence = expect_fault(&mut session, "hang/one")?;
    let took = began.elapsed();
    check(
        evidence.fault
            == Fault::Timeout {
                after: Duration::from_secs(1),
            },
        "timeout",
    )?;
    check(
        took < Duration::from_secs(4),
        "timeout fires near its deadline",
    )?;
    check(
        evidence.stderr_tail.text.contains("injecting fault `hang`"),
        "stderr tail captured",
    )?;
    expect_ok(&mut session, "ok/one")?;
    check(session.restarts() == 1, "one restart")?;
    Ok(())
}

fn crash_restarts() -> Result<(), Failed> {
    let spec = adapter(Some("crash")).env(FAULT_CASES_ENV, "crash");
    let mut session = start(spec)?;
    let first_pid = session.pid();
    let evidence = expect_fault(&mut session, "group/crash-here")?;
    let Fault::Exited {
        status,
        signal,
        partial,
    } = &evidence.fault
    else {
        return Err(format!("expected exited, got {:?}", evidence.fault).into());
    };
    check(*status == Some(101) && signal.is_none(), "exit status 101")?;
    let partial = partial.as_deref().unwrap_or_default();
    check(
        partial.starts_with(r#"{"case":"group/crash-here""#),
        "half a line kept",
    )?;
    check(
        evidence
            .stderr_tail
            .text
            .contains("injecting fault `crash` into `group/crash-here`"),
        "stderr tail names the fault",
    )?;
    check(evidence.restart_failed.is_none(), "restart worked")?;
    check(session.pid() != first_pid, "a new process")?;
    expect_ok(&mut session, "group/fine")?;
    check(session.restarts() == 1, "one restart")?;
    Ok(())
}

/// A grandchild keeps stdout open after the adapter died: no end of file ever comes, yet the
/// death is noticed and reported as a crash well before the run deadline.
fn crash_with_grandchild() -> Result<(), Failed> {
    let dir = crate::common::tempdir();
    let spec = adapter(Some("crash"))
        .env(FAULT_CASES_ENV, "crash")
        .env(GRANDCHILD, dir.path().join("pids"));
    let mut session = Session::start(
        spec,
        Timeouts {
            run: Duration::from_secs(20),
            ..timeouts()
        },
    )
    .map_err(|evidence| format!("start failed: {evidence:?}"))?;
    let began = Instant::now();
    let evidence = expect_fault(&mut session, "g/crash")?;
    let took = began.elapsed();
    let Fault::Exited { status, .. } = &evidence.fault else {
        return Err(format!("expected exited, got {:?}", evidence.fault).into());
    };
    check(*status == Some(101), "exit status 101")?;
    check(
        took < Duration::from_secs(5),
        &format!("noticed in {took:?}, well before the 20 s deadline"),
    )?;
    expect_ok(&mut session, "g/fine")?;
    Ok(())
}

fn exit_at_once() -> Result<(), Failed> {
    let Err(evidence) = Session::start(adapter(Some("exit")), timeouts()) else {
        return Err("start succeeded".into());
    };
    check(evidence.phase == Phase::Handshake, "phase is handshake")?;
    check(
        matches!(
            evidence.fault,
            Fault::Exited {
                status: Some(1),
                ..
            }
        ),
        &format!("exited with 1, got {:?}", evidence.fault),
    )?;
    check(
        evidence.stderr_tail.text.contains("injecting fault `exit`"),
        "stderr tail captured",
    )
}

fn missing_program() -> Result<(), Failed> {
    let spec = AdapterCommand::new(["/nonexistent/skill-adapter"]);
    let Err(evidence) = Session::start(spec, timeouts()) else {
        return Err("start succeeded".into());
    };
    check(
        matches!(evidence.fault, Fault::SpawnFailed { .. }) && evidence.phase == Phase::Handshake,
        "spawn failed",
    )
}

fn banner() -> Result<(), Failed> {
    let mut session = start(adapter(Some("banner")))?;
    let evidence = expect_fault(&mut session, "g/banner")?;
    let Fault::NotJson { line, .. } = &evidence.fault else {
        return Err(format!("expected not-json, got {:?}", evidence.fault).into());
    };
    check(
        line == skill_conform::session::serve::BANNER,
        "banner is the evidence",
    )
}

fn invalid_json() -> Result<(), Failed> {
    let mut session = start(adapter(Some("invalid-json")))?;
    let evidence = expect_fault(&mut session, "g/invalid")?;
    check(
        evidence.fault
            == Fault::NotJson {
                line: "{not json".to_owned(),
                bytes: 9,
            },
        "not json",
    )
}

fn wrong_id() -> Result<(), Failed> {
    let mut session = start(adapter(Some("wrong-id")))?;
    let evidence = expect_fault(&mut session, "g/id")?;
    check(
        evidence.fault
            == Fault::WrongCase {
                expected: "g/id".to_owned(),
                got: Some(json!("wrong-id/g/id")),
            },
        "wrong case",
    )
}

fn huge() -> Result<(), Failed> {
    const CAP: usize = 1024 * 1024;
    let spec = adapter(Some("huge"))
        .env(FAULT_CASES_ENV, "huge/*")
        .line_cap(CAP);
    let mut session = start(spec)?;
    let before = peak_rss_kib();
    let evidence = expect_fault(&mut session, "huge/one")?;
    let Fault::Oversize { bytes, cap } = evidence.fault else {
        return Err(format!("expected oversize, got {:?}", evidence.fault).into());
    };
    check(cap == CAP as u64, "cap reported")?;
    check(
        bytes > CAP as u64 && bytes <= (CAP + 128 * 1024) as u64,
        "stopped just past the cap",
    )?;
    let grew_kib = peak_rss_kib().saturating_sub(before);
    check(
        grew_kib < 32 * 1024,
        &format!("peak memory grew by {grew_kib} KiB, far less than the 100 MB reply"),
    )?;
    expect_ok(&mut session, "small/one")?;
    Ok(())
}

fn bad_handshake() -> Result<(), Failed> {
    let Err(evidence) = Session::start(adapter(Some("bad-handshake")), timeouts()) else {
        return Err("start succeeded".into());
    };
    check(
        evidence.fault
            == Fault::BadHandshake {
                reason: HandshakeProblem::WrongProtocol {
                    expected: 1,
                    got: 99,
                },
            },
        "protocol 99 refused",
    )?;
    check(evidence.phase == Phase::Handshake, "phase")
}

fn flaky() -> Result<(), Failed> {
    let mut session = start(adapter(Some("flaky")))?;
    expect_ok(&mut session, "g/1")?;
    let evidence = expect_fault(&mut session, "g/2")?;
    check(
        matches!(
            evidence.fault,
            Fault::Exited {
                status: Some(101),
                ..
            }
        ),
        "second run crashes",
    )?;
    expect_ok(&mut session, "g/3")?;
    check(session.restarts() == 1, "one restart")
}

fn nondeterministic() -> Result<(), Failed> {
    let mut session = start(adapter(Some("nondeterministic")))?;
    let first = expect_ok(&mut session, "g/same")?;
    let second = expect_ok(&mut session, "g/same")?;
    check(first != second, "two runs differ")?;
    check(
        first["inventory"]["skills"][0] == second["inventory"]["skills"][1],
        "skills reversed",
    )
}

fn failed_restart() -> Result<(), Failed> {
    let dir = crate::common::tempdir();
    let spec = adapter(Some("crash")).env(ONCE, dir.path().join("started"));
    let mut session = start(spec)?;
    let evidence = expect_fault(&mut session, "g/crash")?;
    check(
        matches!(evidence.fault, Fault::Exited { .. }),
        "the case crashed",
    )?;
    let Some(restart) = evidence.restart_failed.as_deref() else {
        return Err("restart failure attached".into());
    };
    check(restart.phase == Phase::Handshake, "restart phase")?;
    check(
        matches!(
            restart.fault,
            Fault::Exited {
                status: Some(1),
                ..
            }
        ),
        "restart exited",
    )?;
    let began = Instant::now();
    let Err(next) = session.run(&request("g/next")) else {
        return Err("a broken session ran a case".into());
    };
    check(&next == restart, "next call reports the restart failure")?;
    check(
        began.elapsed() < Duration::from_millis(200),
        "without respawning",
    )?;
    check(session.broken().is_some(), "broken")?;
    check(session.restarts() == 1, "one restart attempt")?;
    session
        .close()
        .map_err(|evidence| format!("close: {evidence:?}"))?;
    Ok(())
}

fn no_orphans() -> Result<(), Failed> {
    let dir = crate::common::tempdir();
    let pid_file: PathBuf = dir.path().join("pids");
    let spec = adapter(Some("hang")).env(GRANDCHILD, &pid_file);
    let mut session = start(spec)?;
    let evidence = expect_fault(&mut session, "g/hang")?;
    check(
        matches!(evidence.fault, Fault::Timeout { .. }),
        "hang times out",
    )?;
    // The restarted adapter started a second sleeper; dropping the session must kill it too.
    drop(session);
    let pids: Vec<u32> = std::fs::read_to_string(&pid_file)
        .map_err(|error| format!("pid file: {error}"))?
        .lines()
        .filter_map(|line| line.parse().ok())
        .collect();
    check(
        pids.len() == 2,
        &format!("two sleepers started, got {pids:?}"),
    )?;
    for pid in pids {
        check(
            crate::common::ends_within(pid, Duration::from_secs(3)),
            &format!("grandchild {pid} is gone"),
        )?;
    }
    Ok(())
}

fn close_ignored_bye() -> Result<(), Failed> {
    let hello = r#"{"protocol":1,"port":"sh","library":"l","version":"v","runtime":"sh"}"#;
    let script = format!("read -r line; echo '{hello}'; while :; do sleep 1; done");
    let spec = AdapterCommand::new(["/bin/sh", "-c", &script])
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    let session = Session::start(
        spec,
        Timeouts {
            bye: Duration::from_millis(300),
            ..timeouts()
        },
    )
    .map_err(|evidence| format!("start: {evidence:?}"))?;
    let pid = session.pid().ok_or("a live process")?;
    let began = Instant::now();
    let Err(evidence) = session.close() else {
        return Err("close reported a clean exit".into());
    };
    check(began.elapsed() < Duration::from_secs(2), "close is bounded")?;
    check(
        evidence.phase == Phase::Bye
            && evidence.fault
                == Fault::Timeout {
                    after: Duration::from_millis(300),
                },
        "bye timed out",
    )?;
    check(
        crate::common::ends_within(pid, Duration::from_secs(3)),
        "adapter killed",
    )
}

/// Sends every case before taking any reply; returns each case with its reply or fault.
fn pipelined(
    session: &mut Session,
    cases: &[&str],
) -> Vec<(String, Result<Value, FaultEvidence>, Duration)> {
    for case in cases {
        session.send(request(case));
    }
    let mut received = Vec::new();
    while let Some(one) = session.receive() {
        received.push((one.request.case, one.reply, one.duration));
    }
    received
}

fn pipelined_in_order() -> Result<(), Failed> {
    let mut session = start(adapter(None))?;
    let cases = ["p/1", "p/2", "p/3", "p/4", "p/5", "p/6"];
    for case in cases {
        session.send(request(case));
    }
    check(session.in_flight() == cases.len(), "all six in flight")?;
    for case in cases {
        let received = session.receive().ok_or("a reply per request")?;
        let reply = received
            .reply
            .map_err(|evidence| format!("{case}: {evidence:?}"))?;
        check(
            received.request.case == case && reply["case"] == case,
            "replies in request order",
        )?;
    }
    check(session.receive().is_none(), "nothing left in flight")?;
    check(session.restarts() == 0, "no restarts")?;
    session
        .close()
        .map_err(|evidence| format!("close: {evidence:?}"))?;
    Ok(())
}

fn pipelined_crash_resends() -> Result<(), Failed> {
    let spec = adapter(Some("crash")).env(FAULT_CASES_ENV, "crash");
    let mut session = start(spec)?;
    let received = pipelined(&mut session, &["p/a", "p/crash", "p/b", "p/c"]);
    let names: Vec<&str> = received.iter().map(|(case, ..)| case.as_str()).collect();
    check(
        names == ["p/a", "p/crash", "p/b", "p/c"],
        "every case once, in order",
    )?;
    for (case, reply, _) in &received {
        match (case.as_str(), reply) {
            ("p/crash", Err(evidence)) => check(
                matches!(
                    evidence.fault,
                    Fault::Exited {
                        status: Some(101),
                        ..
                    }
                ) && evidence.case.as_deref() == Some("p/crash"),
                "the crash is the crashing case's",
            )?,
            (_, Ok(reply)) => check(reply["case"] == case.as_str(), "reply echoes its case")?,
            (case, Err(evidence)) => {
                return Err(format!("{case} should have been sent again: {evidence:?}").into())
            }
        }
    }
    check(session.restarts() == 1, "one restart")
}

fn pipelined_hang() -> Result<(), Failed> {
    let spec = adapter(Some("hang")).env(FAULT_CASES_ENV, "hang");
    let mut session = start(spec)?;
    let began = Instant::now();
    let received = pipelined(&mut session, &["p/a", "p/hang", "p/b"]);
    let took = began.elapsed();
    let [(_, a, _), (_, hang, waited), (_, b, _)] = received.as_slice() else {
        return Err(format!("three outcomes, got {}", received.len()).into());
    };
    check(a.is_ok() && b.is_ok(), "the cases around the hang ran")?;
    let Err(evidence) = hang else {
        return Err("the hang replied".into());
    };
    check(
        evidence.fault
            == Fault::Timeout {
                after: Duration::from_secs(1),
            },
        "the hang timed out",
    )?;
    check(
        *waited >= Duration::from_secs(1) && took < Duration::from_secs(4),
        "its deadline ran from the previous reply, once",
    )?;
    check(session.restarts() == 1, "one restart")
}

fn pipelined_flaky() -> Result<(), Failed> {
    let mut session = start(adapter(Some("flaky")))?;
    let received = pipelined(&mut session, &["g/1", "g/2", "g/3", "g/4", "g/5"]);
    let crashed: Vec<&str> = received
        .iter()
        .filter(|(_, reply, _)| reply.is_err())
        .map(|(case, ..)| case.as_str())
        .collect();
    // Each process crashes on its second request: g/2 in the first, g/4 (its second, after the
    // resent g/3) in the next.
    check(crashed == ["g/2", "g/4"], &format!("crashes: {crashed:?}"))?;
    check(session.restarts() == 2, "two restarts")
}

fn pipelined_deadlines() -> Result<(), Failed> {
    // Three cases of 0.4 s each, all sent at once, with a 0.8 s budget per case: the third reply
    // comes 1.2 s after it was sent, but only 0.4 s after the reply before it.
    let timeouts = Timeouts {
        run: Duration::from_millis(800),
        ..timeouts()
    };
    let mut session = Session::start(adapter(None).env(SLOW_MS, "400"), timeouts)
        .map_err(|evidence| format!("start failed: {evidence:?}"))?;
    let received = pipelined(&mut session, &["s/1", "s/2", "s/3"]);
    for (case, reply, duration) in &received {
        check(
            reply.is_ok(),
            &format!("{case} ran within its own budget: {reply:?}"),
        )?;
        check(
            *duration >= Duration::from_millis(350) && *duration < Duration::from_millis(800),
            &format!("{case} took its own time, not its queue's: {duration:?}"),
        )?;
    }
    check(received.len() == 3, "three replies")
}
