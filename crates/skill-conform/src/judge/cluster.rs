//! Agreement clusters: which real ports produce identical normalised output for a case, and the
//! "suspected reference bug" note when enough of them agree against the golden.
//!
//! - Only **real** ports take part: the reference and the mutants are left out (the reference
//!   *is* the golden; a mutant is wrong on purpose).
//! - Only verdicts with a normalised actual take part (`pass`, `fail`, `gap`, `expected-fail`,
//!   `unexpected-pass`); error replies and faults have none.
//! - Two ports are in one cluster when their canonical actuals are byte-identical; the cluster is
//!   named by that text's [`fingerprint`].
//! - Clusters are sorted: the one matching the golden first, then larger before smaller, then by
//!   their sorted port lists. Ports inside a cluster are sorted by name.
//! - A note is raised when no real port matches the golden and at least [`SUSPECT_QUORUM`] real
//!   ports share one output that differs from it — on any case, pinned or not (a pinned case is
//!   where such a note matters most). One real port that matches the golden is evidence that the
//!   reference is right and the agreeing ports share an old bug, so it silences the note. One
//!   note per case, for its largest such cluster. Notes never change a verdict or the exit code.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{fingerprint, PortKind, Results, Status};
use crate::case::CaseId;

/// How many real ports must agree against the golden for a "suspected reference bug" note.
pub(crate) const SUSPECT_QUORUM: usize = 3;

/// Real ports whose normalised output for one case is identical.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cluster {
    /// Sorted by name; never empty.
    pub ports: Vec<String>,
    /// The shared output is the golden.
    pub matches_golden: bool,
    /// [`fingerprint`] of the shared canonical output.
    pub fingerprint: String,
}

/// A note in the report that changes nothing else.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    pub kind: NoteKind,
    pub case: CaseId,
    /// The agreeing ports, sorted.
    pub ports: Vec<String>,
    /// Fingerprint of the output they agree on.
    pub fingerprint: String,
}

/// What a [`Note`] is about.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum NoteKind {
    /// At least [`SUSPECT_QUORUM`] real ports agree with each other against the golden.
    SuspectedReferenceBug,
}

/// Ports that gave one identical output: a group of [`agreement`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Agreement<'a> {
    /// In the order they were given.
    pub ports: Vec<&'a str>,
    /// Some member's output is the expected one (the golden, or the reference's).
    pub matches: bool,
    /// The shared output (canonical text).
    pub output: &'a str,
}

/// The one agreement-clustering routine (the suite's gap clusters and `corpus`'s inventory
/// clusters both use it): groups `(port, output, matches)` by identical output, members in the
/// order given; a group matches when any member does. Groups are sorted: matching first, then
/// larger first, then by `tiebreak` on their member lists.
pub fn agreement<'a>(
    members: impl IntoIterator<Item = (&'a str, &'a str, bool)>,
    tiebreak: impl Fn(&[&'a str], &[&'a str]) -> std::cmp::Ordering,
) -> Vec<Agreement<'a>> {
    let mut groups: BTreeMap<&str, Agreement<'a>> = BTreeMap::new();
    for (port, output, matches) in members {
        let group = groups.entry(output).or_insert_with(|| Agreement {
            ports: Vec::new(),
            matches: false,
            output,
        });
        group.ports.push(port);
        group.matches |= matches;
    }
    let mut groups: Vec<Agreement<'a>> = groups.into_values().collect();
    groups.sort_by(|a, b| {
        b.matches
            .cmp(&a.matches)
            .then_with(|| b.ports.len().cmp(&a.ports.len()))
            .then_with(|| tiebreak(&a.ports, &b.ports))
    });
    groups
}

/// The agreement clusters of the real ports for `case` (sorted as the module doc says).
pub fn clusters(results: &Results, case: &CaseId) -> Vec<Cluster> {
    // Verdicts iterate by (port, case): each group's ports come sorted by name.
    let members = results
        .verdicts
        .iter()
        .filter(|((port, verdict_case), _)| {
            verdict_case == case && results.port_kind(port) == PortKind::Real
        })
        .filter_map(|((port, _), verdict)| {
            let actual = verdict.evidence.actual.as_deref()?;
            let matches = matches!(verdict.status, Status::Pass | Status::UnexpectedPass);
            Some((port.as_str(), actual, matches))
        });
    agreement(members, |a, b| a.cmp(b))
        .into_iter()
        .map(|group| Cluster {
            ports: group.ports.iter().map(|p| (*p).to_owned()).collect(),
            matches_golden: group.matches,
            fingerprint: fingerprint(group.output),
        })
        .collect()
}

/// The clusters of every unpinned case where some real port diverges from the golden, by case.
pub(crate) fn gap_clusters(results: &Results) -> BTreeMap<CaseId, Vec<Cluster>> {
    results
        .case_ids()
        .into_iter()
        .filter(|case| !results.is_pinned(case))
        .filter_map(|case| {
            let clusters = clusters(results, case);
            clusters
                .iter()
                .any(|cluster| !cluster.matches_golden)
                .then(|| (case.clone(), clusters))
        })
        .collect()
}

