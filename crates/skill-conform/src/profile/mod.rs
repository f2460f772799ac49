//! Contract profiles: which contract a port, a fixture and a golden belong to.
//!
//! A [`Profile`] names its rules, its fixtures, its goldens, its smoke pair and the shape of a
//! reply. `toolnexus` is the default and owns the top of the layout; every other profile lives
//! in a subdirectory named after it, at the group level of both trees:
//!
//! | profile      | fixtures                                   | goldens                                  |
//! |--------------|--------------------------------------------|------------------------------------------|
//! | `toolnexus`  | `conformance-fixtures/<group>/<case>/`     | `goldens/<group>/<case>.json`, `TABLE.md` |
//! | `agentskills`| `conformance-fixtures/agentskills/<group>/<case>/` | `goldens/agentskills/<group>/<case>.json`, its own `TABLE.md` and `VERSION` |
//!
//! So a toolnexus group may not be named after another profile ([`Profile::SUBTREES`]):
//! toolnexus discovery and `goldens --write` step over those directories, and toolnexus case
//! ids, trial names and `expected.toml` globs are what they were before profiles existed.

pub mod agentskills;

use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A contract the harness can judge a port against.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// toolnexus's contract (`crates/skill-ref/CONTRACT.md`): the default.
    #[default]
    Toolnexus,
    /// The Agent Skills specification (`crates/skill-ref/AGENTSKILLS.md`).
    Agentskills,
}

/// The parts of a reply a profile compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyShape {
    /// `inventory`, `loads`, `prompt`, `tool` (adapters/PROTOCOL.md, `run`).
    ToolnexusRun,
    /// per skill directory `verdict`, `violations`, `unknownFields`, `properties`; `prompt`
    /// (adapters/PROTOCOL.md, "Profiles").
    AgentskillsReports,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Toolnexus, Profile::Agentskills];

    /// The directory names the non-default profiles own at the group level of the fixture and
    /// golden trees; toolnexus discovery skips them.
    pub(crate) const SUBTREES: [&'static str; 1] = ["agentskills"];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Toolnexus => "toolnexus",
            Profile::Agentskills => "agentskills",
        }
    }

    /// Parses a `--profile` value.
    pub fn parse(text: &str) -> Result<Profile, String> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == text)
            .ok_or_else(|| format!("unknown profile `{text}` (hint: `toolnexus` or `agentskills`)"))
    }

    /// The document holding the profile's rules, relative to the repository root.
    pub fn rules_doc(self) -> &'static str {
        match self {
            Profile::Toolnexus => "crates/skill-ref/CONTRACT.md",
            Profile::Agentskills => "crates/skill-ref/AGENTSKILLS.md",
        }
    }

    /// The profile's own directory below a tree root (`None`: the root itself).
    fn subtree(self) -> Option<&'static str> {
        match self {
            Profile::Toolnexus => None,
            Profile::Agentskills => Some("agentskills"),
        }
    }

    fn under(self, root: PathBuf) -> PathBuf {
        match self.subtree() {
            None => root,
            Some(dir) => root.join(dir),
        }
    }

    /// The profile's fixture directory under a repository root.
    pub fn fixtures(self, repo: &Path) -> PathBuf {
        self.under(repo.join("conformance-fixtures"))
    }

    /// The profile's golden directory under a repository root.
    pub fn goldens(self, repo: &Path) -> PathBuf {
        self.under(repo.join("goldens"))
    }

    /// The smoke pair a port must answer in the profile's reply shape before its cases count:
    /// `None` for toolnexus (observe builds its own valid + skipped pair), two cases (one valid
    /// skill, one invalid) for the others.
    pub(crate) fn smoke_pair(self) -> Option<[&'static str; 2]> {
        match self {
            Profile::Toolnexus => None,
            Profile::Agentskills => Some(["fields/all-valid", "name/uppercase"]),
        }
    }

    pub fn reply_shape(self) -> ReplyShape {
        match self {
            Profile::Toolnexus => ReplyShape::ToolnexusRun,
            Profile::Agentskills => ReplyShape::AgentskillsReports,
        }
    }

    /// True for a directory name another profile owns inside a toolnexus tree.
    pub(crate) fn is_subtree_of_another(name: &str) -> bool {
        Profile::SUBTREES.contains(&name)
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_but_the_default_owns_a_subtree() {
        for profile in Profile::ALL {
            let owns = profile
                .subtree()
                .is_some_and(Profile::is_subtree_of_another);
            assert_eq!(owns, profile != Profile::Toolnexus, "{profile}");
        }
        let repo = Path::new("r");
        assert_eq!(Profile::Toolnexus.goldens(repo), repo.join("goldens"));
        assert_eq!(
            Profile::Agentskills.fixtures(repo),
            repo.join("conformance-fixtures/agentskills")
        );
    }

    #[test]
    fn names_parse_back() {
        for profile in Profile::ALL {
            assert_eq!(Profile::parse(profile.name()), Ok(profile));
        }
        assert!(Profile::parse("agent-skills").unwrap_err().contains("hint"));
    }
}
