//! The view every renderer shares: ports and cases in display order, a cell per verdict,
//! totals, the failures with their details, clusters and notes — computed once from
//! [`Results`], so the four reports cannot disagree.
//!
//! Display order: cases sorted by id; ports with `reference` first, then the real ports, then
//! the mutants, each sorted by name. Failures (and the non-failing problems of unpinned cases) are listed in port order,
//! then case order. [`trial_details`] is the one text a failure gets, wherever it is shown.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;

use super::Redactor;
use crate::case::CaseId;
use crate::compare::text::{visible_inline, visible_line};
use crate::compare::{inline_value, render_mismatches};
use crate::judge::cluster::{self, Cluster, Note};
use crate::judge::{
    ExpectedMatch, FaultDetails, PortInfo, PortStatus, Results, Status, Verdict, REFERENCE_PORT,
};
use crate::session::{Fault, Phase};

/// How many lines of an adapter's stderr a report shows (report.json keeps all it was given).
pub(crate) const STDERR_LINES: usize = 20;

/// The short matrix cell for a status ([`Status::words`]).
pub fn cell(status: Status) -> &'static str {
    status.words().cell
}

/// The cell of a (port, case) pair that has no verdict (not run, e.g. filtered out).
pub(crate) const NO_VERDICT: &str = "-";

/// The libtest trial name: `PORT::GROUP/CASE`.
pub(crate) fn trial_name(port: &str, case: &CaseId) -> String {
    format!("{port}::{case}")
}

/// One (port, case) verdict with what renderers need beside it.
#[derive(Clone, Copy, Debug)]
pub struct Trial<'r> {
    pub port: &'r str,
    pub case: &'r CaseId,
    pub pinned: bool,
    /// The contract rule ids the case tests (its `case.toml` `rules`).
    pub rules: &'r [String],
    pub verdict: &'r Verdict,
}

impl Trial<'_> {
    pub fn status(&self) -> Status {
        self.verdict.status
    }

    pub fn name(&self) -> String {
        trial_name(self.port, self.case)
    }
}

/// Verdict counts of one port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub by_status: BTreeMap<Status, usize>,
    /// Pinned cases with a verdict.
    pub pinned: usize,
    /// Pinned cases that pass.
    pub pinned_pass: usize,
    /// Pinned cases that fail as declared in `expected.toml`.
    pub pinned_expected_fail: usize,
    /// Verdicts that make the run fail.
    pub failures: usize,
}

/// Everything the renderers show, in display order.
#[derive(Clone, Debug)]
pub struct Model<'r> {
    pub results: &'r Results,
    /// `reference` first, then real ports, then mutants, each sorted by name.
    pub ports: Vec<&'r str>,
    /// Sorted by id.
    pub cases: Vec<&'r CaseId>,
    pub totals: BTreeMap<&'r str, Totals>,
    /// Verdicts that make the run fail, except `broken` (shown with its port).
    pub failures: Vec<Trial<'r>>,
    /// `error`, `timeout`, `crash`, `protocol-error` and `nondeterministic` on unpinned cases:
    /// worth showing, never failing.
    pub problems: Vec<Trial<'r>>,
    /// Ports that are unavailable or broken, in port order.
    pub troubled_ports: Vec<&'r PortInfo>,
    /// Agreement clusters of unpinned cases with a gap.
    pub clusters: BTreeMap<CaseId, Vec<Cluster>>,
    pub notes: Vec<Note>,
}

