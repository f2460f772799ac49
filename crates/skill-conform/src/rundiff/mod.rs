//! Run diffs: what changed between two runs' `report.json` files, per (port, case) — a
//! regression, a fix, a moved spec, an expectation added or dropped, a case added or removed —
//! and per port (added, removed, another library version). [`render`] shows the transitions as
//! a terminal table, Markdown and JSON.
//!
//! A status change counts as a regression or a fix only when both reports record the case's
//! golden hash and the hashes are equal: when the golden moved the change is `spec moved`, and
//! when a report predates golden hashes it is `unknown`, never a regression.

pub mod render;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::case::CaseId;
use crate::error::Error;
use crate::judge::{PortId, Status};
use crate::report::format::{self, Report};

/// The hash a report records for a golden: SHA-256 of its bytes, lowercase hex.
pub fn golden_sha256(golden: &str) -> String {
    Sha256::digest(golden.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// What changed, in the order the reports list kinds (worst first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A verdict that did not fail the run now fails it; the golden did not move.
    Regression,
    /// The status changed, but a report lacks golden hashes: the cause is unknown.
    Unknown,
    /// A declared divergence whose `expected.toml` entry is gone while the case still fails.
    ExpectationDropped,
    /// The golden differs between the two runs.
    SpecMoved,
    /// A failing verdict (or a declared divergence) now passes.
    Fixed,
    /// A divergence newly declared in `expected.toml`.
    NewlyExpected,
    /// Another status that neither fails nor passes (`ok` to `gap`, a port that did not run).
    Changed,
    CaseAdded,
    CaseRemoved,
    PortAdded,
    PortRemoved,
    PortVersionChanged,
}

impl Kind {
    /// The words the reports use: `regression`, `spec moved`, …
    pub fn words(self) -> &'static str {
        match self {
            Kind::Regression => "regression",
            Kind::Unknown => "unknown",
            Kind::ExpectationDropped => "expectation dropped",
            Kind::SpecMoved => "spec moved",
            Kind::Fixed => "fixed",
            Kind::NewlyExpected => "newly expected",
            Kind::Changed => "changed",
            Kind::CaseAdded => "case added",
            Kind::CaseRemoved => "case removed",
            Kind::PortAdded => "port added",
            Kind::PortRemoved => "port removed",
            Kind::PortVersionChanged => "port version changed",
        }
    }
}

/// One transition. `port` is absent for a case-level one, `case` for a port-level one; `from`
/// and `to` are statuses or versions (`-`: none).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Transition {
    pub kind: Kind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<PortId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<CaseId>,
    pub from: String,
    pub to: String,
}

/// The outcome of comparing two runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunDiff {
    /// There is no base report (the first run of a branch): nothing to compare.
    NoBase { base: PathBuf },
    /// Transitions sorted by kind, then port, then case.
    Compared { transitions: Vec<Transition> },
}

impl RunDiff {
    /// Whether some (port, case) regressed.
    pub(crate) fn has_regression(&self) -> bool {
        match self {
            RunDiff::NoBase { .. } => false,
            RunDiff::Compared { transitions } => {
                transitions.iter().any(|t| t.kind == Kind::Regression)
            }
        }
    }
}

/// Where a run's reports are: a `report.json`, a folder holding one, or a folder of per-job
/// folders each holding one (what the composite action's merge mode downloads:
/// `skill-conform-report-<port>/report.json`), read as one run.
fn report_paths(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return if path.exists() {
            vec![path.to_owned()]
        } else {
            Vec::new()
        };
    }
    if path.join("report.json").is_file() {
        return vec![path.join("report.json")];
    }
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|entry| entry.path().join("report.json"))
        .filter(|report| report.is_file())
        .collect();
    jobs.sort();
    jobs
}

/// The run at `path` ([`report_paths`]), several jobs' reports combined into one; `None` when
/// there is no report there.
fn read_run(path: &Path) -> Result<Option<Report>, Error> {
    let mut reports = report_paths(path)
        .into_iter()
        .map(|file| format::read(&file).map(|report| (file, report)));
    let Some(first) = reports.next() else {
        return Ok(None);
    };
    let (_, mut run) = first?;
    for next in reports {
        let (file, report) = next?;
        combine(&mut run, report).map_err(|port| {
            Error::Usage(format!(
                "port `{port}` appears in more than one report (second: `{}`) (hint: one report per port job)",
                file.display()
            ))
        })?;
    }
    Ok(Some(run))
}

/// Adds one job's report to the run: its ports, cases and trials; the reference, which runs in
/// every job, keeps the first job's record. `Err(port)` when another port is already known.
fn combine(run: &mut Report, report: Report) -> Result<(), PortId> {
    for (port, entry) in report.ports {
        if run.ports.contains_key(&port) {
            if port != crate::port::REFERENCE {
                return Err(port);
            }
            continue;
        }
        if let Some(trials) = report.trials.get(&port) {
            run.trials.insert(port.clone(), trials.clone());
        }
        run.ports.insert(port, entry);
    }
    for (case, info) in report.cases {
        run.cases.entry(case).or_insert(info);
    }
    run.expectation_errors.extend(report.expectation_errors);
    Ok(())
}

