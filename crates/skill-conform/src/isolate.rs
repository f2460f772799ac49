//! Isolation: restrict what a child program may write (and, optionally, whether it may use TCP)
//! with Linux Landlock, applied in an exec step so nothing is restricted in a multithreaded fork.
//!
//! The step is the hidden subcommand `skill-conform isolate --write DIR… [--no-net] -- PROGRAM
//! ARGS…`: it restricts its own (single) thread with [`restrict_current_thread`], then replaces
//! itself with `PROGRAM`, which inherits the restriction and cannot lift it (root cannot either).
//!
//! The [`Policy`]: read and execute everywhere; write, create, remove, rename and truncate only
//! below the listed directories (and write `/dev/null`); with `deny_tcp`, no TCP bind or connect.
//! Landlock needs ABI 5 for every filesystem right and ABI 4 for TCP; on an older kernel it
//! enforces what it can ([`Isolation::Partial`]), without Landlock nothing
//! ([`Isolation::None`]) and the program still runs. [`probe`] tells the level in advance, from
//! a throwaway thread, so a report can say `isolation: none`.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;

use landlock::{
    Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr,
    RulesetError, RulesetStatus, ABI,
};

/// The ABI that has every right the policy handles (`IoctlDev` is ABI 5, TCP is ABI 4).
const POLICY_ABI: ABI = ABI::V5;

/// Files every isolated program may write, whatever its policy.
const ALWAYS_WRITABLE_FILES: &[&str] = &["/dev/null"];

/// What an isolated program may change.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Directories (with everything below them) the program may write to.
    pub writable: Vec<PathBuf>,
    /// Deny binding and connecting TCP sockets.
    pub deny_tcp: bool,
}

/// How much of a [`Policy`] the running kernel enforces.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// Landlock is unavailable: nothing is restricted.
    None,
    /// An older Landlock ABI: some rights (or TCP) are not restricted.
    Partial,
    /// Every restriction of the policy holds.
    Full,
}

impl Isolation {
    pub fn as_str(self) -> &'static str {
        match self {
            Isolation::None => "none",
            Isolation::Partial => "partial",
            Isolation::Full => "full",
        }
    }
}

impl fmt::Display for Isolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a policy could not be applied. Each renders as one line.
#[derive(Debug, thiserror::Error)]
pub enum IsolateError {
    #[error("error isolating: writable directory `{}`: {cause} (hint: create it before isolating)", path.display())]
    Writable { path: PathBuf, cause: String },
    #[error("error isolating: {0}")]
    Landlock(#[from] RulesetError),
    #[error("error isolating: cannot execute `{}`: {cause} (hint: give a program on PATH or its path)", program.display())]
    Exec {
        program: PathBuf,
        cause: std::io::Error,
    },
}

/// The arguments of the hidden `isolate` subcommand.
#[derive(Debug, clap::Args)]
pub struct IsolateArgs {
    /// A directory the program may write below. Repeatable.
    #[arg(long = "write", value_name = "DIR")]
    pub writable: Vec<PathBuf>,
    /// Deny TCP bind and connect.
    #[arg(long)]
    pub no_net: bool,
    /// The program to execute, then its arguments.
    #[arg(last = true, required = true, value_name = "PROGRAM ARGS")]
    pub command: Vec<OsString>,
}

/// Runs the hidden `isolate` subcommand; returns only if isolating or executing failed.
pub fn main(args: IsolateArgs) -> Result<crate::error::ExitCode, crate::error::Error> {
    let policy = Policy {
        writable: args.writable,
        deny_tcp: args.no_net,
    };
    let (program, rest) = args.command.split_first().expect("clap requires PROGRAM");
    Err(crate::error::Error::Usage(
        exec_isolated(&policy, program, rest).to_string(),
    ))
}

/// Restricts the calling thread (and every program it later executes) to `policy`, and says how
/// much of it holds. Other threads of the process are not restricted.
pub(crate) fn restrict_current_thread(policy: &Policy) -> Result<Isolation, IsolateError> {
    let mut ruleset = Ruleset::default().handle_access(AccessFs::from_all(POLICY_ABI))?;
    if policy.deny_tcp {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    let mut created = ruleset.create()?;
    created = created.add_rule(PathBeneath::new(
        PathFd::new("/").map_err(|e| writable_error("/", e))?,
        AccessFs::from_read(POLICY_ABI),
    ))?;
    for file in ALWAYS_WRITABLE_FILES {
        if let Ok(fd) = PathFd::new(file) {
            let rights = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
            created = created.add_rule(PathBeneath::new(fd, rights))?;
        }
    }
    for dir in &policy.writable {
        let fd = PathFd::new(dir).map_err(|e| writable_error(dir, e))?;
        created = created.add_rule(PathBeneath::new(fd, AccessFs::from_all(POLICY_ABI)))?;
    }
    let status = created.restrict_self()?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Isolation::Full,
        RulesetStatus::PartiallyEnforced => Isolation::Partial,
        RulesetStatus::NotEnforced => Isolation::None,
    })
}

fn writable_error(path: impl Into<PathBuf>, cause: impl fmt::Display) -> IsolateError {
    IsolateError::Writable {
        path: path.into(),
        cause: cause.to_string(),
    }
}

/// How much of `policy` the running kernel would enforce: applies it to a throwaway thread.
pub fn probe(policy: &Policy) -> Result<Isolation, IsolateError> {
    let policy = policy.clone();
    std::thread::spawn(move || restrict_current_thread(&policy))
        .join()
        .expect("the isolation probe thread does not panic")
}

/// The hidden `isolate` subcommand: restricts itself to `policy`, then executes `program` with
/// `args` (same environment and working directory). Returns only on failure, with a one-line
/// message; a kernel without Landlock is not a failure (the program runs unrestricted).
pub(crate) fn exec_isolated(
    policy: &Policy,
    program: &OsString,
    args: &[OsString],
) -> IsolateError {
    use std::os::unix::process::CommandExt;
    if let Err(error) = restrict_current_thread(policy) {
        return error;
    }
    let cause = std::process::Command::new(program).args(args).exec();
    IsolateError::Exec {
        program: PathBuf::from(program),
        cause,
    }
}
