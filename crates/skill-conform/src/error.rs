//! Setup and usage errors: the ones that stop the harness before or instead of judging (exit 2
//! or 3). A divergence is never one of these: it is a verdict, rendered by the report.

use std::path::PathBuf;

/// The process exit codes of `skill-conform`. When several apply, the one with the highest
/// [`ExitCode::precedence`] wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, strum::EnumIter)]
pub enum ExitCode {
    /// Every pinned case as expected.
    Ok = 0,
    /// A pinned divergence or an expectation error.
    Divergence = 1,
    /// Usage or configuration error.
    Usage = 2,
    /// A selected port is broken, a required port is unavailable, or a guarded file was
    /// tampered with.
    PortTrouble = 3,
    /// Interrupted by SIGINT (128 + 2).
    Interrupted = 130,
    /// Terminated by SIGTERM (128 + 15).
    Terminated = 143,
}

impl ExitCode {
    /// Every exit code, in numeric order, enumerated by the compiler.
    pub fn all() -> impl Iterator<Item = ExitCode> {
        <ExitCode as strum::IntoEnumIterator>::iter()
    }

    /// The process's exit status.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// Which code wins when several apply: an interruption, then port trouble, then usage, then
    /// a divergence.
    pub(crate) fn precedence(self) -> u8 {
        match self {
            ExitCode::Terminated => 5,
            ExitCode::Interrupted => 4,
            ExitCode::PortTrouble => 3,
            ExitCode::Usage => 2,
            ExitCode::Divergence => 1,
            ExitCode::Ok => 0,
        }
    }

    /// The code of a run where both `self` and `other` apply.
    pub fn and(self, other: ExitCode) -> ExitCode {
        if other.precedence() > self.precedence() {
            other
        } else {
            self
        }
    }

    /// What the code means, for the README table.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            ExitCode::Ok => "every pinned case as expected",
            ExitCode::Divergence => {
                "a pinned divergence, an expectation error, a stale golden or a surviving mutant"
            }
            ExitCode::Usage => {
                "usage or configuration error (bad flag, bad `case.toml`, missing fixture dir or root)"
            }
            ExitCode::PortTrouble => {
                "a selected port is broken, a required port unavailable, or a guarded file tampered with"
            }
            ExitCode::Interrupted => "interrupted by SIGINT; reports hold what was judged so far",
            ExitCode::Terminated => "terminated by SIGTERM; reports hold what was judged so far",
        }
    }
}

/// An error that ends the command with exit 2 (usage) or 3 (port trouble), said in one line.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("root `{}` is not a directory (hint: pass an existing skills folder)", .0.display())]
    MissingRoot(PathBuf),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    PortTrouble(String),
    #[error("error {doing}: {source}")]
    Io {
        doing: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// The exit code this error ends the process with.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::PortTrouble(_) => ExitCode::PortTrouble,
            _ => ExitCode::Usage,
        }
    }

    /// An I/O error while doing something, described in lowercase ("reading `x`").
    pub fn io(doing: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            doing: doing.into(),
            source,
        }
    }
}
