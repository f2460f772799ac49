//! `report.html`: one self-contained static page (no CDN, no build step, a small inline script)
//! with the cases × ports matrix in status colours, a legend, filters by status and case group,
//! the interop score and per-port totals; every cell that is not `ok` opens (a `<details>`
//! element) the same text [`trial_details`] gives everywhere else: the diff, the stderr tail
//! and the reproduce command.
//!
//! The filters can be preset in the address: `report.html#status=fail&group=sampling`.
//!
//! Everything that comes from a case, an adapter or a port (ids, versions, errors, stderr,
//! output) goes through [`escape`]; the script reads only `data-` attributes the page wrote
//! itself.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::model::{count_list, port_versions, trial_details, Model, Trial, NO_VERDICT};
use super::Redactor;
use crate::judge::status::Colour;
use crate::judge::{PortStatus, Results, Status};

/// `report.html` for `results`.
pub fn render(results: &Results, redactor: &Redactor) -> String {
    render_model(&Model::new(results), redactor)
}

/// `text` safe inside HTML text and double- or single-quoted attributes.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The style every page shares (this one and `corpus.html`).
const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f4f4f4;position:sticky;top:0}td.case{font-family:monospace;white-space:nowrap}
.green{background:#d9f2d9}.yellow{background:#fff2c2}.red{background:#f7c6c6;font-weight:bold}
.dim{background:#eee;color:#777}pre{white-space:pre-wrap;max-width:60em;font-size:12px}
.legend span{display:inline-block;padding:2px 6px;margin:2px;border:1px solid #ccc}
summary{cursor:pointer}.hidden{display:none}";

const SCRIPT: &str = "function applyFilters(){
var s=document.getElementById('status-filter').value;
var g=document.getElementById('group-filter').value;
document.querySelectorAll('tr.case-row').forEach(function(r){
var ok=(s===''||r.dataset.statuses.split(' ').indexOf(s)>=0)&&(g===''||r.dataset.group===g);
r.classList.toggle('hidden',!ok);});}
document.getElementById('status-filter').addEventListener('change',applyFilters);
document.getElementById('group-filter').addEventListener('change',applyFilters);";

/// Sets each `NAME-filter` select from the address (`page.html#NAME=VALUE&…`), then filters:
/// every page's script ends with it, after defining `applyFilters`.
const PRESET_FROM_ADDRESS: &str =
    "new URLSearchParams(location.hash.slice(1)).forEach(function(v,k){
var e=document.getElementById(k+'-filter');if(e){e.value=v;}});
applyFilters();";

/// A page's opening: doctype, `title`, the shared style, and `heading` as its `<h1>` (both
/// escaped here).
pub(crate) fn page_start(title: &str, heading: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{}</title>\n<style>\n{STYLE}\n</style>\n</head>\n<body>\n<h1>{}</h1>\n",
        escape(title),
        escape(heading)
    )
}

/// A page's end: its `script` (which defines `applyFilters`), the address preset, the closing
/// tags.
pub(crate) fn page_end(script: &str) -> String {
    format!("<script>\n{script}\n{PRESET_FROM_ADDRESS}\n</script>\n</body>\n</html>\n")
}

/// A `<select id="NAME-filter">` after `label`, with "any" and each of `values` (escaped).
pub(crate) fn filter_select<'a>(
    name: &str,
    label: &str,
    values: impl IntoIterator<Item = &'a str>,
) -> String {
    let mut out = format!(
        "{} <select id=\"{}-filter\"><option value=\"\">any</option>",
        escape(label),
        escape(name)
    );
    for value in values {
        let value = escape(value);
        let _ = write!(out, "<option value=\"{value}\">{value}</option>");
    }
    out.push_str("</select>");
    out
}

fn colour_class(status: Option<Status>) -> &'static str {
    match status.map(|status| status.words().colour) {
        Some(Colour::Green) => "green",
        Some(Colour::Yellow) => "yellow",
        Some(Colour::Red) => "red",
        Some(Colour::Dim) | None => "dim",
    }
}

