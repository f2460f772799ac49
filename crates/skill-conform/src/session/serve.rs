//! The adapter side of the protocol: the request loop every Rust-side adapter runs.
//!
//! [`serve`] reads request lines and answers each on one compact JSON line (UTF-8 unescaped,
//! flushed at once): `hello` with the given [`HelloReply`], `run` with whatever the handler returns
//! plus the request's `case`, and `bye` (or end of input) ends the loop. A line that is not a
//! request is answered with `{"error":"…"}` and the loop goes on. With a [`FaultInjection`] the
//! loop misbehaves on purpose (see [`super::fault`]); a hang or crash then never returns.

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::fault::{FaultInjection, FaultMode};
use super::protocol::{HelloReply, Request, RunRequest};

/// The size of the `prompt` in a [`FaultMode::Huge`] reply: 100 MiB.
pub(crate) const HUGE_REPLY_BYTES: usize = 100 * 1024 * 1024;
/// The line [`FaultMode::Banner`] prints before each reply.
pub const BANNER: &str = "skill-conform adapter ready (a banner line that is not JSON)";
/// The exit status of [`FaultMode::Crash`] and [`FaultMode::Flaky`].
pub(crate) const CRASH_STATUS: i32 = 101;
/// The exit status of [`FaultMode::Exit`].
pub(crate) const EXIT_STATUS: i32 = 1;

/// Serves requests from `input` until `bye` or end of input.
///
/// `handler` gets each run request and returns the reply object without `case`; `serve` adds it.
/// `fault` injects misbehaviour into the cases that [`super::fault::FAULT_CASES_ENV`] selects.
pub fn serve(
    input: impl BufRead,
    output: impl Write,
    hello: HelloReply,
    handler: &mut dyn FnMut(&RunRequest) -> Value,
    fault: Option<FaultMode>,
) -> io::Result<()> {
    let fault = fault
        .map(FaultInjection::from_env)
        .transpose()
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
    serve_with(input, output, hello, handler, fault)
}

/// [`serve`] with the fault's case selection given rather than read from the environment.
pub fn serve_with(
    mut input: impl BufRead,
    mut output: impl Write,
    mut hello: HelloReply,
    handler: &mut dyn FnMut(&RunRequest) -> Value,
    fault: Option<FaultInjection>,
) -> io::Result<()> {
    match fault.as_ref().map(|fault| fault.mode) {
        Some(FaultMode::Exit) => {
            announce(FaultMode::Exit, None);
            std::process::exit(EXIT_STATUS);
        }
        Some(FaultMode::BadHandshake) => {
            announce(FaultMode::BadHandshake, None);
            hello.protocol = 99;
        }
        _ => {}
    }
    let mut state = FaultState::default();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        if line.trim_ascii().is_empty() {
            continue;
        }
        let request = match serde_json::from_slice::<Request>(&line) {
            Ok(request) => request,
            Err(error) => {
                let reply = json!({ "error": format!("error parsing request: {error}") });
                write_line(&mut output, &reply)?;
                continue;
            }
        };
        match request {
            Request::Hello { .. } => write_line(&mut output, &hello)?,
            Request::Bye => return Ok(()),
            Request::Run(request) => {
                let mode = fault
                    .as_ref()
                    .filter(|fault| fault.applies_to(&request.case))
                    .map(|fault| fault.mode);
                answer_run(&mut output, &request, handler, mode, &mut state)?;
            }
        }
    }
}

/// Counters the stateful fault modes keep.
#[derive(Default)]
struct FaultState {
    /// Whether the last faulted run request of this process was odd-numbered
    /// ([`FaultMode::Flaky`] crashes on the even ones).
    odd_run: bool,
    /// Per case id, whether its last run was odd-numbered ([`FaultMode::Nondeterministic`]).
    odd_run_by_case: HashMap<String, bool>,
}

