//! The [`Results`] of a run: every verdict by (port, case), what is known about each port
//! ([`PortInfo`], [`PortStatus`]) and case ([`CaseInfo`]), and the expectation problems.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Evidence, PortId, RepeatInfo, Verdict, REFERENCE_PORT};
use crate::case::{CaseId, CaseSpec};

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
    pub(crate) fn of_name(name: &str) -> PortKind {
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, strum::EnumDiscriminants)]
#[strum_discriminants(
    name(PortState),
    derive(strum::EnumIter),
    doc = "A [`PortStatus`] without its data: the state the tables name."
)]
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

impl PortState {
    /// Every port state, enumerated by the compiler.
    pub fn all() -> impl Iterator<Item = PortState> {
        <PortState as strum::IntoEnumIterator>::iter()
    }

    /// The state's word on the terminal, in summary.md, the merged matrix and `report.json`'s
    /// `state`.
    pub fn word(self) -> &'static str {
        match self {
            PortState::Available => "available",
            PortState::Unavailable => "unavailable",
            PortState::Broken => "broken",
        }
    }

    /// What the state does to the exit code.
    pub(crate) fn exit_effect(self) -> &'static str {
        match self {
            PortState::Available => "none",
            PortState::Unavailable => "3 only when `--require`d; its cases are `unavailable`",
            PortState::Broken => "3; its cases are `broken` (given up after `--max-timeouts` timeouts in a row: those `timeout`, the rest `not-run`)",
        }
    }
}

impl PortStatus {
    /// The state's word ([`PortState::word`]).
    pub fn word(&self) -> &'static str {
        PortState::from(self).word()
    }
}

/// What a port's hello said about it, as every report keeps it (each field left out when
/// unknown or empty).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HelloFacts {
    /// The library version (`0.21.0`), or `[VERSION]` in a redacted report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_version: Option<String>,
    /// The runtime (`CPython 3.11.7`), or `[VERSION]` in a redacted report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// Further libraries the port loads SKILL.md with (its YAML parser), with their versions.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub libraries: BTreeMap<String, String>,
}

impl HelloFacts {
    /// The facts of a hello reply.
    pub fn of(hello: &crate::session::HelloReply) -> HelloFacts {
        HelloFacts {
            library_version: Some(hello.version.clone()),
            runtime: Some(hello.runtime.clone()),
            libraries: hello.libraries.clone(),
        }
    }
}

/// What the run knows about one port.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortInfo {
    pub name: PortId,
    pub kind: PortKind,
    /// What its hello said (nothing before the hello, or without one).
    #[serde(flatten)]
    pub hello: HelloFacts,
    /// Where the library came from: `registry, 0.21.0 (pinned in adapters/ports.toml)`,
    /// `registry, @0.18.1 (asked for)`, `checkout PATH at COMMIT`; absent for the reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
    pub status: PortStatus,
    /// How write-restricted its adapter ran (`none` where Landlock is unavailable); absent for
    /// a port whose adapter never started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub isolation: Option<crate::isolate::Isolation>,
}

impl PortInfo {
    /// An available port of the kind its name implies, with no version known yet.
    pub fn available(name: impl Into<PortId>) -> PortInfo {
        let name = name.into();
        PortInfo {
            kind: PortKind::of_name(&name),
            name,
            hello: HelloFacts::default(),
            origin: None,
            status: PortStatus::Available,
            isolation: None,
        }
    }
}

/// What the reports need to know about a case.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CaseInfo {
    pub pinned: bool,
    /// The contract rule ids it tests (`TN-YAML-7`; see `crates/skill-ref/CONTRACT.md`).
    pub rules: Vec<String>,
    /// SHA-256 of the committed golden the run compared against (hex), so `skill-conform diff`
    /// can tell a moved spec from a regression; absent in older reports.
    #[serde(
        default,
        rename = "goldenSha256",
        skip_serializing_if = "Option::is_none"
    )]
    pub golden_sha256: Option<String>,
}

impl From<&CaseSpec> for CaseInfo {
    fn from(spec: &CaseSpec) -> CaseInfo {
        CaseInfo {
            pinned: spec.pinned,
            rules: spec.rules.clone(),
            golden_sha256: None,
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
    /// Guarded files that changed during the run (`changed PATH`, `added PATH`, `removed
    /// PATH`, sorted); any makes the run `tampered` (exit 3).
    pub tampered: Vec<String>,
    /// The signal that cut the run short; the verdicts are what was judged before it.
    pub interrupted: Option<crate::interrupt::Interruption>,
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

    /// The rule ids the case tests (none for a case that was never added).
    pub fn rules(&self, case: &CaseId) -> &[String] {
        self.cases
            .get(case)
            .map_or(&[], |info| info.rules.as_slice())
    }

    /// The kind of a port: from its [`PortInfo`], else from its name.
    pub(crate) fn port_kind(&self, port: &str) -> PortKind {
        self.ports
            .get(port)
            .map_or_else(|| PortKind::of_name(port), |info| info.kind)
    }

    /// Every port named by a [`PortInfo`] or a verdict, sorted by name.
    pub(crate) fn port_names(&self) -> BTreeSet<&str> {
        self.ports
            .keys()
            .map(String::as_str)
            .chain(self.verdicts.keys().map(|(port, _)| port.as_str()))
            .collect()
    }

    /// Every case named by a [`CaseInfo`] or a verdict, sorted.
    pub(crate) fn case_ids(&self) -> BTreeSet<&CaseId> {
        self.cases
            .keys()
            .chain(self.verdicts.keys().map(|(_, case)| case))
            .collect()
    }

    /// One port's verdicts, by case (for [`draft_expected`](super::expected::draft_expected)).
    pub fn port_verdicts<'a>(
        &'a self,
        port: &'a str,
    ) -> impl Iterator<Item = (&'a CaseId, &'a Verdict)> + 'a {
        self.verdicts
            .iter()
            .filter(move |((verdict_port, _), _)| verdict_port == port)
            .map(|((_, case), verdict)| (case, verdict))
    }

    /// The verdicts that make the run fail ([`Status::is_failure`](super::Status::is_failure)), in (port, case) order.
    pub fn failures(&self) -> impl Iterator<Item = (&str, &CaseId, &Verdict)> {
        self.verdicts
            .iter()
            .filter(|((_, case), verdict)| verdict.status.is_failure(self.is_pinned(case)))
            .map(|((port, case), verdict)| (port.as_str(), case, verdict))
    }
}
