//! `junit.xml`: one `<testsuite>` per port (in matrix order), one `<testcase>` per case named
//! `GROUP/CASE` with classname `PORT`, so CI test tabs show the matrix.
//!
//! How statuses map, chosen so that a red test in CI means what exit code 1 or 3 means:
//!
//! | status                                                   | JUnit                          |
//! |----------------------------------------------------------|--------------------------------|
//! | `pass`                                                   | passed                         |
//! | `expected-fail`                                          | passed, system-out says why    |
//! | `gap`                                                    | passed, system-out has the diff|
//! | `fail`, `unexpected-pass`                                | `<failure>`                    |
//! | `error`, `timeout`, `crash`, `protocol-error`, `nondeterministic` on a pinned case | `<error>` |
//! | the same on an unpinned case                             | passed, system-out has details |
//! | `broken`                                                 | `<error>`                      |
//! | `unavailable`, `vacuous`                                 | skipped, with the reason       |
//!
//! A gap is *passed* rather than skipped: it never fails the run, and a skipped count would read
//! as "not run". The element's `type` is the status name; its `message` is the one-line summary;
//! its text is the full [`trial_details`] (diff, stderr tail, reproduction command). A port with
//! no verdicts but an unavailable or broken status gets one testcase named `(port)`. A problem
//! with a port's `expected.toml` is a `<failure>` testcase named `expected.toml` in its suite.
//!
//! Times are written only when durations are not redacted; no timestamps, so the file is
//! deterministic.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::model::{port_trouble_lines, trial_details, trial_summary, Model, Trial};
use super::Redactor;
use crate::judge::status::Junit;
use crate::judge::{ExpectationProblem, PortStatus, Results};

/// The name of the `<testsuites>` element.
pub(crate) const REPORT_NAME: &str = "skill-conform";

/// `junit.xml` for `results`.
pub fn render(
    results: &Results,
    redactor: &Redactor,
) -> Result<String, quick_junit::SerializeError> {
    render_model(&Model::new(results), redactor)
}

/// `junit.xml` from a prepared model.
pub(crate) fn render_model(
    model: &Model<'_>,
    redactor: &Redactor,
) -> Result<String, quick_junit::SerializeError> {
    let mut report = Report::new(REPORT_NAME);
    for port in &model.ports {
        let mut suite = TestSuite::new(*port);
        let mut total_ms = 0u64;
        for case in &model.cases {
            let Some(verdict) = model.verdict(port, case) else {
                continue;
            };
            let trial = Trial {
                port,
                case,
                pinned: model.is_pinned(case),
                rules: model.rules(case),
                verdict,
            };
            let mut testcase = test_case(&trial, redactor);
            if let Some(ms) = verdict.evidence.duration_ms {
                total_ms += ms;
                if !redactor.redacts_durations() {
                    testcase.set_time(Duration::from_millis(ms));
                }
            }
            suite.add_test_case(testcase);
        }
        if suite.test_cases.is_empty() {
            if let Some(info) = model.results.ports.get(*port) {
                let lines = port_trouble_lines(info, redactor);
                let status = match &info.status {
                    PortStatus::Available => None,
                    PortStatus::Unavailable { .. } => Some(TestCaseStatus::skipped()),
                    PortStatus::Broken { .. } => {
                        Some(TestCaseStatus::non_success(NonSuccessKind::Error))
                    }
                };
                if let Some(mut status) = status {
                    status.set_message(lines.first().cloned().unwrap_or_default());
                    status.set_description(lines.join("\n"));
                    let mut testcase = TestCase::new("(port)", status);
                    testcase.set_classname(*port);
                    suite.add_test_case(testcase);
                }
            }
        }
        for problem in model
            .results
            .expectation_errors
            .iter()
            .filter(|problem| problem.port == *port)
        {
            suite.add_test_case(expectation_case(problem, redactor));
        }
        if !redactor.redacts_durations() {
            suite.set_time(Duration::from_millis(total_ms));
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

/// A failing testcase `expected.toml` for a problem with that file (it fails the run too).
fn expectation_case(problem: &ExpectationProblem, redactor: &Redactor) -> TestCase {
    let message = redactor.text(&problem.message);
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status
        .set_type("expectation-error")
        .set_message(message.lines().next().unwrap_or_default().to_owned())
        .set_description(message);
    let mut testcase = TestCase::new("expected.toml", status);
    testcase.set_classname(problem.port.as_str());
    testcase
}

fn test_case(trial: &Trial<'_>, redactor: &Redactor) -> TestCase {
    let status = trial.status();
    let details = trial_details(trial, redactor);
    let summary = trial_summary(trial, redactor);
    let non_success = |kind| {
        let mut status_element = TestCaseStatus::non_success(kind);
        status_element
            .set_type(status.as_str())
            .set_message(summary.clone())
            .set_description(details.clone());
        status_element
    };
    let (junit_status, system_out) = match status.junit(trial.pinned) {
        Junit::Success => (TestCaseStatus::success(), None),
        Junit::SuccessWithStory => (TestCaseStatus::success(), Some(details)),
        Junit::Failure => (non_success(NonSuccessKind::Failure), None),
        Junit::Error => (non_success(NonSuccessKind::Error), None),
        Junit::Skipped => {
            let mut skipped = TestCaseStatus::skipped();
            skipped
                .set_type(status.as_str())
                .set_message(summary.clone());
            (skipped, None)
        }
    };
    let mut testcase = TestCase::new(trial.case.as_str(), junit_status);
    testcase.set_classname(trial.port);
    if let Some(out) = system_out {
        testcase.set_system_out(out);
    }
    testcase
}
