//! The mutation proof: every deliberately wrong reference variant must be caught by a case.
//!
//! Each case is run once in its sandbox by the reference and by every mutant
//! ([`skill_ref::Mutant`]); a mutant whose compared output differs from the reference's on a
//! case is *killed* by that case. A mutant of a pinned rule must be killed by a pinned case (a
//! hazard alone does not gate CI, so it would not protect the rule); a mutant of a proposal may
//! be killed by any case.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use skill_ref::mutant::RuleKind;
use skill_ref::{Config, Mutant};

use crate::case::{CaseId, CaseSpec};
use crate::error::Error;
use crate::goldens::expected_in;
use crate::sandbox::Sandbox;

/// Which cases killed one mutant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutantOutcome {
    pub mutant: Mutant,
    /// Killing cases in id order, with whether each is pinned.
    pub killed_by: Vec<(CaseId, bool)>,
}

impl MutantOutcome {
    /// Killed as its rule requires: by a pinned case for a pinned rule, by any case otherwise.
    pub fn is_killed(&self) -> bool {
        match self.mutant.kind() {
            RuleKind::Pinned => self.killed_by.iter().any(|(_, pinned)| *pinned),
            RuleKind::Proposal => !self.killed_by.is_empty(),
        }
    }

    /// `NAME killed by CASE, …` or `NAME SURVIVED …`.
    pub fn line(&self) -> String {
        const SHOWN: usize = 6;
        let kind = match self.mutant.kind() {
            RuleKind::Pinned => "",
            RuleKind::Proposal => " (proposal)",
        };
        if !self.is_killed() {
            let why = if self.killed_by.is_empty() {
                "no case notices it".to_owned()
            } else {
                format!(
                    "a pinned rule, but only hazards notice it: {}",
                    self.killed_by
                        .iter()
                        .map(|(id, _)| id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            return format!("{}{kind} SURVIVED ({why})", self.mutant);
        }
        // Pinned killers first: they are the ones that gate CI.
        let mut killers: Vec<&(CaseId, bool)> = self.killed_by.iter().collect();
        killers.sort_by_key(|(id, pinned)| (!pinned, id.clone()));
        let names: Vec<&str> = killers
            .iter()
            .take(SHOWN)
            .map(|(id, _)| id.as_str())
            .collect();
        let more = killers.len().saturating_sub(SHOWN);
        let mut line = format!("{}{kind} killed by {}", self.mutant, names.join(", "));
        if more > 0 {
            let _ = write!(line, " (+{more} more)");
        }
        line
    }
}

/// Runs every mutant over every case.
pub fn run_mutants(cases: &[CaseSpec]) -> Result<Vec<MutantOutcome>, Error> {
    let mut killed: BTreeMap<Mutant, Vec<(CaseId, bool)>> =
        Mutant::ALL.iter().map(|m| (*m, Vec::new())).collect();
    for case in cases {
        let sandbox = Sandbox::prepare(case, false).map_err(|e| Error::Usage(e.to_string()))?;
        if sandbox.vacuous().is_some() {
            continue;
        }
        let expected = expected_in(case, Config::default(), sandbox.roots());
        for mutant in Mutant::ALL {
            if expected_in(case, Config::mutated(*mutant), sandbox.roots()) != expected {
                killed
                    .get_mut(mutant)
                    .expect("every mutant has a slot")
                    .push((case.id.clone(), case.pinned));
            }
        }
    }
    Ok(killed
        .into_iter()
        .map(|(mutant, killed_by)| MutantOutcome { mutant, killed_by })
        .collect())
}
