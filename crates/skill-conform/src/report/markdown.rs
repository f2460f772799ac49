//! `summary.md`: a short Markdown page for a CI job summary (`$GITHUB_STEP_SUMMARY`).
//!
//! 1. A headline: per port, pinned cases passing out of pinned cases run (and unavailable or
//!    broken ports named).
//! 2. The matrix as a table, but only the rows where some port did not `pass`, plus a totals
//!    row — a green run is one line, not 143 rows.
//! 3. Failures: one bullet each with the reproduction command in a code span, the full details
//!    folded in a `<details>` block.
//! 4. Unavailable and broken ports with their reasons; gap clusters; notes.
//!
//! Case ids and port names are `[A-Za-z0-9._-]`, so they need no Markdown escaping; evidence
//! text only ever appears inside code spans or fenced blocks whose fence is longer than any
//! backtick run in it.

use std::fmt::Write as _;

use super::model::{
    cell, note_text, port_labels, port_trouble_lines, trial_details, trial_summary, Model, Trial,
};
use super::Redactor;
use crate::judge::{PortStatus, Results};

/// `summary.md` for `results`.
pub fn render(results: &Results, redactor: &Redactor) -> String {
    render_model(&Model::new(results), redactor)
}

/// `summary.md` from a prepared model.
pub(crate) fn render_model(model: &Model<'_>, redactor: &Redactor) -> String {
    let mut out = String::from("# skill-conform\n\n");
    out.push_str(&headline(model));
    if let Some(score) = super::interop::of_model(model, redactor) {
        let _ = writeln!(out, "\n{}", score.line());
    }
    out.push('\n');
    out.push_str(&table(model));

    if !model.failures.is_empty() {
        heading(&mut out, &format!("Failures ({})", model.failures.len()));
        for trial in &model.failures {
            out.push_str(&item(trial, redactor));
        }
    }
    if !model.problems.is_empty() {
        heading(
            &mut out,
            &format!(
                "Problems on unpinned cases, not failing ({})",
                model.problems.len()
            ),
        );
        for trial in &model.problems {
            out.push_str(&item(trial, redactor));
        }
    }
    troubled_ports(&mut out, model, redactor);
    let expectation_errors = &model.results.expectation_errors;
    if !expectation_errors.is_empty() {
        heading(
            &mut out,
            &format!("Expectation errors ({})", expectation_errors.len()),
        );
        for problem in expectation_errors {
            out.push_str(&expectation_item(
                &problem.port,
                &redactor.text(&problem.message),
            ));
        }
    }
    run_problems(&mut out, model.results);
    if !model.clusters.is_empty() {
        heading(&mut out, "Gap clusters");
        out.push_str("Unpinned cases where real ports differ from the golden, ports grouped by identical output.\n\n");
        for (case, clusters) in &model.clusters {
            let groups: Vec<String> = clusters
                .iter()
                .map(|cluster| {
                    let label = if cluster.matches_golden {
                        "golden".to_owned()
                    } else {
                        format!("`{}`", cluster.fingerprint)
                    };
                    let members = port_labels(model.results, &cluster.ports, redactor);
                    format!("{label}: {members}")
                })
                .collect();
            let _ = writeln!(out, "- `{case}` — {}", groups.join(" · "));
        }
    }
    if !model.notes.is_empty() {
        heading(&mut out, "Notes");
        for note in &model.notes {
            let _ = writeln!(out, "- {}", note_text(note, model.results, redactor));
        }
    }
    out
}

/// The "Unavailable and broken ports" section: each port's first trouble line, the rest folded.
fn troubled_ports(out: &mut String, model: &Model<'_>, redactor: &Redactor) {
    if !model.troubled_ports.is_empty() {
        heading(out, "Unavailable and broken ports");
        for info in &model.troubled_ports {
            let lines = port_trouble_lines(info, redactor);
            let (first, rest) = lines.split_first().map_or(("", &[][..]), |(f, r)| (f, r));
            let _ = writeln!(out, "- **{}** {first}", info.name);
            if !rest.is_empty() {
                let rest: Vec<&str> = rest
                    .iter()
                    .map(|line| line.strip_prefix("  ").unwrap_or(line))
                    .collect();
                out.push_str(&details_block("details", &format!("{}\n", rest.join("\n"))));
            }
        }
    }
}