fn answer_run(
    output: &mut impl Write,
    request: &RunRequest,
    handler: &mut dyn FnMut(&RunRequest) -> Value,
    mode: Option<FaultMode>,
    state: &mut FaultState,
) -> io::Result<()> {
    let case = request.case.as_str();
    if let Some(mode) = mode {
        announce(mode, Some(case));
    }
    match mode {
        Some(FaultMode::Hang) => {
            output.flush()?;
            loop {
                std::thread::sleep(Duration::from_secs(3600));
            }
        }
        Some(FaultMode::InvalidJson) => {
            output.write_all(b"{not json\n")?;
            return output.flush();
        }
        Some(FaultMode::Huge) => return write_huge(output, case),
        _ => {}
    }
    let mut reply = with_case(handler(request), case);
    match mode {
        Some(FaultMode::Crash) => crash(output, &reply),
        Some(FaultMode::Flaky) => {
            state.odd_run = !state.odd_run;
            if !state.odd_run {
                crash(output, &reply);
            }
        }
        Some(FaultMode::Banner) => writeln!(output, "{BANNER}")?,
        Some(FaultMode::WrongId) => {
            reply["case"] = Value::String(format!("wrong-id/{case}"));
        }
        Some(FaultMode::Nondeterministic) => {
            let odd_run = state.odd_run_by_case.entry(case.to_owned()).or_default();
            *odd_run = !*odd_run;
            if !*odd_run {
                if let Some(skills) = reply.pointer_mut("/inventory/skills") {
                    if let Some(skills) = skills.as_array_mut() {
                        skills.reverse();
                    }
                }
                if let Some(Value::String(prompt)) = reply.get_mut("prompt") {
                    prompt.push_str(" (nondeterministic)");
                }
            }
        }
        _ => {}
    }
    write_line(output, &reply)
}

/// The handler's reply with `case` set; a non-object reply becomes an error reply.
fn with_case(reply: Value, case: &str) -> Value {
    let mut object = match reply {
        Value::Object(object) => object,
        _ => {
            let mut object = Map::new();
            object.insert(
                "error".to_owned(),
                Value::String("the adapter's handler returned a non-object reply".to_owned()),
            );
            object
        }
    };
    object.insert("case".to_owned(), Value::String(case.to_owned()));
    Value::Object(object)
}

fn write_line(output: &mut impl Write, value: &impl serde::Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *output, value)?;
    output.write_all(b"\n")?;
    output.flush()
}

/// Writes the first half of the reply, no newline, and exits with [`CRASH_STATUS`].
fn crash(output: &mut impl Write, reply: &Value) -> ! {
    let bytes = serde_json::to_vec(reply).expect("a JSON value always serialises");
    let _ = output.write_all(&bytes[..bytes.len() / 2]);
    let _ = output.flush();
    std::process::exit(CRASH_STATUS);
}

