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
    pub enum DurationMs {
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

/// The data of a session fault, flattened for the reports (see [`Fault`] for each meaning).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FaultDetails {
    pub kind: FaultKind,
    pub phase: Phase,
    /// The offending line (or the partial line before stdout closed), cut by the session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The full length in bytes of the offending line (or of the oversized read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The byte cap an oversized line crossed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cap: Option<u64>,
    /// The deadline that passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The OS error of a failed spawn or write.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os_error: Option<String>,
    /// For a wrong case id: the id that was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_case: Option<String>,
    /// For a wrong case id: the reply's `case` (`None` when it had none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got_case: Option<Value>,
    /// For a refused hello or a malformed reply: the problem, as the session serialises it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<Value>,
    /// The failed restart after this fault, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_failed: Option<Box<FaultDetails>>,
}

impl FaultDetails {
    /// A fault of `kind` in `phase` with no further data (tests, and faults found outside a
    /// session).
    pub fn new(kind: FaultKind, phase: Phase) -> FaultDetails {
        FaultDetails {
            kind,
            phase,
            line: None,
            bytes: None,
            cap: None,
            timeout_ms: None,
            exit_status: None,
            signal: None,
            os_error: None,
            expected_case: None,
            got_case: None,
            problem: None,
            restart_failed: None,
        }
    }
}

impl From<&FaultEvidence> for FaultDetails {
    fn from(evidence: &FaultEvidence) -> FaultDetails {
        let mut details = FaultDetails::new(evidence.fault.kind(), evidence.phase);
        match &evidence.fault {
            Fault::SpawnFailed { error } | Fault::WriteFailed { error } => {
                details.os_error = Some(error.clone());
            }
            Fault::BadHandshake { reason } => details.problem = serde_json::to_value(reason).ok(),
            Fault::Timeout { after } => {
                details.timeout_ms = Some(u64::try_from(after.as_millis()).unwrap_or(u64::MAX));
            }
            Fault::Exited {
                status,
                signal,
                partial,
            } => {
                details.exit_status = *status;
                details.signal = *signal;
                details.line = partial.clone();
            }
            Fault::NotJson { line, bytes } => {
                details.line = Some(line.clone());
                details.bytes = Some(*bytes as u64);
            }
            Fault::WrongCase { expected, got } => {
                details.expected_case = Some(expected.clone());
                details.got_case = got.clone();
            }
            Fault::BadReply { problem, line } => {
                details.problem = serde_json::to_value(problem).ok();
                details.line = Some(line.clone());
            }
            Fault::Oversize { bytes, cap } => {
                details.bytes = Some(*bytes);
                details.cap = Some(*cap);
            }
            Fault::Unsolicited { line } => details.line = Some(line.clone()),
        }
        details.restart_failed = evidence
            .restart_failed
            .as_deref()
            .map(|restart| Box::new(FaultDetails::from(restart)));
        details
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
