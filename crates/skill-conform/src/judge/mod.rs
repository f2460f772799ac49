//! Stage 6 — judge: one [`Verdict`] per (port, case), the [`Results`] map they go into, and the
//! exit code that map implies.
//!
//! [`judge_trial`] is a pure function of one trial's inputs: the case (pinned or not), the
//! golden's text, the adapter call's [`Outcome`] (a reply, normalised by the caller with
//! [`normalize`](crate::normalize::normalize); a session fault; or a vacuous case) and the
//! port's `expected.toml` entries ([`expected`]). Its rules, in order:
//!
//! 1. A fault maps to a status by [`Status::of_fault`]; a vacuous case is `vacuous`.
//! 2. A reply carrying `error` is `error` — unless the golden is itself an error reply
//!    (`{"error": …}`), in which case any error reply passes (step 3 applies to that pass). A
//!    matching expected entry turns an `error` into `expected-fail` (see its fingerprint below).
//! 3. Equal canonical bytes: `pass`, or `unexpected-pass` when an expected entry matches (the
//!    entry is stale).
//! 4. Different bytes on a pinned case: `fail`, or `expected-fail` when an expected entry matches
//!    and either has no fingerprint or the same one. A matching entry with another fingerprint
//!    leaves `fail`, with [`ExpectedMatch::fingerprint_changed`] set.
//! 5. Different bytes on an unpinned case: `gap`, or `expected-fail` when an expected entry
//!    covers it (same fingerprint rule; a changed fingerprint leaves a `gap`, which never fails).
//!
//! The **fingerprint** ([`fingerprint`]) names a wrong output: the first 16 hex digits (64 bits)
//! of FNV-1a over the UTF-8 bytes of the canonical normalised reply (for an error reply, the
//! canonical text of `{"error": MESSAGE}` with the raw message — which may hold sandbox paths,
//! so write error entries without a fingerprint). FNV-1a is written out here, so the value never
//! changes with a dependency; it is not a security hash, only a stable name.
//!
//! The judge carries data, not prose (style habit 4): [`Evidence`] holds the mismatches, the
//! canonical actual, the raw reply, the fault's data, the stderr tail, the matching expected
//! entry, the fingerprint, the reproduction command and the duration. Only `report/*` writes
//! text for humans.
//!
//! [`cluster`] groups the real ports' outputs per case into agreement clusters and produces the
//! "suspected reference bug" notes; neither changes a verdict or the exit code.

pub mod cluster;
pub mod expected;
pub mod status;

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::case::{CaseId, CaseSpec};
use crate::compare::{compare, value_mismatches, Comparison, Mismatch};
use crate::error::ExitCode;
use crate::session::{Fault, FaultEvidence, FaultKind, Phase, StderrTail};

pub use cluster::{Cluster, Note};
pub use expected::{ExpectationError, ExpectedEntry};
pub use status::Status;

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

/// A port's name as the CLI and reports spell it (`reference`, `python`, …).
pub type PortId = String;

/// The name of the reference port: first column of every matrix, never in a cluster.
pub const REFERENCE_PORT: &str = "reference";

/// Number of hex digits in a [`fingerprint`].
pub const FINGERPRINT_LEN: usize = 16;

/// The fingerprint of a canonical text: FNV-1a 64 of its UTF-8 bytes, as 16 lower-case hex
/// digits. Stable across versions, platforms and dependency updates.
pub fn fingerprint(canonical: &str) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = canonical.bytes().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    });
    format!("{hash:016x}")
}