/// Reads both runs ([`read_run`]) and compares them; a missing base is [`RunDiff::NoBase`], a
/// missing or unreadable new report (or an unreadable base) a usage error naming the file.
pub(crate) fn diff_paths(base: &Path, new: &Path) -> Result<RunDiff, Error> {
    let Some(new_report) = read_run(new)? else {
        return Err(Error::Usage(format!(
            "no report at `{}` (hint: pass the report.json, or the report folder, of the new run)",
            new.display()
        )));
    };
    let Some(base_report) = read_run(base)? else {
        return Ok(RunDiff::NoBase {
            base: base.to_owned(),
        });
    };
    Ok(RunDiff::Compared {
        transitions: diff(&base_report, &new_report),
    })
}

/// Every transition from `base` to `new`, sorted.
pub fn diff(base: &Report, new: &Report) -> Vec<Transition> {
    let mut out = port_transitions(base, new);
    out.extend(case_transitions(base, new));
    let ports: BTreeSet<&PortId> = base
        .ports
        .keys()
        .filter(|port| new.ports.contains_key(*port))
        .collect();
    for case in base.cases.keys().filter(|c| new.cases.contains_key(*c)) {
        for port in &ports {
            out.extend(trial_transition(base, new, port, case));
        }
    }
    out.sort();
    out
}

fn version_of(report: &Report, port: &str) -> String {
    report
        .ports
        .get(port)
        .and_then(|entry| entry.hello.library_version.clone())
        .unwrap_or_else(|| "-".to_owned())
}

fn port_transitions(base: &Report, new: &Report) -> Vec<Transition> {
    let names: BTreeSet<&PortId> = base.ports.keys().chain(new.ports.keys()).collect();
    let mut out = Vec::new();
    for name in names {
        let (from, to) = (version_of(base, name), version_of(new, name));
        let kind = match (base.ports.contains_key(name), new.ports.contains_key(name)) {
            (false, _) => Kind::PortAdded,
            (_, false) => Kind::PortRemoved,
            _ if from != to => Kind::PortVersionChanged,
            _ => continue,
        };
        out.push(Transition {
            kind,
            port: Some(name.clone()),
            case: None,
            from,
            to,
        });
    }
    out
}

fn case_transitions(base: &Report, new: &Report) -> Vec<Transition> {
    let cases: BTreeSet<&CaseId> = base.cases.keys().chain(new.cases.keys()).collect();
    let mut out = Vec::new();
    for case in cases {
        let (before, after) = (base.cases.get(case), new.cases.get(case));
        let hash = |info: Option<&crate::judge::CaseInfo>| {
            info.and_then(|info| info.golden_sha256.clone())
        };
        let kind = match (before, after) {
            (None, _) => Kind::CaseAdded,
            (_, None) => Kind::CaseRemoved,
            _ if golden_moved(base, new, case) == Some(true) => Kind::SpecMoved,
            _ => continue,
        };
        out.push(Transition {
            kind,
            port: None,
            case: Some(case.clone()),
            from: short_hash(hash(before)),
            to: short_hash(hash(after)),
        });
    }
    out
}

/// The first 12 hex digits of a golden hash, or `-`.
fn short_hash(hash: Option<String>) -> String {
    hash.map_or_else(|| "-".to_owned(), |hash| hash.chars().take(12).collect())
}

/// Whether the case's golden differs between the runs; `None` when a report lacks its hash.
fn golden_moved(base: &Report, new: &Report, case: &CaseId) -> Option<bool> {
    let hash = |report: &Report| report.cases.get(case)?.golden_sha256.clone();
    Some(hash(base)? != hash(new)?)
}

fn status_of(report: &Report, port: &str, case: &CaseId) -> Option<Status> {
    Some(report.trials.get(port)?.get(case)?.status)
}

/// The transition of one (port, case) present in both runs, if its status changed.
fn trial_transition(base: &Report, new: &Report, port: &str, case: &CaseId) -> Option<Transition> {
    let before = status_of(base, port, case);
    let after = status_of(new, port, case);
    if before == after {
        return None;
    }
    let pinned = new.cases.get(case).is_some_and(|info| info.pinned);
    let kind = match golden_moved(base, new, case) {
        None => Kind::Unknown,
        Some(true) => Kind::SpecMoved,
        Some(false) => status_kind(before, after, pinned),
    };
    let cell = |status: Option<Status>| status.map_or("-", |s| s.words().cell).to_owned();
    Some(Transition {
        kind,
        port: Some(port.to_owned()),
        case: Some(case.clone()),
        from: cell(before),
        to: cell(after),
    })
}

/// What a status change means when the golden did not move.
fn status_kind(before: Option<Status>, after: Option<Status>, pinned: bool) -> Kind {
    // A trial on one side only (the port did not run there) is neither fixed nor regressed.
    let (Some(before), Some(after)) = (before, after) else {
        return Kind::Changed;
    };
    match (before, after) {
        (_, Status::ExpectedFail) => Kind::NewlyExpected,
        (Status::ExpectedFail, Status::Pass | Status::UnexpectedPass) => Kind::Fixed,
        (Status::ExpectedFail, _) => Kind::ExpectationDropped,
        _ if after.is_failure(pinned) && !before.is_failure(pinned) => Kind::Regression,
        _ if before.is_failure(pinned) && !after.is_failure(pinned) => Kind::Fixed,
        (_, Status::Pass) => Kind::Fixed,
        _ => Kind::Changed,
    }
}

/// Transitions counted by kind, in [`Kind`] order.
pub fn counts(transitions: &[Transition]) -> BTreeMap<Kind, usize> {
    let mut counts = BTreeMap::new();
    for transition in transitions {
        *counts.entry(transition.kind).or_default() += 1;
    }
    counts
}

#[cfg(test)]
mod tests;
