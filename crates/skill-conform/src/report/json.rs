//! `report.json`: everything the run knows, as canonical JSON (sorted keys, two-space indent,
//! trailing newline), for tools and for merging the reports of per-port CI jobs.
//!
//! The shape is [`format::Report`](super::format::Report) (and its checked-in schema):
//!
//! ```text
//! {
//!   "format": 1,
//!   "ports":  { PORT: { "name", "kind", "libraryVersion"?, "runtime"?, "libraries"?,
//!                       "status": {"state", …},
//!                       "totals": { STATUS: COUNT }, "pinned": N, "pinnedPass": N } },
//!   "cases":  { CASE: { "pinned", "rules" } },
//!   "trials": { PORT: { CASE: { "trial", "pinned", "status", "evidence": {
//!                 "mismatches"?, "actual"?, "raw"? (with `detail`), "adapterError"?, "fault"?,
//!                 "stderrTail"?, "expected"?, "fingerprint"?, "reason"?, "repro",
//!                 "durationMs"? } } } },
//!   "clusters": { CASE: [ { "ports", "matchesGolden", "fingerprint" } ] },
//!   "notes":  [ { "kind", "case", "ports", "fingerprint" } ],
//!   "repeat"?: { "passes", "seed", "rawDifferences": { PORT: { CASE: "inventory-order" |
//!                "uncompared-fields" } } }          (only with `run --repeat N`, N > 1)
//!   "expectationErrors"?: [ { "port", "message" } ]  (only when an expected.toml has a problem;
//!                                                    each fails the run)
//!   "interop"?: { "ports": { PORT: VERSION | null }, "pinned", "allPass" }
//!                                                   (only when a real port ran)
//!   "tampered"?: [ "changed|added|removed PATH" ]     (guarded files changed: exit 3)
//!   "interrupted"?: "SIGINT" | "SIGTERM"              (the run was cut short: exit 130/143)
//! }
//! ```
//!
//! Absent values are left out rather than written as `null`. The [`Redactor`] applies to every
//! string and key; with durations redacted, `durationMs` becomes `"[DURATION]"`; with versions
//! redacted, `libraryVersion` and `runtime` become `"[VERSION]"`.

use std::collections::BTreeMap;

use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use super::format::{PortEntry, Report, TrialEntry, FORMAT};
use super::model::{trial_name, Model};
use super::Redactor;
use crate::judge::{HelloFacts, Results};

/// `report.json` for `results`.
pub fn render(results: &Results, redactor: &Redactor) -> String {
    render_model(&Model::new(results), redactor)
}

/// `report.json` from a prepared model.
pub(crate) fn render_model(model: &Model<'_>, redactor: &Redactor) -> String {
    to_canonical_string(&redactor.json(&value(model, redactor)))
}

/// The report as a JSON value, before path redaction.
pub fn value(model: &Model<'_>, redactor: &Redactor) -> Value {
    serde_json::to_value(report(model, redactor)).expect("a report always serialises")
}

/// The typed report, with versions redacted (paths and durations are redacted on its JSON).
pub fn report(model: &Model<'_>, redactor: &Redactor) -> Report {
    let results = model.results;
    let ports = model
        .ports
        .iter()
        .map(|port| ((*port).to_owned(), port_entry(model, port, redactor)))
        .collect();
    let cases = model
        .cases
        .iter()
        .map(|case| {
            let info = results.cases.get(*case).cloned().unwrap_or_default();
            ((*case).clone(), info)
        })
        .collect();
    let mut trials: BTreeMap<String, BTreeMap<_, _>> = BTreeMap::new();
    for ((port, case), verdict) in &results.verdicts {
        let entry = TrialEntry {
            trial: trial_name(port, case),
            pinned: results.is_pinned(case),
            status: verdict.status,
            evidence: verdict.evidence.clone(),
        };
        trials
            .entry(port.clone())
            .or_default()
            .insert(case.clone(), entry);
    }
    Report {
        format: FORMAT,
        ports,
        cases,
        trials,
        clusters: model.clusters.clone(),
        notes: model.notes.clone(),
        repeat: results.repeat.clone(),
        expectation_errors: results.expectation_errors.clone(),
        interop: super::interop::of_model(model, redactor),
        tampered: results.tampered.clone(),
        interrupted: results.interrupted.map(|i| i.name().to_owned()),
    }
}

fn port_entry(model: &Model<'_>, port: &str, redactor: &Redactor) -> PortEntry {
    let results = model.results;
    let info = results.ports.get(port);
    let version = |text: &Option<String>| text.as_deref().map(|text| redactor.version(text));
    let totals = model.totals.get(port).cloned().unwrap_or_default();
    PortEntry {
        name: port.to_owned(),
        kind: info.map_or_else(|| results.port_kind(port), |info| info.kind),
        hello: HelloFacts {
            library_version: info.and_then(|info| version(&info.hello.library_version)),
            runtime: info.and_then(|info| version(&info.hello.runtime)),
            libraries: info
                .map(|info| info.hello.libraries.clone())
                .unwrap_or_default(),
        },
        origin: info.and_then(|info| info.origin.as_deref().map(|text| redactor.text(text))),
        status: info.map(|info| info.status.clone()),
        isolation: info.and_then(|info| info.isolation),
        totals: totals.by_status,
        pinned: totals.pinned,
        pinned_pass: totals.pinned_pass,
    }
}
