//! The terminal report (also written as `matrix.txt`): the cases × ports matrix, per-port totals,
//! one block per failure, unpinned problems, unavailable and broken ports, gap clusters and
//! notes — in that order, sections without content left out.
//!
//! Plain text. With [`Options::color`] the matrix cells get ANSI colours (green pass, red
//! failure kinds, yellow gaps and expected failures, dim for no result); column widths are
//! computed from the uncoloured text, so alignment does not change. Reports written to files
//! and snapshots are never coloured.

use std::fmt::Write as _;

use super::model::{
    count_list, note_text, port_label, port_labels, port_libraries, port_trouble_lines,
    port_versions, trial_details, Model, Trial, NO_VERDICT,
};
use super::Redactor;
use crate::judge::status::Colour;
use crate::judge::{PortStatus, Results, Status};

/// Rendering switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// ANSI colours in the matrix cells.
    pub color: bool,
}

/// The whole terminal report for `results`.
pub fn render(results: &Results, redactor: &Redactor, options: Options) -> String {
    render_model(&Model::new(results), redactor, options)
}

/// The matrix, with the interop score (if any) under its title line.
fn matrix_with_score(model: &Model<'_>, redactor: &Redactor, options: Options) -> String {
    let matrix = matrix(model, redactor, options);
    let score = super::interop::of_model(model, redactor);
    match (score, matrix.split_once('\n')) {
        (Some(score), Some((title, rest))) => format!("{title}\n{}\n{rest}", score.line()),
        _ => matrix,
    }
}

/// The whole terminal report from a prepared model.
pub(crate) fn render_model(model: &Model<'_>, redactor: &Redactor, options: Options) -> String {
    let mut out = matrix_with_score(model, redactor, options);
    out.push('\n');
    out.push_str(&totals(model, redactor));
    section(
        &mut out,
        &format!("failures ({})", model.failures.len()),
        model.failures.iter().map(|trial| block(trial, redactor)),
    );
    section(
        &mut out,
        &format!(
            "problems on unpinned cases, not failing ({})",
            model.problems.len()
        ),
        model.problems.iter().map(|trial| block(trial, redactor)),
    );
    section(
        &mut out,
        "unavailable and broken ports",
        model.troubled_ports.iter().map(|info| {
            let mut text = String::new();
            for (index, line) in port_trouble_lines(info, redactor).iter().enumerate() {
                if index == 0 {
                    let _ = writeln!(text, "{}: {line}", info.name);
                } else {
                    let _ = writeln!(text, "{line}");
                }
            }
            text
        }),
    );
    section(
        &mut out,
        "gap clusters (unpinned cases; real ports grouped by identical output)",
        model.clusters.iter().map(|(case, clusters)| {
            let mut text = format!("{case}\n");
            for cluster in clusters {
                let label = if cluster.matches_golden {
                    "golden".to_owned()
                } else {
                    cluster.fingerprint.clone()
                };
                let members = port_labels(model.results, &cluster.ports, redactor);
                let _ = writeln!(text, "  {label:<16}  {members}");
            }
            text
        }),
    );
    section(
        &mut out,
        &format!(
            "expectation errors, failing ({})",
            model.results.expectation_errors.len()
        ),
        model
            .results
            .expectation_errors
            .iter()
            .map(|problem| format!("{}: {}\n", problem.port, redactor.text(&problem.message))),
    );
    run_problems(&mut out, model.results);
    section(
        &mut out,
        "notes",
        model
            .notes
            .iter()
            .map(|note| format!("{}\n", note_text(note, model.results, redactor))),
    );
    out
}

/// A titled section: blank line, title, blank line, then the items separated by blank lines;
/// nothing when there are no items.
/// The run-level problems beyond the verdicts: `tampered` files and an interruption.
fn run_problems(out: &mut String, results: &Results) {
    section(
        out,
        &format!(
            "tampered: guarded files changed during the run, exit 3 ({})",
            results.tampered.len()
        ),
        results.tampered.iter().map(|line| format!("{line}\n")),
    );
    if let Some(interruption) = results.interrupted {
        let _ = write!(
            out,
            "\ninterrupted by {}: the verdicts above are what was judged before it\n",
            interruption.name()
        );
    }
}

fn section(out: &mut String, title: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        return;
    }
    let _ = write!(out, "\n{title}\n");
    for item in items {
        out.push('\n');
        out.push_str(&item);
    }
}

fn block(trial: &Trial<'_>, redactor: &Redactor) -> String {
    format!(
        "--- {} ({}) ---\n{}",
        trial.name(),
        trial.status(),
        trial_details(trial, redactor)
    )
}

