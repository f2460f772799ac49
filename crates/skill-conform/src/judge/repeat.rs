//! `run --repeat N`: folding the verdicts of repeated runs of one trial, and classifying raw
//! replies that differ only in what normalisation removes.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use super::{PortId, Status, Verdict};
use crate::case::CaseId;
use crate::compare::value_mismatches;

/// Folds the verdicts of repeated runs (`--repeat N`) of one trial into one.
///
/// When every run has the same status and the same canonical actual (or error message), the
/// first verdict stands. Otherwise the result is `nondeterministic`, with the first run's
/// evidence and, as mismatches, first run (expected) against the first run that differs
/// (actual). `None` for no runs.
pub fn judge_repeats(runs: Vec<Verdict>) -> Option<Verdict> {
    let mut runs = runs.into_iter();
    let mut first = runs.next()?;
    let same = |a: &Verdict, b: &Verdict| {
        a.status == b.status
            && a.evidence.actual == b.evidence.actual
            && a.evidence.adapter_error == b.evidence.adapter_error
    };
    if let Some(other) = runs.find(|run| !same(&first, run)) {
        let as_value = |verdict: &Verdict| -> Value {
            match (&verdict.evidence.actual, &verdict.evidence.adapter_error) {
                (Some(actual), _) => serde_json::from_str(actual).unwrap_or(Value::Null),
                (None, Some(error)) => serde_json::json!({ "error": error }),
                (None, None) => serde_json::json!({ "status": verdict.status.as_str() }),
            }
        };
        first.evidence.mismatches = value_mismatches(&as_value(&first), &as_value(&other));
        first.status = Status::Nondeterministic;
    }
    Some(first)
}

/// What `run --repeat N` adds to a run's results (absent for a single pass).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepeatInfo {
    /// How many times each port ran every selected case, in one session.
    pub passes: u32,
    /// The seed of the case-order shuffle; `--seed` replays it.
    pub seed: u64,
    /// Trials whose raw replies differed between passes only in what normalisation removes
    /// (their verdicts are unchanged), by port, then case.
    pub raw_differences: BTreeMap<PortId, BTreeMap<CaseId, RawDifference>>,
    /// Where each pass made its sandboxes and in what order it created their entries, pass 1
    /// first (absent in reports written before it was recorded).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandboxes: Vec<PassSandboxes>,
}

/// Where one pass of `--repeat` made its sandboxes (`crate::sandbox::Placement`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PassSandboxes {
    /// The base directory tried first (`/dev/shm`, `/tmp`, or `TMPDIR`).
    pub base: String,
    /// The order each directory's entries were created in.
    pub entries: EntryOrder,
}

/// The order a pass created its sandboxes' entries in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EntryOrder {
    Sorted,
    /// Shuffled, seeded by the run's seed, the pass and the case id.
    Shuffled,
}

/// How the raw replies of repeated runs of one trial differ when their compared forms do not.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum RawDifference {
    /// Only the order of `inventory.skills` or `inventory.skipped` (e.g. Go's map order).
    InventoryOrder,
    /// Something the comparison leaves out: a skip's `detail`, or a field outside `compare`.
    UncomparedFields,
}

/// Whether, and how, the raw replies of repeated runs differ once each is redacted with the
/// roots of its own run (`None` when they are all equal). The caller only asks when the
/// compared forms agree, so any difference is one normalisation removes.
pub fn raw_difference(replies: &[(&Value, &[String])]) -> Option<RawDifference> {
    let redacted: Vec<Value> = replies
        .iter()
        .map(|(raw, roots)| crate::normalize::Redactions::for_roots(roots).redact(raw))
        .collect();
    let (first, rest) = redacted.split_first()?;
    if rest.iter().all(|other| other == first) {
        return None;
    }
    let sorted = |value: &Value| {
        let mut value = value.clone();
        for list in ["skills", "skipped"] {
            if let Some(Value::Array(entries)) = value
                .get_mut("inventory")
                .and_then(|inventory| inventory.get_mut(list))
            {
                entries.sort_by_cached_key(to_canonical_string);
            }
        }
        value
    };
    let first = sorted(first);
    if rest.iter().all(|other| sorted(other) == first) {
        Some(RawDifference::InventoryOrder)
    } else {
        Some(RawDifference::UncomparedFields)
    }
}
