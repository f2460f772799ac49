//! `report.json`: everything the run knows, as canonical JSON (sorted keys, two-space indent,
//! trailing newline), for tools and for merging the reports of per-port CI jobs.
//!
//! ```text
//! {
//!   "format": 1,
//!   "ports":  { PORT: { "name", "kind", "libraryVersion"?, "runtime"?, "status": {"state", …},
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
//! }
//! ```
//!
//! Absent values are left out rather than written as `null`. The [`Redactor`] applies to every
//! string and key; with durations redacted, `durationMs` becomes `"[DURATION]"`; with versions
//! redacted, `libraryVersion` and `runtime` become `"[VERSION]"`.

use serde_json::{json, Map, Value};
use skill_ref::canonical::to_canonical_string;

use super::model::{trial_name, Model};
use super::Redactor;
use crate::judge::Results;

/// The version of this file's shape.
pub const FORMAT: u32 = 1;

/// `report.json` for `results`.
pub fn render(results: &Results, redactor: &Redactor) -> String {
    render_model(&Model::new(results), redactor)
}

/// `report.json` from a prepared model.
pub fn render_model(model: &Model<'_>, redactor: &Redactor) -> String {
    to_canonical_string(&redactor.json(&value(model, redactor)))
}

/// The report as a JSON value, before path redaction.
pub fn value(model: &Model<'_>, redactor: &Redactor) -> Value {
    let results = model.results;
    let mut ports = Map::new();
    for port in &model.ports {
        let mut entry = match results.ports.get(*port) {
            Some(info) => serde_json::to_value(info).unwrap_or(Value::Null),
            None => json!({ "name": port, "kind": results.port_kind(port) }),
        };
        if let Value::Object(object) = &mut entry {
            for key in ["libraryVersion", "runtime"] {
                if let Some(Value::String(text)) = object.get_mut(key) {
                    *text = redactor.version(text);
                }
            }
            if let Some(totals) = model.totals.get(port) {
                let counts: Map<String, Value> = totals
                    .by_status
                    .iter()
                    .map(|(status, count)| (status.as_str().to_owned(), Value::from(*count)))
                    .collect();
                object.insert("totals".into(), Value::Object(counts));
                object.insert("pinned".into(), Value::from(totals.pinned));
                object.insert("pinnedPass".into(), Value::from(totals.pinned_pass));
            }
        }
        ports.insert((*port).to_owned(), entry);
    }

    let cases: Map<String, Value> = model
        .cases
        .iter()
        .map(|case| {
            let info = results.cases.get(*case);
            (
                case.to_string(),
                json!({
                    "pinned": info.is_some_and(|info| info.pinned),
                    "rules": info.map(|info| info.rules.clone()).unwrap_or_default(),
                }),
            )
        })
        .collect();

    let mut trials = Map::new();
    for ((port, case), verdict) in &results.verdicts {
        let entry = trials
            .entry(port.clone())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(by_case) = entry {
            by_case.insert(
                case.to_string(),
                json!({
                    "trial": trial_name(port, case),
                    "pinned": results.is_pinned(case),
                    "status": verdict.status,
                    "evidence": verdict.evidence,
                }),
            );
        }
    }

    let clusters: Map<String, Value> = model
        .clusters
        .iter()
        .map(|(case, clusters)| (case.to_string(), json!(clusters)))
        .collect();

    let mut report = json!({
        "format": FORMAT,
        "ports": ports,
        "cases": cases,
        "trials": trials,
        "clusters": clusters,
        "notes": model.notes,
    });
    if let Some(repeat) = &results.repeat {
        report["repeat"] = json!(repeat);
    }
    if !results.expectation_errors.is_empty() {
        report["expectationErrors"] = json!(results.expectation_errors);
    }
    report
}
