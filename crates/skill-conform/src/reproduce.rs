//! Reproduce lines: the one shell command that reruns a trial the way this run ran it.
//!
//! A line names the port exactly as it was given ([`PortRequest::as_given`]: `--port NAME`,
//! `--port NAME@VERSION`, `--port NAME=PATH`, `--adapter 'NAME=COMMAND'`), and adds what else
//! decided the outcome:
//!
//! - `TMPDIR=…` in front when the user set it (it chooses where sandboxes are made);
//! - `--repo DIR` when the run's repository is not the current directory (`run`'s default);
//! - `--repeat N --seed S` when the status came from repetition (`nondeterministic`): the seed
//!   fixes every pass's sandbox entry order and base, so the rerun builds the same sandboxes.
//!
//! Then `-- --exact PORT::CASE`. Rerun alone, a port's column is its name
//! ([`crate::port_columns`]: a port selected once is not versioned), so the `--exact` name uses
//! the request's name, not this run's column (`python@0.18.1` here is `python` there).
//! Every word is shell-quoted where it needs to be ([`crate::port::shell_word`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::case::CaseId;
use crate::port::{shell_word, PortRequest};

/// Everything a reproduce line needs from the run: each column's request, and the run's
/// `TMPDIR`, repository and repetition.
#[derive(Clone, Debug, Default)]
pub(crate) struct Reproducer {
    /// Column -> the request as given.
    ports: BTreeMap<String, PortRequest>,
    /// `TMPDIR` as the user set it (absent or empty: not set).
    tmpdir: Option<String>,
    /// The repository, when it is not the current directory.
    repo: Option<PathBuf>,
    /// `--repeat N` and the seed, when N > 1.
    repeat: Option<(u32, u64)>,
}

impl Reproducer {
    /// A reproducer for `ports` (column and request) run over `repo` (canonical) from `cwd`,
    /// with `tmpdir` as the environment gave it and `passes` passes seeded by `seed`.
    pub fn new(
        ports: impl IntoIterator<Item = (String, PortRequest)>,
        tmpdir: Option<std::ffi::OsString>,
        (repo, cwd): (&Path, Option<&Path>),
        (passes, seed): (u32, u64),
    ) -> Reproducer {
        let cwd = cwd.and_then(|cwd| std::fs::canonicalize(cwd).ok());
        Reproducer {
            ports: ports.into_iter().collect(),
            tmpdir: tmpdir
                .filter(|dir| !dir.is_empty())
                .map(|dir| dir.to_string_lossy().into_owned()),
            repo: (cwd.as_deref() != Some(repo)).then(|| repo.to_path_buf()),
            repeat: (passes > 1).then_some((passes, seed)),
        }
    }

    /// The command that runs `column` again (for a port that is broken as a whole).
    pub fn port(&self, column: &str) -> String {
        let mut line = String::new();
        if let Some(dir) = &self.tmpdir {
            line.push_str(&format!("TMPDIR={} ", shell_word(dir)));
        }
        line.push_str("skill-conform run ");
        match self.ports.get(column) {
            Some(request) => line.push_str(&request.as_given()),
            None => line.push_str(&format!("--port {}", shell_word(column))),
        }
        if let Some(repo) = &self.repo {
            line.push_str(&format!(
                " --repo {}",
                shell_word(&repo.display().to_string())
            ));
        }
        line
    }

    /// The command that reruns the trial (`column`, `case`); with `repeated`, with this run's
    /// `--repeat` and `--seed` (for a status that only repetition shows).
    pub fn trial(&self, column: &str, case: &CaseId, repeated: bool) -> String {
        let mut line = self.port(column);
        if let Some((passes, seed)) = self.repeat.filter(|_| repeated) {
            line.push_str(&format!(" --repeat {passes} --seed {seed}"));
        }
        let name = self.ports.get(column).map_or(column, PortRequest::name);
        line.push_str(&format!(
            " -- --exact {}",
            shell_word(&crate::run::trial_name(name, case))
        ));
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case() -> CaseId {
        CaseId::parse("frontmatter/colon-space").unwrap()
    }

    fn reproducer(requests: &[(&str, PortRequest)], tmpdir: Option<&str>) -> Reproducer {
        let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
        let ports = requests.iter().map(|(c, r)| ((*c).to_owned(), r.clone()));
        Reproducer::new(ports, tmpdir.map(Into::into), (&cwd, Some(&cwd)), (1, 0))
    }

    #[test]
    fn a_line_names_the_port_as_given_and_the_exact_name_it_will_have() {
        let versioned = PortRequest::parse_port("python@0.18.1").unwrap();
        let line = reproducer(&[("python@0.18.1", versioned)], None).trial(
            "python@0.18.1",
            &case(),
            false,
        );
        assert_eq!(
            line,
            "skill-conform run --port python@0.18.1 -- --exact python::frontmatter/colon-space"
        );
        let local = PortRequest::parse_port("js=../my toolnexus").unwrap();
        let line = reproducer(&[("js", local)], Some("/scratch/x y")).trial("js", &case(), false);
        assert_eq!(
            line,
            "TMPDIR='/scratch/x y' skill-conform run --port js='../my toolnexus' -- --exact js::frontmatter/colon-space"
        );
    }

    #[test]
    fn an_adapter_command_round_trips_through_the_printed_line() {
        let argv = ["sh", "-c", "exec x \"$@\" 'it''s'", "--", "a b"];
        let request = PortRequest::Command {
            name: "m".into(),
            argv: argv.iter().map(|&a| a.to_owned()).collect(),
        };
        let line = reproducer(&[("m", request.clone())], None).port("m");
        let words = shell_words::split(&line).unwrap();
        assert_eq!(words[..3], ["skill-conform", "run", "--adapter"]);
        assert_eq!(PortRequest::parse_adapter(&words[3]).unwrap(), request);
    }

    #[test]
    fn repeat_and_seed_only_for_a_status_from_repetition_and_repo_only_when_elsewhere() {
        let request = PortRequest::parse_port("java").unwrap();
        let elsewhere = Path::new("/home/someone/other repo");
        let reproducer = Reproducer::new(
            [("java".to_owned(), request)],
            None,
            (elsewhere, Some(Path::new("/"))),
            (3, 42),
        );
        assert_eq!(
            reproducer.trial("java", &case(), true),
            "skill-conform run --port java --repo '/home/someone/other repo' --repeat 3 --seed 42 -- --exact java::frontmatter/colon-space"
        );
        assert!(!reproducer
            .trial("java", &case(), false)
            .contains("--repeat"));
    }
}