impl<'r> Model<'r> {
    pub fn new(results: &'r Results) -> Model<'r> {
        let mut ports: Vec<&str> = results.port_names().into_iter().collect();
        // Stable sort: reference first, then real ports, then mutants, each sorted by name.
        ports.sort_by_key(|port| (*port != REFERENCE_PORT, results.port_kind(port)));
        let cases: Vec<&CaseId> = results.case_ids().into_iter().collect();

        let mut totals: BTreeMap<&str, Totals> = BTreeMap::new();
        let mut failures = Vec::new();
        let mut problems = Vec::new();
        for port in &ports {
            let port_totals = totals.entry(*port).or_default();
            for case in &cases {
                let Some(verdict) = results.verdict(port, case) else {
                    continue;
                };
                let pinned = results.is_pinned(case);
                let trial = Trial {
                    port,
                    case,
                    pinned,
                    rules: results.rules(case),
                    verdict,
                };
                let status = verdict.status;
                *port_totals.by_status.entry(status).or_default() += 1;
                if pinned {
                    port_totals.pinned += 1;
                    port_totals.pinned_pass += usize::from(status == Status::Pass);
                    port_totals.pinned_expected_fail += usize::from(status == Status::ExpectedFail);
                }
                if status.is_failure(pinned) {
                    port_totals.failures += 1;
                    if status != Status::Broken {
                        failures.push(trial);
                    }
                } else if matches!(
                    status,
                    Status::Error
                        | Status::Timeout
                        | Status::Crash
                        | Status::ProtocolError
                        | Status::Nondeterministic
                ) {
                    problems.push(trial);
                }
            }
        }
        let troubled_ports = ports
            .iter()
            .filter_map(|port| results.ports.get(*port))
            .filter(|info| !matches!(info.status, PortStatus::Available))
            .collect();
        Model {
            results,
            ports,
            cases,
            totals,
            failures,
            problems,
            troubled_ports,
            clusters: cluster::gap_clusters(results),
            notes: cluster::notes(results),
        }
    }

    pub fn verdict(&self, port: &str, case: &CaseId) -> Option<&'r Verdict> {
        self.results.verdict(port, case)
    }

    pub fn is_pinned(&self, case: &CaseId) -> bool {
        self.results.is_pinned(case)
    }

    /// The rule ids the case tests.
    pub fn rules(&self, case: &CaseId) -> &[String] {
        self.results.rules(case)
    }

    /// The cell text for (port, case).
    pub fn cell(&self, port: &str, case: &CaseId) -> &'static str {
        self.verdict(port, case)
            .map_or(NO_VERDICT, |verdict| cell(verdict.status))
    }

    /// Whether every verdict of the case is `pass`.
    pub(crate) fn all_pass(&self, case: &CaseId) -> bool {
        self.ports.iter().all(|port| {
            !matches!(self.verdict(port, case), Some(verdict) if verdict.status != Status::Pass)
        })
    }
}

/// `3 pass, 1 fail, 2 gap`: nonzero counts in [`Status::all`] order.
pub(crate) fn count_list(totals: &Totals) -> String {
    let parts: Vec<String> = Status::all()
        .filter_map(|status| {
            totals
                .by_status
                .get(&status)
                .filter(|count| **count > 0)
                .map(|count| format!("{count} {status}"))
        })
        .collect();
    if parts.is_empty() {
        "no verdicts".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A port's hello data on one line: `version 0.21.0, runtime CPython 3.11.7` (possibly empty).
pub(crate) fn port_versions(info: &PortInfo, redactor: &Redactor) -> String {
    let mut parts = Vec::new();
    if let Some(version) = &info.hello.library_version {
        parts.push(format!("version {}", redactor.version(version)));
    }
    if let Some(runtime) = &info.hello.runtime {
        parts.push(format!("runtime {}", redactor.version(runtime)));
    }
    parts.extend(port_libraries(info, redactor));
    if let Some(origin) = &info.origin {
        parts.push(format!("from {}", redactor.text(origin)));
    }
    parts.join(", ")
}

/// `gopkg.in/yaml.v3 3.0.1`: each library a port's hello names as deciding its verdicts (its
/// YAML parser), with its version; in the totals and under the matrix's column header.
pub(crate) fn port_libraries(info: &PortInfo, redactor: &Redactor) -> Vec<String> {
    info.hello
        .libraries
        .iter()
        .map(|(library, version)| format!("{library} {}", redactor.version(version)))
        .collect()
}

/// The kebab-case name of a serde enum value (fault kinds, phases).
fn serde_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(name)) => name,
        Ok(other) => other.to_string(),
        Err(_) => "?".to_owned(),
    }
}

