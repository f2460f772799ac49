//! `corpus.html`: `corpus`'s report as one self-contained page beside `corpus.md` (no CDN, a
//! small inline script): the verdict line, the ports with their state in colour, the walk's
//! warnings, a legend, and the disagreements table (location × answering port), which a port
//! filter narrows to the rows where that port's verdict is not the reference's
//! (presettable as `corpus.html#port=python`).
//!
//! It shares its frame, style, filter and escaping with `report.html` ([`super::html`]). Every
//! skill name, description, location, reason and message is untrusted (it comes from the
//! folder or a port) and goes through [`escape`]; the script reads only `data-` attributes the
//! page wrote itself.

use std::fmt::Write as _;

use super::corpus::{state_text, verdict_line, verdict_text};
use super::html::{escape, filter_select, page_end, page_start};
use crate::corpus::{CorpusReport, LocationVerdict, PortState, PortSummary};
use crate::port::REFERENCE;

const SCRIPT: &str = "function applyFilters(){
var p=document.getElementById('port-filter').value;
document.querySelectorAll('tr.location-row').forEach(function(r){
var ok=p===''||r.dataset.ports.split(' ').indexOf(p)>=0;
r.classList.toggle('hidden',!ok);});}
document.getElementById('port-filter').addEventListener('change',applyFilters);";

/// The colour of a port's state: compared in full, in part, not at all, or not available.
fn state_class(state: PortState) -> &'static str {
    match state {
        PortState::Ok => "green",
        PortState::Partial => "yellow",
        PortState::Unavailable => "dim",
        PortState::Broken | PortState::Fault | PortState::Error => "red",
    }
}

/// The colour of one port's entries for a location.
fn verdict_class(entries: &[LocationVerdict]) -> &'static str {
    match entries.first() {
        None => "red",
        Some(LocationVerdict::Accepted { .. }) => "green",
        Some(LocationVerdict::Skipped { .. }) => "yellow",
    }
}

/// `corpus.html` for `report`.
pub fn render(report: &CorpusReport) -> String {
    let mut out = page_start("skill-conform corpus", &verdict_line(report));
    out.push_str("<ul id=\"roots\">\n");
    for (index, root) in report.roots.iter().enumerate() {
        let _ = writeln!(
            out,
            "<li><code>{{root{index}}}</code> = {}</li>",
            escape(root)
        );
    }
    out.push_str("</ul>\n");
    out.push_str(&ports(report));
    out.push_str(&warnings(report));
    out.push_str(&legend());
    out.push_str(&disagreements(report));
    out.push_str(&page_end(SCRIPT));
    out
}

/// Whether the port agrees, in words that never say so of a port not compared in full.
fn agreement_text(summary: &PortSummary) -> &'static str {
    match summary.agrees_with_reference {
        Some(true) => "agrees",
        Some(false) => "differs",
        None => "not said: not compared in full",
    }
}

fn ports(report: &CorpusReport) -> String {
    let mut out = String::from(
        "<h2>Ports</h2>\n<table id=\"ports\">\n<tr><th>port</th><th>state</th><th>inventory</th><th>loads</th><th>with the reference</th></tr>\n",
    );
    for port in report.port_order() {
        let summary = &report.ports[port];
        let inventory = summary.accepted.map_or_else(String::new, |accepted| {
            let skipped: usize = summary.skipped.iter().flat_map(|s| s.values()).sum();
            format!("{accepted} ok / {skipped} skipped")
        });
        let loads = summary.loads.as_ref().map_or_else(String::new, |loads| {
            let uncompared: usize = loads.not_compared.iter().map(|g| g.names.len()).sum();
            format!(
                "{} compared, {} differ, {uncompared} not compared",
                loads.count,
                loads.differences.len()
            )
        });
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(port),
            state_class(summary.state),
            escape(&state_text(summary)),
            escape(&inventory),
            escape(&loads),
            if port == REFERENCE {
                ""
            } else {
                agreement_text(summary)
            }
        );
    }
    out.push_str("</table>\n");
    out
}

fn warnings(report: &CorpusReport) -> String {
    if report.warnings.is_empty() {
        return String::new();
    }
    let mut out = String::from("<h2>Warnings</h2>\n<ul id=\"warnings\">\n");
    for warning in &report.warnings {
        let kind = serde_json::to_value(warning.kind)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let error = warning.error.as_deref().unwrap_or("");
        let _ = writeln!(
            out,
            "<li><code>{}</code>: {} {}</li>",
            escape(&warning.location),
            escape(&kind),
            escape(error)
        );
    }
    out.push_str("</ul>\n");
    out
}

fn legend() -> String {
    let mut out = String::from(
        "<p class=\"legend\" id=\"legend\"><span class=\"green\">accepted</span><span class=\"yellow\">skipped (reason)</span><span class=\"red\">not listed</span> · port states: ",
    );
    for state in PortState::all() {
        let _ = write!(
            out,
            "<span class=\"{}\" title=\"{}\">{}</span>",
            state_class(state),
            escape(state.meaning()),
            escape(state.word())
        );
    }
    out.push_str("</p>\n");
    out
}

fn disagreements(report: &CorpusReport) -> String {
    let answering: Vec<&str> = report
        .port_order()
        .into_iter()
        .filter(|p| report.ports[*p].accepted.is_some())
        .collect();
    let mut out = format!(
        "<h2>Disagreements: {} SKILL.md locations</h2>\n<p>{}</p>\n<table id=\"disagreements\">\n<tr><th>location</th>",
        report.disagreements.len(),
        filter_select(
            "port",
            "rows where this port differs from the reference:",
            answering.iter().copied().filter(|p| *p != REFERENCE)
        )
    );
    for port in &answering {
        let _ = write!(out, "<th>{}</th>", escape(port));
    }
    out.push_str("</tr>\n");
    for row in &report.disagreements {
        let reference = row.verdicts.get(REFERENCE);
        let differing: Vec<&str> = answering
            .iter()
            .copied()
            .filter(|p| *p != REFERENCE && row.verdicts.get(*p) != reference)
            .collect();
        let _ = write!(
            out,
            "<tr class=\"location-row\" data-ports=\"{}\"><td><code>{}</code></td>",
            escape(&differing.join(" ")),
            escape(&row.location)
        );
        for port in &answering {
            let entries = row.verdicts.get(*port).map_or(&[][..], Vec::as_slice);
            let _ = write!(
                out,
                "<td class=\"{}\">{}</td>",
                verdict_class(entries),
                escape(&verdict_text(entries))
            );
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}
