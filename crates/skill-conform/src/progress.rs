//! What `run` says while it works, and its closing line: one status line per port on stderr as
//! it is set up and run (so a first run, which installs packages, is never silent), and by
//! default a terse summary on stdout in the one status vocabulary instead of libtest's listing
//! (`--libtest` brings the listing back).
//!
//! `--libtest` maps the statuses onto libtest's three words: a status that fails the run is
//! `FAILED`; `gap`, `expected-fail`, `vacuous` and `unavailable` are `ignored` (libtest's word
//! for "ran nothing that counts"; the message names the status, e.g. `ignored, gap`); every
//! other status is `ok`. Unavailable ports' trials are left out of both the listing and the
//! matrix (their section gives the reason); `-- --list` still lists every trial.

use std::time::{Duration, Instant};

use crate::judge::{PortStatus, Results, Status};
use crate::port::Resolved;

/// `python: setting up 0.21.0…` (stderr).
pub(crate) fn setting_up(port: &str) {
    eprintln!("{port}: setting up…");
}

/// Shows set-up's progress lines (`installing toolnexus 0.21.0 (PyPI)`, `building …`, from
/// the adapters' `progress`) on stderr as `python: installing …` while set-up runs; other lines stay in its
/// log.
pub(crate) fn setup_line_watcher(port: &str) -> Box<dyn Fn(&str) + Send> {
    let port = port.to_owned();
    Box::new(move |line| {
        if let Some(shown) = setup_progress(&port, line) {
            eprintln!("{shown}");
        }
    })
}

/// The status line for one stderr line of set-up, when it is a progress line.
fn setup_progress(port: &str, line: &str) -> Option<String> {
    ["installing ", "building "]
        .iter()
        .any(|word| line.starts_with(word))
        .then(|| format!("{port}: {line}"))
}

/// `python: ready (set up in 3.2s)` or `python: unavailable: REASON` (stderr).
pub(crate) fn resolved(resolved: &Resolved, took: Duration) {
    eprintln!("{}", resolved_line(resolved, took));
}

fn resolved_line(resolved: &Resolved, took: Duration) -> String {
    match resolved {
        Resolved::Ready { name, asked, .. } => {
            format!("{name}: ready, {asked} (set up in {})", seconds(took))
        }
        Resolved::Unavailable { name, reason } => format!("{name}: unavailable: {reason}"),
    }
}

/// `python: 144 cases run in 5.1s` (stderr).
pub fn ran(port: &str, cases: usize, took: Duration) {
    eprintln!(
        "{port}: {cases} case{} run in {}",
        if cases == 1 { "" } else { "s" },
        seconds(took)
    );
}

/// How often a running port says how far it got: a fast port (the whole suite in a second or
/// two) prints no such line, a slow one (a JVM, a port under a hang budget) one line per period.
pub(crate) const CASE_LINE_EVERY: Duration = Duration::from_secs(3);

/// While a port runs its cases: `python: 37/144 cases` on stderr, at most once per
/// [`CASE_LINE_EVERY`], never for the last case (the `… cases run in …` line says that).
/// Plain lines rather than a redrawn bar: several ports run at once, and CI logs keep every
/// line.
pub(crate) struct CaseProgress {
    port: String,
    total: usize,
    last: Instant,
}

impl CaseProgress {
    /// A port about to run `total` trials (cases × passes).
    pub fn new(port: &str, total: usize) -> CaseProgress {
        CaseProgress {
            port: port.to_owned(),
            total,
            last: Instant::now(),
        }
    }

    /// `done` trials have an observation now.
    pub(crate) fn update(&mut self, done: usize) {
        if let Some(line) = self.line_at(done, Instant::now()) {
            eprintln!("{line}");
        }
    }

    /// The line to print at `now`, if one is due.
    fn line_at(&mut self, done: usize, now: Instant) -> Option<String> {
        if done >= self.total || now.duration_since(self.last) < CASE_LINE_EVERY {
            return None;
        }
        self.last = now;
        Some(format!("{}: {done}/{} cases", self.port, self.total))
    }
}

