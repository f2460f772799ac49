//! The typed `report.json`: the serde types it is written from and read back into, its JSON
//! Schema, and the format policy.
//!
//! **Format policy.** `format` names the shape of the file. A field added later (optional, or
//! with a default) does not bump it; renaming, removing or retyping a field does. Readers —
//! `merge-reports`, and the later run diffs and HTML matrix — accept the current format and the
//! previous one ([`readable`]), so reports of one release still merge with the next.
//!
//! A report written with redaction holds placeholders: `durationMs` may be `"[DURATION]"` (read
//! back as unknown), versions `"[VERSION]"`, paths `[REPO]` and `[SANDBOX]`.
//!
//! The checked-in `schemas/report.schema.json` is [`schema`]'s output; a test keeps them equal.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::case::CaseId;
use crate::error::Error;
use crate::judge::{
    CaseInfo, Cluster, Evidence, ExpectationProblem, HelloFacts, Note, PortId, PortKind,
    PortStatus, RepeatInfo, Status,
};

/// The version of `report.json`'s shape.
pub(crate) const FORMAT: u32 = 1;

/// Whether a reader accepts a report of `format`: the current one or the one before it.
pub fn readable(format: u32) -> bool {
    format == FORMAT || format.checked_add(1) == Some(FORMAT)
}

/// `report.json`: everything a run knows.
///
/// Format policy: `format` names the shape of this file. Fields added later (optional, or with a
/// default) do not bump it; renaming, removing or retyping a field does. Readers accept the
/// current format and the previous one. Redacted reports hold placeholders: `durationMs` may be
/// `"[DURATION]"`, versions `"[VERSION]"`, paths `[REPO]` and `[SANDBOX]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "skill-conform report.json")]
pub struct Report {
    /// The shape of this file ([`FORMAT`]); fields added later do not change it.
    pub format: u32,
    /// Every port of the run, by name.
    pub ports: BTreeMap<PortId, PortEntry>,
    /// Every selected case, by id.
    pub cases: BTreeMap<CaseId, CaseInfo>,
    /// One entry per (port, case) with a verdict, by port, then case.
    pub trials: BTreeMap<PortId, BTreeMap<CaseId, TrialEntry>>,
    /// Agreement clusters of the real ports, for the unpinned cases with a gap.
    pub clusters: BTreeMap<CaseId, Vec<Cluster>>,
    /// Notes that change no verdict (suspected reference bugs).
    pub notes: Vec<Note>,
    /// Only with `run --repeat N`, N > 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat: Option<RepeatInfo>,
    /// Problems with the ports' `expected.toml` files; each fails the run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expectation_errors: Vec<ExpectationProblem>,
    /// The share of pinned cases on which every real port that ran passes; absent when no
    /// real port ran (added in format 1: older reports lack it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interop: Option<super::interop::InteropScore>,
    /// Guarded files (fixtures, goldens, `expected.toml`) that changed during the run, one
    /// `changed|added|removed PATH` line each: the run is `tampered` (exit 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tampered: Vec<String>,
    /// `SIGINT` or `SIGTERM` when the run was interrupted: the verdicts are what was judged
    /// before it (exit 130 or 143).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
}

/// One port of the run: what its hello said, whether it could run, and its verdict counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortEntry {
    pub name: PortId,
    pub kind: PortKind,
    /// What its hello said.
    #[serde(flatten)]
    pub hello: HelloFacts,
    /// Where the library came from: `registry, 0.21.0 (pinned in adapters/ports.toml)`,
    /// `registry, @0.18.1 (asked for)`, `checkout PATH at COMMIT`; absent for the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    /// Absent only for a port that has verdicts but no port record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<PortStatus>,
    /// How write-restricted its adapter ran: `full`, `partial` or `none` (no Landlock);
    /// absent when its adapter never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::isolate::Isolation>,
    /// Verdicts by status (statuses with none are left out).
    pub totals: BTreeMap<Status, usize>,
    /// Pinned cases with a verdict.
    pub pinned: usize,
    /// Pinned cases that pass.
    pub pinned_pass: usize,
}

/// One (port, case) verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrialEntry {
    /// The libtest trial name, `PORT::GROUP/CASE`.
    pub trial: String,
    pub pinned: bool,
    pub status: Status,
    pub evidence: Evidence,
}

/// The JSON Schema (draft 2020-12) of [`Report`].
pub fn schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    generator.into_root_schema_for::<Report>().to_value()
}

/// Reads a `report.json`, refusing a format no reader accepts. Errors name the file and the fix.
pub fn read(path: &Path) -> Result<Report, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Usage(format!(
            "error reading `{}`: {e} (hint: pass the report.json of each job)",
            path.display()
        ))
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "`{}` is not JSON: {e} (hint: pass report.json files)",
            path.display()
        ))
    })?;
    let format = value.get("format").and_then(Value::as_u64);
    if !format
        .and_then(|f| u32::try_from(f).ok())
        .is_some_and(readable)
    {
        return Err(Error::Usage(format!(
            "`{}` is not a skill-conform report of format {FORMAT} (hint: merge reports of the same skill-conform version)",
            path.display()
        )));
    }
    serde_json::from_value(value).map_err(|e| {
        Error::Usage(format!(
            "`{}` is not a valid report.json: {e} (hint: pass report.json files written by skill-conform run)",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_are_written_only_when_known_and_read_back() {
        let mut entry = PortEntry {
            name: "python".into(),
            kind: PortKind::Real,
            hello: HelloFacts::default(),
            origin: None,
            status: Some(PortStatus::Available),
            isolation: None,
            totals: BTreeMap::new(),
            pinned: 0,
            pinned_pass: 0,
        };
        assert!(serde_json::to_value(&entry)
            .unwrap()
            .get("libraries")
            .is_none());
        entry
            .hello
            .libraries
            .insert("pyyaml".into(), "6.0.2".into());
        let value = serde_json::to_value(&entry).unwrap();
        assert_eq!(value["libraries"]["pyyaml"], "6.0.2");
        assert_eq!(serde_json::from_value::<PortEntry>(value).unwrap(), entry);
        assert!(readable(FORMAT) && !readable(FORMAT + 1));
    }
}
