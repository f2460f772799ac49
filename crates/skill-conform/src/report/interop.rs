//! One number per port and one for the set: per port, pinned cases passed out of pinned cases
//! (an `expected-fail` is not a pass) and its gap count; for the run, the interop score — the
//! share of pinned cases on which every scored port passes — and a shields.io endpoint badge per
//! port.
//!
//! Scored ports are the real ports that could run: the reference, mutants, and ports marked
//! `broken` or `unavailable` are left out. The score names the ports it covers with their
//! versions, so a score is always "of this set"; `merge-reports` computes it again over the
//! merged reports.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::model::Model;
use super::Redactor;
use crate::case::CaseId;
use crate::judge::{PortId, PortKind, PortStatus, Status};

/// The interop score of one set of ports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InteropScore {
    /// The scored ports with their library versions (`null` when the hello named none).
    pub ports: BTreeMap<PortId, Option<String>>,
    /// Pinned cases of the run.
    pub pinned: usize,
    /// Pinned cases on which every scored port passes.
    pub all_pass: usize,
}

impl InteropScore {
    /// The share as a percentage with one decimal (`93.8%`), `-` for no pinned case.
    pub(crate) fn percent(&self) -> String {
        if self.pinned == 0 {
            return "-".to_owned();
        }
        // Integer arithmetic, rounded half up, so no float formatting decides a digit.
        let tenths = (self.all_pass * 2000 + self.pinned) / (self.pinned * 2);
        format!("{}.{}%", tenths / 10, tenths % 10)
    }

    /// `interop 60/64 pinned cases pass on every port (93.8%): js 1.2.0, python 0.21.0`.
    pub fn line(&self) -> String {
        let ports: Vec<String> = self
            .ports
            .iter()
            .map(|(port, version)| match version {
                Some(version) => format!("{port} {version}"),
                None => port.clone(),
            })
            .collect();
        format!(
            "interop {}/{} pinned cases pass on every port ({}): {}",
            self.all_pass,
            self.pinned,
            self.percent(),
            ports.join(", ")
        )
    }
}

/// Whether a port counts towards the interop score: a real port that could run.
pub(crate) fn is_scored(kind: PortKind, status: Option<&PortStatus>) -> bool {
    kind == PortKind::Real
        && !matches!(
            status,
            Some(PortStatus::Broken { .. } | PortStatus::Unavailable { .. })
        )
}

/// The score of `ports` (name, version) over `pinned_cases`, where `passes(port, case)` says
/// whether the port's verdict is `pass`; `None` when no port is scored.
pub(crate) fn score<'a>(
    ports: impl IntoIterator<Item = (&'a str, Option<String>)>,
    pinned_cases: impl IntoIterator<Item = &'a CaseId>,
    passes: impl Fn(&str, &CaseId) -> bool,
) -> Option<InteropScore> {
    let ports: BTreeMap<PortId, Option<String>> = ports
        .into_iter()
        .map(|(port, version)| (port.to_owned(), version))
        .collect();
    if ports.is_empty() {
        return None;
    }
    let mut pinned = 0;
    let mut all_pass = 0;
    for case in pinned_cases {
        pinned += 1;
        all_pass += usize::from(ports.keys().all(|port| passes(port, case)));
    }
    Some(InteropScore {
        ports,
        pinned,
        all_pass,
    })
}

/// The run's interop score (versions through `redactor`).
pub(crate) fn of_model(model: &Model<'_>, redactor: &Redactor) -> Option<InteropScore> {
    let results = model.results;
    let ports = model.ports.iter().filter_map(|port| {
        let info = results.ports.get(*port);
        is_scored(results.port_kind(port), info.map(|info| &info.status)).then(|| {
            let version = info.and_then(|info| info.hello.library_version.as_deref());
            (*port, version.map(|version| redactor.version(version)))
        })
    });
    let pinned = model
        .cases
        .iter()
        .copied()
        .filter(|case| model.is_pinned(case));
    score(ports, pinned, |port, case| {
        model
            .verdict(port, case)
            .is_some_and(|verdict| verdict.status == Status::Pass)
    })
}

/// A port's gap count: unpinned cases where it differs from the golden.
pub fn gaps(by_status: &BTreeMap<Status, usize>) -> usize {
    by_status.get(&Status::Gap).copied().unwrap_or(0)
}