/// The lines describing a fault, each without a line feed, indented by `indent`.
pub(crate) fn fault_lines(fault: &FaultDetails, redactor: &Redactor, indent: &str) -> Vec<String> {
    let mut lines = vec![format!(
        "{indent}fault: {} (during {})",
        serde_name(&fault.kind()),
        serde_name(&fault.phase)
    )];
    let mut push = |line: String| lines.push(format!("{indent}  {line}"));
    let offending = |line: &str, size: String| {
        format!(
            "offending line{size}: {}",
            redactor.text(&visible_line(line))
        )
    };
    match &fault.fault {
        Fault::Timeout { after } => push(format!("deadline: {} ms", after.as_millis())),
        Fault::Exited {
            status,
            signal,
            partial,
        } => {
            if let Some(status) = status {
                push(format!("exit status: {status}"));
            }
            if let Some(signal) = signal {
                push(format!("signal: {signal}"));
            }
            if let Some(line) = partial {
                push(offending(line, String::new()));
            }
        }
        Fault::SpawnFailed { error } | Fault::WriteFailed { error } => {
            push(format!("os error: {}", redactor.text(error)));
        }
        Fault::WrongCase { expected, got } => {
            push(format!("asked for case: {expected}"));
            let got = got
                .as_ref()
                .map_or_else(|| "(none)".to_owned(), inline_value);
            push(format!("reply's case: {got}"));
        }
        Fault::BadHandshake { reason } => push(problem_line(reason, redactor)),
        Fault::BadReply { problem, line } => {
            push(problem_line(problem, redactor));
            push(offending(line, String::new()));
        }
        Fault::Oversize { bytes, cap } => push(format!(
            "line: {bytes} bytes read, over the cap of {cap} bytes"
        )),
        Fault::NotJson { line, bytes } => push(offending(line, format!(" ({bytes} bytes)"))),
        Fault::Unsolicited { line } => push(offending(line, String::new())),
    }
    if let Some(restart) = &fault.restart_failed {
        lines.push(format!("{indent}  the restart failed too:"));
        lines.extend(fault_lines(restart, redactor, &format!("{indent}    ")));
    }
    lines
}

/// `problem: ` and a fault's problem as `report.json` writes it, inline.
fn problem_line(problem: &impl serde::Serialize, redactor: &Redactor) -> String {
    let value = serde_json::to_value(problem).unwrap_or(Value::Null);
    format!("problem: {}", redactor.text(&inline_value(&value)))
}

/// The last [`STDERR_LINES`] lines of a stderr tail, each in the visible notation, with the
/// number of lines left out (0 when none).
pub(crate) fn stderr_lines(tail: &str, redactor: &Redactor) -> (Vec<String>, usize) {
    let lines: Vec<&str> = tail.lines().collect();
    let skip = lines.len().saturating_sub(STDERR_LINES);
    let shown = lines[skip..]
        .iter()
        .map(|line| redactor.text(&visible_line(line)))
        .collect();
    (shown, skip)
}

