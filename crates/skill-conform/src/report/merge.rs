//! Merging the `report.json` files of several runs (one CI job per port) into one cross-port
//! matrix in Markdown: the final job of the workflow users copy.
//!
//! It reads only the published report format (`format: 1`): `ports`, `cases`,
//! `trials[port][case].status` and `expectationErrors`. A port that appears in two reports is an error, so a matrix
//! never silently shows one of two runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use super::format::{self, PortEntry, Report};
use super::model::NO_VERDICT;
use crate::case::CaseId;
use crate::error::Error;
use crate::judge::status::Status;
use crate::judge::PortStatus;

/// One port's row of facts, taken from its report.
#[derive(Clone, Debug)]
struct PortFacts {
    /// `None`: the report had verdicts for the port but no port record.
    status: Option<PortStatus>,
    version: Option<String>,
    pinned: usize,
    pinned_pass: usize,
    kind: crate::judge::PortKind,
    gaps: usize,
}

impl From<&PortEntry> for PortFacts {
    fn from(entry: &PortEntry) -> PortFacts {
        PortFacts {
            status: entry.status.clone(),
            version: entry.hello.library_version.clone(),
            pinned: entry.pinned,
            pinned_pass: entry.pinned_pass,
            kind: entry.kind,
            gaps: super::interop::gaps(&entry.totals),
        }
    }
}

/// Everything merged so far.
#[derive(Default)]
struct Merged {
    ports: BTreeMap<String, PortFacts>,
    /// Case id -> pinned.
    cases: BTreeMap<CaseId, bool>,
    cells: BTreeMap<(String, CaseId), Status>,
    expectation_errors: BTreeSet<(String, String)>,
}

/// Reads every `report.json` and renders the merged matrix.
pub fn merge_reports(paths: &[PathBuf]) -> Result<String, Error> {
    let mut merged = Merged::default();
    for path in paths {
        let report = format::read(path)?;
        merged.add(&report).map_err(|port| {
            Error::Usage(format!(
                "port `{port}` appears in more than one report (second: `{}`) (hint: merge one report per port)",
                path.display()
            ))
        })?;
    }
    let mut out = render(&merged.ports, &merged.cases, &merged.cells);
    if let Some(score) = merged.interop() {
        let _ = writeln!(out, "\n{}", score.line());
    }
    if !merged.expectation_errors.is_empty() {
        let _ = writeln!(
            out,
            "\n## Expectation errors ({}), each failing its job\n",
            merged.expectation_errors.len()
        );
        for (port, message) in &merged.expectation_errors {
            out.push_str(&super::markdown::expectation_item(port, message));
        }
    }
    Ok(out)
}

impl Merged {
    /// The interop score of the merged set of ports.
    fn interop(&self) -> Option<super::interop::InteropScore> {
        let ports = self
            .ports
            .iter()
            .filter(|(_, facts)| super::interop::is_scored(facts.kind, facts.status.as_ref()))
            .map(|(name, facts)| (name.as_str(), facts.version.clone()));
        let pinned = self
            .cases
            .iter()
            .filter(|(_, pinned)| **pinned)
            .map(|(case, _)| case);
        super::interop::score(ports, pinned, |port, case| {
            self.cells.get(&(port.to_owned(), case.clone())) == Some(&Status::Pass)
        })
    }

    /// Adds one report; `Err(port)` when a port other than the reference is already known.
    fn add(&mut self, report: &Report) -> Result<(), String> {
        for problem in &report.expectation_errors {
            self.expectation_errors
                .insert((problem.port.clone(), problem.message.clone()));
        }
        for (case, info) in &report.cases {
            self.cases.insert(case.clone(), info.pinned);
        }
        for (name, entry) in &report.ports {
            // The reference runs in every job: its trials are merged, and the facts of the
            // report that ran the most pinned cases are kept.
            if let Some(known) = self.ports.get(name) {
                if name != crate::port::REFERENCE {
                    return Err(name.clone());
                }
                if known.pinned >= entry.pinned {
                    self.add_trials(report, name);
                    continue;
                }
            }
            self.ports.insert(name.clone(), PortFacts::from(entry));
            self.add_trials(report, name);
        }
        Ok(())
    }

    /// Adds a port's trial statuses; a case already known keeps its first status.
    fn add_trials(&mut self, report: &Report, port: &str) {
        for (case, trial) in report.trials.get(port).into_iter().flatten() {
            self.cells
                .entry((port.to_owned(), case.clone()))
                .or_insert(trial.status);
        }
    }
}

/// A port's state cell: `available`, `unavailable: REASON`, `broken`, or `-` for a port without
/// a record.
fn state_cell(status: Option<&PortStatus>) -> String {
    match status {
        None => NO_VERDICT.to_owned(),
        Some(PortStatus::Unavailable { reason }) => {
            format!(
                "{}: {}",
                status.map_or("", PortStatus::word),
                reason.replace('|', "\\|")
            )
        }
        Some(other) => other.word().to_owned(),
    }
}