/// The one command that reruns a trial: `skill-conform run --port PORT -- --exact PORT::CASE`.
pub fn repro_command(port: &str, case: &CaseId) -> String {
    format!("skill-conform run --port {port} -- --exact {port}::{case}")
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
    fn new(entry: &ExpectedEntry, actual_fingerprint: Option<&str>) -> ExpectedMatch {
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
    /// [`fingerprint`] of the actual output (of the error reply, for `error`).
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

/// What the adapter call came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A reply line that passed the session's checks: `raw` as sent, and `normalized` as
    /// [`normalize`](crate::normalize::normalize) made it (ignored for an error reply).
    Reply { raw: Value, normalized: Value },
    /// The session reported a fault instead of a reply.
    Fault(FaultDetails),
    /// The case's precondition does not hold here; nothing was compared.
    Vacuous { reason: String },
}

/// Everything [`judge_trial`] looks at.
#[derive(Clone, Debug)]
pub struct TrialInput<'a> {
    pub port: &'a str,
    pub case: &'a CaseId,
    pub pinned: bool,
    /// The golden's text (canonical JSON).
    pub golden: &'a str,
    pub outcome: Outcome,
    /// This port's entries (all of them: the judge picks the first that covers case and version).
    pub expected: &'a [ExpectedEntry],
    /// The port's library version from its hello, for entries with `versions`.
    pub port_version: Option<&'a str>,
    /// The adapter's stderr tail for this trial, if captured ([`stderr_text`]).
    pub stderr_tail: Option<String>,
    pub duration_ms: Option<u64>,
}

/// Judges one trial (see the module doc for the rules).
pub fn judge_trial(input: TrialInput<'_>) -> Verdict {
    let mut evidence = Evidence {
        stderr_tail: input.stderr_tail,
        repro: repro_command(input.port, input.case),
        duration_ms: input.duration_ms,
        ..Evidence::default()
    };
    let entry = expected::find_entry(input.expected, input.case, input.port_version);

    let status = match input.outcome {
        Outcome::Vacuous { reason } => {
            evidence.reason = Some(reason);
            Status::Vacuous
        }
        Outcome::Fault(details) => {
            let status = Status::of_fault(details.kind, details.phase);
            evidence.fault = Some(details);
            status
        }
        Outcome::Reply { raw, normalized } => {
            let error = raw.get("error").and_then(Value::as_str).map(str::to_owned);
            evidence.raw = Some(raw);
            match error {
                Some(message) => {
                    let print = fingerprint(&to_canonical_string(
                        &serde_json::json!({ "error": message }),
                    ));
                    evidence.adapter_error = Some(message);
                    evidence.fingerprint = Some(print);
                    if golden_is_error(input.golden) {
                        passed(entry, &mut evidence)
                    } else {
                        diverged(entry, &mut evidence, Status::Error)
                    }
                }
                None => {
                    let actual = to_canonical_string(&normalized);
                    evidence.fingerprint = Some(fingerprint(&actual));
                    evidence.actual = Some(actual);
                    match compare(input.golden, &normalized) {
                        Comparison::Equal => passed(entry, &mut evidence),
                        Comparison::Differs(mismatches) => {
                            evidence.mismatches = mismatches;
                            let otherwise = if input.pinned {
                                Status::Fail
                            } else {
                                Status::Gap
                            };
                            diverged(entry, &mut evidence, otherwise)
                        }
                    }
                }
            }
        }
    };
    Verdict { status, evidence }
}

/// `pass`, or `unexpected-pass` when an entry still declares a divergence.
fn passed(entry: Option<&ExpectedEntry>, evidence: &mut Evidence) -> Status {
    match entry {
        None => Status::Pass,
        Some(entry) => {
            evidence.expected = Some(ExpectedMatch::new(entry, evidence.fingerprint.as_deref()));
            Status::UnexpectedPass
        }
    }
}

/// `expected-fail` when an entry covers the divergence with a matching (or no) fingerprint,
/// else `otherwise`.
fn diverged(entry: Option<&ExpectedEntry>, evidence: &mut Evidence, otherwise: Status) -> Status {
    let Some(entry) = entry else {
        return otherwise;
    };
    let matched = ExpectedMatch::new(entry, evidence.fingerprint.as_deref());
    let status = if matched.fingerprint_changed {
        otherwise
    } else {
        Status::ExpectedFail
    };
    evidence.expected = Some(matched);
    status
}

/// Whether the golden is an error reply: a JSON object with an `error` key.
fn golden_is_error(golden: &str) -> bool {
    serde_json::from_str::<Value>(golden)
        .ok()
        .and_then(|value| value.as_object().map(|object| object.contains_key("error")))
        .unwrap_or(false)
}

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

/// What kind of port a column is: the reference, a real port, or a mutant of the reference.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum PortKind {
    Reference,
    Real,
    Mutant,
}

