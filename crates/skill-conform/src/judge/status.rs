//! The closed set of verdict statuses, what each one means for the exit code, and how a session
//! fault maps onto one.
//!
//! The statuses are listed in `docs/architecture.md`. Which of them make the run fail is
//! decided here, in one place, by [`Status::is_failure`]; the reports and
//! [`exit_code`](super::exit_code) both ask it.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::session::{FaultKind, Phase};

/// The outcome of one trial (one port × one case).
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// The normalised reply equals the golden, byte for byte.
    Pass,
    /// A pinned case whose reply differs from the golden.
    Fail,
    /// A declared divergence (`expected.toml`) that still diverges (with the same fingerprint).
    ExpectedFail,
    /// A declared divergence whose case now passes: the entry is stale.
    UnexpectedPass,
    /// An unpinned case whose reply differs from the golden; never fails the run.
    Gap,
    /// The port threw: the reply carried `error`.
    Error,
    /// No reply before the deadline.
    Timeout,
    /// The adapter exited (or its stdin closed) mid-case.
    Crash,
    /// A non-JSON line, a wrong case id, a malformed or oversized reply.
    ProtocolError,
    /// The port failed its handshake or smoke pair; it cannot be talked to.
    Broken,
    /// The port's toolchain or package is missing.
    Unavailable,
    /// The case's own precondition does not hold on this filesystem.
    Vacuous,
    /// Two runs of the same case differ after normalisation.
    Nondeterministic,
    /// The adapter changed the case's sandbox (which it may only read): its reply is not judged.
    SandboxModified,
    /// Never sent: the port had hung on too many cases in a row (`--max-timeouts`) and is
    /// `broken` for the rest of the run.
    NotRun,
}

/// How a status shows in JUnit: the element a testcase gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Junit {
    /// A passing testcase.
    Success,
    /// A passing testcase with the trial's story on `system-out`.
    SuccessWithStory,
    /// `<failure>`.
    Failure,
    /// `<error>`.
    Error,
    /// `<skipped>`.
    Skipped,
}

impl Junit {
    /// The word the README table uses.
    pub fn word(self) -> &'static str {
        match self {
            Junit::Success => "pass",
            Junit::SuccessWithStory => "pass + system-out",
            Junit::Failure => "failure",
            Junit::Error => "error",
            Junit::Skipped => "skipped",
        }
    }
}

/// The colour of a status on a terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Colour {
    Green,
    Yellow,
    Dim,
    Red,
}

/// Everything a status is called and means, in one row: every renderer asks here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Words {
    /// `report.json`, totals, summary.md, JUnit `type` and libtest messages: `protocol-error`.
    pub name: &'static str,
    /// The matrix cell (terminal, summary.md, merged matrix): `PROTO`.
    pub cell: &'static str,
    /// Whether it fails the run on a pinned case.
    pub fails_pinned: bool,
    /// Whether it fails the run on an unpinned case.
    pub fails_unpinned: bool,
    /// The JUnit element on a pinned case (an unpinned one gets [`Junit::SuccessWithStory`]
    /// where this is [`Junit::Error`]).
    pub junit_pinned: Junit,
    /// libtest shows the trial `ignored` rather than `ok`.
    pub libtest_ignored: bool,
    pub colour: Colour,
}

impl Status {
    /// Every status, in declaration order (the order totals are listed in), enumerated by the
    /// compiler.
    pub fn all() -> impl Iterator<Item = Status> {
        <Status as strum::IntoEnumIterator>::iter()
    }

    /// The one row of words and meaning of this status (see [`Words`]).
    pub fn words(self) -> Words {
        use Colour::*;
        let row = |name, cell, fails: (bool, bool), junit_pinned, colour| Words {
            name,
            cell,
            fails_pinned: fails.0,
            fails_unpinned: fails.1,
            junit_pinned,
            libtest_ignored: junit_pinned == Junit::Skipped,
            colour,
        };
        const ALWAYS: (bool, bool) = (true, true);
        const PINNED: (bool, bool) = (true, false);
        const NEVER: (bool, bool) = (false, false);
        match self {
            Status::Pass => row("pass", "ok", NEVER, Junit::Success, Green),
            Status::Fail => row("fail", "FAIL", ALWAYS, Junit::Failure, Red),
            Status::ExpectedFail => row(
                "expected-fail",
                "xfail",
                NEVER,
                Junit::SuccessWithStory,
                Yellow,
            ),
            Status::UnexpectedPass => row("unexpected-pass", "XPASS", ALWAYS, Junit::Failure, Red),
            Status::Gap => row("gap", "gap", NEVER, Junit::SuccessWithStory, Yellow),
            Status::Error => row("error", "ERR", PINNED, Junit::Error, Red),
            Status::Timeout => row("timeout", "T/O", PINNED, Junit::Error, Red),
            Status::Crash => row("crash", "CRASH", PINNED, Junit::Error, Red),
            Status::ProtocolError => row("protocol-error", "PROTO", PINNED, Junit::Error, Red),
            Status::Broken => row("broken", "BROKEN", ALWAYS, Junit::Error, Red),
            Status::Unavailable => row("unavailable", "n/a", NEVER, Junit::Skipped, Dim),
            Status::Vacuous => row("vacuous", "vac", NEVER, Junit::Skipped, Dim),
            Status::Nondeterministic => {
                row("nondeterministic", "NONDET", PINNED, Junit::Error, Red)
            }
            Status::SandboxModified => {
                row("sandbox-modified", "SBXMOD", ALWAYS, Junit::Failure, Red)
            }
            Status::NotRun => row("not-run", "n/r", NEVER, Junit::Skipped, Dim),
        }
    }

