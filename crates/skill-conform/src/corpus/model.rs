//! The typed `corpus.json`: [`CorpusReport`] and the types it holds, and its JSON Schema.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::judge::{FaultDetails, HelloFacts, PortKind};
/// The state of a port in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PortState {
    Ok,
    Unavailable,
    Broken,
    Fault,
    Error,
}

/// One port's line of the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortSummary {
    pub kind: PortKind,
    pub state: PortState,
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
    /// Same inventory cluster, loads and prompt as the reference (`None`: unavailable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agrees_with_reference: Option<bool>,
}

/// How a port's loads compare with the reference's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadsSummary {
    /// Loads the port returned.
    pub count: usize,
    /// Every load that differs, in request order.
    pub differences: Vec<LoadDifference>,
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
/// does. Readers accept the current format and the previous one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CorpusReport {
    pub format: u32,
    /// The roots as requested (absolute, not canonicalised): `{rootN}` is `roots[N]`.
    pub roots: Vec<String>,
    /// How many names each port loaded.
    pub load_count: usize,
    pub ports: BTreeMap<String, PortSummary>,
    pub clusters: Vec<InventoryCluster>,
    /// In location order.
    pub disagreements: Vec<LocationRow>,
    /// In name order.
    pub duplicates: Vec<DuplicateRow>,
    /// Every port that ran agrees with the reference.
    pub agreement: bool,
}

impl CorpusReport {
    /// Ports in display order: reference, real ports, mutants, each by name.
    pub fn port_order(&self) -> Vec<&str> {
        display_order(self.ports.iter().map(|(name, s)| (name.as_str(), s.kind)))
    }

    /// Ports that ran and disagree with the reference, in display order.
    pub fn disagreeing(&self) -> Vec<&str> {
        self.port_order()
            .into_iter()
            .filter(|port| self.ports[*port].agrees_with_reference == Some(false))
            .collect()
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
