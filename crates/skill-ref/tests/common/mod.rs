//! Shared helpers for skill-ref's integration tests: build a skills tree in a temp directory
//! and run the loader over it.

#![allow(dead_code, clippy::new_without_default)]

use std::fs;
use std::path::{Path, PathBuf};

use skill_ref::{Config, Filter, Options, Output, SampleLimit, Source};

/// A temporary tree of files and symlinks.
pub struct Tree {
    pub dir: tempfile::TempDir,
}

impl Tree {
    pub fn new() -> Tree {
        Tree {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    /// The canonical path of the tree's top.
    pub fn path(&self) -> PathBuf {
        fs::canonicalize(self.dir.path()).unwrap()
    }

    /// Writes `bytes` at `relative`, creating parents.
    pub fn file(&self, relative: &str, bytes: impl AsRef<[u8]>) -> &Self {
        let path = self.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
        self
    }

    /// Writes a minimal skill `name` at `dir/SKILL.md`.
    pub fn skill(&self, dir: &str, name: &str) -> &Self {
        self.file(
            &format!("{dir}/SKILL.md"),
            format!("---\nname: {name}\ndescription: {name} at {dir}\n---\nBody of {dir}.\n"),
        )
    }

    pub fn link(&self, relative: &str, target: &str) -> &Self {
        let path = self.path().join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
        self
    }

    pub fn dir(&self, relative: &str) -> &Self {
        fs::create_dir_all(self.path().join(relative)).unwrap();
        self
    }
}

/// Loader options.
pub fn options(sample_limit: i64, filter: &[(&str, bool)]) -> Options {
    Options {
        sample_limit: SampleLimit::try_from(sample_limit).unwrap(),
        filter: filter
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect::<Filter>(),
    }
}

/// Loads `roots` (relative to the tree) with `config`.
pub fn load(config: &Config, tree: &Tree, roots: &[&str], options: &Options) -> Source {
    let roots: Vec<PathBuf> = roots.iter().map(|r| tree.path().join(r)).collect();
    Source::load_with(*config, &roots, options, Path::new("/"))
}

/// Runs a whole case: every accepted name then `extra`, and the prompt.
pub fn output(
    config: &Config,
    tree: &Tree,
    roots: &[&str],
    options: &Options,
    extra: &[&str],
) -> Output {
    let source = load(config, tree, roots, options);
    let mut names = source.accepted_names();
    names.extend(extra.iter().map(|s| s.to_string()));
    source.output(&names, false)
}

/// Locations relative to the tree, for readable assertions.
pub fn rel(tree: &Tree, location: &str) -> String {
    location
        .strip_prefix(&format!("{}/", tree.path().display()))
        .unwrap_or(location)
        .to_owned()
}