/// `report.html` from a prepared model.
pub(crate) fn render_model(model: &Model<'_>, redactor: &Redactor) -> String {
    let mut out = page_start("skill-conform report", "skill-conform");
    let score = super::interop::of_model(model, redactor)
        .map_or_else(|| "no real port ran".to_owned(), |score| score.line());
    let _ = writeln!(out, "<p id=\"interop\">{}</p>", escape(&score));
    out.push_str(&totals(model, redactor));
    out.push_str(&legend());
    out.push_str(&filters(model));
    out.push_str(&matrix(model, redactor));
    out.push_str(&page_end(SCRIPT));
    out
}

fn totals(model: &Model<'_>, redactor: &Redactor) -> String {
    let mut out = String::from(
        "<h2>Ports</h2>\n<table id=\"totals\">\n<tr><th>port</th><th>pinned pass</th><th>verdicts</th><th>versions / state</th></tr>\n",
    );
    for port in &model.ports {
        let totals = model.totals.get(port).cloned().unwrap_or_default();
        let info = model.results.ports.get(*port);
        let state = match info.map(|info| &info.status) {
            Some(PortStatus::Available) | None => {
                info.map_or_else(String::new, |info| port_versions(info, redactor))
            }
            Some(other) => other.word().to_owned(),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}/{}</td><td>{}</td><td>{}</td></tr>",
            escape(port),
            totals.pinned_pass,
            totals.pinned,
            escape(&count_list(&totals)),
            escape(&state)
        );
    }
    out.push_str("</table>\n");
    out
}

fn legend() -> String {
    let mut out = String::from("<p class=\"legend\" id=\"legend\">");
    for status in Status::all() {
        let words = status.words();
        let _ = write!(
            out,
            "<span class=\"{}\">{} = {}</span>",
            colour_class(Some(status)),
            escape(words.cell),
            escape(words.name)
        );
    }
    let _ = writeln!(
        out,
        "<span class=\"dim\">{NO_VERDICT} = no verdict</span> (* = pinned case)</p>"
    );
    out
}

fn filters(model: &Model<'_>) -> String {
    let statuses: BTreeSet<Status> = model
        .totals
        .values()
        .flat_map(|totals| totals.by_status.keys().copied())
        .collect();
    let groups: BTreeSet<&str> = model.cases.iter().map(|case| case.group()).collect();
    format!(
        "<p>{} {}</p>\n",
        filter_select(
            "status",
            "status",
            statuses.iter().map(|status| status.words().name)
        ),
        filter_select("group", "group", groups)
    )
}

fn matrix(model: &Model<'_>, redactor: &Redactor) -> String {
    let mut out = String::from("<table id=\"matrix\">\n<tr><th>case</th>");
    for port in &model.ports {
        let _ = write!(out, "<th>{}</th>", escape(port));
    }
    out.push_str("</tr>\n");
    for case in &model.cases {
        let statuses: Vec<&str> = model
            .ports
            .iter()
            .filter_map(|port| model.verdict(port, case))
            .map(|verdict| verdict.status.words().name)
            .collect();
        let marker = if model.is_pinned(case) { " *" } else { "" };
        let _ = write!(
            out,
            "<tr class=\"case-row\" data-group=\"{}\" data-statuses=\"{}\"><td class=\"case\">{}{marker}</td>",
            escape(case.group()),
            escape(&statuses.join(" ")),
            escape(case.as_str())
        );
        for port in &model.ports {
            out.push_str(&cell(model, port, case, redactor));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    out
}

fn cell(model: &Model<'_>, port: &str, case: &crate::case::CaseId, redactor: &Redactor) -> String {
    let Some(verdict) = model.verdict(port, case) else {
        return format!("<td class=\"dim\">{NO_VERDICT}</td>");
    };
    let status = verdict.status;
    let class = colour_class(Some(status));
    let text = escape(status.words().cell);
    let title = escape(&format!("{port} {case}: {}", status.words().name));
    if status == Status::Pass {
        return format!("<td class=\"{class}\" title=\"{title}\">{text}</td>");
    }
    let trial = Trial {
        port,
        case,
        pinned: model.is_pinned(case),
        rules: model.rules(case),
        verdict,
    };
    format!(
        "<td class=\"{class}\" title=\"{title}\"><details><summary>{text}</summary><pre>{}</pre></details></td>",
        escape(&trial_details(&trial, redactor))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_text_and_both_quotes() {
        assert_eq!(
            escape("<script>a&\"b'</script>"),
            "&lt;script&gt;a&amp;&quot;b&#39;&lt;/script&gt;"
        );
    }
}