    /// The JUnit element of this status on a case that is `pinned` or not.
    pub fn junit(self, pinned: bool) -> Junit {
        match self.words().junit_pinned {
            Junit::Error if !pinned && !self.words().fails_unpinned => Junit::SuccessWithStory,
            other => other,
        }
    }

    /// The kebab-case name used in `report.json`, JUnit and totals.
    pub fn as_str(self) -> &'static str {
        self.words().name
    }

    /// Whether this verdict makes the run fail, on a case that is `pinned` or not.
    ///
    /// - `fail` and `unexpected-pass` always (an unexpected pass is a stale `expected.toml`
    ///   entry, an expectation error, whatever the case), and `sandbox-modified` always (the
    ///   adapter wrote where it may only read);
    /// - `error`, `timeout`, `crash`, `protocol-error` and `nondeterministic` on a pinned case
    ///   only;
    /// - `broken` always (it exits 3, which [`exit_code`](super::exit_code) decides first);
    /// - `pass`, `expected-fail`, `gap`, `vacuous`, `not-run` (its port is broken, which exits 3)
    ///   and `unavailable` never (`unavailable` is not
    ///   passing either: see [`Status::is_pass`]; it exits 3 only for a `--require`d port).
    pub(crate) fn is_failure(self, pinned: bool) -> bool {
        let words = self.words();
        if pinned {
            words.fails_pinned
        } else {
            words.fails_unpinned
        }
    }

    /// Whether the reply equalled the golden (`pass`); the only status counted as passing.
    pub fn is_pass(self) -> bool {
        self == Status::Pass
    }

    /// The status a session fault gives a trial.
    ///
    /// Any fault during the handshake phase (the first start or a restart), a failed spawn and a
    /// refused hello mean the port cannot be talked to: `broken`. Otherwise: a missed deadline
    /// is `timeout`; stdout closing or stdin refusing the request is `crash`; anything wrong
    /// with a reply line (not JSON, wrong case id, malformed, over the byte cap, unsolicited) is
    /// `protocol-error`.
    pub(crate) fn of_fault(kind: FaultKind, phase: Phase) -> Status {
        if phase == Phase::Handshake {
            return Status::Broken;
        }
        match kind {
            FaultKind::SpawnFailed | FaultKind::BadHandshake => Status::Broken,
            FaultKind::Timeout => Status::Timeout,
            FaultKind::Exited | FaultKind::WriteFailed => Status::Crash,
            FaultKind::NotJson
            | FaultKind::WrongCase
            | FaultKind::BadReply
            | FaultKind::Oversize
            | FaultKind::Unsolicited => Status::ProtocolError,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kebab_case_and_match_serde() {
        for status in Status::all() {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(json, serde_json::Value::from(status.as_str()));
            assert_eq!(
                serde_json::from_value::<Status>(json).unwrap(),
                status,
                "{status}"
            );
        }
        assert_eq!(Status::ProtocolError.as_str(), "protocol-error");
        assert_eq!(Status::UnexpectedPass.to_string(), "unexpected-pass");
    }

    #[test]
    fn failure_table() {
        let failing_when_pinned = [
            Status::SandboxModified,
            Status::Fail,
            Status::UnexpectedPass,
            Status::Error,
            Status::Timeout,
            Status::Crash,
            Status::ProtocolError,
            Status::Broken,
            Status::Nondeterministic,
        ];
        let failing_when_unpinned = [
            Status::Fail,
            Status::UnexpectedPass,
            Status::Broken,
            Status::SandboxModified,
        ];
        for status in Status::all() {
            assert_eq!(
                status.is_failure(true),
                failing_when_pinned.contains(&status),
                "{status} pinned"
            );
            assert_eq!(
                status.is_failure(false),
                failing_when_unpinned.contains(&status),
                "{status} unpinned"
            );
        }
        assert!(!Status::Gap.is_failure(true));
        assert!(!Status::Unavailable.is_pass());
        assert!(!Status::ExpectedFail.is_pass());
    }

    #[test]
    fn faults_map_to_statuses() {
        use FaultKind::*;
        let run = |kind| Status::of_fault(kind, Phase::Run);
        assert_eq!(run(Timeout), Status::Timeout);
        assert_eq!(run(Exited), Status::Crash);
        assert_eq!(run(WriteFailed), Status::Crash);
        for kind in [NotJson, WrongCase, BadReply, Oversize, Unsolicited] {
            assert_eq!(run(kind), Status::ProtocolError);
        }
        assert_eq!(run(SpawnFailed), Status::Broken);
        assert_eq!(run(BadHandshake), Status::Broken);
        assert_eq!(Status::of_fault(Timeout, Phase::Handshake), Status::Broken);
    }
}
