//! The Agent Skills profile's wire model: what the reference (and every adapter of the profile)
//! returns for one case. The JSON shape is documented in `AGENTSKILLS.md` and
//! `adapters/PROTOCOL.md`; goldens are these types in canonical JSON.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::rule::Rule;

/// Whether a `SKILL.md` meets the specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Valid,
    Invalid,
}

/// The frontmatter's properties as read. A field is `null` when absent, null, or not of the type
/// the specification gives it (the violation says which).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Properties {
    pub name: Option<String>,
    pub description: Option<String>,
    pub license: Option<String>,
    pub compatibility: Option<String>,
    pub metadata: Option<BTreeMap<String, String>>,
    #[serde(rename = "allowed-tools")]
    pub allowed_tools: Option<String>,
}

/// The verdict on one skill directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Report {
    /// `valid` exactly when `violations` is empty.
    pub verdict: Verdict,
    /// `null` when no frontmatter mapping could be read.
    pub properties: Option<Properties>,
    /// Every rule broken, sorted by code, each once.
    pub violations: Vec<Rule>,
    /// The frontmatter keys the specification does not define, sorted by code point.
    #[serde(rename = "unknownFields")]
    pub unknown_fields: Vec<String>,
}

impl Report {
    /// A report from its parts; the verdict follows from the violations, which are sorted.
    pub fn new(
        properties: Option<Properties>,
        mut violations: Vec<Rule>,
        mut unknown_fields: Vec<String>,
    ) -> Report {
        violations.sort();
        violations.dedup();
        unknown_fields.sort();
        unknown_fields.dedup();
        let verdict = if violations.is_empty() {
            Verdict::Valid
        } else {
            Verdict::Invalid
        };
        Report {
            verdict,
            properties,
            violations,
            unknown_fields,
        }
    }

    /// A report for a file whose frontmatter could not be read at all.
    pub fn unreadable(rule: Rule) -> Report {
        Report::new(None, vec![rule], Vec::new())
    }
}

/// One skill of a case: its directory (relative to the case's `skills/`) and its report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SkillReport {
    pub dir: String,
    #[serde(flatten)]
    pub report: Report,
}

/// Everything one case produces: the profile's `run` reply without `case`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct CaseOutput {
    /// One report per skill directory, in code-point order of `dir`.
    pub skills: Vec<SkillReport>,
    /// The `<available_skills>` prompt of the valid skills.
    pub prompt: String,
}