/// `1.25s`: a duration as the terminal shows it.
pub fn seconds(took: Duration) -> String {
    format!("{:.2}s", took.as_secs_f64())
}

/// Whether a (port) verdict belongs in the libtest listing and the matrix: not when its port is
/// unavailable.
pub fn shown(results: &Results, port: &str) -> bool {
    !matches!(
        results.ports.get(port).map(|info| &info.status),
        Some(PortStatus::Unavailable { .. })
    )
}

/// The closing line: `skill-conform: 130 trials in 14.20s: 120 pass, 2 fail, 8 gap; 2 failing`,
/// counts in [`Status::all`] order over the ports that ran; failing counts the verdicts and
/// the expectation errors that fail the run.
pub fn summary(results: &Results, took: Duration) -> String {
    let mut counts = std::collections::BTreeMap::<Status, usize>::new();
    let mut failing = 0;
    let mut trials = 0;
    for ((port, case), verdict) in &results.verdicts {
        if !shown(results, port) {
            continue;
        }
        trials += 1;
        *counts.entry(verdict.status).or_default() += 1;
        failing += usize::from(verdict.status.is_failure(results.is_pinned(case)));
    }
    // An expectation error fails the run without a verdict of its own.
    failing += results.expectation_errors.len();
    let parts: Vec<String> = Status::all()
        .filter_map(|status| counts.get(&status).map(|n| format!("{n} {status}")))
        .collect();
    format!(
        "skill-conform: {trials} trial{} in {}: {}; {failing} failing",
        if trials == 1 { "" } else { "s" },
        seconds(took),
        if parts.is_empty() {
            "none ran".to_owned()
        } else {
            parts.join(", ")
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseId;
    use crate::judge::{CaseInfo, PortInfo, Verdict};

    #[test]
    fn a_running_port_says_how_far_it_got_once_per_period_and_not_at_the_end() {
        let mut progress = CaseProgress::new("python@0.18.1", 144);
        let start = progress.last;
        assert_eq!(progress.line_at(5, start + Duration::from_secs(1)), None);
        assert_eq!(
            progress
                .line_at(37, start + CASE_LINE_EVERY + Duration::from_millis(1))
                .as_deref(),
            Some("python@0.18.1: 37/144 cases")
        );
        // The next line waits a whole period from the last one.
        assert_eq!(progress.line_at(40, start + CASE_LINE_EVERY * 2), None);
        assert!(progress.line_at(41, start + CASE_LINE_EVERY * 3).is_some());
        assert_eq!(progress.line_at(144, start + CASE_LINE_EVERY * 9), None);
    }

    #[test]
    fn set_up_progress_lines_are_shown_with_their_port_and_nothing_else() {
        assert_eq!(
            setup_progress("python", "installing toolnexus 0.21.0 (PyPI)").as_deref(),
            Some("python: installing toolnexus 0.21.0 (PyPI)")
        );
        assert!(setup_progress("golang", "building toolnexus 0.16.0 from /src").is_some());
        assert_eq!(setup_progress("python", "Collecting pyyaml"), None);
    }

    #[test]
    fn the_summary_counts_in_the_status_vocabulary_and_leaves_unavailable_ports_out() {
        let case = CaseId::parse("hazards/x").unwrap();
        let mut results = Results::new();
        results.add_case(case.clone(), CaseInfo::default());
        results.add_port(PortInfo::available("python"));
        let mut java = PortInfo::available("java");
        java.status = PortStatus::Unavailable {
            reason: "no mvn".into(),
        };
        results.add_port(java);
        let mut gap = Verdict::unavailable("python", &case, "");
        gap.status = Status::Gap;
        results.insert("python", case.clone(), gap);
        results.insert(
            "java",
            case.clone(),
            Verdict::unavailable("java", &case, "x"),
        );
        assert!(!shown(&results, "java") && shown(&results, "python"));
        assert_eq!(
            summary(&results, Duration::from_millis(1250)),
            "skill-conform: 1 trial in 1.25s: 1 gap; 0 failing"
        );
    }
}
