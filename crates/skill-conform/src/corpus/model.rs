//! The typed `corpus.json`: [`CorpusReport`] and the types it holds, and its JSON Schema.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::{FaultDetails, HelloFacts, PortKind};
/// The state of a port in the report: `ok` is the only state in which every part of its reply
/// was compared; each other state names what was not (see [`PortState::meaning`]).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
pub enum PortState {
    Ok,
    Partial,
    Unavailable,
    Broken,
    Fault,
    Error,
}

impl PortState {
    /// Every state, in declaration order (the vocabulary table's rows).
    pub fn all() -> impl Iterator<Item = PortState> {
        <PortState as strum::IntoEnumIterator>::iter()
    }

    /// The word `corpus.json` writes.
    pub fn word(self) -> &'static str {
        match self {
            PortState::Ok => "ok",
            PortState::Partial => "partial",
            PortState::Unavailable => "unavailable",
            PortState::Broken => "broken",
            PortState::Fault => "fault",
            PortState::Error => "error",
        }
    }

    /// What the state means, for the README table.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            PortState::Ok => "compared: inventory, prompt and every load",
            PortState::Partial => {
                "inventory and prompt compared; some loads not compared (listed with why)"
            }
            PortState::Unavailable => "not compared: toolchain or package missing",
            PortState::Broken => "not compared: did not start, or failed the smoke pair",
            PortState::Fault => {
                "not compared: crashed, hung, broke the protocol or went over the cap on the first request (inventory and prompt)"
            }
            PortState::Error => "not compared: answered the first request with `error`",
        }
    }

    /// What the state does to the exit code.
    pub(crate) fn exit_effect(self) -> &'static str {
        match self {
            PortState::Ok => "none (1 with `--fail-on-disagreement` when it disagrees)",
            PortState::Unavailable => {
                "3 when named with `--port`/`--adapter`; from the default selection, listed only"
            }
            PortState::Partial | PortState::Broken | PortState::Fault | PortState::Error => "3",
        }
    }

    /// Whether every part of the port's reply was compared.
    pub fn compared(self) -> bool {
        self == PortState::Ok
    }
}

/// Why some loads of a port that answered were not compared.
#[derive(
    Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, strum::EnumDiscriminants,
)]
#[serde(tag = "why", rename_all = "kebab-case")]
#[strum_discriminants(name(NotComparedKind), derive(strum::EnumIter))]
pub enum NotComparedWhy {
    /// The load alone (a batch of one name) made a reply line longer than the cap.
    OverTheCap { cap: u64 },
    /// The batch holding these loads crashed, hung or broke the protocol.
    Fault { fault: FaultDetails },
    /// The batch holding these loads was answered with `error`.
    ErrorReply { message: String },
}

impl NotComparedKind {
    /// Every kind, in declaration order (the vocabulary table's rows).
    pub fn all() -> impl Iterator<Item = NotComparedKind> {
        <NotComparedKind as strum::IntoEnumIterator>::iter()
    }

    /// The word `corpus.json` writes under `why`.
    pub fn word(self) -> &'static str {
        match self {
            NotComparedKind::OverTheCap => "over-the-cap",
            NotComparedKind::Fault => "fault",
            NotComparedKind::ErrorReply => "error-reply",
        }
    }

    /// What it means, for the README table.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            NotComparedKind::OverTheCap => {
                "the load alone made a reply longer than the line cap (`--line-cap` raises it)"
            }
            NotComparedKind::Fault => {
                "the request holding the load crashed, hung or broke the protocol"
            }
            NotComparedKind::ErrorReply => "the request holding the load was answered with `error`",
        }
    }
}

/// Loads of one port not compared, for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UncomparedLoads {
    pub why: NotComparedWhy,
    /// The requested names, in request order.
    pub names: Vec<String>,
}

/// Something the reference's walk could not read under the roots: it read less there, and so
/// may every port.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WalkWarning {
    pub kind: WalkWarningKind,
    /// Redacted (`{root0}/…`); bytes that are not UTF-8 are written `\xNN`.
    pub location: String,
    /// The operating system's error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What a [`WalkWarning`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WalkWarningKind {
    /// A folder whose listing could not be read: walked as empty.
    UnreadableFolder,
    /// A symbolic link that could not be followed (a loop, a name too long): ignored.
    UnfollowableLink,
    /// A name that is not UTF-8: the wire spells it with U+FFFD.
    NotUtf8Name,
}

/// One port's line of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortSummary {
    pub kind: PortKind,
    pub state: PortState,
    /// Named with `--port`/`--adapter` (or the reference); `false`: from the default selection,
    /// where being unavailable does not change the exit code. Format 1 had no such field.
    #[serde(default)]
    pub selected: bool,
    /// Why it is unavailable, or the adapter's error message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
    /// What its hello said.
    #[serde(flatten)]
    pub hello: HelloFacts,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultDetails>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// 1-based index into [`CorpusReport::clusters`] (ports that answered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<usize>,
    /// Skips by reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<BTreeMap<String, usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loads: Option<LoadsSummary>,
    /// The prompt's first difference from the reference's (absent when equal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_difference: Option<FirstDifference>,
    /// `true`: every part compared and equal to the reference's; `false`: some compared part
    /// differs; absent: not (fully) compared and nothing compared differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agrees_with_reference: Option<bool>,
}

