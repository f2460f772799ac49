//! Deliberate adapter misbehaviour, for testing the runner against every way a port can fail.
//!
//! [`serve`](super::serve()) takes an optional [`FaultInjection`]: a [`FaultMode`] (hidden CLI flag
//! `adapter --fault MODE`) plus the cases it applies to, read from the environment variable
//! [`FAULT_CASES_ENV`] (`SKILL_CONFORM_FAULT_CASES`): a comma-separated list of patterns, each a
//! glob when it contains one of `*?[{` and a substring otherwise; unset or empty means every case.
//! `exit` and `bad-handshake` act at start, before any case, and ignore the list.

use std::fmt;
use std::str::FromStr;

/// The environment variable that limits run-time faults to some cases.
pub const FAULT_CASES_ENV: &str = "SKILL_CONFORM_FAULT_CASES";

/// One way for an adapter to misbehave.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultMode {
    /// Answer `hello` with protocol 99.
    BadHandshake,
    /// Print a non-JSON banner line on stdout before each reply.
    Banner,
    /// Write half of the reply, without a newline, then exit with status 101.
    Crash,
    /// Exit with status 1 at once, before the handshake.
    Exit,
    /// Crash on every second run request of a process (the 2nd, 4th, …).
    Flaky,
    /// Never answer: sleep forever.
    Hang,
    /// Reply with one line of about 100 MB (valid JSON, streamed, never held in memory).
    Huge,
    /// Reply `{not json`.
    InvalidJson,
    /// On every second run of the same case, reverse `inventory.skills` and append to `prompt`.
    Nondeterministic,
    /// Reply with another case id.
    WrongId,
}

impl FaultMode {
    /// Every mode, sorted by name.
    pub const ALL: [FaultMode; 10] = [
        FaultMode::BadHandshake,
        FaultMode::Banner,
        FaultMode::Crash,
        FaultMode::Exit,
        FaultMode::Flaky,
        FaultMode::Hang,
        FaultMode::Huge,
        FaultMode::InvalidJson,
        FaultMode::Nondeterministic,
        FaultMode::WrongId,
    ];

    /// The mode's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            FaultMode::BadHandshake => "bad-handshake",
            FaultMode::Banner => "banner",
            FaultMode::Crash => "crash",
            FaultMode::Exit => "exit",
            FaultMode::Flaky => "flaky",
            FaultMode::Hang => "hang",
            FaultMode::Huge => "huge",
            FaultMode::InvalidJson => "invalid-json",
            FaultMode::Nondeterministic => "nondeterministic",
            FaultMode::WrongId => "wrong-id",
        }
    }

    /// Whether the mode acts at start rather than on run requests.
    pub(crate) fn at_start(self) -> bool {
        matches!(self, FaultMode::Exit | FaultMode::BadHandshake)
    }
}

impl fmt::Display for FaultMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fault mode name that is not one of [`FaultMode::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown fault mode `{given}`\n(hint: valid modes are {})",
    valid_modes()
)]
pub struct UnknownFaultMode {
    pub given: String,
}

fn valid_modes() -> String {
    FaultMode::ALL
        .iter()
        .map(|mode| mode.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for FaultMode {
    type Err = UnknownFaultMode;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        FaultMode::ALL
            .into_iter()
            .find(|mode| mode.name() == name)
            .ok_or_else(|| UnknownFaultMode {
                given: name.to_owned(),
            })
    }
}

/// A bad pattern in [`FAULT_CASES_ENV`].
#[derive(Debug, thiserror::Error)]
#[error("error parsing `{pattern}` in {FAULT_CASES_ENV}")]
pub struct BadFaultCases {
    pub pattern: String,
    #[source]
    pub source: globset::Error,
}

/// Which cases a run-time fault applies to.
#[derive(Clone, Debug)]
pub enum CaseMatcher {
    /// Every case.
    All,
    /// Cases matching any of the patterns.
    Some(Vec<CasePattern>),
}

/// One entry of [`FAULT_CASES_ENV`].
#[derive(Clone, Debug)]
pub enum CasePattern {
    /// Matches the whole case id.
    Glob(globset::GlobMatcher),
    /// Matches case ids that contain it.
    Substring(String),
}

impl CaseMatcher {
    /// Parses a comma-separated pattern list; blank entries are ignored, and no entries at all
    /// means every case.
    pub fn parse(list: &str) -> Result<CaseMatcher, BadFaultCases> {
        let mut patterns = Vec::new();
        for pattern in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if pattern.contains(['*', '?', '[', '{']) {
                let matcher = crate::case::case_glob(pattern).map_err(|source| BadFaultCases {
                    pattern: pattern.to_owned(),
                    source,
                })?;
                patterns.push(CasePattern::Glob(matcher));
            } else {
                patterns.push(CasePattern::Substring(pattern.to_owned()));
            }
        }
        Ok(if patterns.is_empty() {
            CaseMatcher::All
        } else {
            CaseMatcher::Some(patterns)
        })
    }

    /// Whether `case` is selected.
    pub fn matches(&self, case: &str) -> bool {
        match self {
            CaseMatcher::All => true,
            CaseMatcher::Some(patterns) => patterns.iter().any(|pattern| match pattern {
                CasePattern::Glob(glob) => glob.is_match(case),
                CasePattern::Substring(text) => case.contains(text.as_str()),
            }),
        }
    }
}

/// A fault mode and the cases it applies to.
#[derive(Clone, Debug)]
pub struct FaultInjection {
    pub mode: FaultMode,
    pub cases: CaseMatcher,
}

impl FaultInjection {
    /// `mode` for every case.
    pub fn everywhere(mode: FaultMode) -> FaultInjection {
        FaultInjection {
            mode,
            cases: CaseMatcher::All,
        }
    }

    /// `mode` for the cases [`FAULT_CASES_ENV`] selects.
    pub(crate) fn from_env(mode: FaultMode) -> Result<FaultInjection, BadFaultCases> {
        let list = std::env::var(FAULT_CASES_ENV).unwrap_or_default();
        Ok(FaultInjection {
            mode,
            cases: CaseMatcher::parse(&list)?,
        })
    }

    /// Whether the run-time fault applies to `case`.
    pub(crate) fn applies_to(&self, case: &str) -> bool {
        !self.mode.at_start() && self.cases.matches(case)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_round_trip_through_their_names_in_sorted_order() {
        for mode in FaultMode::ALL {
            assert_eq!(mode.name().parse::<FaultMode>(), Ok(mode));
        }
        let names: Vec<_> = FaultMode::ALL.iter().map(|mode| mode.name()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
    }

    #[test]
    fn unknown_mode_lists_the_valid_ones() {
        let error = "segfault".parse::<FaultMode>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown fault mode `segfault`\n(hint: valid modes are bad-handshake, banner, crash, \
             exit, flaky, hang, huge, invalid-json, nondeterministic, wrong-id)"
        );
    }

    #[test]
    fn case_patterns_are_globs_or_substrings() {
        let matcher = CaseMatcher::parse("frontmatter/*, colon ,").unwrap();
        assert!(matcher.matches("frontmatter/anything"));
        assert!(matcher.matches("walk/colon-space"));
        assert!(!matcher.matches("walk/other"));
        assert!(CaseMatcher::parse(" , ").unwrap().matches("anything"));
        assert!(CaseMatcher::parse("a[").is_err());
    }

    #[test]
    fn start_faults_never_apply_to_cases() {
        assert!(!FaultInjection::everywhere(FaultMode::Exit).applies_to("g/c"));
        assert!(FaultInjection::everywhere(FaultMode::Hang).applies_to("g/c"));
    }
}
