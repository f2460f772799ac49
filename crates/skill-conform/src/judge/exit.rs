//! The run-level problems a run's results can show, and the exit code they imply.
//!
//! Each [`RunProblem`] maps to one [`ExitCode`]; the run ends with the code of highest
//! [`ExitCode::precedence`] among its problems (0 with none). Exit 2 (usage) is decided before
//! anything runs, by the caller.

use std::collections::BTreeSet;

use super::{PortId, PortStatus, Results, Status};
use crate::error::ExitCode;
use crate::interrupt::Interruption;

/// Something about a whole run that decides its exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::EnumIter)]
pub enum RunProblem {
    /// A port failed its handshake or smoke pair (its record says so, or a verdict is `broken`).
    PortBroken,
    /// A `--require`d port is unavailable or has no results.
    RequiredPortUnavailable,
    /// A verdict fails the run ([`Status::is_failure`]).
    FailingVerdict,
    /// A port's `expected.toml` has a problem.
    ExpectationError,
    /// A guarded file (a fixture, a golden, an `expected.toml`) changed during the run.
    Tampered,
    /// The run was interrupted by SIGINT; the reports hold what was judged so far.
    Interrupted,
    /// The run was terminated by SIGTERM; the reports hold what was judged so far.
    Terminated,
}

impl RunProblem {
    /// Every run-level problem, enumerated by the compiler.
    pub fn all() -> impl Iterator<Item = RunProblem> {
        <RunProblem as strum::IntoEnumIterator>::iter()
    }

    /// The exit code the problem implies.
    pub fn exit_code(self) -> ExitCode {
        match self {
            RunProblem::PortBroken | RunProblem::RequiredPortUnavailable | RunProblem::Tampered => {
                ExitCode::PortTrouble
            }
            RunProblem::Interrupted => ExitCode::Interrupted,
            RunProblem::Terminated => ExitCode::Terminated,
            RunProblem::FailingVerdict | RunProblem::ExpectationError => ExitCode::Divergence,
        }
    }

    /// The problem in a few words, for the README table.
    pub fn words(self) -> &'static str {
        match self {
            RunProblem::PortBroken => "a port is broken",
            RunProblem::RequiredPortUnavailable => "a `--require`d port is unavailable",
            RunProblem::FailingVerdict => "a verdict that fails the run",
            RunProblem::ExpectationError => "an `expected.toml` problem (stale or invalid entry)",
            RunProblem::Tampered => {
                "`tampered`: a fixture, golden or `expected.toml` changed during the run"
            }
            RunProblem::Interrupted => "`interrupted` by SIGINT (reports hold what was judged)",
            RunProblem::Terminated => "`interrupted` by SIGTERM (reports hold what was judged)",
        }
    }

    /// Whether the problem shows in `results` (with `required` ports).
    pub(crate) fn shows_in(self, results: &Results, required: &BTreeSet<PortId>) -> bool {
        match self {
            RunProblem::PortBroken => {
                results
                    .ports
                    .values()
                    .any(|info| matches!(info.status, PortStatus::Broken { .. }))
                    || results
                        .verdicts
                        .values()
                        .any(|verdict| verdict.status == Status::Broken)
            }
            RunProblem::RequiredPortUnavailable => {
                required.iter().any(|port| match results.ports.get(port) {
                    None => true,
                    Some(info) => matches!(info.status, PortStatus::Unavailable { .. }),
                })
            }
            RunProblem::FailingVerdict => results.failures().next().is_some(),
            RunProblem::ExpectationError => !results.expectation_errors.is_empty(),
            RunProblem::Tampered => !results.tampered.is_empty(),
            RunProblem::Interrupted => results.interrupted == Some(Interruption::Interrupt),
            RunProblem::Terminated => results.interrupted == Some(Interruption::Terminate),
        }
    }
}

/// The exit code a run's results imply: the highest-precedence code of the problems they show,
/// or [`ExitCode::Ok`].
pub fn exit_code(results: &Results, required: &BTreeSet<PortId>) -> ExitCode {
    RunProblem::all()
        .filter(|problem| problem.shows_in(results, required))
        .map(RunProblem::exit_code)
        .fold(ExitCode::Ok, ExitCode::and)
}
