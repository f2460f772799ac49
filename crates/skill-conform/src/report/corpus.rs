//! Rendering `corpus`'s report: `corpus.md` (also printed, with a row limit), canonical
//! `corpus.json`, and (through [`super::corpus_html`]) `corpus.html`.

use crate::corpus::{
    cap_text, cut, text_of, CorpusReport, FirstDifference, LocationVerdict, NotComparedWhy,
    PortState, PortSummary, UncomparedLoads, WalkWarningKind, SHOWN_LOADS,
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

/// One port's entries for a location, in words (`not listed` when it has none).
pub(crate) fn verdict_text(entries: &[LocationVerdict]) -> String {
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

/// A fault as `KIND during PHASE`.
fn fault_text(f: &FaultDetails) -> String {
    let word = |v: serde_json::Result<Value>| v.map(|v| text_of(&v)).unwrap_or_default();
    format!(
        "{} during {}",
        word(serde_json::to_value(f.kind())),
        word(serde_json::to_value(f.phase))
    )
}

/// The port's state with the last line of its stderr, when it has one.
pub(crate) fn state_text(summary: &PortSummary) -> String {
    let last_stderr = summary
        .stderr_tail
        .as_deref()
        .and_then(|t| t.lines().rev().find(|l| !l.trim().is_empty()))
        .map(|l| format!(" (stderr: {})", cut(&visible_line(l))))
        .unwrap_or_default();
    match summary.state {
        PortState::Broken | PortState::Fault => format!("{}{last_stderr}", brief_state(summary)),
        _ => brief_state(summary),
    }
}

/// The port's state in a few words (the verdict line's).
fn brief_state(summary: &PortSummary) -> String {
    match summary.state {
        PortState::Ok => "ok".to_owned(),
        PortState::Partial => format!("partial: {}", uncompared_text(summary)),
        PortState::Fault if oversize(summary).is_some() => format!(
            "fault: the first reply (inventory and prompt) is over the {} cap (hint: raise --line-cap)",
            cap_text(oversize(summary).unwrap_or_default())
        ),
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
                Some(details) => format!("broken: {what}: {}", fault_text(details)),
                None => format!("broken: {what}"),
            }
        }
        PortState::Fault => format!(
            "fault: {}",
            summary.fault.as_ref().map(fault_text).unwrap_or_default()
        ),
        PortState::Error => format!(
            "error reply: {}",
            cut(&visible_inline(summary.reason.as_deref().unwrap_or("")))
        ),
    }
}

/// The cap an over-cap first reply crossed, if that is the port's fault.
fn oversize(summary: &PortSummary) -> Option<u64> {
    match summary.fault.as_ref()?.fault {
        crate::session::Fault::Oversize { cap, .. } => Some(cap),
        _ => None,
    }
}

/// One group of loads not compared, in words: `3 loads over the 16 MiB cap`.
fn group_text(group: &UncomparedLoads) -> String {
    let n = group.names.len();
    let loads = if n == 1 { "load" } else { "loads" };
    match &group.why {
        NotComparedWhy::OverTheCap { cap } => {
            format!("{n} {loads} over the {} cap", cap_text(*cap))
        }
        NotComparedWhy::Fault { fault } => {
            format!("{n} {loads} lost to a fault: {}", fault_text(fault))
        }
        NotComparedWhy::ErrorReply { message } => format!(
            "{n} {loads} answered with an error: {}",
            cut(&visible_inline(message))
        ),
    }
}

