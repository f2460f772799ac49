//! The run's guard over the repository: the digest of what verdicts depend on (fixtures,
//! goldens, every `expected.toml`), taken before any probe or set-up and compared at the end,
//! before skill-conform writes anything of its own. A difference is the run-level problem
//! `tampered` (exit 3), whether or not isolation was available: detection never depends on it.

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::tamper::{digest_repository, TreeDigest};

/// The guarded trees of one repository as they were when the run started.
#[derive(Debug)]
pub(crate) struct RepositoryGuard {
    repo: PathBuf,
    before: TreeDigest,
}

impl RepositoryGuard {
    /// Digests the guarded trees of `repo` now.
    pub fn take(repo: &Path) -> Result<RepositoryGuard, Error> {
        let before = digest_repository(repo).map_err(|e| {
            Error::io(
                format!("digesting the fixtures and goldens of `{}`", repo.display()),
                e,
            )
        })?;
        Ok(RepositoryGuard {
            repo: repo.to_owned(),
            before,
        })
    }

    /// The guarded paths that changed since [`RepositoryGuard::take`], one `changed PATH`,
    /// `added PATH` or `removed PATH` line each (empty when nothing changed). A repository that
    /// cannot be digested any more is itself a change.
    pub fn changes(&self) -> Vec<String> {
        match digest_repository(&self.repo) {
            Ok(after) => self
                .before
                .diff(&after)
                .to_string()
                .lines()
                .map(str::to_owned)
                .collect(),
            Err(error) => vec![format!("unreadable guarded tree: {error}")],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_golden_and_a_dropped_file_are_changes() {
        let repo = crate::test_tempdir::tempdir();
        let goldens = repo.path().join("goldens/g");
        std::fs::create_dir_all(&goldens).unwrap();
        std::fs::write(goldens.join("c.json"), "{}").unwrap();
        let guard = RepositoryGuard::take(repo.path()).unwrap();
        assert!(guard.changes().is_empty());
        std::fs::write(goldens.join("c.json"), "{\"x\":1}").unwrap();
        std::fs::write(repo.path().join("goldens/dropped"), "").unwrap();
        assert_eq!(
            guard.changes(),
            ["changed goldens/g/c.json", "added goldens/dropped"]
        );
    }
}