/// `**python** 62/64 · **golang** 64/64 pinned cases pass; unavailable: java; broken: elixir.`
fn headline(model: &Model<'_>) -> String {
    let counts: Vec<String> = model
        .ports
        .iter()
        .filter_map(|port| {
            let totals = model.totals.get(port)?;
            let available = !matches!(
                model.results.ports.get(*port),
                Some(info) if !matches!(info.status, PortStatus::Available)
            );
            let gaps = match super::interop::gaps(&totals.by_status) {
                0 => String::new(),
                n => format!(" ({n} gap{})", if n == 1 { "" } else { "s" }),
            };
            available.then(|| format!("**{port}** {}/{}{gaps}", totals.pinned_pass, totals.pinned))
        })
        .collect();
    let mut line = if counts.is_empty() {
        "No port ran".to_owned()
    } else {
        format!("{} pinned cases pass", counts.join(" · "))
    };
    for (label, broken) in [("unavailable", false), ("broken", true)] {
        let names: Vec<&str> = model
            .troubled_ports
            .iter()
            .filter(|info| matches!(info.status, PortStatus::Broken { .. }) == broken)
            .map(|info| info.name.as_str())
            .collect();
        if !names.is_empty() {
            let _ = write!(line, "; {label}: {}", names.join(", "));
        }
    }
    let failures = model.failures.len();
    let _ = write!(
        line,
        "; {failures} failure{}",
        if failures == 1 { "" } else { "s" }
    );
    let errors = model.results.expectation_errors.len();
    if errors > 0 {
        let _ = write!(
            line,
            "; {errors} expectation error{}",
            if errors == 1 { "" } else { "s" }
        );
    }
    line.push('.');
    format!("{line}\n")
}

/// One list item for a problem with a port's `expected.toml`: the port in bold, the message's
/// lines kept apart (its hint is on a line of its own). `merge-reports` lists them the same way.
pub(crate) fn expectation_item(port: &str, message: &str) -> String {
    let lines: Vec<&str> = message.lines().collect();
    format!("- **{port}** {}\n", lines.join("  \n  "))
}

/// The matrix rows where some port did not pass, and a totals row.
fn table(model: &Model<'_>) -> String {
    let rows: Vec<_> = model
        .cases
        .iter()
        .filter(|case| !model.all_pass(case))
        .collect();
    let mut out = String::new();
    if rows.is_empty() {
        let _ = writeln!(out, "All {} cases pass on every port.", model.cases.len());
        return out;
    }
    let _ = writeln!(
        out,
        "{} of {} cases have a result other than `ok` (pinned cases marked *):\n",
        rows.len(),
        model.cases.len()
    );
    let mut header = String::from("| case |");
    let mut rule = String::from("|---|");
    for port in &model.ports {
        let _ = write!(header, " {port} |");
        rule.push_str("---|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for case in rows {
        let marker = if model.is_pinned(case) { " \\*" } else { "" };
        let mut row = format!("| `{case}`{marker} |");
        for port in &model.ports {
            let _ = write!(row, " {} |", model.cell(port, case));
        }
        let _ = writeln!(out, "{row}");
    }
    let mut totals = String::from("| **pinned pass** |");
    for port in &model.ports {
        let text = model.totals.get(port).map_or_else(
            || "-".to_owned(),
            |totals| format!("{}/{}", totals.pinned_pass, totals.pinned),
        );
        let _ = write!(totals, " {text} |");
    }
    let _ = writeln!(out, "{totals}");
    out
}

/// A level-2 heading after exactly one blank line.
/// The run-level problems beyond the verdicts: `tampered` files and an interruption.
fn run_problems(out: &mut String, results: &Results) {
    if !results.tampered.is_empty() {
        heading(out, "Tampered (exit 3)");
        out.push_str("Guarded files changed during the run:\n\n");
        for line in &results.tampered {
            let _ = writeln!(out, "- `{line}`");
        }
    }
    if let Some(interruption) = results.interrupted {
        heading(out, "Interrupted");
        let _ = writeln!(
            out,
            "By {}: the verdicts are what was judged before it.",
            interruption.name()
        );
    }
}

fn heading(out: &mut String, title: &str) {
    while out.ends_with("\n\n") {
        out.pop();
    }
    let _ = write!(out, "\n## {title}\n\n");
}

fn item(trial: &Trial<'_>, redactor: &Redactor) -> String {
    let mut out = format!(
        "- `{}` **{}** — {} — reproduce: `{}`\n",
        trial.name(),
        cell(trial.status()),
        code_span(&trial_summary(trial, redactor)),
        trial.verdict.evidence.repro
    );
    out.push_str(&details_block("details", &trial_details(trial, redactor)));
    out
}

/// `text` in a code span whose delimiter is longer than any backtick run inside.
fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let ticks = "`".repeat(longest_backtick_run(text) + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// A folded `<details>` block holding `text` in a fenced `text` block, indented under a list
/// item.
fn details_block(summary: &str, text: &str) -> String {
    let fence = "`".repeat((longest_backtick_run(text) + 1).max(3));
    let mut out = format!("\n  <details><summary>{summary}</summary>\n\n  {fence}text\n");
    for line in text.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = write!(out, "  {fence}\n\n  </details>\n\n");
    out
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_fences_outgrow_backticks() {
        assert_eq!(code_span("a `b` c"), "``a `b` c``");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert!(details_block("d", "```\nx\n").contains("  ````text\n"));
    }
}