/// Every group of a port's loads not compared, in words.
fn uncompared_text(summary: &PortSummary) -> String {
    summary
        .loads
        .iter()
        .flat_map(|loads| &loads.not_compared)
        .map(group_text)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The port's "not compared" clause: what of it was not compared.
fn not_compared_text(summary: &PortSummary) -> String {
    match summary.state {
        PortState::Partial => uncompared_text(summary),
        _ => brief_state(summary),
    }
}

/// The report's one-line verdict: what was not compared first, then who disagrees (the first
/// line of `corpus.md` and of the terminal, and the terminal's last line).
pub fn verdict_line(report: &CorpusReport) -> String {
    let incomplete = report.incomplete();
    let mut parts: Vec<String> = incomplete
        .iter()
        .map(|port| {
            format!(
                "{port}: not compared: {}",
                not_compared_text(&report.ports[*port])
            )
        })
        .collect();
    let others = || report.port_order().into_iter().filter(|p| *p != REFERENCE);
    let answered = others().any(|p| report.ports[p].accepted.is_some());
    if parts.is_empty() && answered {
        parts.push("every selected port compared".to_owned());
    } else if parts.is_empty() {
        let unavailable: Vec<&str> = others().collect();
        parts.push(if unavailable.is_empty() {
            "no port besides the reference was selected".to_owned()
        } else {
            format!(
                "no port besides the reference was compared (unavailable: {})",
                unavailable.join(", ")
            )
        });
    }
    let disagreeing = report.disagreeing();
    if !disagreeing.is_empty() {
        parts.push(format!(
            "disagreeing with the reference: {}",
            disagreeing.join(", ")
        ));
    }
    let agreeing: Vec<&str> = others()
        .filter(|p| report.ports[*p].agrees_with_reference == Some(true))
        .collect();
    if !agreeing.is_empty() {
        parts.push(format!(
            "{} {} with the reference (inventory, every load, prompt)",
            agreeing.join(", "),
            if agreeing.len() == 1 {
                "agrees"
            } else {
                "agree"
            }
        ));
    }
    format!("skill-conform corpus: {}", parts.join("; "))
}

/// `corpus.md` (and, with a `limit`, what the terminal shows): see the module doc.
pub fn render_markdown(report: &CorpusReport, limit: Option<usize>) -> String {
    let mut out = String::new();
    let order = report.port_order();
    header(&mut out, report);
    warnings(&mut out, report);
    disagreements(&mut out, report, &order, limit);
    duplicates(&mut out, report, &order);
    counts(&mut out, report);
    loads_and_prompt(&mut out, report, &order);
    out
}

/// The verdict line, the roots, the load count and the cap.
fn header(out: &mut String, report: &CorpusReport) {
    let _ = writeln!(out, "# {}\n", verdict_line(report));
    for (index, root) in report.roots.iter().enumerate() {
        let _ = writeln!(out, "- `{{root{index}}}` = `{root}`");
    }
    let _ = writeln!(
        out,
        "- {} names loaded: every name the reference accepts, then `{UNKNOWN_SKILL}`",
        report.load_count
    );
    if let Some(cap) = report.line_cap {
        let _ = writeln!(
            out,
            "- reply lines capped at {}: the first request lists the folder, the loads follow in batches that fit",
            cap_text(cap)
        );
    }
}

/// What the reference's walk could not read.
fn warnings(out: &mut String, report: &CorpusReport) {
    if report.warnings.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## Warnings: {} path{} the reference could not read as given\n",
        report.warnings.len(),
        if report.warnings.len() == 1 { "" } else { "s" }
    );
    for warning in &report.warnings {
        let what = match warning.kind {
            WalkWarningKind::UnreadableFolder => "unreadable folder, walked as empty",
            WalkWarningKind::UnfollowableLink => "link that cannot be followed, ignored",
            WalkWarningKind::NotUtf8Name => "name is not UTF-8 (on the wire: U+FFFD)",
        };
        let error = warning
            .error
            .as_deref()
            .map(|e| format!(" ({e})"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- `{}`: {what}{error}",
            visible_inline(&warning.location)
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
        let listed: Vec<&str> = order
            .iter()
            .copied()
            .filter(|p| report.ports[*p].accepted.is_some())
            .collect();
        let _ = if listed.len() > 1 {
            writeln!(
                out,
                "The inventories compared ({}) list every SKILL.md location the same way.",
                listed.join(", ")
            )
        } else {
            writeln!(out, "No inventory besides the reference's was compared.")
        };
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
        "\n## Counts, by inventory cluster (identical normalised inventories)\n"
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
        let loads_text = match (loads.differences.is_empty(), loads.not_compared.is_empty()) {
            (true, true) => format!("all {} loads match", loads.count),
            (false, true) => format!(
                "{} of {} loads differ",
                loads.differences.len(),
                report.load_count
            ),
            (_, false) => format!(
                "{} of {} loads compared, {} of them differ; not compared: {}",
                loads.count,
                report.load_count,
                loads.differences.len(),
                uncompared_text(summary)
            ),
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
        for group in &loads.not_compared {
            let shown: Vec<String> = group
                .names
                .iter()
                .take(SHOWN_LOADS)
                .map(|n| format!("`{}`", visible_inline(n)))
                .collect();
            let more = group.names.len().saturating_sub(SHOWN_LOADS);
            let more = if more > 0 {
                format!(" … and {more} more (all in corpus.json)")
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  - not compared, {}: {}{more}",
                group_text(group),
                shown.join(", ")
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

/// Writes `corpus.json`, `corpus.md` and `corpus.html` into `dir` (created if missing).
pub fn write_report(report: &CorpusReport, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("corpus.json"), render_json(report))?;
    std::fs::write(dir.join("corpus.md"), render_markdown(report, None))?;
    std::fs::write(dir.join("corpus.html"), super::corpus_html::render(report))
}