impl PortKind {
    /// The kind a bare port name implies: [`REFERENCE_PORT`], a name starting with `mutant`, or
    /// a real port. Used for verdicts whose port has no [`PortInfo`].
    pub fn of_name(name: &str) -> PortKind {
        if name == REFERENCE_PORT {
            PortKind::Reference
        } else if name.starts_with("mutant") {
            PortKind::Mutant
        } else {
            PortKind::Real
        }
    }
}

/// Whether a port could be run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum PortStatus {
    Available,
    /// Toolchain or package missing.
    Unavailable {
        reason: String,
    },
    /// Failed its handshake or smoke pair; the evidence keeps the cause.
    Broken {
        evidence: Box<Evidence>,
    },
}

/// What the run knows about one port.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortInfo {
    pub name: PortId,
    pub kind: PortKind,
    /// The library version from the hello (`0.21.0`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_version: Option<String>,
    /// The runtime from the hello (`CPython 3.11.7`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Further libraries the hello names, with their versions (the YAML parser); omitted when
    /// empty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub libraries: BTreeMap<String, String>,
    pub status: PortStatus,
}

impl PortInfo {
    /// An available port of the kind its name implies, with no version known yet.
    pub fn available(name: impl Into<PortId>) -> PortInfo {
        let name = name.into();
        PortInfo {
            kind: PortKind::of_name(&name),
            name,
            library_version: None,
            runtime: None,
            libraries: BTreeMap::new(),
            status: PortStatus::Available,
        }
    }
}

/// What the reports need to know about a case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CaseInfo {
    pub pinned: bool,
    /// The contract sections or addenda it pins (`§4`, `A15`).
    pub rules: Vec<String>,
}

impl From<&CaseSpec> for CaseInfo {
    fn from(spec: &CaseSpec) -> CaseInfo {
        CaseInfo {
            pinned: spec.pinned,
            rules: spec.rules.clone(),
        }
    }
}

/// Every verdict of a run, keyed and therefore sorted by (port, case), with what is known about
/// each port and case. Reports are rendered from this alone.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Results {
    pub verdicts: BTreeMap<(PortId, CaseId), Verdict>,
    pub ports: BTreeMap<PortId, PortInfo>,
    pub cases: BTreeMap<CaseId, CaseInfo>,
    /// Set when every case ran more than once (`run --repeat N`).
    pub repeat: Option<RepeatInfo>,
    /// Problems with the ports' `expected.toml` files; each fails the run (exit 1).
    pub expectation_errors: Vec<ExpectationProblem>,
}

/// One problem with a port's `expected.toml`, as the reports show it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ExpectationProblem {
    pub port: PortId,
    /// The error's text (it names the file, and may add a `(hint: …)` line).
    pub message: String,
}

impl Results {
    pub fn new() -> Results {
        Results::default()
    }

    /// Adds (or replaces) a port's information.
    pub fn add_port(&mut self, info: PortInfo) {
        self.ports.insert(info.name.clone(), info);
    }

    /// Adds (or replaces) a case.
    pub fn add_case(&mut self, id: CaseId, info: CaseInfo) {
        self.cases.insert(id, info);
    }

    /// Records a verdict; the last one for a (port, case) wins.
    pub fn insert(&mut self, port: impl Into<PortId>, case: CaseId, verdict: Verdict) {
        self.verdicts.insert((port.into(), case), verdict);
    }

    pub fn verdict(&self, port: &str, case: &CaseId) -> Option<&Verdict> {
        self.verdicts.get(&(port.to_owned(), case.clone()))
    }

    /// Whether the case is pinned (`false` for a case that was never added).
    pub fn is_pinned(&self, case: &CaseId) -> bool {
        self.cases.get(case).is_some_and(|info| info.pinned)
    }

    /// The kind of a port: from its [`PortInfo`], else from its name.
    pub fn port_kind(&self, port: &str) -> PortKind {
        self.ports
            .get(port)
            .map_or_else(|| PortKind::of_name(port), |info| info.kind)
    }

    /// Every port named by a [`PortInfo`] or a verdict, sorted by name.
    pub fn port_names(&self) -> BTreeSet<&str> {
        self.ports
            .keys()
            .map(String::as_str)
            .chain(self.verdicts.keys().map(|(port, _)| port.as_str()))
            .collect()
    }

