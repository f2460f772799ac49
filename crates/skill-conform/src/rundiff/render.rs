//! The three views of a [`RunDiff`]: a terminal table, Markdown for a CI job summary, and
//! canonical JSON. All three open with the same one-line summary.
//!
//! Versions come from adapters' hello replies, so they are untrusted: the terminal shows them in
//! the visible notation, Markdown escapes them inside table cells.

use std::fmt::Write as _;

use serde_json::json;
use skill_ref::canonical::to_canonical_string;

use super::{counts, RunDiff, Transition};
use crate::compare::text::visible_inline;

/// `2 transitions: 1 regression, 1 fixed`, or the missing base said plainly.
pub fn summary(diff: &RunDiff) -> String {
    match diff {
        RunDiff::NoBase { base } => format!(
            "no base report at `{}`: nothing to compare (the first run of a branch?)",
            base.display()
        ),
        RunDiff::Compared { transitions } if transitions.is_empty() => {
            "no transitions: every (port, case) has the status it had".to_owned()
        }
        RunDiff::Compared { transitions } => {
            let parts: Vec<String> = counts(transitions)
                .iter()
                .map(|(kind, count)| format!("{count} {}", kind.words()))
                .collect();
            format!(
                "{} transition{}: {}",
                transitions.len(),
                if transitions.len() == 1 { "" } else { "s" },
                parts.join(", ")
            )
        }
    }
}

fn transitions(diff: &RunDiff) -> &[Transition] {
    match diff {
        RunDiff::NoBase { .. } => &[],
        RunDiff::Compared { transitions } => transitions,
    }
}

/// One row's cells: transition, port, case, from, to.
fn cells(transition: &Transition) -> [String; 5] {
    [
        transition.kind.words().to_owned(),
        transition.port.clone().unwrap_or_else(|| "-".to_owned()),
        transition
            .case
            .as_ref()
            .map_or_else(|| "-".to_owned(), |case| case.as_str().to_owned()),
        visible_inline(&transition.from),
        visible_inline(&transition.to),
    ]
}

const HEADER: [&str; 5] = ["transition", "port", "case", "from", "to"];

/// The terminal view: the summary, then an aligned table.
pub fn terminal(diff: &RunDiff) -> String {
    let mut out = format!("skill-conform diff: {}\n", summary(diff));
    let rows: Vec<[String; 5]> = transitions(diff).iter().map(cells).collect();
    if rows.is_empty() {
        return out;
    }
    let mut widths = HEADER.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    out.push('\n');
    let header = HEADER.map(str::to_owned);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (cell, width) in row.iter().zip(widths) {
            let pad = width - cell.chars().count();
            let _ = write!(line, "  {cell}{}", " ".repeat(pad));
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// A Markdown table cell: pipes, backticks, angle brackets and line breaks escaped.
fn markdown_cell(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '|' | '`' | '\\' | '*' | '_' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The Markdown view, for the top of a job summary.
pub fn markdown(diff: &RunDiff) -> String {
    let mut out = format!(
        "## skill-conform diff\n\n{}\n",
        markdown_cell(&summary(diff))
    );
    let rows = transitions(diff);
    if rows.is_empty() {
        return out;
    }
    let _ = write!(out, "\n| {} |\n|---|---|---|---|---|\n", HEADER.join(" | "));
    for transition in rows {
        let cells = cells(transition).map(|cell| markdown_cell(&cell));
        let _ = writeln!(out, "| {} |", cells.join(" | "));
    }
    out
}

/// The JSON view: `{ "base"?, "summary", "counts", "transitions", "regression" }`.
pub fn json(diff: &RunDiff) -> String {
    let rows = transitions(diff);
    let counts: serde_json::Map<String, serde_json::Value> = counts(rows)
        .into_iter()
        .map(|(kind, count)| (kind.words().replace(' ', "-"), json!(count)))
        .collect();
    let mut value = json!({
        "summary": summary(diff),
        "counts": counts,
        "transitions": rows,
        "regression": diff.has_regression(),
    });
    if let RunDiff::NoBase { base } = diff {
        value["missingBase"] = json!(base.display().to_string());
    }
    to_canonical_string(&value)
}