/// The "suspected reference bug" note for `case`, if no real port matches the golden and at
/// least [`SUSPECT_QUORUM`] real ports agree with each other against it.
pub(crate) fn suspected_reference_bug(results: &Results, case: &CaseId) -> Option<Note> {
    let clusters = clusters(results, case);
    if clusters.iter().any(|cluster| cluster.matches_golden) {
        return None;
    }
    clusters
        .into_iter()
        // Sorted larger first, so the first is the largest (ties: by port list).
        .find(|cluster| !cluster.matches_golden && cluster.ports.len() >= SUSPECT_QUORUM)
        .map(|cluster| Note {
            kind: NoteKind::SuspectedReferenceBug,
            case: case.clone(),
            ports: cluster.ports,
            fingerprint: cluster.fingerprint,
        })
}

/// Every note of the run, sorted by case.
pub fn notes(results: &Results) -> Vec<Note> {
    results
        .case_ids()
        .into_iter()
        .filter_map(|case| suspected_reference_bug(results, case))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{repro_command, CaseInfo, Evidence, PortInfo, Verdict};

    fn id(text: &str) -> CaseId {
        CaseId::parse(text).unwrap()
    }

    fn verdict(port: &str, case: &CaseId, status: Status, actual: Option<&str>) -> Verdict {
        Verdict {
            status,
            evidence: Evidence {
                actual: actual.map(str::to_owned),
                fingerprint: actual.map(fingerprint),
                repro: repro_command(port, case),
                ..Evidence::default()
            },
        }
    }

    /// `outputs`: (port, status, actual) for one unpinned case `hazards/x`.
    fn results(outputs: &[(&str, Status, Option<&str>)]) -> Results {
        let case = id("hazards/x");
        let mut results = Results::new();
        results.add_case(
            case.clone(),
            CaseInfo {
                pinned: false,
                rules: vec!["TN-YAML-7".into()],
                golden_sha256: None,
            },
        );
        for (port, status, actual) in outputs {
            results.add_port(PortInfo::available(*port));
            results.insert(*port, case.clone(), verdict(port, &case, *status, *actual));
        }
        results
    }

    #[test]
    fn groups_real_ports_by_identical_output() {
        let results = results(&[
            ("reference", Status::Pass, Some("G")),
            ("mutant-x", Status::Gap, Some("B")),
            ("python", Status::Gap, Some("B")),
            ("js", Status::Pass, Some("G")),
            ("golang", Status::Gap, Some("B")),
            ("java", Status::Gap, Some("C")),
            ("elixir", Status::Error, None),
            ("csharp", Status::Timeout, None),
        ]);
        let clusters = clusters(&results, &id("hazards/x"));
        assert_eq!(
            clusters,
            [
                Cluster {
                    ports: vec!["js".into()],
                    matches_golden: true,
                    fingerprint: fingerprint("G"),
                },
                Cluster {
                    ports: vec!["golang".into(), "python".into()],
                    matches_golden: false,
                    fingerprint: fingerprint("B"),
                },
                Cluster {
                    ports: vec!["java".into()],
                    matches_golden: false,
                    fingerprint: fingerprint("C"),
                },
            ]
        );
        assert_eq!(gap_clusters(&results).len(), 1);
        // Two agreeing real ports are not enough.
        assert_eq!(suspected_reference_bug(&results, &id("hazards/x")), None);
    }

    #[test]
    fn three_real_ports_against_the_golden_raise_one_note() {
        let results = results(&[
            ("python", Status::Gap, Some("B")),
            ("golang", Status::Gap, Some("B")),
            ("js", Status::ExpectedFail, Some("B")),
            ("java", Status::Gap, Some("C")),
            ("csharp", Status::Gap, Some("C")),
            ("clojure", Status::Gap, Some("C")),
            ("elixir", Status::Gap, Some("C")),
        ]);
        let note = suspected_reference_bug(&results, &id("hazards/x")).unwrap();
        assert_eq!(note.kind, NoteKind::SuspectedReferenceBug);
        assert_eq!(note.ports, ["clojure", "csharp", "elixir", "java"]);
        assert_eq!(note.fingerprint, fingerprint("C"));
        assert_eq!(notes(&results), [note]);
    }

    #[test]
    fn one_real_port_matching_the_golden_silences_the_note() {
        // Three old ports share a pre-fix bug; a newer one matches the reference.
        let results = results(&[
            ("python", Status::Pass, Some("G")),
            ("golang", Status::Fail, Some("B")),
            ("js", Status::Fail, Some("B")),
            ("java", Status::Fail, Some("B")),
        ]);
        assert_eq!(suspected_reference_bug(&results, &id("hazards/x")), None);
        assert!(notes(&results).is_empty());
    }

    #[test]
    fn mutants_and_the_reference_never_make_a_quorum() {
        let results = results(&[
            ("reference", Status::Gap, Some("B")),
            ("mutant-a", Status::Gap, Some("B")),
            ("mutant-b", Status::Gap, Some("B")),
            ("python", Status::Gap, Some("B")),
            ("golang", Status::Gap, Some("B")),
        ]);
        assert!(notes(&results).is_empty());
    }

    #[test]
    fn cases_where_every_port_matches_have_no_gap_clusters() {
        let results = results(&[
            ("python", Status::Pass, Some("G")),
            ("golang", Status::Pass, Some("G")),
        ]);
        assert!(gap_clusters(&results).is_empty());
        assert!(notes(&results).is_empty());
    }
}