    /// Every case named by a [`CaseInfo`] or a verdict, sorted.
    pub fn case_ids(&self) -> BTreeSet<&CaseId> {
        self.cases
            .keys()
            .chain(self.verdicts.keys().map(|(_, case)| case))
            .collect()
    }

    /// One port's verdicts, by case (for [`expected::draft_expected`]).
    pub fn port_verdicts<'a>(
        &'a self,
        port: &'a str,
    ) -> impl Iterator<Item = (&'a CaseId, &'a Verdict)> + 'a {
        self.verdicts
            .iter()
            .filter(move |((verdict_port, _), _)| verdict_port == port)
            .map(|((_, case), verdict)| (case, verdict))
    }

    /// The verdicts that make the run fail ([`Status::is_failure`]), in (port, case) order.
    pub fn failures(&self) -> impl Iterator<Item = (&str, &CaseId, &Verdict)> {
        self.verdicts
            .iter()
            .filter(|((_, case), verdict)| verdict.status.is_failure(self.is_pinned(case)))
            .map(|((port, case), verdict)| (port.as_str(), case, verdict))
    }
}

/// The exit code a run's results imply: 3, then 1, then 0 (2 is the caller's, decided before
/// anything runs).
///
/// - 3: a port is broken (its [`PortInfo`] says so, or any verdict is `broken`), or a port in
///   `required` is unavailable or missing from the results;
/// - 1: any verdict [`Status::is_failure`] (other than `broken`), or any expectation error;
/// - 0: otherwise.
pub fn exit_code(results: &Results, required: &BTreeSet<PortId>) -> ExitCode {
    let broken = results
        .ports
        .values()
        .any(|info| matches!(info.status, PortStatus::Broken { .. }))
        || results
            .verdicts
            .values()
            .any(|verdict| verdict.status == Status::Broken);
    let required_missing = required.iter().any(|port| match results.ports.get(port) {
        None => true,
        Some(info) => matches!(info.status, PortStatus::Unavailable { .. }),
    });
    if broken || required_missing {
        ExitCode::PortTrouble
    } else if results.failures().next().is_some() || !results.expectation_errors.is_empty() {
        ExitCode::Divergence
    } else {
        ExitCode::Ok
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::session::HandshakeProblem;

    fn id(text: &str) -> CaseId {
        CaseId::parse(text).unwrap()
    }

    fn golden_value() -> Value {
        json!({"prompt": "p", "loads": [{"name": "a", "isError": false, "output": "x"}]})
    }

    fn golden() -> String {
        to_canonical_string(&golden_value())
    }

    fn entries(text: &str) -> Vec<ExpectedEntry> {
        expected::parse_expected(Path::new("adapters/python/expected.toml"), text).unwrap()
    }

    fn reply(normalized: Value) -> Outcome {
        let mut raw = normalized.clone();
        raw["case"] = json!("g/c");
        Outcome::Reply { raw, normalized }
    }

    fn judge(pinned: bool, outcome: Outcome, expected: &[ExpectedEntry]) -> Verdict {
        let golden = golden();
        judge_trial(TrialInput {
            port: "python",
            case: &id("g/c"),
            pinned,
            golden: &golden,
            outcome,
            expected,
            port_version: Some("0.21.0"),
            stderr_tail: Some("warn\n".into()),
            duration_ms: Some(12),
        })
    }

    fn wrong() -> Value {
        json!({"prompt": "q", "loads": [{"name": "a", "isError": false, "output": "x"}]})
    }

    #[test]
    fn fingerprint_is_fnv1a_64_in_hex() {
        assert_eq!(fingerprint(""), "cbf29ce484222325");
        assert_eq!(fingerprint("a"), "af63dc4c8601ec8c");
        assert_eq!(fingerprint("foobar"), "85944171f73967e8");
        assert_eq!(fingerprint("x").len(), FINGERPRINT_LEN);
    }

    #[test]
    fn equal_is_pass_with_evidence() {
        let verdict = judge(true, reply(golden_value()), &[]);
        assert_eq!(verdict.status, Status::Pass);
        let evidence = &verdict.evidence;
        assert_eq!(evidence.actual.as_deref(), Some(golden().as_str()));
        assert_eq!(evidence.fingerprint, Some(fingerprint(&golden())));
        assert_eq!(evidence.raw.as_ref().unwrap()["case"], json!("g/c"));
        assert_eq!(evidence.stderr_tail.as_deref(), Some("warn\n"));
        assert_eq!(evidence.duration_ms, Some(12));
        assert_eq!(
            evidence.repro,
            "skill-conform run --port python -- --exact python::g/c"
        );
        assert!(evidence.mismatches.is_empty());
    }

    #[test]
    fn equal_with_a_matching_entry_is_unexpected_pass() {
        let expected = entries("[[divergence]]\ncases = \"g/*\"\nreason = \"r\"\n");
        let verdict = judge(false, reply(golden_value()), &expected);
        assert_eq!(verdict.status, Status::UnexpectedPass);
        assert_eq!(verdict.evidence.expected.as_ref().unwrap().entry, 1);
        assert!(verdict.status.is_failure(false));
    }

    #[test]
    fn pinned_mismatch_is_fail_and_unpinned_is_gap() {
        let fail = judge(true, reply(wrong()), &[]);
        assert_eq!(fail.status, Status::Fail);
        assert_eq!(fail.evidence.mismatches.len(), 1);
        assert_eq!(fail.evidence.mismatches[0].pointer, "/prompt");
        let gap = judge(false, reply(wrong()), &[]);
        assert_eq!(gap.status, Status::Gap);
        assert_eq!(gap.evidence.fingerprint, fail.evidence.fingerprint);
    }

    #[test]
    fn entry_with_same_or_no_fingerprint_is_expected_fail() {
        let print = fingerprint(&to_canonical_string(&wrong()));
        for fingerprint_line in [String::new(), format!("fingerprint = \"{print}\"\n")] {
            let expected = entries(&format!(
                "[[divergence]]\ncases = \"g/c\"\nreason = \"r\"\nlink = \"l\"\n{fingerprint_line}"
            ));
            for pinned in [true, false] {
                let verdict = judge(pinned, reply(wrong()), &expected);
                assert_eq!(verdict.status, Status::ExpectedFail, "{fingerprint_line}");
                let matched = verdict.evidence.expected.unwrap();
                assert_eq!(matched.reason, "r");
                assert_eq!(matched.link.as_deref(), Some("l"));
                assert!(!matched.fingerprint_changed);
            }
        }
    }

    #[test]
    fn entry_with_another_fingerprint_leaves_fail_or_gap() {
        let expected = entries(
            "[[divergence]]\ncases = \"g/c\"\nreason = \"r\"\nfingerprint = \"0000000000000000\"\n",
        );
        let fail = judge(true, reply(wrong()), &expected);
        assert_eq!(fail.status, Status::Fail);
        let matched = fail.evidence.expected.unwrap();
        assert!(matched.fingerprint_changed);
        assert_eq!(matched.fingerprint.as_deref(), Some("0000000000000000"));
        let gap = judge(false, reply(wrong()), &expected);
        assert_eq!(gap.status, Status::Gap);
        assert!(gap.evidence.expected.unwrap().fingerprint_changed);
    }

    #[test]
    fn entry_out_of_version_range_does_not_apply() {
        let expected =
            entries("[[divergence]]\ncases = \"g/c\"\nreason = \"r\"\nversions = \"<0.20\"\n");
        let verdict = judge(true, reply(wrong()), &expected);
        assert_eq!(verdict.status, Status::Fail);
        assert!(verdict.evidence.expected.is_none());
    }

    #[test]
    fn error_reply_is_error_unless_the_golden_is_an_error() {
        let raw = json!({"case": "g/c", "error": "boom"});
        let outcome = Outcome::Reply {
            raw: raw.clone(),
            normalized: json!({}),
        };
        let verdict = judge(true, outcome.clone(), &[]);
        assert_eq!(verdict.status, Status::Error);
        assert_eq!(verdict.evidence.adapter_error.as_deref(), Some("boom"));
        assert_eq!(verdict.evidence.actual, None);
        assert!(verdict.evidence.fingerprint.is_some());
        assert!(!judge(false, outcome.clone(), &[]).status.is_failure(false));

        let expected = entries("[[divergence]]\ncases = \"g/c\"\nreason = \"throws\"\n");
        assert_eq!(
            judge(true, outcome.clone(), &expected).status,
            Status::ExpectedFail
        );

        let golden = to_canonical_string(&json!({"error": "the reference refuses"}));
        let verdict = judge_trial(TrialInput {
            port: "python",
            case: &id("g/c"),
            pinned: true,
            golden: &golden,
            outcome,
            expected: &[],
            port_version: None,
            stderr_tail: None,
            duration_ms: None,
        });
        assert_eq!(verdict.status, Status::Pass);
    }

    #[test]
    fn faults_and_vacuous_cases() {
        let timeout = judge(
            true,
            Outcome::Fault(FaultDetails::new(FaultKind::Timeout, Phase::Run)),
            &[],
        );
        assert_eq!(timeout.status, Status::Timeout);
        assert_eq!(timeout.evidence.fault.unwrap().kind, FaultKind::Timeout);
        let broken = judge(
            true,
            Outcome::Fault(FaultDetails::new(FaultKind::Exited, Phase::Handshake)),
            &[],
        );
        assert_eq!(broken.status, Status::Broken);
        let vacuous = judge(
            true,
            Outcome::Vacuous {
                reason: "case-insensitive filesystem".into(),
            },
            &[],
        );
        assert_eq!(vacuous.status, Status::Vacuous);
        assert_eq!(
            vacuous.evidence.reason.as_deref(),
            Some("case-insensitive filesystem")
        );
    }

    #[test]
    fn fault_evidence_converts_with_its_data() {
        let evidence = FaultEvidence {
            fault: Fault::Timeout {
                after: Duration::from_millis(10_000),
            },
            phase: Phase::Run,
            case: Some("g/c".into()),
            stderr_tail: StderrTail {
                text: "slow\n".into(),
                total_bytes: 5,
            },
            restart_failed: Some(Box::new(FaultEvidence {
                fault: Fault::BadHandshake {
                    reason: HandshakeProblem::WrongProtocol {
                        expected: 1,
                        got: 2,
                    },
                },
                phase: Phase::Handshake,
                case: None,
                stderr_tail: StderrTail::default(),
                restart_failed: None,
            })),
        };
        let details = FaultDetails::from(&evidence);
        assert_eq!(details.timeout_ms, Some(10_000));
        let restart = details.restart_failed.unwrap();
        assert_eq!(restart.kind, FaultKind::BadHandshake);
        assert_eq!(
            restart.problem,
            Some(json!({"problem": "wrong-protocol", "expected": 1, "got": 2}))
        );
        assert_eq!(
            stderr_text(&evidence.stderr_tail).as_deref(),
            Some("slow\n")
        );
        assert_eq!(stderr_text(&StderrTail::default()), None);
    }

    #[test]
    fn repeats_that_differ_are_nondeterministic() {
        let first = judge(true, reply(golden_value()), &[]);
        let same = judge(true, reply(golden_value()), &[]);
        assert_eq!(
            judge_repeats(vec![first.clone(), same]).unwrap().status,
            Status::Pass
        );
        let other = judge(true, reply(wrong()), &[]);
        let verdict = judge_repeats(vec![first, other]).unwrap();
        assert_eq!(verdict.status, Status::Nondeterministic);
        assert_eq!(verdict.evidence.mismatches[0].pointer, "/prompt");
        assert_eq!(judge_repeats(Vec::new()), None);
    }

    #[test]
    fn raw_differences_are_classified_after_root_redaction() {
        let a = json!({"inventory": {"skills": [{"location": "/s1/r/a"}, {"location": "/s1/r/b"}], "skipped": []}});
        let same = json!({"inventory": {"skills": [{"location": "/s2/r/a"}, {"location": "/s2/r/b"}], "skipped": []}});
        let reordered = json!({"inventory": {"skills": [{"location": "/s2/r/b"}, {"location": "/s2/r/a"}], "skipped": []}});
        let detail = json!({"inventory": {"skills": [{"location": "/s2/r/a"}, {"location": "/s2/r/b"}], "skipped": []}, "x": 1});
        let (r1, r2) = (vec!["/s1/r".to_owned()], vec!["/s2/r".to_owned()]);
        assert_eq!(raw_difference(&[(&a, &r1), (&same, &r2)]), None);
        assert_eq!(
            raw_difference(&[(&a, &r1), (&reordered, &r2)]),
            Some(RawDifference::InventoryOrder)
        );
        assert_eq!(
            raw_difference(&[(&a, &r1), (&detail, &r2)]),
            Some(RawDifference::UncomparedFields)
        );
        assert_eq!(raw_difference(&[]), None);
    }

    fn verdict(status: Status) -> Verdict {
        Verdict {
            status,
            evidence: Evidence {
                repro: "r".into(),
                ..Evidence::default()
            },
        }
    }

    fn results(pinned_status: Status, unpinned_status: Status) -> Results {
        let mut results = Results::new();
        results.add_port(PortInfo::available("python"));
        results.add_case(
            id("g/pinned"),
            CaseInfo {
                pinned: true,
                rules: vec!["§1".into()],
            },
        );
        results.add_case(
            id("g/hazard"),
            CaseInfo {
                pinned: false,
                rules: vec!["§1".into()],
            },
        );
        results.insert("python", id("g/pinned"), verdict(pinned_status));
        results.insert("python", id("g/hazard"), verdict(unpinned_status));
        results
    }

    /// `results` with one stale `expected.toml` entry.
    fn with_stale_entry(mut results: Results) -> Results {
        results.expectation_errors.push(ExpectationProblem {
            port: "python".into(),
            message: ExpectationError::NoMatch {
                path: "adapters/python/expected.toml".into(),
                entry: 1,
                glob: "gone/*".into(),
            }
            .to_string(),
        });
        results
    }

    #[test]
    fn exit_code_precedence() {
        let none = BTreeSet::new();
        let ok = results(Status::Pass, Status::Gap);
        assert_eq!(exit_code(&ok, &none), ExitCode::Ok);
        assert_eq!(
            exit_code(&results(Status::ExpectedFail, Status::Timeout), &none),
            ExitCode::Ok
        );
        for failing in [
            Status::Fail,
            Status::Error,
            Status::Crash,
            Status::Nondeterministic,
        ] {
            assert_eq!(
                exit_code(&results(failing, Status::Pass), &none),
                ExitCode::Divergence,
                "{failing}"
            );
        }
        assert_eq!(
            exit_code(&results(Status::Pass, Status::UnexpectedPass), &none),
            ExitCode::Divergence
        );
        assert_eq!(
            exit_code(&with_stale_entry(ok.clone()), &none),
            ExitCode::Divergence
        );

        // 3 beats 1: a broken port, a broken verdict, or a required port unavailable.
        let mut broken = with_stale_entry(results(Status::Fail, Status::Pass));
        broken.ports.get_mut("python").unwrap().status = PortStatus::Broken {
            evidence: Box::default(),
        };
        assert_eq!(exit_code(&broken, &none), ExitCode::PortTrouble);
        assert_eq!(
            exit_code(
                &with_stale_entry(results(Status::Fail, Status::Broken)),
                &none
            ),
            ExitCode::PortTrouble
        );
        let mut unavailable = results(Status::Unavailable, Status::Unavailable);
        unavailable.ports.get_mut("python").unwrap().status = PortStatus::Unavailable {
            reason: "python3 not found".into(),
        };
        assert_eq!(exit_code(&unavailable, &none), ExitCode::Ok);
        let required = BTreeSet::from(["python".to_owned()]);
        assert_eq!(exit_code(&unavailable, &required), ExitCode::PortTrouble);
        let missing = BTreeSet::from(["java".to_owned()]);
        assert_eq!(exit_code(&ok, &missing), ExitCode::PortTrouble);
    }

    #[test]
    fn port_kinds_from_names_and_info() {
        assert_eq!(PortKind::of_name("reference"), PortKind::Reference);
        assert_eq!(PortKind::of_name("mutant-no-bom"), PortKind::Mutant);
        assert_eq!(PortKind::of_name("python"), PortKind::Real);
        let mut results = Results::new();
        let mut info = PortInfo::available("odd");
        info.kind = PortKind::Mutant;
        results.add_port(info);
        assert_eq!(results.port_kind("odd"), PortKind::Mutant);
        assert_eq!(results.port_kind("js"), PortKind::Real);
    }
}
