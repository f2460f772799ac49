//! What a verdict carries: its status and its [`Evidence`] (mismatches, the canonical actual,
//! the raw reply, the fault's data, the stderr tail, the matching expected entry, the
//! fingerprint, the reproduction command and the duration), as data for the reports.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{repro_command, ExpectedEntry, Status};
use crate::case::CaseId;
use crate::compare::Mismatch;
use crate::session::{Fault, FaultEvidence, FaultKind, Phase, StderrTail};

/// `durationMs` as reports write it: milliseconds, or a placeholder once redacted.
mod duration_field {
    use schemars::JsonSchema;
    use serde::{Deserialize, Deserializer};

    /// Milliseconds, or the placeholder of a redacted duration (`[DURATION]`).
    #[derive(Deserialize, JsonSchema)]
    #[serde(untagged)]
    pub(crate) enum DurationMs {
        Millis(u64),
        Redacted(String),
    }

    /// A number is the duration; the placeholder reads as unknown; any other text is an error.
    pub fn read<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
        match Option::<DurationMs>::deserialize(deserializer)? {
            Some(DurationMs::Millis(ms)) => Ok(Some(ms)),
            Some(DurationMs::Redacted(text)) if text == crate::report::DURATION => Ok(None),
            Some(DurationMs::Redacted(text)) => Err(serde::de::Error::custom(format!(
                "durationMs `{text}` is neither milliseconds nor `{}`",
                crate::report::DURATION
            ))),
            None => Ok(None),
        }
    }
}

/// A session fault as the reports carry it: the [`Fault`] itself, flattened (its `kind` and
/// exactly that kind's data, so a timeout with an exit code cannot be written), its phase, and
/// the failed restart after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaultDetails {
    #[serde(flatten)]
    pub fault: Fault,
    pub phase: Phase,
    /// The failed restart after this fault, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_failed: Option<Box<FaultDetails>>,
}

impl FaultDetails {
    /// `fault` in `phase`, with no failed restart (tests, and faults found outside a session).
    pub fn new(fault: Fault, phase: Phase) -> FaultDetails {
        FaultDetails {
            fault,
            phase,
            restart_failed: None,
        }
    }

    /// Which kind of fault this is.
    pub fn kind(&self) -> FaultKind {
        self.fault.kind()
    }
}

impl From<&FaultEvidence> for FaultDetails {
    fn from(evidence: &FaultEvidence) -> FaultDetails {
        FaultDetails {
            fault: evidence.fault.clone(),
            phase: evidence.phase,
            restart_failed: evidence
                .restart_failed
                .as_deref()
                .map(|restart| Box::new(FaultDetails::from(restart))),
        }
    }
}

/// The stderr tail's text, or `None` when the adapter wrote nothing.
pub fn stderr_text(tail: &StderrTail) -> Option<String> {
    (!tail.text.is_empty()).then(|| tail.text.clone())
}

/// The expected-divergence entry a verdict matched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedMatch {
    /// The `expected.toml` the entry is in, as given to the parser.
    pub file: String,
    /// 1-based position of the entry among the file's `[[divergence]]` tables.
    pub entry: usize,
    /// The entry's case glob.
    pub cases: String,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The fingerprint the entry declares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// The entry declares a fingerprint and the actual output has another one.
    pub fingerprint_changed: bool,
}

impl ExpectedMatch {
    pub(super) fn new(entry: &ExpectedEntry, actual_fingerprint: Option<&str>) -> ExpectedMatch {
        ExpectedMatch {
            file: entry.path.display().to_string(),
            entry: entry.entry,
            cases: entry.cases.clone(),
            reason: entry.reason.clone(),
            link: entry.link.clone(),
            fingerprint: entry.fingerprint.clone(),
            fingerprint_changed: match (&entry.fingerprint, actual_fingerprint) {
                (Some(declared), Some(actual)) => declared != actual,
                (Some(_), None) => true,
                (None, _) => false,
            },
        }
    }
}

