//! The directory walk shared by discovery (`TN-DISC-*`) and the `<skill_files>` sample (`TN-SAMP-*`).
//!
//! Both walks read each directory's entries sorted by name in code-point order, follow symlinks
//! to decide file versus directory (ignoring entries whose stat fails), skip directories named
//! `node_modules` or `.git`, and guard against cycles with a `seen` set of real paths in which a
//! subdirectory is registered when its parent is read. Subdirectories are pushed in ascending
//! order onto an explicit stack and popped last-in-first-out.
//!
//! A [`Walker`] caches every listing it reads, so the sample walks that follow discovery reuse
//! what discovery already read: one pass over the tree serves discovery and every sample. The
//! real path of a plain subdirectory is its parent's real path plus its name; only symlinks cost
//! a `canonicalize`.
//!
//! What a walk cannot read never changes its result (an unreadable directory lists as empty, an
//! entry whose stat fails is ignored), but the walker remembers it: [`Walker::problems`] lists
//! every unreadable directory, every link that cannot be followed, and every name that is not
//! UTF-8, so a caller can warn instead of silently reading less.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::mutant::{Config, Mutant};

/// What one directory entry turned out to be, after following symlinks.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A directory, with its real (symlink-free) path for the cycle guard.
    Dir { real: PathBuf },
    /// A regular file (possibly reached through a symlink).
    File,
    /// Anything else, or an entry whose stat failed: ignored by every walk.
    Other,
}

/// One entry of a directory listing.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: OsString,
    pub kind: Kind,
}

/// A directory's entries in read order (code-point order of the name).
#[derive(Debug)]
pub struct Listing {
    pub entries: Vec<Entry>,
}

/// A file found by a walk: its path as discovered and its `/`-separated path relative to the
/// walk's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub relative: String,
}

/// Something a walk could not read: it read less, and says so here.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum WalkProblem {
    /// A directory whose listing (or one of its entries) could not be read: listed as empty,
    /// or without that entry.
    UnreadableDir { path: PathBuf, error: String },
    /// A symbolic link whose target could not be examined for a reason other than being absent
    /// (a loop, a name too long, a permission): ignored.
    UnfollowableLink { path: PathBuf, error: String },
    /// An entry whose name is not UTF-8: the wire spells it with U+FFFD.
    NotUtf8 { path: PathBuf },
}

impl WalkProblem {
    /// The path the problem is about.
    pub fn path(&self) -> &Path {
        match self {
            WalkProblem::UnreadableDir { path, .. }
            | WalkProblem::UnfollowableLink { path, .. }
            | WalkProblem::NotUtf8 { path } => path,
        }
    }
}

/// Reads directories, following the contract's walk rules, and remembers what it read.
#[derive(Debug, Default)]
pub struct Walker {
    config: Config,
    listings: RefCell<HashMap<PathBuf, Rc<Listing>>>,
    real_paths: RefCell<HashMap<PathBuf, PathBuf>>,
    problems: RefCell<Vec<WalkProblem>>,
}

/// True for the directory names no walk enters.
pub fn is_excluded_dir(config: &Config, name: &[u8]) -> bool {
    (name == b"node_modules" && !config.is(Mutant::NodeModulesWalked))
        || (name == b".git" && !config.is(Mutant::GitDirWalked))
}

impl Walker {
    pub fn new(config: Config) -> Self {
        Walker {
            config,
            ..Walker::default()
        }
    }

    /// Every problem the walks so far met, sorted by path (bytes), each once.
    pub fn problems(&self) -> Vec<WalkProblem> {
        let mut problems = self.problems.borrow().clone();
        problems.sort_by(|a, b| {
            (a.path().as_os_str().as_bytes(), a).cmp(&(b.path().as_os_str().as_bytes(), b))
        });
        problems.dedup();
        problems
    }

    fn note(&self, problem: WalkProblem) {
        self.problems.borrow_mut().push(problem);
    }

    /// The real path of a directory the walker has met, or `canonicalize` of it.
    pub fn real_path(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(real) = self.real_paths.borrow().get(dir) {
            return Some(real.clone());
        }
        let real = match fs::canonicalize(dir) {
            Ok(real) => real,
            Err(error) => {
                self.note(WalkProblem::UnreadableDir {
                    path: dir.to_path_buf(),
                    error: error.to_string(),
                });
                return None;
            }
        };
        self.real_paths
            .borrow_mut()
            .insert(dir.to_path_buf(), real.clone());
        Some(real)
    }

    /// The sorted listing of `dir` (whose real path is `real`); an unreadable directory is empty.
    pub fn list(&self, dir: &Path, real: &Path) -> Rc<Listing> {
        if let Some(listing) = self.listings.borrow().get(dir) {
            return Rc::clone(listing);
        }
        let mut entries = self.read_entries(dir, real);
        entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
        if self.config.is(Mutant::ReverseDirectoryReads) {
            entries.reverse();
        }
        let mut real_paths = self.real_paths.borrow_mut();
        for entry in &entries {
            if let Kind::Dir { real } = &entry.kind {
                real_paths.insert(dir.join(&entry.name), real.clone());
            }
        }
        drop(real_paths);
        let listing = Rc::new(Listing { entries });
        self.listings
            .borrow_mut()
            .insert(dir.to_path_buf(), Rc::clone(&listing));
        listing
    }

