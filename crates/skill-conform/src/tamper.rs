//! Tampering detection: a deterministic digest of the trees a verdict depends on, taken before a
//! run and again after it, and the difference between two digests.
//!
//! [`digest_repository`] covers `conformance-fixtures/`, `goldens/` and every
//! `adapters/<port>/expected.toml`; [`digest_sandbox`] covers one case's sandbox (taken after
//! it is prepared and again after the reply). Entries are keyed by their path relative to the
//! digested base, in sorted order; a file is its SHA-256, a symlink its link text (never
//! followed), a directory just its presence, and anything else (a FIFO, a socket) its kind —
//! never opened, so digesting never blocks. [`TreeDigest::diff`] lists the changed, added and
//! removed paths. Detection does not depend on isolation: it is what catches a port that wrote
//! where it could.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::sandbox::Sandbox;

/// The trees below a repository whose change is tampering, relative to its root.
pub(crate) const GUARDED_TREES: [&str; 2] = ["conformance-fixtures", "goldens"];

/// The per-port file below `adapters/<port>/` whose change is tampering.
pub(crate) const GUARDED_ADAPTER_FILE: &str = "expected.toml";

/// What one entry of a digested tree is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryDigest {
    /// A regular file: the SHA-256 of its bytes.
    File([u8; 32]),
    /// A symlink: its link text.
    Symlink(PathBuf),
    Dir,
    /// A FIFO, socket or device: its kind, never its content.
    Special,
}

/// The digest of a set of trees: every entry, by its path relative to the digested base.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeDigest {
    entries: BTreeMap<PathBuf, EntryDigest>,
}

/// How one digest differs from an earlier one (each list sorted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreeDiff {
    pub changed: Vec<PathBuf>,
    pub added: Vec<PathBuf>,
    pub removed: Vec<PathBuf>,
}

impl TreeDigest {
    /// The entries, sorted by path.
    pub fn entries(&self) -> impl Iterator<Item = (&Path, &EntryDigest)> {
        self.entries
            .iter()
            .map(|(path, entry)| (path.as_path(), entry))
    }

    /// What changed from `self` (before) to `after`.
    pub fn diff(&self, after: &TreeDigest) -> TreeDiff {
        let mut diff = TreeDiff::default();
        for (path, entry) in &self.entries {
            match after.entries.get(path) {
                None => diff.removed.push(path.clone()),
                Some(now) if now != entry => diff.changed.push(path.clone()),
                Some(_) => {}
            }
        }
        diff.added = after
            .entries
            .keys()
            .filter(|path| !self.entries.contains_key(*path))
            .cloned()
            .collect();
        diff
    }

    /// Adds the entry at `base/rel` and, for a directory, everything below it, without
    /// following symlinks. A missing path adds nothing.
    fn add_tree(&mut self, base: &Path, rel: &Path) -> io::Result<()> {
        let top = base.join(rel);
        if let Err(error) = std::fs::symlink_metadata(&top) {
            return match error.kind() {
                io::ErrorKind::NotFound => Ok(()),
                _ => Err(error),
            };
        }
        let walk = walkdir::WalkDir::new(&top)
            .follow_links(false)
            .follow_root_links(false)
            .sort_by_file_name();
        for entry in walk {
            let entry = entry.map_err(io::Error::from)?;
            let below = entry
                .path()
                .strip_prefix(&top)
                .expect("walkdir stays below");
            let key = if below.as_os_str().is_empty() {
                rel.to_owned()
            } else {
                rel.join(below)
            };
            self.entries
                .insert(key, entry_digest(entry.path(), entry.file_type())?);
        }
        Ok(())
    }
}

impl TreeDiff {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }
}

/// One line per path, sorted within each kind: `changed PATH`, `added PATH`, `removed PATH`.
impl fmt::Display for TreeDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds = [
            ("changed", &self.changed),
            ("added", &self.added),
            ("removed", &self.removed),
        ];
        for (kind, paths) in kinds {
            for path in paths {
                writeln!(f, "{kind} {}", path.display())?;
            }
        }
        Ok(())
    }
}

/// The digest of the entry at `path`, whose type (not following a symlink) the walk already
/// read from its directory: no second `stat` per entry, which was a tenth of a run's time.
fn entry_digest(path: &Path, kind: std::fs::FileType) -> io::Result<EntryDigest> {
    Ok(if kind.is_symlink() {
        EntryDigest::Symlink(std::fs::read_link(path)?)
    } else if kind.is_dir() {
        EntryDigest::Dir
    } else if kind.is_file() {
        EntryDigest::File(file_sha256(path)?)
    } else {
        EntryDigest::Special
    })
}