/// How a port's loads compare with the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadsSummary {
    /// Loads the port returned and that were compared.
    pub count: usize,
    /// Every load that differs, in request order.
    pub differences: Vec<LoadDifference>,
    /// The loads that could not be compared, grouped by why (format 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_compared: Vec<UncomparedLoads>,
    /// How many `run` requests carried the loads (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<usize>,
}

/// One load that differs from the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadDifference {
    /// The requested name.
    pub name: String,
    /// The first field that differs: `name`, `isError`, `output`, or `load` (one side has no
    /// load at this position).
    pub field: String,
    pub at: FirstDifference,
}

/// The first line where two texts differ.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FirstDifference {
    /// 1-based.
    pub line: usize,
    /// The reference's line (cut to [`LINE_CHARS`](super::LINE_CHARS)); absent when its text ends earlier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// The port's line; absent when its text ends earlier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
}

/// Ports whose normalised inventories are byte-identical.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryCluster {
    /// In display order (reference, real ports, mutants; each by name).
    pub ports: Vec<String>,
    pub matches_reference: bool,
    /// [`fingerprint`](crate::judge::fingerprint) of the canonical inventory.
    pub fingerprint: String,
}

/// What one port says about one `SKILL.md` location.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum LocationVerdict {
    Accepted { name: Value, description: Value },
    Skipped { reason: Value },
}

/// A location the ports disagree about.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LocationRow {
    /// Redacted (`{root0}/…/SKILL.md`).
    pub location: String,
    /// The reference accepts it and some port does not: always shown.
    pub reference_accepts_port_drops: bool,
    /// Per answering port, its entries for the location (empty: not listed).
    pub verdicts: BTreeMap<String, Vec<LocationVerdict>>,
}

/// An accepted name whose winning copy differs between ports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateRow {
    pub name: String,
    /// Per answering port, the locations it accepted the name at (empty: not accepted).
    pub winners: BTreeMap<String, Vec<String>>,
}

/// Everything `corpus` found: `corpus.json` is this, canonical.
///
/// Format policy (as for `report.json`): `format` names the shape of this file. Fields added
/// later (optional, or with a default) do not bump it; renaming, removing or retyping a field
/// does. Readers ([`read`](super::read)) accept the current format and the previous one.
///
/// Format 2 (this one) replaced format 1's `agreement` (which held even when a port was not
/// compared) with `complete` and `disagreement`, and added `lineCap`, `warnings`, the
/// `partial` state, `selected` and the loads' `notCompared`. A format 1 file reads with
/// `agreement` kept, `complete` and `disagreement` false.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorpusReport {
    pub format: u32,
    /// The roots as requested (absolute, not canonicalised): `{rootN}` is `roots[N]`.
    pub roots: Vec<String>,
    /// How many names each port loaded.
    pub load_count: usize,
    /// The longest reply line accepted, in bytes (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_cap: Option<u64>,
    /// What the reference's walk could not read under the roots, by location (format 2).
    #[serde(default)]
    pub warnings: Vec<WalkWarning>,
    pub ports: BTreeMap<String, PortSummary>,
    pub clusters: Vec<InventoryCluster>,
    /// In location order.
    pub disagreements: Vec<LocationRow>,
    /// In name order.
    pub duplicates: Vec<DuplicateRow>,
    /// Every selected port, and every part of its reply, was compared (format 2; a selected
    /// port is one in a state other than `unavailable`, or one named with `--port`).
    #[serde(default)]
    pub complete: bool,
    /// Some compared part of some port's reply differs from the reference's (format 2).
    #[serde(default)]
    pub disagreement: bool,
    /// Format 1 only, never written: "every port that ran agrees", which held even when a
    /// port was not compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agreement: Option<bool>,
}

impl CorpusReport {
    /// Ports in display order: reference, real ports, mutants, each by name.
    pub(crate) fn port_order(&self) -> Vec<&str> {
        display_order(self.ports.iter().map(|(name, s)| (name.as_str(), s.kind)))
    }

    /// Ports some compared part of whose reply differs from the reference's, in display order.
    pub fn disagreeing(&self) -> Vec<&str> {
        self.port_order()
            .into_iter()
            .filter(|port| self.ports[*port].agrees_with_reference == Some(false))
            .collect()
    }

    /// Ports whose not being (fully) compared makes the run incomplete, in display order.
    pub(crate) fn incomplete(&self) -> Vec<&str> {
        self.port_order()
            .into_iter()
            .filter(|port| counts_as_not_compared(&self.ports[*port]))
            .collect()
    }
}

/// A port not fully compared that makes the exit code 3: any state but `ok`, except an
/// `unavailable` port from the default selection.
pub(super) fn counts_as_not_compared(summary: &PortSummary) -> bool {
    match summary.state {
        PortState::Ok => false,
        PortState::Unavailable => summary.selected,
        _ => true,
    }
}

pub(super) fn display_order<'a>(ports: impl Iterator<Item = (&'a str, PortKind)>) -> Vec<&'a str> {
    let mut ports: Vec<(&str, PortKind)> = ports.collect();
    ports.sort_by_key(|(name, kind)| (*kind, *name));
    ports.into_iter().map(|(name, _)| name).collect()
}

/// The JSON Schema (draft 2020-12) of `corpus.json` ([`CorpusReport`]); its `format` follows
/// the policy of `report.json` (see [`crate::report::format`]).
pub fn schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
    generator.into_root_schema_for::<CorpusReport>().to_value()
}