    /// The entries of `dir` in read order, each problem noted.
    fn read_entries(&self, dir: &Path, real: &Path) -> Vec<Entry> {
        let unreadable = |error: std::io::Error| WalkProblem::UnreadableDir {
            path: dir.to_path_buf(),
            error: error.to_string(),
        };
        let read = match fs::read_dir(dir) {
            Ok(read) => read,
            Err(error) => {
                self.note(unreadable(error));
                return Vec::new();
            }
        };
        let mut entries = Vec::new();
        for entry in read {
            let entry = match entry.and_then(|e| e.file_type().map(|t| (e, t))) {
                Ok(entry) => entry,
                Err(error) => {
                    self.note(unreadable(error));
                    continue;
                }
            };
            let (entry, file_type) = entry;
            let name = entry.file_name();
            if name.to_str().is_none() {
                self.note(WalkProblem::NotUtf8 {
                    path: dir.join(&name),
                });
            }
            let kind = if file_type.is_symlink() {
                self.link_kind(&dir.join(&name))
            } else if file_type.is_dir() {
                Kind::Dir {
                    real: real.join(&name),
                }
            } else if file_type.is_file() {
                Kind::File
            } else {
                Kind::Other
            };
            entries.push(Entry { name, kind });
        }
        entries
    }

    /// What a symbolic link leads to; a link that cannot be followed for a reason other than
    /// an absent target is noted.
    fn link_kind(&self, path: &Path) -> Kind {
        let unfollowable = |error: std::io::Error| {
            if error.kind() != std::io::ErrorKind::NotFound {
                self.note(WalkProblem::UnfollowableLink {
                    path: path.to_path_buf(),
                    error: error.to_string(),
                });
            }
            Kind::Other
        };
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => match fs::canonicalize(path) {
                Ok(real) => Kind::Dir { real },
                Err(error) => unfollowable(error),
            },
            Ok(meta) if meta.is_file() && !self.config.is(Mutant::FileLinksIgnored) => Kind::File,
            Ok(_) => Kind::Other,
            Err(error) => unfollowable(error),
        }
    }

    /// Walks the tree under `start` and returns every regular file `keep` accepts, in walk order.
    ///
    /// `seen_start` decides whether `start`'s own real path is in the cycle guard from the
    /// beginning (the sample walk) or not (discovery, where a link back to the root is walked
    /// once). `keep(relative_path, name)` decides which files are returned; `stop` ends the walk
    /// early once it returns true for the files found so far (only the cap-during-walk mutant
    /// uses it).
    pub fn walk(
        &self,
        start: &Path,
        seen_start: bool,
        keep: &mut dyn FnMut(&str, &[u8]) -> bool,
        stop: &mut dyn FnMut(&[Found]) -> bool,
    ) -> Vec<Found> {
        let mut found = Vec::new();
        let Some(start_real) = self.real_path(start) else {
            return found;
        };
        let mut seen: HashSet<PathBuf> = HashSet::new();
        if seen_start {
            seen.insert(start_real.clone());
        }
        let mut stack: Vec<(PathBuf, PathBuf, String)> =
            vec![(start.to_path_buf(), start_real, String::new())];
        let breadth_first = self.config.is(Mutant::BreadthFirstWalk);
        while let Some((dir, real, prefix)) = if breadth_first && !stack.is_empty() {
            Some(stack.remove(0))
        } else {
            stack.pop()
        } {
            let listing = self.list(&dir, &real);
            let mut subdirs = Vec::new();
            for entry in &listing.entries {
                let name = entry.name.as_bytes();
                let relative = format!("{prefix}{}", entry.name.to_string_lossy());
                match &entry.kind {
                    Kind::Dir { real } => {
                        if is_excluded_dir(&self.config, name) || !seen.insert(real.clone()) {
                            continue;
                        }
                        subdirs.push((dir.join(&entry.name), real.clone(), relative + "/"));
                    }
                    Kind::File => {
                        if keep(&relative, name) {
                            found.push(Found {
                                path: dir.join(&entry.name),
                                relative,
                            });
                            if stop(&found) {
                                return found;
                            }
                        }
                    }
                    Kind::Other => {}
                }
            }
            stack.extend(subdirs);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

    #[test]
    fn what_a_walk_cannot_read_is_noted_sorted_and_once() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        fs::create_dir_all(root.join("ok")).unwrap();
        fs::write(root.join("ok/SKILL.md"), "x").unwrap();
        fs::create_dir(root.join(OsStr::from_bytes(b"caf\xe9"))).unwrap();
        std::os::unix::fs::symlink("loop", root.join("loop")).unwrap();
        // An absent target is an ordinary dangling link, not a problem.
        std::os::unix::fs::symlink("absent", root.join("dangling")).unwrap();
        let walker = Walker::new(Config::default());
        let found = walker.walk(&root, false, &mut |_, _| true, &mut |_| false);
        assert_eq!(found.len(), 1);
        // A folder listed through a path over PATH_MAX cannot be read, even by root.
        let too_long = root.join("x".repeat(5000));
        assert!(walker.list(&too_long, &too_long).entries.is_empty());
        // Walked again (the sample walks): each problem still once.
        walker.walk(&root, true, &mut |_, _| true, &mut |_| false);
        let problems = walker.problems();
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert_eq!(
            problems[0],
            WalkProblem::NotUtf8 {
                path: root.join(OsStr::from_bytes(b"caf\xe9"))
            }
        );
        assert!(
            matches!(&problems[1], WalkProblem::UnfollowableLink { path, .. } if *path == root.join("loop"))
        );
        assert!(
            matches!(&problems[2], WalkProblem::UnreadableDir { path, error } if *path == too_long && error.contains("too long"))
        );
    }
}