/// The SHA-256 of a regular file, opened without following a symlink or blocking.
fn file_sha256(path: &Path) -> io::Result<[u8; 32]> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    let mut hasher = Sha256::new();
    io::copy(&mut file, &mut hasher)?;
    Ok(hasher.finalize().into())
}

/// The digest of what a verdict depends on in the repository at `repo`: [`GUARDED_TREES`] and
/// `adapters/*/`[`GUARDED_ADAPTER_FILE`] (an `adapters/<port>` that is a symlink is recorded as
/// one, not followed). Paths are relative to `repo`.
///
/// Each guarded tree is digested in a thread of its own (the fixtures alone are most of the
/// bytes): the guard is on the path of every run before any port starts.
pub fn digest_repository(repo: &Path) -> io::Result<TreeDigest> {
    let trees: Vec<io::Result<TreeDigest>> = std::thread::scope(|scope| {
        let threads: Vec<_> = GUARDED_TREES
            .iter()
            .map(|tree| {
                scope.spawn(move || {
                    let mut digest = TreeDigest::default();
                    digest.add_tree(repo, Path::new(tree)).map(|()| digest)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().expect("digesting does not panic"))
            .collect()
    });
    let mut digest = TreeDigest::default();
    for tree in trees {
        digest.entries.append(&mut tree?.entries);
    }
    let adapters = Path::new("adapters");
    let mut ports = Vec::new();
    match std::fs::read_dir(repo.join(adapters)) {
        Ok(listing) => {
            for entry in listing {
                ports.push(entry?.file_name());
            }
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {}
        Err(error) => return Err(error),
    }
    ports.sort();
    for port in ports {
        let dir = adapters.join(&port);
        let kind = std::fs::symlink_metadata(repo.join(&dir))?.file_type();
        if kind.is_symlink() {
            digest.add_tree(repo, &dir)?;
        } else if kind.is_dir() {
            digest.add_tree(repo, &dir.join(GUARDED_ADAPTER_FILE))?;
        }
    }
    Ok(digest)
}

/// The digest of everything below `root`, with paths relative to it (the root itself is the
/// empty path).
pub fn digest_tree(root: &Path) -> io::Result<TreeDigest> {
    let mut digest = TreeDigest::default();
    digest.add_tree(root, Path::new(""))?;
    Ok(digest)
}

/// The digest of a case's sandbox: take it once prepared and again after the reply; a
/// difference means the port modified its sandbox.
pub(crate) fn digest_sandbox(sandbox: &Sandbox) -> io::Result<TreeDigest> {
    digest_tree(sandbox.path())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn paths(list: &[&str]) -> Vec<PathBuf> {
        list.iter().map(PathBuf::from).collect()
    }

    /// A small repository: two guarded trees, two ports, and files nothing guards.
    fn repository() -> tempfile::TempDir {
        let repo = crate::test_tempdir::tempdir();
        let root = repo.path();
        write(&root.join("conformance-fixtures/g/c/case.toml"), "case");
        write(
            &root.join("conformance-fixtures/g/c/skills/a/SKILL.md"),
            "skill",
        );
        write(&root.join("goldens/g/c.json"), "{}");
        write(&root.join("adapters/python/expected.toml"), "py");
        write(&root.join("adapters/python/adapter.py"), "code");
        write(&root.join("adapters/js/expected.toml"), "js");
        write(&root.join("README.md"), "readme");
        repo
    }

    #[test]
    fn the_same_trees_give_the_same_digest_in_sorted_order() {
        let repo = repository();
        let first = digest_repository(repo.path()).unwrap();
        assert_eq!(first, digest_repository(repo.path()).unwrap());
        let keys: Vec<&Path> = first.entries().map(|(path, _)| path).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert!(keys.contains(&Path::new("adapters/js/expected.toml")));
        assert!(!keys.contains(&Path::new("adapters/python/adapter.py")));
        assert!(!keys.contains(&Path::new("README.md")));
    }

    #[test]
    fn a_digest_does_not_depend_on_creation_order() {
        let one = crate::test_tempdir::tempdir();
        write(&one.path().join("b/x"), "1");
        write(&one.path().join("a/y"), "2");
        let two = crate::test_tempdir::tempdir();
        write(&two.path().join("a/y"), "2");
        write(&two.path().join("b/x"), "1");
        assert_eq!(
            digest_tree(one.path()).unwrap(),
            digest_tree(two.path()).unwrap()
        );
    }

    #[test]
    fn changed_added_and_removed_files_are_listed() {
        let repo = repository();
        let root = repo.path();
        let before = digest_repository(root).unwrap();
        write(&root.join("goldens/g/c.json"), "{\"bent\":true}");
        write(
            &root.join("conformance-fixtures/g/c/skills/new/SKILL.md"),
            "x",
        );
        fs::remove_file(root.join("adapters/js/expected.toml")).unwrap();
        write(&root.join("adapters/python/adapter.py"), "ignored");
        write(&root.join("README.md"), "ignored");
        let diff = before.diff(&digest_repository(root).unwrap());
        assert_eq!(diff.changed, paths(&["goldens/g/c.json"]));
        assert_eq!(
            diff.added,
            paths(&[
                "conformance-fixtures/g/c/skills/new",
                "conformance-fixtures/g/c/skills/new/SKILL.md"
            ])
        );
        assert_eq!(diff.removed, paths(&["adapters/js/expected.toml"]));
        assert_eq!(
            diff.to_string(),
            "changed goldens/g/c.json\nadded conformance-fixtures/g/c/skills/new\n\
             added conformance-fixtures/g/c/skills/new/SKILL.md\nremoved adapters/js/expected.toml\n"
        );
        assert!(before.diff(&before).is_empty());
    }

    #[test]
    fn a_new_port_expected_file_is_added() {
        let repo = repository();
        let before = digest_repository(repo.path()).unwrap();
        write(&repo.path().join("adapters/go/expected.toml"), "go");
        let diff = before.diff(&digest_repository(repo.path()).unwrap());
        assert_eq!(diff.added, paths(&["adapters/go/expected.toml"]));
    }

    #[test]
    fn symlinks_are_hashed_as_link_text_not_followed() {
        let outside = crate::test_tempdir::tempdir();
        write(&outside.path().join("target"), "one");
        let tree = crate::test_tempdir::tempdir();
        std::os::unix::fs::symlink(outside.path().join("target"), tree.path().join("link"))
            .unwrap();
        std::os::unix::fs::symlink(outside.path(), tree.path().join("dir-link")).unwrap();
        let before = digest_tree(tree.path()).unwrap();
        write(&outside.path().join("target"), "two");
        write(&outside.path().join("more"), "x");
        assert!(before.diff(&digest_tree(tree.path()).unwrap()).is_empty());

        fs::remove_file(tree.path().join("link")).unwrap();
        std::os::unix::fs::symlink("elsewhere", tree.path().join("link")).unwrap();
        let diff = before.diff(&digest_tree(tree.path()).unwrap());
        assert_eq!(diff.changed, paths(&["link"]));
    }

    #[test]
    fn a_guarded_tree_that_is_a_symlink_is_not_followed() {
        let repo = repository();
        let elsewhere = crate::test_tempdir::tempdir();
        write(&elsewhere.path().join("g/c.json"), "{}");
        fs::remove_dir_all(repo.path().join("goldens")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), repo.path().join("goldens")).unwrap();
        let digest = digest_repository(repo.path()).unwrap();
        let goldens: Vec<_> = digest
            .entries()
            .filter(|(path, _)| path.starts_with("goldens"))
            .collect();
        assert_eq!(goldens.len(), 1, "{goldens:?}");
        assert!(matches!(goldens[0].1, EntryDigest::Symlink(_)));
    }

    #[test]
    fn a_fifo_is_recorded_without_being_opened() {
        let tree = crate::test_tempdir::tempdir();
        let fifo = std::ffi::CString::new(tree.path().join("fifo").to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let digest = digest_tree(tree.path()).unwrap();
        let entry = digest
            .entries()
            .find(|(path, _)| *path == Path::new("fifo"));
        assert_eq!(entry.map(|(_, e)| e), Some(&EntryDigest::Special));
    }

    #[test]
    fn a_sandbox_digest_sees_a_modified_sandbox() {
        let fixtures = crate::test_tempdir::tempdir();
        let dir = fixtures.path().join("g/c");
        let text = "summary = \"s\"\npinned = true\nrules = [\"§2\"]\n";
        write(&dir.join("case.toml"), text);
        write(&dir.join("skills/a/SKILL.md"), "a");
        let id = crate::case::CaseId::new("g", "c").unwrap();
        let spec = crate::case::CaseSpec::parse(id, dir, text).unwrap();
        let sandbox = Sandbox::prepare(&spec, false).unwrap();
        let before = digest_sandbox(&sandbox).unwrap();
        write(&sandbox.path().join("skills/a/SKILL.md"), "bent");
        let diff = before.diff(&digest_sandbox(&sandbox).unwrap());
        assert_eq!(diff.changed, paths(&["skills/a/SKILL.md"]));
    }
}