/// What every report says about one trial, as plain text ending in a line feed: status,
/// duration, the expected entry, adapter error, fault, reason, fingerprint, the rendered
/// mismatches, the stderr tail, and — last — the one command that reproduces it.
pub fn trial_details(trial: &Trial<'_>, redactor: &Redactor) -> String {
    let evidence = &trial.verdict.evidence;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "status: {}{}",
        trial.status(),
        if trial.pinned {
            " (pinned case)"
        } else {
            " (unpinned case)"
        }
    );
    if !matches!(trial.status(), Status::Pass) {
        for line in crate::explain::rule_lines(trial.rules) {
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(ms) = evidence.duration_ms {
        let _ = writeln!(out, "duration: {}", redactor.duration_ms(ms));
    }
    if let Some(matched) = &evidence.expected {
        expected_lines(&mut out, trial, matched, redactor);
    }
    if let Some(error) = &evidence.adapter_error {
        let _ = writeln!(
            out,
            "adapter error: {}",
            redactor.text(&visible_inline(error))
        );
    }
    if let Some(fault) = &evidence.fault {
        for line in fault_lines(fault, redactor, "") {
            let _ = writeln!(out, "{line}");
        }
    }
    if let Some(reason) = &evidence.reason {
        let _ = writeln!(out, "reason: {}", redactor.text(reason));
    }
    if let Some(print) = &evidence.fingerprint {
        if !matches!(trial.status(), Status::Pass) {
            let _ = writeln!(out, "fingerprint: {print}");
        }
    }
    if !evidence.mismatches.is_empty() {
        out.push('\n');
        out.push_str(&redactor.text(&render_mismatches(&evidence.mismatches)));
    }
    if let Some(tail) = &evidence.stderr_tail {
        stderr_block(&mut out, tail, redactor);
    }
    out.push('\n');
    let _ = writeln!(out, "reproduce: {}", evidence.repro);
    out
}

/// The matched `expected.toml` entry of a trial, for [`trial_details`].
fn expected_lines(
    out: &mut String,
    trial: &Trial<'_>,
    matched: &ExpectedMatch,
    redactor: &Redactor,
) {
    let _ = writeln!(
        out,
        "expected divergence: entry {} of `{}` (cases `{}`): {}",
        matched.entry,
        redactor.text(&matched.file),
        matched.cases,
        matched.reason
    );
    if let Some(link) = &matched.link {
        let _ = writeln!(out, "  link: {link}");
    }
    if trial.status() == Status::UnexpectedPass {
        let _ = writeln!(out, "  the case now passes: delete or narrow the entry");
    }
    if matched.fingerprint_changed {
        let _ = writeln!(
            out,
            "  fingerprint changed: the entry declares {}, the output is {}",
            matched.fingerprint.as_deref().unwrap_or("-"),
            trial.verdict.evidence.fingerprint.as_deref().unwrap_or("-")
        );
    }
}

/// The stderr tail of a trial (its last [`STDERR_LINES`] lines), for [`trial_details`].
fn stderr_block(out: &mut String, tail: &str, redactor: &Redactor) {
    let (lines, skipped) = stderr_lines(tail, redactor);
    if lines.is_empty() {
        return;
    }
    out.push('\n');
    if skipped > 0 {
        let _ = writeln!(
            out,
            "stderr (last {} lines, {skipped} before them not shown):",
            lines.len()
        );
    } else {
        let _ = writeln!(out, "stderr:");
    }
    for line in lines {
        let _ = writeln!(out, "  | {line}");
    }
}

/// The first line of [`trial_details`]' story, for one-line listings: `fail: 2 mismatches (…)`,
/// `timeout`, `error: boom`.
pub(crate) fn trial_summary(trial: &Trial<'_>, redactor: &Redactor) -> String {
    let evidence = &trial.verdict.evidence;
    let status = trial.status();
    if !evidence.mismatches.is_empty() {
        let rendered = render_mismatches(&evidence.mismatches);
        let first = rendered.lines().next().unwrap_or_default();
        return format!("{status}: {first}");
    }
    if let Some(error) = &evidence.adapter_error {
        return format!("{status}: {}", redactor.text(&visible_inline(error)));
    }
    if let Some(fault) = &evidence.fault {
        return format!("{status}: {}", fault_summary(fault, redactor));
    }
    if let Some(reason) = &evidence.reason {
        return format!("{status}: {}", redactor.text(reason));
    }
    if status == Status::UnexpectedPass {
        return format!("{status}: the case passes although `expected.toml` declares a divergence");
    }
    status.to_string()
}

/// A fault in a few words: `no reply within 10000 ms`, `the adapter exited (signal 11)`.
pub(crate) fn fault_summary(fault: &FaultDetails, redactor: &Redactor) -> String {
    let during = match fault.phase {
        Phase::Handshake => " during the handshake",
        Phase::Run => "",
        Phase::Bye => " after `bye`",
    };
    let what = match &fault.fault {
        Fault::SpawnFailed { error } => {
            format!("the adapter could not be started: {}", redactor.text(error))
        }
        Fault::BadHandshake { .. } => "the hello reply was refused".to_owned(),
        Fault::Timeout { after } => format!("no reply within {} ms", after.as_millis()),
        Fault::Exited { status, signal, .. } => match (status, signal) {
            (_, Some(signal)) => format!("the adapter was killed by signal {signal}"),
            (Some(code), None) => format!("the adapter exited with status {code}"),
            (None, None) => "the adapter's stdout closed".to_owned(),
        },
        Fault::NotJson { .. } => "a reply line is not JSON".to_owned(),
        Fault::WrongCase { .. } => "the reply names another case".to_owned(),
        Fault::BadReply { .. } => "the reply is not shaped like a run reply".to_owned(),
        Fault::Oversize { cap, .. } => format!("a reply line exceeded the cap of {cap} bytes"),
        Fault::Unsolicited { .. } => "a line arrived that no request asked for".to_owned(),
        Fault::WriteFailed { .. } => "the request could not be written".to_owned(),
    };
    format!("{what}{during}")
}

/// The lines describing why a port is unavailable or broken (empty for an available port).
pub(crate) fn port_trouble_lines(info: &PortInfo, redactor: &Redactor) -> Vec<String> {
    match &info.status {
        PortStatus::Available => Vec::new(),
        PortStatus::Unavailable { reason } => {
            vec![format!("unavailable: {}", redactor.text(reason))]
        }
        PortStatus::Broken { evidence } => {
            let mut lines = vec![match (&evidence.reason, &evidence.fault) {
                (Some(reason), _) => format!("broken: {}", redactor.text(reason)),
                (None, Some(fault)) => format!("broken: {}", fault_summary(fault, redactor)),
                (None, None) => "broken".to_owned(),
            }];
            if let Some(fault) = &evidence.fault {
                lines.extend(fault_lines(fault, redactor, "  "));
            }
            if let Some(tail) = &evidence.stderr_tail {
                let (stderr, _) = stderr_lines(tail, redactor);
                if !stderr.is_empty() {
                    lines.push("  stderr:".to_owned());
                    lines.extend(stderr.into_iter().map(|line| format!("    | {line}")));
                }
            }
            lines
        }
    }
}

/// The one-line text of a note.
pub(crate) fn note_text(note: &Note, results: &Results, redactor: &Redactor) -> String {
    format!(
        "suspected reference bug in {}: {} agree with each other against the golden (output {}) and no other port matches it; check the reference before the ports",
        note.case,
        port_labels(results, &note.ports, redactor),
        note.fingerprint
    )
}

/// `python@0.21.0`: a port with the library version its hello gave, or the bare name when the
/// hello gave none or the column already names its version (`python@0.18.1`, one port in two
/// versions).
pub(crate) fn port_label(results: &Results, port: &str, redactor: &Redactor) -> String {
    if port.contains('@') {
        return port.to_owned();
    }
    match results
        .ports
        .get(port)
        .and_then(|info| info.hello.library_version.as_deref())
    {
        Some(version) => format!("{port}@{}", redactor.version(version)),
        None => port.to_owned(),
    }
}

/// `golang@0.16.0, js@0.16.0`: [`port_label`]s joined by commas.
pub(crate) fn port_labels(results: &Results, ports: &[String], redactor: &Redactor) -> String {
    let labels: Vec<String> = ports
        .iter()
        .map(|port| port_label(results, port, redactor))
        .collect();
    labels.join(", ")
}