/// Streams a valid reply whose prompt is [`HUGE_REPLY_BYTES`] of `x`, 64 KiB at a time.
fn write_huge(output: &mut impl Write, case: &str) -> io::Result<()> {
    let head = json!({
        "case": case,
        "inventory": {"skills": [], "skipped": []},
        "loads": [],
    })
    .to_string();
    output.write_all(&head.as_bytes()[..head.len() - 1])?;
    output.write_all(br#","prompt":""#)?;
    let chunk = vec![b'x'; 64 * 1024];
    let mut left = HUGE_REPLY_BYTES;
    while left > 0 {
        let n = left.min(chunk.len());
        output.write_all(&chunk[..n])?;
        left -= n;
    }
    output.write_all(b"\"}\n")?;
    output.flush()
}

/// Says on stderr which fault is being injected, so a report's stderr tail shows it.
fn announce(mode: FaultMode, case: Option<&str>) {
    match case {
        Some(case) => eprintln!("skill-conform adapter: injecting fault `{mode}` into `{case}`"),
        None => eprintln!("skill-conform adapter: injecting fault `{mode}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::fault::CaseMatcher;
    use std::collections::BTreeMap;

    fn hello() -> HelloReply {
        HelloReply::new("test", "toolnexus", "0.0.0", "rustc")
    }

    fn run_line(case: &str) -> String {
        Request::Run(RunRequest {
            case: case.to_owned(),
            roots: vec!["/r".to_owned()],
            sample_limit: 0,
            filter: BTreeMap::new(),
            load: vec!["b".to_owned(), "a".to_owned()],
            tool: false,
            profile: None,
        })
        .to_line()
    }

    fn handler(request: &RunRequest) -> Value {
        let skills: Vec<Value> = request
            .load
            .iter()
            .map(|name| json!({"name": name, "description": "é", "location": "/r/SKILL.md"}))
            .collect();
        json!({"inventory": {"skills": skills, "skipped": []}, "loads": [], "prompt": "p"})
    }

    /// Runs `serve_with` over `input` lines and returns the output lines.
    fn exchange(input: &[String], fault: Option<FaultInjection>) -> Vec<String> {
        let input = input.join("\n") + "\n";
        let mut output = Vec::new();
        serve_with(input.as_bytes(), &mut output, hello(), &mut handler, fault).unwrap();
        String::from_utf8(output)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn answers_hello_and_run_and_stops_at_bye() {
        let lines = exchange(
            &[
                r#"{"cmd":"hello","protocol":1}"#.to_owned(),
                run_line("g/c"),
                r#"{"cmd":"bye"}"#.to_owned(),
                run_line("never/answered"),
            ],
            None,
        );
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0],
            r#"{"protocol":1,"port":"test","library":"toolnexus","version":"0.0.0","runtime":"rustc"}"#
        );
        let reply: Value = serde_json::from_str(&lines[1]).unwrap();
        assert_eq!(reply["case"], "g/c");
        assert!(lines[1].contains("\"é\""), "UTF-8 is written unescaped");
    }

    #[test]
    fn a_malformed_request_gets_an_error_and_the_loop_goes_on() {
        let lines = exchange(
            &[
                "{not a request".to_owned(),
                r#"{"cmd":"launch"}"#.to_owned(),
                String::new(),
                run_line("g/c"),
            ],
            None,
        );
        assert_eq!(lines.len(), 3, "{lines:?}");
        for line in &lines[..2] {
            let reply: Value = serde_json::from_str(line).unwrap();
            assert!(reply["error"]
                .as_str()
                .unwrap()
                .starts_with("error parsing request"));
            assert!(reply.get("case").is_none());
        }
        assert!(lines[2].contains(r#""case":"g/c""#));
    }

    #[test]
    fn a_non_object_reply_becomes_an_error_reply() {
        assert_eq!(
            with_case(json!([1]), "g/c"),
            json!({"case": "g/c", "error": "the adapter's handler returned a non-object reply"})
        );
    }

    #[test]
    fn reply_faults_apply_only_to_selected_cases() {
        let only = |mode| FaultInjection {
            mode,
            cases: CaseMatcher::parse("bad/*").unwrap(),
        };
        let lines = exchange(
            &[run_line("bad/one"), run_line("good/one")],
            Some(only(FaultMode::WrongId)),
        );
        assert!(lines[0].contains(r#""case":"wrong-id/bad/one""#));
        assert!(lines[1].contains(r#""case":"good/one""#));

        let lines = exchange(&[run_line("bad/one")], Some(only(FaultMode::Banner)));
        assert_eq!(lines[0], BANNER);
        assert!(lines[1].contains(r#""case":"bad/one""#));

        let lines = exchange(&[run_line("bad/one")], Some(only(FaultMode::InvalidJson)));
        assert_eq!(lines, ["{not json"]);
    }

    #[test]
    fn nondeterministic_changes_every_second_run_of_a_case() {
        let lines = exchange(
            &[run_line("g/c"), run_line("g/c"), run_line("g/c")],
            Some(FaultInjection::everywhere(FaultMode::Nondeterministic)),
        );
        let replies: Vec<Value> = lines
            .iter()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(replies[0], replies[2]);
        assert_ne!(replies[0]["prompt"], replies[1]["prompt"]);
        assert_eq!(replies[1]["inventory"]["skills"][0]["name"], "a");
    }

    #[test]
    fn bad_handshake_answers_protocol_99() {
        let lines = exchange(
            &[r#"{"cmd":"hello","protocol":1}"#.to_owned()],
            Some(FaultInjection::everywhere(FaultMode::BadHandshake)),
        );
        assert!(lines[0].starts_with(r#"{"protocol":99,"#));
    }
}