/// A shields.io endpoint badge (`schemaVersion` 1) for one port.
pub fn badge(
    port: &str,
    status: Option<&PortStatus>,
    pinned_pass: usize,
    pinned: usize,
    gaps: usize,
) -> Value {
    let (message, color) = match status {
        Some(PortStatus::Unavailable { .. }) => ("unavailable".to_owned(), "lightgrey"),
        Some(PortStatus::Broken { .. }) => ("broken".to_owned(), "red"),
        _ => {
            let gap_text = match gaps {
                0 => String::new(),
                1 => ", 1 gap".to_owned(),
                n => format!(", {n} gaps"),
            };
            let color = if pinned_pass == pinned {
                "brightgreen"
            } else if pinned_pass * 10 >= pinned * 9 {
                "yellow"
            } else {
                "red"
            };
            (format!("{pinned_pass}/{pinned} pinned{gap_text}"), color)
        }
    };
    json!({
        "schemaVersion": 1,
        "label": format!("skill-conform {port}"),
        "message": message,
        "color": color,
    })
}

/// The file name of a port's badge: the port name with anything outside `[A-Za-z0-9._@~-]`
/// replaced by `_`, so no name can leave the badges directory.
pub(crate) fn badge_file_name(port: &str) -> String {
    let safe: String = port
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._@~-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let safe = if safe.starts_with('.') {
        format!("_{safe}")
    } else {
        safe
    };
    format!("{safe}.json")
}

/// Writes `DIR/badges/<port>.json` for every real port of the run.
pub(crate) fn write_badges(model: &Model<'_>, dir: &Path) -> io::Result<()> {
    let dir = dir.join("badges");
    std::fs::create_dir_all(&dir)?;
    for port in &model.ports {
        if model.results.port_kind(port) != PortKind::Real {
            continue;
        }
        let totals = model.totals.get(port).cloned().unwrap_or_default();
        let status = model.results.ports.get(*port).map(|info| &info.status);
        let value = badge(
            port,
            status,
            totals.pinned_pass,
            totals.pinned,
            gaps(&totals.by_status),
        );
        let text = skill_ref::canonical::to_canonical_string(&value);
        std::fs::write(dir.join(badge_file_name(port)), text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> CaseId {
        CaseId::parse(text).unwrap()
    }

    #[test]
    fn a_case_counts_only_when_every_scored_port_passes() {
        let cases = [id("g/a"), id("g/b"), id("g/c")];
        let ports = [("js", Some("1.0".to_owned())), ("py", None)];
        let fails = [("py", "g/b"), ("js", "g/c")];
        let got = score(
            ports.iter().map(|(p, v)| (*p, v.clone())),
            &cases,
            |p, c| !fails.contains(&(p, c.as_str())),
        )
        .unwrap();
        assert_eq!((got.all_pass, got.pinned), (1, 3));
        assert_eq!(got.percent(), "33.3%");
        assert_eq!(
            got.line(),
            "interop 1/3 pinned cases pass on every port (33.3%): js 1.0, py"
        );
        assert!(score([], &cases, |_, _| true).is_none());
    }

    #[test]
    fn percent_rounds_half_up_in_integers() {
        let of = |all_pass, pinned| InteropScore {
            ports: BTreeMap::new(),
            pinned,
            all_pass,
        };
        assert_eq!(of(2, 3).percent(), "66.7%");
        assert_eq!(of(1, 16).percent(), "6.3%");
        assert_eq!(of(4, 4).percent(), "100.0%");
        assert_eq!(of(0, 0).percent(), "-");
    }

    #[test]
    fn only_real_ports_that_ran_are_scored() {
        let broken = PortStatus::Unavailable { reason: "x".into() };
        assert!(is_scored(PortKind::Real, Some(&PortStatus::Available)));
        assert!(is_scored(PortKind::Real, None));
        assert!(!is_scored(PortKind::Real, Some(&broken)));
        assert!(!is_scored(PortKind::Reference, None));
        assert!(!is_scored(PortKind::Mutant, None));
    }

    #[test]
    fn badges_say_pinned_passes_gaps_and_trouble() {
        let b = badge("py", None, 62, 64, 3);
        assert_eq!(b["message"], "62/64 pinned, 3 gaps");
        assert_eq!(b["color"], "yellow");
        assert_eq!(b["schemaVersion"], 1);
        assert_eq!(badge("py", None, 4, 4, 1)["color"], "brightgreen");
        assert_eq!(badge("py", None, 1, 4, 0)["message"], "1/4 pinned");
        assert_eq!(badge("py", None, 1, 4, 0)["color"], "red");
        let gone = PortStatus::Unavailable { reason: "x".into() };
        assert_eq!(badge("py", Some(&gone), 0, 0, 0)["message"], "unavailable");
        assert_eq!(badge_file_name("../x/y"), "_.._x_y.json");
        assert_eq!(badge_file_name("python@0.18.1"), "python@0.18.1.json");
    }
}
