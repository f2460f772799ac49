//! `skill-conform corpus`: the reference and every selected port over a real skills folder, with
//! no goldens, reporting only where they disagree — and, first, what it could not compare.
//!
//! The folder is read **in place**: no sandbox copy, nothing written under it (adapters get a
//! temporary `HOME`, the reports go to `--report-dir`). The reference runs in process first
//! (inventory, every name it accepts in code-point order then `no-such-skill` loaded, prompt);
//! the ports then run concurrently, one adapter session each ([`crate::port::resolve`],
//! [`crate::session::Session`]) with the reply line capped at `--line-cap` (default 16 MiB).
//! Every request has `roots` = the given folders made absolute but *not* canonicalised
//! (symlinks stay as the user spelled them), sample limit 0, no filter:
//!
//! 1. the first, [`CASE_ID`], loads nothing: its inventory and prompt are what is compared;
//! 2. the loads follow in batches of names (`batch`): sized from the reference's own reply to
//!    fit the cap, halved when a reply still comes back over it (the session kills and
//!    restarts the adapter on an over-cap line), later batches shrunk to what the port's
//!    replies showed. A single name over the cap is `over-the-cap` for that load alone; a
//!    batch lost to a fault or answered with `error` is not compared, for its loads.
//!
//! Replies are normalised as in the suite (`normalize`): roots become `{root0}`, `{root1}` …,
//! inventory lists are sorted, `detail` is dropped. [`analyse`] is a pure function from the
//! normalised replies to a [`CorpusReport`]:
//!
//! - **disagreements** — every `SKILL.md` location where the answering ports' verdicts
//!   (accepted with name and description / skipped with reason / not listed) are not all the same;
//! - **duplicates** — every accepted name whose winning copy is not the same for every port;
//! - **clusters** — ports (the reference included) with byte-identical normalised inventories,
//!   the reference's first, with per-port counts `N ok / M skipped {reason: count}`;
//! - **loads and prompt** — per port, the loads and the prompt that differ from the
//!   reference's, each with its first differing line, and the loads not compared, by why;
//! - **states** — [`PortState`]: `ok` only when inventory, prompt and every load were
//!   compared. A port is said to agree only then; `partial`, `broken`, `fault`, `error` and a
//!   named `unavailable` port make the report incomplete.
//!
//! The reference's walk also reports what it could not read under the roots — unreadable
//! folders, links it cannot follow, names that are not UTF-8 (`warnings`, from
//! [`skill_ref::walk::Walker::problems`], no second walk) — listed as warnings.
//!
//! The same report is printed ([`render_markdown`], with at most [`TERMINAL_ROWS`] locations on
//! the terminal — a location the reference accepts and some port does not is always shown)
//! and written as `corpus.md`, canonical `corpus.json` (format [`FORMAT`]; [`read`] takes the
//! previous one too) and `corpus.html` ([`crate::report::corpus_html`]). Its first line, and the terminal's last, is [`verdict_line`]: what was
//! not compared, then who disagrees. Exit ([`exit_code`], table [`EXIT_CODES`]): 3 when a
//! selected port or part of its reply was not compared; else 1 with `--fail-on-disagreement`
//! when a compared part differs; else 0. A missing folder is a usage error (exit 2).
//!
//! | module       | owns                                                                  |
//! |--------------|-----------------------------------------------------------------------|
//! | this file    | orchestration: roots, ports, the first request, each port's session   |
//! | `batch`      | the loads in batches under the cap: plan, sizing, halving             |
//! | `model`      | the typed `corpus.json` ([`CorpusReport`]), its states and its schema |
//! | `analysis`   | [`analyse`]: normalised replies to a [`CorpusReport`] (pure)          |
//! | `warnings`   | the reference walk's problems as warnings (redacted, escaped)         |
//! | `report::corpus` | rendering `corpus.md` and `corpus.json`, the verdict line         |
//! | `report::corpus_html` | rendering `corpus.html`                                      |

mod analysis;
mod batch;
mod model;
mod warnings;

