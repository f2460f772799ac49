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

/// Reads directories, following the contract's walk rules, and remembers what it read.
#[derive(Debug, Default)]
pub struct Walker {
    config: Config,
    listings: RefCell<HashMap<PathBuf, Rc<Listing>>>,
    real_paths: RefCell<HashMap<PathBuf, PathBuf>>,
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

    /// The real path of a directory the walker has met, or `canonicalize` of it.
    pub fn real_path(&self, dir: &Path) -> Option<PathBuf> {
        if let Some(real) = self.real_paths.borrow().get(dir) {
            return Some(real.clone());
        }
        let real = fs::canonicalize(dir).ok()?;
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
        let mut entries = Vec::new();
        if let Ok(read) = fs::read_dir(dir) {
            for entry in read.flatten() {
                let name = entry.file_name();
                let Ok(file_type) = entry.file_type() else {
                    continue;
                };
                let kind = if file_type.is_symlink() {
                    let path = dir.join(&name);
                    match fs::metadata(&path) {
                        Ok(meta) if meta.is_dir() => match fs::canonicalize(&path) {
                            Ok(real) => Kind::Dir { real },
                            Err(_) => Kind::Other,
                        },
                        Ok(meta) if meta.is_file() && !self.config.is(Mutant::FileLinksIgnored) => {
                            Kind::File
                        }
                        _ => Kind::Other,
                    }
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
        }
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
