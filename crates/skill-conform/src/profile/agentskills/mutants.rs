//! `skill-conform mutants --profile agentskills`: every deliberately wrong variant of the
//! profile's reference (`skill_ref::agentskills::AsMutant`) over every pinned case; a mutant is
//! killed by the pinned cases whose output differs from the committed golden.

use std::path::Path;

use skill_ref::agentskills::{AsConfig, AsMutant};
use skill_ref::canonical::to_canonical_string;

use super::case::discover;
use super::goldens::{golden_path, output};
use crate::error::Error;
use crate::profile::Profile;

/// One mutant and the pinned cases that kill it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsOutcome {
    pub mutant: AsMutant,
    pub killed_by: Vec<String>,
}

impl AsOutcome {
    pub fn is_killed(&self) -> bool {
        !self.killed_by.is_empty()
    }

    /// `NAME (RULE) killed by CASE, …` or `NAME (RULE) SURVIVED`.
    pub fn line(&self) -> String {
        let head = format!("{} ({})", self.mutant.name(), self.mutant.rule());
        if self.is_killed() {
            format!("{head} killed by {}", self.killed_by.join(", "))
        } else {
            format!("{head} SURVIVED")
        }
    }
}

/// Runs every mutant over the pinned cases under `repo` against the committed goldens.
pub fn run_mutants(repo: &Path) -> Result<Vec<AsOutcome>, Error> {
    let goldens = Profile::Agentskills.goldens(repo);
    let mut pinned = Vec::new();
    for case in discover(&Profile::Agentskills.fixtures(repo))? {
        if case.manifest.pinned {
            let golden = std::fs::read_to_string(golden_path(&goldens, &case.id)).ok();
            pinned.push((case, golden));
        }
    }
    let mut outcomes = Vec::new();
    for &mutant in AsMutant::ALL {
        let config = AsConfig::mutated(mutant);
        let mut killed_by = Vec::new();
        for (case, golden) in &pinned {
            let text = to_canonical_string(&output(&config, case)?);
            if golden.as_deref() != Some(text.as_str()) {
                killed_by.push(case.id.to_string());
            }
        }
        outcomes.push(AsOutcome { mutant, killed_by });
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mutant_of_the_profile_is_killed_by_a_pinned_case() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let outcomes = run_mutants(&repo).unwrap();
        assert_eq!(outcomes.len(), AsMutant::ALL.len());
        let survivors: Vec<String> = outcomes
            .iter()
            .filter(|o| !o.is_killed())
            .map(AsOutcome::line)
            .collect();
        assert!(survivors.is_empty(), "{survivors:?}");
    }
}