pub use crate::report::corpus::{render_json, render_markdown, verdict_line, write_report};
pub use analysis::analyse;
pub(crate) use analysis::{cut, text_of};
pub use batch::{cap_text, plan as plan_batches, LoadAnswer, LoadAnswers, FILL, MAX_BATCH_NAMES};
pub use model::*;
pub use warnings::walk_warnings;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::case::Field;
use crate::error::{Error, ExitCode};
use crate::judge::{stderr_text, FaultDetails};
use crate::normalize::{normalize, Redactions};
use crate::observe::{start_port, ObserveOptions, PortTrouble, Started};
use crate::port::{self, PortRequest, Resolved, REFERENCE};
use crate::reference::{run_reference, LoadList, UNKNOWN_SKILL};
use crate::session::{HelloReply, RunRequest, Timeouts, DEFAULT_LINE_CAP};
/// The version of `corpus.json`'s shape.
pub(crate) const FORMAT: u32 = 2;

/// Whether a reader accepts a `corpus.json` of `format`: the current one or the one before it.
pub fn readable(format: u32) -> bool {
    format == FORMAT || format.checked_add(1) == Some(FORMAT)
}

/// Reads a `corpus.json` of the current or the previous format; a one-line error otherwise.
pub fn read(text: &str) -> Result<CorpusReport, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let format = value.get("format").and_then(Value::as_u64).unwrap_or(0);
    if !u32::try_from(format).is_ok_and(readable) {
        return Err(format!(
            "not a corpus.json of format {FORMAT} or {} (it says {format})",
            FORMAT - 1
        ));
    }
    serde_json::from_value(value).map_err(|e| format!("not a valid corpus.json: {e}"))
}

/// The `case` id of the first request each port gets (no loads); the loads' batches are
/// `corpus/run/loads/N`, N the first name's 1-based position.
pub(crate) const CASE_ID: &str = "corpus/run";

/// The smallest and the largest `--line-cap` accepted: the smoke pair's reply must fit, and a
/// reply line is held in memory whole.
pub(crate) const LINE_CAP_RANGE: (u64, u64) = (4 * 1024, 1 << 30);

/// How many disagreeing locations the terminal shows (`corpus.md` has them all); locations
/// the reference accepts and a port does not are shown beyond it.
pub(crate) const TERMINAL_ROWS: usize = 100;

/// How many differing loads a port's entry shows (`corpus.json` has them all).
pub(crate) const SHOWN_LOADS: usize = 5;

/// The longest line a first difference keeps, in characters.
pub(crate) const LINE_CHARS: usize = 160;

/// Everything `corpus` was asked.
#[derive(Clone, Debug)]
pub struct CorpusOptions {
    pub repo: PathBuf,
    /// The skills folders, in order (become `{root0}`, `{root1}`, …).
    pub dirs: Vec<PathBuf>,
    /// Ports to run beside the reference; empty = every port in `adapters/ports.toml`.
    pub ports: Vec<PortRequest>,
    pub report_dir: Option<PathBuf>,
    pub fail_on_disagreement: bool,
    pub timeouts: Timeouts,
    /// The longest reply line accepted from a port, in bytes.
    pub line_cap: usize,
    /// Also observe the folders with the writing tool ([`crate::writing_tool::corpus`]).
    pub writing_tool: bool,
}

impl Default for CorpusOptions {
    fn default() -> Self {
        CorpusOptions {
            repo: PathBuf::new(),
            dirs: Vec::new(),
            ports: Vec::new(),
            report_dir: None,
            fail_on_disagreement: false,
            timeouts: Timeouts::default(),
            line_cap: DEFAULT_LINE_CAP,
            writing_tool: false,
        }
    }
}

/// What one port did with the requests, before analysis.
#[derive(Clone, Debug)]
pub enum PortRun {
    /// Toolchain or package missing.
    Unavailable { reason: String },
    /// The adapter did not start, or failed the smoke pair.
    Broken {
        /// What went wrong, in words.
        what: String,
        /// The process's fault, when there was one (a wrong smoke reply has none).
        fault: Option<FaultDetails>,
        stderr_tail: Option<String>,
    },
    /// It crashed, hung, broke the protocol or went over the cap on the first request.
    Fault {
        fault: FaultDetails,
        stderr_tail: Option<String>,
    },
    /// It answered the first request with `error`.
    Error { message: String },
    /// It answered the first request (normalised: roots redacted, lists sorted, `detail`
    /// dropped; its inventory and prompt are compared), and the loads came in batches.
    Reply {
        normalized: Value,
        loads: LoadAnswers,
    },
}

/// One column: a port (or the reference) and what it did.
#[derive(Clone, Debug)]
pub struct PortResult {
    pub name: String,
    pub hello: Option<HelloReply>,
    /// Named with `--port`/`--adapter` (or the reference).
    pub selected: bool,
    pub run: PortRun,
}

