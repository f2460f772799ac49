//! The wire model: what the reference (and every adapter) returns for one case.
//!
//! These types are the body of the adapter protocol's `run` reply, minus its `case` field. The
//! runner deserialises adapter replies into `serde_json::Value` rather than into these types, so
//! that an adapter's extra or missing fields are seen, not silently dropped. With the `schema`
//! feature they derive `schemars::JsonSchema`: the protocol's JSON Schema is generated from them.

use serde::{Deserialize, Serialize};

/// Why a candidate `SKILL.md` did not become a skill: the four reasons of `CONTRACT.md`, exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum SkipReason {
    MissingName,
    MalformedFrontmatter,
    DuplicateName,
    Unreadable,
}

impl SkipReason {
    /// The reason as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::MissingName => "missing-name",
            SkipReason::MalformedFrontmatter => "malformed-frontmatter",
            SkipReason::DuplicateName => "duplicate-name",
            SkipReason::Unreadable => "unreadable",
        }
    }
}

/// One accepted skill as the inventory lists it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkillEntry {
    pub name: String,
    /// Absent is JSON `null` (never omitted), which is not the empty string.
    #[cfg_attr(feature = "schema", schemars(required))]
    pub description: Option<String>,
    /// The absolute path of the `SKILL.md` as discovered (symlinks not resolved).
    pub location: String,
}

/// One candidate that did not become a skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Skip {
    pub location: String,
    pub reason: SkipReason,
    /// The parser's own words, or `null`; reported, never compared.
    #[cfg_attr(feature = "schema", schemars(required))]
    pub detail: Option<String>,
}

/// The unfiltered inventory: accepted skills in discovery order, then the skips in candidate order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Inventory {
    /// Accepted skills in discovery order.
    pub skills: Vec<SkillEntry>,
    /// Candidates that did not become skills, in candidate order.
    pub skipped: Vec<Skip>,
}

/// One call of the `skill` tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Load {
    pub name: String,
    #[serde(rename = "isError")]
    pub is_error: bool,
    pub output: String,
}

/// The `skill` tool's declaration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ToolDeclaration {
    pub name: String,
    pub description: String,
    #[serde(rename = "inputSchema")]
    pub input_schema: serde_json::Value,
}

/// Everything one case produces: the protocol's `run` reply without `case`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Output {
    pub inventory: Inventory,
    pub loads: Vec<Load>,
    pub prompt: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<ToolDeclaration>,
}
