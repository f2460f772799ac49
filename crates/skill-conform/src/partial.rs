//! What an interrupted run reports: one process-wide slot with the results judged so far and
//! where the reports go, and the interrupt hook that writes them marked `interrupted`.
//!
//! `run` arms the slot once its plan is known ([`arm`]), adds each port's verdicts as soon as
//! that port has run ([`update`]), and disarms it once its own reports are written
//! ([`disarm`]). The SIGINT/SIGTERM watcher ([`crate::interrupt`]) is installed once per
//! process, on the first [`arm`]; on a signal it kills every registered process group, removes
//! every registered temporary directory, then calls [`write_interrupted`], and exits 130 or 143.

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::interrupt::Interruption;
use crate::judge::Results;
use crate::report::Redactor;

/// The run in progress: its results so far and its report targets.
struct Armed {
    results: Results,
    report_dir: PathBuf,
    repo: PathBuf,
}

fn slot() -> MutexGuard<'static, Option<Armed>> {
    static SLOT: OnceLock<Mutex<Option<Armed>>> = OnceLock::new();
    let mutex = SLOT.get_or_init(Mutex::default);
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Starts reporting `results` (and what [`update`] adds) if the run is interrupted, into
/// `report_dir`, with `repo` redacted; installs the interrupt watcher the first time.
pub(crate) fn arm(results: Results, report_dir: PathBuf, repo: PathBuf) {
    *slot() = Some(Armed {
        results,
        report_dir,
        repo,
    });
    watch();
}

/// Installs the interrupt watcher, once per process: on SIGINT/SIGTERM it kills every registered
/// process group, removes every registered directory, writes the armed run's reports (if any)
/// and exits 130 or 143.
pub(crate) fn watch() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        if let Err(error) = crate::interrupt::install(Box::new(write_interrupted)) {
            eprintln!("skill-conform: cannot watch for SIGINT/SIGTERM ({error}); an interrupted run will leave its temporary files");
        }
    });
}

/// Adds to the results an interruption would report (nothing when no run is armed).
pub(crate) fn update(add: impl FnOnce(&mut Results)) {
    if let Some(armed) = slot().as_mut() {
        add(&mut armed.results);
    }
}

/// The run wrote its own reports: an interruption from now on writes nothing.
pub(crate) fn disarm() {
    *slot() = None;
}

/// The interrupt hook: writes the armed run's reports, marked `interrupted` by `signal`.
pub(crate) fn write_interrupted(signal: Interruption) {
    let Some(mut armed) = slot().take() else {
        return;
    };
    armed.results.interrupted = Some(signal);
    let redactor = Redactor::none().repo(&armed.repo);
    match crate::report::write_reports(&armed.results, &armed.report_dir, &redactor) {
        Ok(()) => eprintln!(
            "skill-conform: interrupted by {}; partial reports written to {}",
            signal.name(),
            armed.report_dir.display()
        ),
        Err(error) => eprintln!(
            "skill-conform: interrupted by {}; could not write the partial reports to {}: {error}",
            signal.name(),
            armed.report_dir.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_armed_run_writes_its_results_marked_interrupted() {
        let dir = crate::test_tempdir::tempdir();
        *slot() = Some(Armed {
            results: Results::new(),
            report_dir: dir.path().to_owned(),
            repo: dir.path().to_owned(),
        });
        write_interrupted(Interruption::Terminate);
        let report = std::fs::read_to_string(dir.path().join("report.json")).unwrap();
        assert!(report.contains("\"interrupted\": \"SIGTERM\""), "{report}");
        assert!(slot().is_none(), "written once");
    }
}