impl PortResult {
    /// A port named on the command line, with no hello (tests, and tools building a report).
    pub fn selected(name: &str, run: PortRun) -> PortResult {
        PortResult {
            name: name.to_owned(),
            hello: None,
            selected: true,
            run,
        }
    }
}

/// The reference's run over the roots: its column, the requests every port gets, and what
/// its walk could not read.
struct ReferenceSide {
    result: PortResult,
    /// The first request (no loads); the batches copy it with their names.
    first: RunRequest,
    /// Every name the reference accepts, then [`UNKNOWN_SKILL`].
    names: Vec<String>,
    /// The reply's size without loads, and each load's, as compact JSON.
    sizes: (usize, Vec<usize>),
    warnings: Vec<WalkWarning>,
}

/// Runs corpus mode and returns the exit code (see the module doc).
pub fn corpus(options: CorpusOptions) -> Result<ExitCode, Error> {
    // Plan: every usage error before anything starts.
    let repo = crate::plan::canonical_repo(&options.repo)?;
    let roots = absolute_roots(&options.dirs)?;
    let specs = port::read_ports(&repo)?;
    let requests = requested_ports(&options.ports, &specs)?;
    let report_dir = options
        .report_dir
        .clone()
        .unwrap_or_else(|| repo.join("reports"));
    crate::output_dir::check_writable(&report_dir, "--report-dir")?;
    // Observe: the reference in process, then every port in its own session, concurrently.
    let reference = run_reference_over(&roots);
    let batches = batch::plan(reference.sizes.0, &reference.sizes.1, options.line_cap);
    let home = crate::sandbox::plain_tempdir("skill-conform-home-")
        .map_err(|e| Error::Usage(e.to_string()))?;
    // SIGINT/SIGTERM: kill the adapters, remove HOME, exit 130/143 (no partial corpus report).
    crate::partial::watch();
    let _home_interrupt = crate::interrupt::register_dir(&home.1);
    let named = !options.ports.is_empty();
    let mut results = vec![reference.result.clone()];
    results.extend(std::thread::scope(|scope| {
        let handles: Vec<_> = requests
            .iter()
            .map(|port_request| {
                let (specs, repo, home) = (&specs, &repo, &home.1);
                let (reference, batches, options) = (&reference, &batches, &options);
                scope.spawn(move || {
                    let resolved = port::resolve(port_request, specs, repo, home);
                    let mut result = run_port(resolved, reference, batches, options);
                    result.selected = named;
                    result
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a port worker does not panic"))
            .collect::<Vec<_>>()
    }));
    // Judge and report.
    let mut report = analyse(roots, reference.names.len(), results);
    report.line_cap = Some(options.line_cap as u64);
    report.warnings = reference.warnings;
    print!("{}", render_markdown(&report, Some(TERMINAL_ROWS)));
    write_report(&report, &report_dir)
        .map_err(|e| Error::io(format!("writing reports to `{}`", report_dir.display()), e))?;
    if options.writing_tool {
        crate::writing_tool::corpus::report(&repo, &report, &report_dir)?;
    }
    println!(
        "\nreports written to {}\n{}",
        report_dir.join("corpus.md").display(),
        verdict_line(&report)
    );
    Ok(exit_code(&report, options.fail_on_disagreement))
}

/// `corpus`'s exit codes and what each means (the README's table; [`exit_code`] decides).
pub(crate) const EXIT_CODES: [(ExitCode, &str); 6] = [
    (ExitCode::Ok, "every selected port compared, inventory, prompt and every load (whatever the disagreements)"),
    (ExitCode::Divergence, "with `--fail-on-disagreement`: a compared part of some port's reply differs from the reference's"),
    (ExitCode::Usage, "usage error (bad flag or `--line-cap`, missing folder)"),
    (ExitCode::PortTrouble, "a selected port, or part of its reply, was not compared (the first line says which); wins over 1"),
    (ExitCode::Interrupted, "interrupted by SIGINT (no corpus report)"),
    (ExitCode::Terminated, "terminated by SIGTERM (no corpus report)"),
];

/// 3 when a selected port, or part of its reply, was not compared; else 1 for a disagreement
/// with `--fail-on-disagreement`; else 0.
pub fn exit_code(report: &CorpusReport, fail_on_disagreement: bool) -> ExitCode {
    let disagreement = if fail_on_disagreement && report.disagreement {
        ExitCode::Divergence
    } else {
        ExitCode::Ok
    };
    if report.complete {
        disagreement
    } else {
        disagreement.and(ExitCode::PortTrouble)
    }
}

/// The ports to compare (default: every port of `ports.toml`), each known and selected once;
/// the reference is always its own column, never one of them.
fn requested_ports(
    asked: &[PortRequest],
    specs: &BTreeMap<String, port::PortSpec>,
) -> Result<Vec<PortRequest>, Error> {
    let mut requests: Vec<PortRequest> = if asked.is_empty() {
        specs
            .keys()
            .map(|name| PortRequest::Named {
                name: name.clone(),
                version: None,
                path: None,
            })
            .collect()
    } else {
        asked.to_vec()
    };
    requests
        .retain(|request| !matches!(request, PortRequest::Named { name, .. } if name == REFERENCE));
    let mut seen = BTreeSet::from([REFERENCE.to_owned()]);
    for request in &requests {
        port::check_known(request, specs)?;
        if !seen.insert(request.name().to_owned()) {
            return Err(Error::Usage(format!(
                "port `{}` is selected twice",
                request.name()
            )));
        }
    }
    Ok(requests)
}

/// The reference over `roots` in process: every name it accepts, then [`UNKNOWN_SKILL`],
/// loaded; the requests every port gets; and its walk's problems as warnings.
fn run_reference_over(roots: &[String]) -> ReferenceSide {
    let root_paths: Vec<PathBuf> = roots.iter().map(PathBuf::from).collect();
    let reference = run_reference(
        skill_ref::Config::default(),
        &root_paths,
        0,
        &BTreeMap::new(),
        &LoadList::AcceptedThen(vec![UNKNOWN_SKILL.to_owned()]),
        false,
        Path::new("/"),
    )
    .expect("sample limit 0 is valid");
    let names: Vec<String> = reference
        .output
        .loads
        .iter()
        .map(|l| l.name.clone())
        .collect();
    let first = RunRequest {
        case: CASE_ID.to_owned(),
        roots: roots.to_vec(),
        sample_limit: 0,
        filter: BTreeMap::new(),
        load: Vec::new(),
        tool: false,
        profile: None,
    };
    let sizes = batch::sizes(&reference.output);
    let mut raw = serde_json::to_value(&reference.output).expect("the output serialises");
    let loads = match raw.get_mut("loads").map(Value::take) {
        Some(Value::Array(loads)) => loads,
        _ => Vec::new(),
    };
    raw["loads"] = Value::Array(Vec::new());
    let redactions = Redactions::for_roots(roots);
    let result = PortResult {
        name: REFERENCE.to_owned(),
        hello: Some(crate::reference::hello(REFERENCE)),
        selected: true,
        run: PortRun::Reply {
            normalized: normalize(&raw, roots, &Field::default_set()),
            loads: LoadAnswers::answered(loads.iter().map(|l| redactions.redact(l)).collect()),
        },
    };
    ReferenceSide {
        result,
        first,
        names,
        sizes,
        warnings: walk_warnings(&reference.walk_problems, roots),
    }
}

/// The folders as absolute roots, in order: relative ones joined to the working directory,
/// `.` components dropped, symlinks kept. A folder that is not a directory is a usage error.
pub(crate) fn absolute_roots(dirs: &[PathBuf]) -> Result<Vec<String>, Error> {
    if dirs.is_empty() {
        return Err(Error::Usage("give at least one skills folder".to_owned()));
    }
    dirs.iter()
        .map(|dir| {
            if !dir.is_dir() {
                return Err(Error::MissingRoot(dir.clone()));
            }
            let absolute = std::path::absolute(dir)
                .map_err(|e| Error::io(format!("making `{}` absolute", dir.display()), e))?;
            let text = absolute.to_str().ok_or_else(|| {
                Error::Usage(format!("`{}` is not valid UTF-8", absolute.display()))
            })?;
            // `absolute` keeps a trailing separator; a root never has one.
            let trimmed = text.trim_end_matches('/');
            Ok(if trimmed.is_empty() { "/" } else { trimmed }.to_owned())
        })
        .collect()
}

/// What a port that did not reach its first request did, from its start's observation.
fn not_started(trouble: Option<PortTrouble>) -> PortRun {
    match trouble {
        Some(PortTrouble::Unavailable(reason)) => PortRun::Unavailable { reason },
        Some(PortTrouble::Broken { what, evidence, .. }) => PortRun::Broken {
            what,
            fault: evidence.as_deref().map(FaultDetails::from),
            stderr_tail: evidence
                .as_deref()
                .and_then(|evidence| stderr_text(&evidence.stderr_tail)),
        },
        None => PortRun::Broken {
            what: "the adapter stopped before its first request".to_owned(),
            fault: None,
            stderr_tail: None,
        },
    }
}

/// `resolved` with its adapter's reply lines capped at `line_cap` bytes.
fn with_line_cap(resolved: Resolved, line_cap: usize) -> Resolved {
    match resolved {
        Resolved::Ready {
            name,
            command,
            asked,
            tested,
        } => Resolved::Ready {
            name,
            command: command.line_cap(line_cap),
            asked,
            tested,
        },
        unavailable => unavailable,
    }
}

/// Starts one port (spawn, handshake, the smoke pair, as `run` does) with the line cap, runs
/// [`exchange`], and closes it.
fn run_port(
    resolved: Resolved,
    reference: &ReferenceSide,
    batches: &[std::ops::Range<usize>],
    options: &CorpusOptions,
) -> PortResult {
    let observe = ObserveOptions {
        timeouts: options.timeouts,
        keep_sandbox: false,
        max_timeouts: None,
    };
    let (mut session, observation) =
        match start_port(with_line_cap(resolved, options.line_cap), &observe) {
            Started::Ready {
                session,
                observation,
            } => (session, observation),
            Started::Done(observation) => {
                return PortResult {
                    name: observation.name,
                    hello: observation.hello,
                    selected: false,
                    run: not_started(observation.trouble),
                };
            }
        };
    let run = exchange(
        &mut session,
        &observation.name,
        reference,
        batches,
        options.line_cap,
    );
    let _ = session.close();
    PortResult {
        name: observation.name,
        hello: observation.hello,
        selected: false,
        run,
    }
}

/// The first request (no loads: inventory and prompt), then, if it was answered, the loads in
/// `batches` ([`batch::run_loads`]).
fn exchange(
    session: &mut crate::session::Session,
    name: &str,
    reference: &ReferenceSide,
    batches: &[std::ops::Range<usize>],
    line_cap: usize,
) -> PortRun {
    let began = Instant::now();
    let first = &reference.first;
    let reply = match session.run(first) {
        Err(evidence) => {
            return PortRun::Fault {
                fault: FaultDetails::from(&evidence),
                stderr_tail: stderr_text(&evidence.stderr_tail),
            }
        }
        Ok(reply) => reply,
    };
    if let Some(error) = reply.get("error") {
        return PortRun::Error {
            message: error
                .as_str()
                .map_or_else(|| to_canonical_string(error), str::to_owned),
        };
    }
    let mut progress = |line: &str| eprintln!("{name}: {line}");
    let (fixed, each) = &reference.sizes;
    let mut sizing = batch::Sizing::new(*fixed, each, line_cap);
    let loads = batch::run_loads(
        session,
        first,
        &reference.names,
        batches.to_vec(),
        &mut sizing,
        &mut progress,
    );
    eprintln!(
        "{name}: {} loads in {} requests after the first ({:.2}s)",
        reference.names.len(),
        loads.requests,
        began.elapsed().as_secs_f64()
    );
    PortRun::Reply {
        normalized: normalize(&reply, &first.roots, &Field::default_set()),
        loads,
    }
}

#[cfg(test)]
mod tests {
    use super::analysis::first_difference;
    use super::*;
    use serde_json::json;

    fn reply(skills: &[(&str, &str)], skipped: &[(&str, &str)], prompt: &str) -> PortRun {
        let skills: Vec<Value> = skills
            .iter()
            .map(|(name, location)| json!({"name": name, "description": "d", "location": location}))
            .collect();
        let skipped: Vec<Value> = skipped
            .iter()
            .map(|(location, reason)| json!({"location": location, "reason": reason}))
            .collect();
        let loads: Vec<Value> = ["a", "no-such-skill"]
            .iter()
            .map(|n| json!({"name": n, "isError": false, "output": format!("body of {n}\nline two")}))
            .collect();
        PortRun::Reply {
            normalized: json!({"inventory": {"skills": skills, "skipped": skipped}, "loads": [], "prompt": prompt}),
            loads: LoadAnswers::answered(loads),
        }
    }

    fn port(name: &str, run: PortRun) -> PortResult {
        PortResult::selected(name, run)
    }

    #[test]
    fn agreement_is_quiet_and_disagreement_is_located() {
        let reference = reply(
            &[("a", "{root0}/a/SKILL.md")],
            &[("{root0}/x/a/SKILL.md", "duplicate-name")],
            "p",
        );
        let same = reference.clone();
        let last_wins = reply(
            &[("a", "{root0}/x/a/SKILL.md")],
            &[("{root0}/a/SKILL.md", "duplicate-name")],
            "p\nq",
        );
        let report = analyse(
            vec!["/r".into()],
            2,
            vec![
                port(REFERENCE, reference),
                port("python", same),
                port("mutant-x", last_wins),
                port(
                    "golang",
                    PortRun::Unavailable {
                        reason: "no go".into(),
                    },
                ),
            ],
        );
        assert!(report.disagreement);
        // golang was named and is unavailable: the report is not complete.
        assert!(!report.complete);
        assert_eq!(report.incomplete(), ["golang"]);
        assert_eq!(report.disagreeing(), ["mutant-x"]);
        assert_eq!(
            report.port_order(),
            ["reference", "golang", "python", "mutant-x"]
        );
        assert_eq!(report.clusters.len(), 2);
        assert_eq!(report.clusters[0].ports, ["reference", "python"]);
        assert_eq!(report.disagreements.len(), 2);
        assert!(report.disagreements[0].reference_accepts_port_drops);
        assert_eq!(report.duplicates.len(), 1);
        assert_eq!(report.duplicates[0].name, "a");
        let prompt = report.ports["mutant-x"].prompt_difference.clone().unwrap();
        assert_eq!((prompt.line, prompt.actual.as_deref()), (2, Some("q")));
        assert_eq!(report.ports["golang"].agrees_with_reference, None);
        let text = render_markdown(&report, None);
        assert!(
            text.starts_with("# skill-conform corpus: golang: not compared: unavailable: no go; disagreeing with the reference: mutant-x; python agrees with the reference (inventory, every load, prompt)\n"),
            "{text}"
        );
        assert!(
            text.contains("  - mutant-x: skipped (duplicate-name)\n"),
            "{text}"
        );
        assert!(
            text.contains("  - python: 1 ok / 1 skipped {duplicate-name: 1}\n"),
            "{text}"
        );
        assert!(text.contains("  - golang: unavailable: no go\n"), "{text}");
        assert!(
            text.contains("- mutant-x: all 2 loads match; prompt differs\n"),
            "{text}"
        );
        // Deterministic: the same input renders the same bytes.
        assert_eq!(render_json(&report), render_json(&report.clone()));
    }

    #[test]
    fn not_compared_wins_over_a_disagreement_and_the_flag_decides_1() {
        let mut report = analyse(vec!["/r".into()], 0, vec![]);
        for (complete, disagreement, flag, code) in [
            (true, false, true, ExitCode::Ok),
            (true, true, false, ExitCode::Ok),
            (true, true, true, ExitCode::Divergence),
            (false, true, true, ExitCode::PortTrouble),
            (false, false, false, ExitCode::PortTrouble),
        ] {
            (report.complete, report.disagreement) = (complete, disagreement);
            assert_eq!(
                exit_code(&report, flag),
                code,
                "{complete} {disagreement} {flag}"
            );
        }
    }

    #[test]
    fn first_difference_names_the_line_or_the_missing_one() {
        assert_eq!(first_difference("a\nb", "a\nb"), None);
        let d = first_difference("a\nb", "a\nc").unwrap();
        assert_eq!(
            (d.line, d.reference.as_deref(), d.actual.as_deref()),
            (2, Some("b"), Some("c"))
        );
        let d = first_difference("a", "a\nc").unwrap();
        assert_eq!(
            (d.line, d.reference, d.actual.as_deref()),
            (2, None, Some("c"))
        );
        assert!(cut(&"x".repeat(500)).ends_with('…'));
    }

    #[test]
    fn roots_are_absolute_not_canonical_and_missing_ones_are_named() {
        let tmp = crate::test_tempdir::tempdir();
        let real = tmp.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let roots = absolute_roots(&[link.join("."), real.clone()]).unwrap();
        assert_eq!(
            roots,
            [link.display().to_string(), real.display().to_string()]
        );
        let missing = tmp.path().join("missing");
        let error = absolute_roots(std::slice::from_ref(&missing)).unwrap_err();
        assert!(matches!(error, Error::MissingRoot(ref p) if *p == missing));
    }
}
