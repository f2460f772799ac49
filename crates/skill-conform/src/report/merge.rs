//! Merging the `report.json` files of several runs (one CI job per port) into one cross-port
//! matrix in Markdown: the final job of the workflow users copy.
//!
//! It reads only the published report format (`format: 1`): `ports`, `cases`,
//! `trials[port][case].status` and `expectationErrors`. A port that appears in two reports is an error, so a matrix
//! never silently shows one of two runs.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Error;
use crate::judge::status::Status;

/// One port's row of facts, taken from its report.
#[derive(Clone, Debug, Default)]
struct PortFacts {
    state: String,
    version: String,
    reason: String,
    pinned: u64,
    pinned_pass: u64,
}

/// Reads every `report.json` and renders the merged matrix.
pub fn merge_reports(paths: &[PathBuf]) -> Result<String, Error> {
    let mut ports: BTreeMap<String, PortFacts> = BTreeMap::new();
    let mut cases: BTreeMap<String, bool> = BTreeMap::new();
    let mut cells: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut expectation_errors: BTreeSet<(String, String)> = BTreeSet::new();
    for path in paths {
        let report = read(path)?;
        for problem in report["expectationErrors"].as_array().into_iter().flatten() {
            expectation_errors.insert((
                problem["port"].as_str().unwrap_or("?").to_owned(),
                problem["message"].as_str().unwrap_or_default().to_owned(),
            ));
        }
        for (case, info) in report["cases"].as_object().into_iter().flatten() {
            cases.insert(case.clone(), info["pinned"].as_bool().unwrap_or(false));
        }
        for (name, info) in report["ports"].as_object().into_iter().flatten() {
            // The reference runs in every job: its trials are merged, and the facts of the
            // report that ran the most pinned cases are kept.
            let is_reference = name == crate::port::REFERENCE;
            if let Some(known) = ports.get(name) {
                if !is_reference {
                    return Err(Error::Usage(format!(
                    "port `{name}` appears in more than one report (second: `{}`) (hint: merge one report per port)",
                    path.display()
                )));
                }
                if known.pinned >= info["pinned"].as_u64().unwrap_or(0) {
                    merge_trials(&report, name, &mut cells);
                    continue;
                }
            }
            let state = info["status"]["state"].as_str().unwrap_or("?").to_owned();
            let reason = info["status"]["reason"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            ports.insert(
                name.clone(),
                PortFacts {
                    state,
                    version: info["libraryVersion"].as_str().unwrap_or("-").to_owned(),
                    reason,
                    pinned: info["pinned"].as_u64().unwrap_or(0),
                    pinned_pass: info["pinnedPass"].as_u64().unwrap_or(0),
                },
            );
            merge_trials(&report, name, &mut cells);
        }
    }
    let mut out = render(&ports, &cases, &cells);
    if !expectation_errors.is_empty() {
        let _ = writeln!(
            out,
            "\n## Expectation errors ({}), each failing its job\n",
            expectation_errors.len()
        );
        for (port, message) in &expectation_errors {
            out.push_str(&super::markdown::expectation_item(port, message));
        }
    }
    Ok(out)
}

/// Adds a port's trial statuses; a case already known keeps its first status.
fn merge_trials(report: &Value, port: &str, cells: &mut BTreeMap<(String, String), String>) {
    for (case, trial) in report["trials"][port].as_object().into_iter().flatten() {
        let status = trial["status"].as_str().unwrap_or("?").to_owned();
        cells
            .entry((port.to_owned(), case.clone()))
            .or_insert(status);
    }
}

fn read(path: &Path) -> Result<Value, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::Usage(format!(
            "error reading `{}`: {e} (hint: pass the report.json of each job)",
            path.display()
        ))
    })?;
    let value: Value = serde_json::from_str(&text).map_err(|e| {
        Error::Usage(format!(
            "`{}` is not JSON: {e} (hint: pass report.json files)",
            path.display()
        ))
    })?;
    if value["format"] != 1 {
        return Err(Error::Usage(format!(
            "`{}` is not a skill-conform report of format 1 (hint: merge reports of the same skill-conform version)",
            path.display()
        )));
    }
    Ok(value)
}

fn short(status: &str) -> &str {
    Status::ALL
        .iter()
        .find(|s| s.as_str() == status)
        .map_or(status, |s| super::model::cell(*s))
}

fn render(
    ports: &BTreeMap<String, PortFacts>,
    cases: &BTreeMap<String, bool>,
    cells: &BTreeMap<(String, String), String>,
) -> String {
    // The reference first, then the ports in name order.
    let mut order: Vec<&String> = ports
        .keys()
        .filter(|p| *p == crate::port::REFERENCE)
        .collect();
    order.extend(ports.keys().filter(|p| *p != crate::port::REFERENCE));
    let mut out = String::from("# skill-conform: cross-port matrix\n\n| port | version | state | pinned pass |\n|---|---|---|---|\n");
    for port in &order {
        let f = &ports[*port];
        let state = if f.reason.is_empty() {
            f.state.clone()
        } else {
            format!("{}: {}", f.state, f.reason.replace('|', "\\|"))
        };
        let _ = writeln!(
            out,
            "| {port} | {} | {state} | {}/{} |",
            f.version, f.pinned_pass, f.pinned
        );
    }
    let interesting: BTreeSet<&String> = cases
        .keys()
        .filter(|case| {
            order.iter().any(|port| {
                cells
                    .get(&((*port).clone(), (*case).clone()))
                    .is_some_and(|s| s != "pass")
            })
        })
        .collect();
    let _ = writeln!(
        out,
        "\n{} of {} cases have a result other than `ok` on some port (pinned cases marked \\*):\n",
        interesting.len(),
        cases.len()
    );
    let _ = writeln!(
        out,
        "| case | {} |",
        order
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(out, "|---|{}", "---|".repeat(order.len()));
    for case in interesting {
        let mark = if cases[case] { " \\*" } else { "" };
        let row: Vec<&str> = order
            .iter()
            .map(|port| {
                cells
                    .get(&((*port).clone(), case.clone()))
                    .map_or("-", |s| short(s))
            })
            .collect();
        let _ = writeln!(out, "| `{case}`{mark} | {} |", row.join(" | "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn report(port: &str, statuses: &[(&str, &str, bool)]) -> Value {
        let mut trials = serde_json::Map::new();
        let mut cases = serde_json::Map::new();
        for (case, status, pinned) in statuses {
            trials.insert(case.to_string(), json!({"status": status}));
            cases.insert(case.to_string(), json!({"pinned": pinned}));
        }
        let pinned = statuses.iter().filter(|s| s.2).count();
        json!({
            "format": 1,
            "cases": cases,
            "ports": {
                "reference": {"status": {"state": "available"}, "pinned": pinned, "pinnedPass": pinned},
                port: {"status": {"state": "available"}, "libraryVersion": "1.0", "pinned": pinned, "pinnedPass": 0}
            },
            "trials": {"reference": {}, port: trials}
        })
    }

    fn write(dir: &Path, name: &str, value: &Value) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, value.to_string()).unwrap();
        path
    }

    #[test]
    fn merges_one_report_per_port_and_refuses_a_port_twice() {
        let dir = tempfile::tempdir().unwrap();
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
