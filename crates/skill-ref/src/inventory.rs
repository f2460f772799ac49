//! Discovery and de-duplication (`TN-DISC-4`, `TN-DISC-5`): candidates in depth-then-code-point order per
//! root, roots in caller order, the first candidate with a name wins.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::frontmatter::{self, Parsed};
use crate::mutant::{Config, Mutant};
use crate::order;
use crate::output::{Inventory, SkillEntry, Skip, SkipReason};
use crate::walk::{Found, Walker};

/// An accepted skill with what the tool output needs beyond the inventory entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skill {
    pub entry: SkillEntry,
    /// The skill's directory as discovered (the `SKILL.md`'s parent).
    pub dir: PathBuf,
    /// The body after the fence, trimmed.
    pub body: String,
}

/// The outcome of discovery over every root.
#[derive(Debug, Default)]
pub struct Discovery {
    /// The winners, in discovery order.
    pub skills: Vec<Skill>,
    /// Every skip, in candidate order.
    pub skipped: Vec<Skip>,
    /// Roots that were not directories (a warning each, never a skip).
    pub missing_roots: Vec<PathBuf>,
    /// Names that lost to an earlier candidate, with the loser's location.
    pub duplicates: Vec<(String, String)>,
}

impl Discovery {
    /// The inventory view: entries only.
    pub fn inventory(&self) -> Inventory {
        Inventory {
            skills: self.skills.iter().map(|s| s.entry.clone()).collect(),
            skipped: self.skipped.clone(),
        }
    }
}

/// Orders the candidates of one root: depth ascending, then the relative path by code point.
pub fn order_candidates(config: &Config, candidates: &mut [Found]) {
    let depth = |f: &Found| f.relative.split('/').count();
    candidates.sort_by(|a, b| {
        let by_depth = if config.is(Mutant::NoDepthRule) {
            Ordering::Equal
        } else {
            depth(a).cmp(&depth(b))
        };
        by_depth.then_with(|| order::compare(config, &a.relative, &b.relative))
    });
}

/// Is `name` the candidate file name?
fn is_candidate_name(config: &Config, name: &[u8]) -> bool {
    name == b"SKILL.md"
        || (config.is(Mutant::SkillMdCaseInsensitive) && name.eq_ignore_ascii_case(b"SKILL.md"))
}

/// Walks every root and builds the de-duplicated inventory.
pub fn discover(config: &Config, walker: &Walker, roots: &[PathBuf]) -> Discovery {
    let mut discovery = Discovery::default();
    let mut candidates = Vec::new();
    for root in roots {
        if !root.is_dir() {
            discovery.missing_roots.push(root.clone());
            continue;
        }
        let mut found = walker.walk(
            root,
            false,
            &mut |_, name| is_candidate_name(config, name),
            &mut |_| false,
        );
        order_candidates(config, &mut found);
        candidates.extend(found);
    }
    let parsed: Vec<(Found, Parsed)> = candidates
        .into_iter()
        .map(|found| {
            let parsed = match fs::read(&found.path) {
                Ok(bytes) => frontmatter::parse(config, &bytes),
                Err(error) => Parsed::Rejected {
                    reason: SkipReason::Unreadable,
                    detail: Some(error.to_string()),
                },
            };
            (found, parsed)
        })
        .collect();
    // Which candidate wins each name: the first, or (mutant) the last.
    let mut winner: HashMap<&str, usize> = HashMap::new();
    for (index, (_, parsed)) in parsed.iter().enumerate() {
        if let Parsed::Skill { name, .. } = parsed {
            let slot = winner.entry(name.as_str()).or_insert(index);
            if config.is(Mutant::LastDuplicateWins) {
                *slot = index;
            }
        }
    }
    let mut wins = vec![false; parsed.len()];
    for index in winner.into_values() {
        wins[index] = true;
    }
    for (index, (found, parsed)) in parsed.into_iter().enumerate() {
        let location = path_text(&found.path);
        match parsed {
            Parsed::Skill {
                name,
                description,
                body,
            } => {
                if wins[index] {
                    discovery.skills.push(Skill {
                        entry: SkillEntry {
                            name,
                            description,
                            location,
                        },
                        dir: found
                            .path
                            .parent()
                            .map(Path::to_path_buf)
                            .unwrap_or_default(),
                        body,
                    });
                } else {
                    discovery.duplicates.push((name, location.clone()));
                    discovery.skipped.push(Skip {
                        location,
                        reason: SkipReason::DuplicateName,
                        detail: None,
                    });
                }
            }
            Parsed::Rejected { reason, detail } => discovery.skipped.push(Skip {
                location,
                reason,
                detail,
            }),
        }
    }
    discovery
}

/// A path as the wire writes it.
pub fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