/// The matrix alone: a header line, then one row per case (`*` marks a pinned case), one
/// column per port, headed `port@version` ([`port_label`]) and, on a second header line, the
/// libraries its hello names (the YAML parser), then a legend of the cells shown.
/// Unavailable ports have no column (their section gives the reason).
pub fn matrix(model: &Model<'_>, redactor: &Redactor, options: Options) -> String {
    let ports: Vec<&str> = model
        .ports
        .iter()
        .copied()
        .filter(|port| {
            !matches!(
                model.results.ports.get(*port).map(|info| &info.status),
                Some(PortStatus::Unavailable { .. })
            )
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "skill-conform: {} case{} × {} port{} (* = pinned case)",
        model.cases.len(),
        plural(model.cases.len()),
        ports.len(),
        plural(ports.len())
    );
    out.push('\n');
    let case_width = model
        .cases
        .iter()
        .map(|case| case.as_str().len())
        .chain(["case".len()])
        .max()
        .unwrap_or(4);
    let labels: Vec<String> = ports
        .iter()
        .map(|port| port_label(model.results, port, redactor))
        .collect();
    let libraries: Vec<String> = ports
        .iter()
        .map(|port| column_libraries(model, port, redactor))
        .collect();
    let widths: Vec<usize> = labels
        .iter()
        .zip(&libraries)
        .map(|(label, libraries)| {
            label
                .chars()
                .count()
                .max(libraries.chars().count())
                .max("BROKEN".len())
        })
        .collect();

    header_line(&mut out, "case", &labels, case_width, &widths);
    if libraries.iter().any(|libraries| !libraries.is_empty()) {
        header_line(&mut out, "", &libraries, case_width, &widths);
    }
    for case in &model.cases {
        let marker = if model.is_pinned(case) { '*' } else { ' ' };
        let mut row = format!("{marker} {:<case_width$}", case.as_str());
        for (port, width) in ports.iter().zip(&widths) {
            let text = model.cell(port, case);
            let status = model.verdict(port, case).map(|verdict| verdict.status);
            let padding = width - text.len();
            let _ = write!(
                row,
                "  {}{}",
                paint(text, status, options),
                " ".repeat(padding)
            );
        }
        let _ = writeln!(out, "{}", row.trim_end());
    }
    out.push_str(&legend(model, &ports));
    out
}

/// One header line of the matrix: `first` over the case column, then each column's text.
fn header_line(
    out: &mut String,
    first: &str,
    texts: &[String],
    case_width: usize,
    widths: &[usize],
) {
    let mut header = format!("  {first:<case_width$}");
    for (text, width) in texts.iter().zip(widths) {
        let _ = write!(header, "  {text:<width$}");
    }
    let _ = writeln!(out, "{}", header.trim_end());
}

/// The libraries under a column's `port@version` ([`port_libraries`]), joined by commas;
/// empty when its hello names none.
fn column_libraries(model: &Model<'_>, port: &str, redactor: &Redactor) -> String {
    model
        .results
        .ports
        .get(port)
        .map(|info| port_libraries(info, redactor).join(", "))
        .unwrap_or_default()
}

/// `legend: ok pass · gap gap (unpinned, not failing) · - not run`: the cells the matrix
/// shows, in [`Status::all`] order.
fn legend(model: &Model<'_>, ports: &[&str]) -> String {
    let shown: std::collections::BTreeSet<Status> = ports
        .iter()
        .flat_map(|port| {
            model
                .cases
                .iter()
                .filter_map(|case| model.verdict(port, case))
        })
        .map(|verdict| verdict.status)
        .collect();
    let mut parts: Vec<String> = Status::all()
        .filter(|status| shown.contains(status))
        .map(|status| {
            let words = status.words();
            let fails = match (words.fails_pinned, words.fails_unpinned) {
                (true, true) => "fails",
                (true, false) => "fails when pinned",
                _ => "does not fail",
            };
            format!("{} {} ({fails})", words.cell, words.name)
        })
        .collect();
    let unrun = ports.iter().any(|port| {
        model
            .cases
            .iter()
            .any(|case| model.verdict(port, case).is_none())
    });
    if unrun {
        parts.push(format!("{NO_VERDICT} not run"));
    }
    // Wrapped at about 100 columns, continuation lines indented under the first item.
    let mut out = String::from("\nlegend:");
    let mut line_len = out.len() - 1;
    for (index, part) in parts.iter().enumerate() {
        let separator = if index == 0 { " " } else { " · " };
        if index > 0 && line_len + separator.len() + part.chars().count() > 100 {
            out.push_str("\n       ");
            line_len = 7;
        } else {
            out.push_str(separator);
            line_len += separator.chars().count();
        }
        out.push_str(part);
        line_len += part.chars().count();
    }
    out.push('\n');
    out
}

fn plural(count: usize) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// `text` in the colour of `status` when colour is on.
fn paint(text: &str, status: Option<Status>, options: Options) -> String {
    if !options.color {
        return text.to_owned();
    }
    let code = match status.map(|status| status.words().colour) {
        Some(Colour::Green) => "32",
        Some(Colour::Yellow) => "33",
        Some(Colour::Dim) | None => "2",
        Some(Colour::Red) => "31;1",
    };
    format!("\u{1b}[{code}m{text}\u{1b}[0m")
}

/// Per-port totals: pinned passes, then every nonzero count, then the port's versions.
fn totals(model: &Model<'_>, redactor: &Redactor) -> String {
    let mut out = String::from("totals\n");
    let width = model.ports.iter().map(|port| port.len()).max().unwrap_or(0);
    for port in &model.ports {
        let Some(totals) = model.totals.get(port) else {
            continue;
        };
        let info = model.results.ports.get(*port);
        let state = info
            .filter(|info| info.status != PortStatus::Available)
            .map(|info| info.status.word());
        if let Some(state) = state {
            let _ = writeln!(out, "  {port:<width$}  {state} (see below)");
            continue;
        }
        let mut line = format!(
            "  {port:<width$}  pinned {}/{} pass",
            totals.pinned_pass, totals.pinned
        );
        if totals.pinned_expected_fail > 0 {
            let _ = write!(line, " ({} expected-fail)", totals.pinned_expected_fail);
        }
        let _ = write!(line, "; {}", count_list(totals));
        if let Some(info) = info {
            let versions = port_versions(info, redactor);
            if !versions.is_empty() {
                let _ = write!(line, "; {versions}");
            }
        }
        let _ = writeln!(out, "{line}");
    }
    out
}
