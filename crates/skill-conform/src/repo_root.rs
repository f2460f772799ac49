//! Finding the repository when `--repo` is not given (for `corpus` and `ports`, which are run
//! from anywhere): the nearest ancestor of the current directory that holds
//! `adapters/ports.toml`, else the nearest such ancestor of the binary (a `cargo run` or
//! `target/debug` build inside a clone), else the current directory (whose error then names it).

use std::path::{Path, PathBuf};

/// The file that marks a skill-conform repository.
const MARKER: &str = "adapters/ports.toml";

/// The repository for `--repo` as given: `given` itself, else found from `cwd`'s ancestors, else
/// from `exe`'s ancestors, else `cwd`.
pub(crate) fn locate(given: Option<&Path>, cwd: &Path, exe: Option<&Path>) -> PathBuf {
    if let Some(given) = given {
        return given.to_path_buf();
    }
    nearest(cwd)
        .or_else(|| exe.and_then(nearest))
        .unwrap_or_else(|| cwd.to_path_buf())
}

/// The nearest ancestor of `start` (itself included) holding [`MARKER`].
fn nearest(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(MARKER).is_file())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo_with_subdir() -> (tempfile::TempDir, PathBuf) {
        let root = crate::test_tempdir::tempdir();
        std::fs::create_dir_all(root.path().join("adapters")).unwrap();
        std::fs::write(root.path().join(MARKER), "").unwrap();
        let deep = root.path().join("target/debug");
        std::fs::create_dir_all(&deep).unwrap();
        (root, deep)
    }

    #[test]
    fn the_current_directory_wins_then_the_binary_then_the_cwd_itself() {
        let (repo, deep) = repo_with_subdir();
        let elsewhere = crate::test_tempdir::tempdir();
        let exe = deep.join("skill-conform");
        // From a subdirectory of the repository.
        assert_eq!(locate(None, &deep, None), repo.path());
        // From elsewhere, through the binary's location.
        assert_eq!(locate(None, elsewhere.path(), Some(&exe)), repo.path());
        // Neither: the current directory, so the error names it.
        assert_eq!(locate(None, elsewhere.path(), None), elsewhere.path());
        // --repo as given always wins.
        let given = elsewhere.path().join("x");
        assert_eq!(locate(Some(&given), &deep, Some(&exe)), given);
    }
}