/// Everything known about a trial, as data. Renderers decide what to show.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct Evidence {
    /// Golden (expected) against normalised reply (actual); empty when equal.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatches: Vec<Mismatch>,
    /// The normalised reply as canonical JSON (absent for error replies and faults).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// The reply exactly as the adapter sent it (with `case` and `detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
    /// The reply's `error` message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adapter_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultDetails>,
    /// The last lines of the adapter's stderr, when the caller captured any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// The expected-divergence entry that matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<ExpectedMatch>,
    /// [`fingerprint`](super::fingerprint) of the actual output (of the error reply, for `error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// Why the port is unavailable or broken, or why the case is vacuous (the caller's words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The command that reproduces the trial ([`repro_command`]).
    pub repro: String,
    /// How long the trial took. A report written with durations redacted holds the string
    /// `[DURATION]` here, which reads back as `None`.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "duration_field::read"
    )]
    #[schemars(with = "Option<duration_field::DurationMs>")]
    pub duration_ms: Option<u64>,
}

/// The judgement of one trial.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Verdict {
    pub status: Status,
    pub evidence: Evidence,
}

impl Verdict {
    /// The verdict for every case of a port whose toolchain or package is missing.
    pub fn unavailable(port: &str, case: &CaseId, reason: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::Unavailable,
            evidence: Evidence {
                reason: Some(reason.into()),
                repro: repro_command(port, case),
                ..Evidence::default()
            },
        }
    }

    /// The verdict for a case never sent, because its port was given up (`--max-timeouts`).
    pub fn not_run(port: &str, case: &CaseId, reason: impl Into<String>) -> Verdict {
        Verdict {
            status: Status::NotRun,
            ..Verdict::unavailable(port, case, reason)
        }
    }

    /// The verdict for every case of a port that failed its handshake or smoke pair.
    pub fn broken(port: &str, case: &CaseId, fault: Option<FaultDetails>) -> Verdict {
        Verdict {
            status: Status::Broken,
            evidence: Evidence {
                fault,
                repro: repro_command(port, case),
                ..Evidence::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// Every kind as `report.json` has always written it (the flat form's field names): it
    /// reads as that kind and writes back byte for byte.
    #[test]
    fn each_fault_kind_reads_and_writes_the_report_s_fields() {
        let rows: [Value; 13] = [
            json!({"kind": "spawn-failed", "osError": "no such file"}),
            json!({"kind": "write-failed", "osError": "broken pipe"}),
            json!({"kind": "timeout", "timeoutMs": 1500}),
            json!({"kind": "exited", "exitStatus": 1}),
            json!({"kind": "exited", "signal": 9, "line": "x"}),
            json!({"kind": "not-json", "line": "x", "bytes": 3}),
            json!({"kind": "wrong-case", "expectedCase": "g/c"}),
            json!({"kind": "wrong-case", "expectedCase": "g/c", "gotCase": 7}),
            json!({"kind": "bad-reply", "problem": "no-result-fields", "line": "x"}),
            json!({"kind": "bad-reply", "problem": {"duplicate-key": {"key": "a"}}, "line": "x"}),
            json!({"kind": "bad-handshake", "problem": {"problem": "not-json", "line": "x"}}),
            json!({"kind": "oversize", "bytes": 10, "cap": 5}),
            json!({"kind": "unsolicited", "line": "x"}),
        ];
        for mut row in rows {
            row["phase"] = json!("run");
            let read: FaultDetails = serde_json::from_value(row.clone()).unwrap();
            assert_eq!(json!(read.kind()), row["kind"]);
            assert_eq!(serde_json::to_value(&read).unwrap(), row);
        }
    }

    /// A kind without its own data (here another kind's in its place) does not read: the type
    /// has no timeout without a deadline. (A stray extra field is ignored, as serde does, so
    /// older reports stay readable.)
    #[test]
    fn a_kind_without_its_own_data_does_not_read() {
        for row in [
            json!({"kind": "timeout", "phase": "run", "exitStatus": 1}),
            json!({"kind": "not-json", "phase": "run", "timeoutMs": 5}),
        ] {
            assert!(serde_json::from_value::<FaultDetails>(row).is_err());
        }
    }
}
