//! Rendering `corpus`'s report: `corpus.md` (also printed, with a row limit) and canonical
//! `corpus.json`.

use crate::corpus::{
    cut, text_of, CorpusReport, FirstDifference, LocationVerdict, PortState, PortSummary,
    SHOWN_LOADS,
};
use std::fmt::Write as _;
use std::path::Path;

use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::compare::text::{visible_inline, visible_line};
use crate::judge::FaultDetails;
use crate::port::REFERENCE;
use crate::reference::UNKNOWN_SKILL;
/// `corpus.json`: the report as canonical JSON.
pub fn render_json(report: &CorpusReport) -> String {
    to_canonical_string(&serde_json::to_value(report).expect("the report serialises"))
}

fn verdict_text(entries: &[LocationVerdict]) -> String {
    if entries.is_empty() {
        return "not listed".to_owned();
    }
    entries
        .iter()
        .map(|entry| match entry {
            LocationVerdict::Accepted { name, description } => {
                let description = match description {
                    Value::Null => "no description".to_owned(),
                    Value::String(text) => format!("\"{}\"", cut(&visible_inline(text))),
                    other => format!("description {}", text_of(other)),
                };
                format!(
                    "accepted `{}` — {description}",
                    visible_inline(&text_of(name))
                )
            }
            LocationVerdict::Skipped { reason } => format!("skipped ({})", text_of(reason)),
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

fn counts_text(summary: &PortSummary) -> String {
    let skipped = summary.skipped.clone().unwrap_or_default();
    let total: usize = skipped.values().sum();
    let reasons: Vec<String> = skipped.iter().map(|(r, n)| format!("{r}: {n}")).collect();
    format!(
        "{} ok / {total} skipped {{{}}}",
        summary.accepted.unwrap_or(0),
        reasons.join(", ")
    )
}

fn difference_text(port: &str, at: &FirstDifference) -> String {
    let side = |line: &Option<String>| {
        line.as_deref().map_or_else(
            || "(no line)".to_owned(),
            |l| format!("`{}`", visible_line(l)),
        )
    };
    format!(
        "line {}: reference {} · {port} {}",
        at.line,
        side(&at.reference),
        side(&at.actual)
    )
}

fn state_text(summary: &PortSummary) -> String {
    let fault = |f: &FaultDetails| {
        let kind = serde_json::to_value(f.kind()).ok().map(|v| text_of(&v));
        let phase = serde_json::to_value(f.phase).ok().map(|v| text_of(&v));
        format!(
            "{} during {}",
            kind.unwrap_or_default(),
            phase.unwrap_or_default()
        )
    };
    let last_stderr = summary
        .stderr_tail
        .as_deref()
        .and_then(|t| t.lines().rev().find(|l| !l.trim().is_empty()))
        .map(|l| format!(" (stderr: {})", cut(&visible_line(l))))
        .unwrap_or_default();
    match summary.state {
        PortState::Ok => "ok".to_owned(),
        PortState::Unavailable => format!(
            "unavailable: {}",
            summary.reason.as_deref().unwrap_or("no reason given")
        ),
        PortState::Broken => {
            let what = summary
                .reason
                .as_deref()
                .unwrap_or("the adapter did not start");
            match summary.fault.as_ref() {
                Some(details) => format!("broken: {what}: {}{last_stderr}", fault(details)),
                None => format!("broken: {what}{last_stderr}"),
            }
        }
        PortState::Fault => format!(
            "fault: {}{last_stderr}",
            summary.fault.as_ref().map(fault).unwrap_or_default()
        ),
        PortState::Error => format!(
            "error reply: {}",
            cut(&visible_inline(summary.reason.as_deref().unwrap_or("")))
        ),
    }
}

/// `corpus.md` (and, with a `limit`, what the terminal shows): see the module doc.
pub fn render_markdown(report: &CorpusReport, limit: Option<usize>) -> String {
    let mut out = String::new();
    let order = report.port_order();
    header(&mut out, report);
    disagreements(&mut out, report, &order, limit);
    duplicates(&mut out, report, &order);
    counts(&mut out, report);
    loads_and_prompt(&mut out, report, &order);
    out
}

/// The roots, the load count and who disagrees.
fn header(out: &mut String, report: &CorpusReport) {
    let _ = writeln!(out, "# skill-conform corpus\n");
    for (index, root) in report.roots.iter().enumerate() {
        let _ = writeln!(out, "- `{{root{index}}}` = `{root}`");
    }
    let _ = writeln!(
        out,
        "- {} names loaded: every name the reference accepts, then `{UNKNOWN_SKILL}`",
        report.load_count
    );
    let disagreeing = report.disagreeing();
    if disagreeing.is_empty() {
        let _ = writeln!(
            out,
            "- every port that ran agrees with the reference (inventory, loads, prompt)"
        );
    } else {
        let _ = writeln!(
            out,
            "- disagreeing with the reference: {}",
            disagreeing
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
}

/// Every location the ports disagree about (at most `limit` unless the reference accepts it
/// and a port drops it).
fn disagreements(out: &mut String, report: &CorpusReport, order: &[&str], limit: Option<usize>) {
    let _ = writeln!(
        out,
        "\n## Disagreements: {} SKILL.md location{}\n",
        report.disagreements.len(),
        if report.disagreements.len() == 1 {
            ""
        } else {
            "s"
        }
    );
    if report.disagreements.is_empty() {
        let _ = writeln!(out, "The ports that ran agree on every SKILL.md location.");
    }
    let mut shown = 0;
    let mut hidden = 0;
    for row in &report.disagreements {
        if limit.is_some_and(|limit| shown >= limit) && !row.reference_accepts_port_drops {
            hidden += 1;
            continue;
        }
        shown += 1;
        let _ = writeln!(out, "- `{}`", visible_inline(&row.location));
        for port in order {
            if let Some(entries) = row.verdicts.get(*port) {
                let _ = writeln!(out, "  - {port}: {}", verdict_text(entries));
            }
        }
    }
    if hidden > 0 {
        let _ = writeln!(out, "- … and {hidden} more locations (all in corpus.md)");
    }
}

/// Accepted names whose winning copy differs between ports.
fn duplicates(out: &mut String, report: &CorpusReport, order: &[&str]) {
    if !report.duplicates.is_empty() {
        let _ = writeln!(
            out,
            "\n## Duplicated names: which copy won ({} where the ports differ)\n",
            report.duplicates.len()
        );
        for row in &report.duplicates {
            let _ = writeln!(out, "- `{}`", visible_inline(&row.name));
            for port in order {
                if let Some(locations) = row.winners.get(*port) {
                    let won = if locations.is_empty() {
                        "not accepted".to_owned()
                    } else {
                        locations
                            .iter()
                            .map(|l| format!("`{}`", visible_inline(l)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    let _ = writeln!(out, "  - {port}: {won}");
                }
            }
        }
    }
}

/// Per-port counts by agreement cluster, then the ports not compared.
fn counts(out: &mut String, report: &CorpusReport) {
    let _ = writeln!(
        out,
        "\n## Counts, by agreement cluster (identical normalised inventories)\n"
    );
    for (index, cluster) in report.clusters.iter().enumerate() {
        let label = if cluster.matches_reference {
            " — the reference's"
        } else {
            ""
        };
        let _ = writeln!(out, "- cluster {}{label}", index + 1);
        for port in &cluster.ports {
            let _ = writeln!(out, "  - {port}: {}", counts_text(&report.ports[port]));
        }
    }
    let not_run: Vec<&str> = report
        .port_order()
        .into_iter()
        .filter(|p| report.ports[*p].state != PortState::Ok)
        .collect();
    if !not_run.is_empty() {
        let _ = writeln!(out, "- not compared");
        for port in not_run {
            let _ = writeln!(out, "  - {port}: {}", state_text(&report.ports[port]));
        }
    }
}

/// Per port, the loads and the prompt against the reference's.
fn loads_and_prompt(out: &mut String, report: &CorpusReport, order: &[&str]) {
    let _ = writeln!(out, "\n## Loads and prompt, against the reference\n");
    let mut any = false;
    for port in order {
        let summary = &report.ports[*port];
        let Some(loads) = &summary.loads else {
            continue;
        };
        if *port == REFERENCE {
            continue;
        }
        any = true;
        let loads_text = if loads.differences.is_empty() {
            format!("all {} loads match", loads.count)
        } else {
            format!(
                "{} of {} loads differ",
                loads.differences.len(),
                report.load_count
            )
        };
        let prompt_text = if summary.prompt_difference.is_some() {
            "prompt differs"
        } else {
            "prompt matches"
        };
        let _ = writeln!(out, "- {port}: {loads_text}; {prompt_text}");
        for difference in loads.differences.iter().take(SHOWN_LOADS) {
            let _ = writeln!(
                out,
                "  - load `{}` {} {}",
                visible_inline(&difference.name),
                difference.field,
                difference_text(port, &difference.at)
            );
        }
        if loads.differences.len() > SHOWN_LOADS {
            let _ = writeln!(
                out,
                "  - … and {} more loads (all in corpus.json)",
                loads.differences.len() - SHOWN_LOADS
            );
        }
        if let Some(at) = &summary.prompt_difference {
            let _ = writeln!(out, "  - prompt {}", difference_text(port, at));
        }
    }
    if !any {
        let _ = writeln!(out, "No port besides the reference answered.");
    }
}

/// Writes `corpus.json` and `corpus.md` into `dir` (created if missing).
pub fn write_report(report: &CorpusReport, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("corpus.json"), render_json(report))?;
    std::fs::write(dir.join("corpus.md"), render_markdown(report, None))
}