fn render(
    ports: &BTreeMap<String, PortFacts>,
    cases: &BTreeMap<CaseId, bool>,
    cells: &BTreeMap<(String, CaseId), Status>,
) -> String {
    // The reference first, then the ports in name order.
    let mut order: Vec<&String> = ports
        .keys()
        .filter(|p| *p == crate::port::REFERENCE)
        .collect();
    order.extend(ports.keys().filter(|p| *p != crate::port::REFERENCE));
    let mut out = String::from("# skill-conform: cross-port matrix\n\n| port | version | state | pinned pass | gaps |\n|---|---|---|---|---|\n");
    for port in &order {
        let f = &ports[*port];
        let _ = writeln!(
            out,
            "| {port} | {} | {} | {}/{} | {} |",
            f.version.as_deref().unwrap_or(NO_VERDICT),
            state_cell(f.status.as_ref()),
            f.pinned_pass,
            f.pinned,
            f.gaps
        );
    }
    let cell = |port: &String, case: &CaseId| cells.get(&(port.clone(), case.clone())).copied();
    let interesting: Vec<&CaseId> = cases
        .keys()
        .filter(|case| {
            order
                .iter()
                .any(|port| cell(port, case).is_some_and(|s| s != Status::Pass))
        })
        .collect();
    let _ = writeln!(
        out,
        "\n{} of {} cases have a result other than `ok` on some port (pinned cases marked \\*):\n",
        interesting.len(),
        cases.len()
    );
    let names: Vec<&str> = order.iter().map(|p| p.as_str()).collect();
    let _ = writeln!(out, "| case | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(order.len()));
    for case in interesting {
        let mark = if cases[case] { " \\*" } else { "" };
        let row: Vec<&str> = order
            .iter()
            .map(|port| cell(port, case).map_or(NO_VERDICT, super::model::cell))
            .collect();
        let _ = writeln!(out, "| `{case}`{mark} | {} |", row.join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::path::Path;

    fn report(port: &str, statuses: &[(&str, &str, bool)]) -> Value {
        let mut trials = serde_json::Map::new();
        let mut cases = serde_json::Map::new();
        for (case, status, pinned) in statuses {
            trials.insert(
                case.to_string(),
                json!({"trial": format!("{port}::{case}"), "pinned": pinned, "status": status, "evidence": {"repro": "r"}}),
            );
            cases.insert(case.to_string(), json!({"pinned": pinned, "rules": []}));
        }
        let pinned = statuses.iter().filter(|s| s.2).count();
        let entry = |name: &str, pass: usize| json!({"name": name, "kind": "real", "status": {"state": "available"}, "totals": {}, "pinned": pinned, "pinnedPass": pass});
        let mut reference = entry("reference", pinned);
        reference["kind"] = json!("reference");
        let mut tested = entry(port, 0);
        tested["libraryVersion"] = json!("1.0");
        json!({
            "format": 1,
            "cases": cases,
            "ports": {"reference": reference, port: tested},
            "trials": {"reference": {}, port: trials},
            "clusters": {},
            "notes": []
        })
    }

    fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string()).unwrap();
        path
    }

    #[test]
    fn merges_one_report_per_port_and_refuses_a_port_twice() {
        let dir = crate::test_tempdir::tempdir();
        let a = write(
            dir.path(),
            "a.json",
            &report("go", &[("g/x", "fail", true), ("g/y", "pass", false)]),
        );
        let b = write(
            dir.path(),
            "b.json",
            &report("py", &[("g/x", "pass", true), ("g/y", "gap", false)]),
        );
        let merged = merge_reports(&[a.clone(), b]).unwrap();
        assert!(
            merged.contains("| case | reference | go | py |"),
            "{merged}"
        );
        assert!(merged.contains("| `g/x` \\* | - | FAIL | ok |"), "{merged}");
        assert!(merged.contains("| `g/y` | - | ok | gap |"), "{merged}");
        assert!(
            merged.contains("| py | 1.0 | available | 0/1 | 0 |"),
            "{merged}"
        );
        assert!(
            merged
                .contains("\ninterop 0/1 pinned cases pass on every port (0.0%): go 1.0, py 1.0\n"),
            "{merged}"
        );
        let err = merge_reports(&[a.clone(), a]).unwrap_err().to_string();
        assert!(
            err.starts_with("port `go` appears in more than one report"),
            "{err}"
        );
        assert!(!merged.contains("Expectation errors"), "{merged}");
        let mut stale = report("js", &[("g/x", "pass", true)]);
        stale["expectationErrors"] =
            json!([{"port": "js", "message": "error in `x`: stale\n(hint: fix it)"}]);
        let c = write(dir.path(), "c.json", &stale);
        let merged = merge_reports(&[c]).unwrap();
        assert!(
            merged.ends_with("## Expectation errors (1), each failing its job\n\n- **js** error in `x`: stale  \n  (hint: fix it)\n"),
            "{merged}"
        );
        let bad = write(dir.path(), "bad.json", &json!({"format": 9}));
        assert!(merge_reports(&[bad]).is_err());
    }
}
