//! [`Sandbox::check`]: every refusal and case error [`Sandbox::prepare`] would meet, found over
//! the fixture without copying it. The case's tree is read once (names and kinds, never file
//! contents) into an in-memory tree; the renames and links are applied to that tree in
//! `prepare`'s order; link targets and `unreadable` paths are resolved by the same `resolve_by`
//! as the real sandbox, reading links from the tree. Planning calls it for every case, so a
//! fixture no sandbox can be built from is exit 2 naming the case, while each sandbox is built
//! only where it is used.
//!
//! It does not decide vacuity (a filesystem that merges names): that is the sandbox's own, and
//! not an error.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{
    components, io_error, read_one_byte, refused, renames_deepest_first, resolve_by, shown,
    sorted_names, CopyError, OneByte, Refusal, Resolved, Sandbox, SandboxError, Unapplicable,
    LINK_TARGETS_OUTSIDE_THE_CASE,
};
use crate::case::{CaseSpec, MANIFEST};

/// A path below the case directory, one component a step.
type Key = Vec<OsString>;

/// What is at a path of the tree.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Dir,
    File,
    /// A link made by `links`, with its target text.
    Link(PathBuf),
}

/// The case as its sandbox would hold it, without the bytes.
#[derive(Debug, Default)]
struct Tree {
    nodes: BTreeMap<Key, Node>,
}

impl Sandbox {
    /// The faults [`Sandbox::prepare`] would find in `case` (see the module doc), without
    /// copying the fixture. The first call also proves, once per process, that a sandbox
    /// directory can be made at all.
    pub fn check(case: &CaseSpec) -> Result<(), SandboxError> {
        prove_a_base()?;
        let mut tree = Tree::default();
        read_tree(&case.dir, Path::new(""), &mut tree).map_err(|e| e.in_case(case))?;
        tree.apply_renames(case)?;
        tree.apply_links(case)?;
        tree.check_link_targets(case)?;
        tree.check_unreadable(case)
    }
}

/// Makes (and removes) one empty sandbox directory the first time, so that a machine with no
/// usable temporary directory is still a planning error.
fn prove_a_base() -> Result<(), SandboxError> {
    static PROVED: OnceLock<Result<(), String>> = OnceLock::new();
    let outcome = PROVED.get_or_init(|| match super::sandbox_tempdir(super::PREFIX) {
        Ok(_) => Ok(()),
        Err(SandboxError::NoPlainTempDir { tried }) => Err(tried),
        Err(other) => Err(other.to_string()),
    });
    outcome
        .clone()
        .map_err(|tried| SandboxError::NoPlainTempDir { tried })
}

/// `copy_dir`'s walk, recording instead of copying: the same order, the same refusals.
fn read_tree(from: &Path, rel: &Path, tree: &mut Tree) -> Result<(), CopyError> {
    let mut names = sorted_names(from)?;
    if rel.as_os_str().is_empty() {
        names.retain(|name| name != MANIFEST);
    }
    for name in &names {
        let source = from.join(name);
        let rel_name = rel.join(name);
        let meta = std::fs::symlink_metadata(&source).map_err(io_error("reading", &source))?;
        let key: Key = rel_name.iter().map(OsString::from).collect();
        let kind = meta.file_type();
        if kind.is_symlink() {
            let path = shown(rel_name.as_os_str());
            return Err(CopyError::Refused(Refusal::CommittedSymlink { path }));
        } else if kind.is_dir() {
            tree.nodes.insert(key, Node::Dir);
            read_tree(&source, &rel_name, tree)?;
        } else if kind.is_file() {
            tree.nodes.insert(key, Node::File);
        } else {
            let path = shown(rel_name.as_os_str());
            return Err(CopyError::Refused(Refusal::SpecialFile { path }));
        }
    }
    Ok(())
}

fn key_of(rel: &str) -> Key {
    components(rel).into_iter().map(OsString::from).collect()
}

/// Where `check_parents` stopped walking a path's parents.
enum Parents {
    /// Every parent exists (or was made) as a directory.
    Ready,
    /// A parent is missing and was not made (nothing below it exists).
    Missing,
    /// A parent is a file: nothing can be made below it.
    BelowFile(String),
}

impl Tree {
    /// `check_parents` over the tree: refuses a parent that is a link; with `create`, makes the
    /// missing parents as directories.
    fn check_parents(
        &mut self,
        case: &CaseSpec,
        rel: &str,
        create: bool,
    ) -> Result<Parents, SandboxError> {
        let parts = components(rel);
        for depth in 0..parts.len() - 1 {
            let key = key_of(&parts[..=depth].join("/"));
            match self.nodes.get(&key) {
                Some(Node::Link(_)) => {
                    let link = parts[..=depth].join("/");
                    let path = rel.to_owned();
                    return Err(refused(case, Refusal::ThroughSymlink { path, link }));
                }
                Some(Node::File) => return Ok(Parents::BelowFile(parts[..=depth].join("/"))),
                Some(Node::Dir) => {}
                None if create => {
                    self.nodes.insert(key, Node::Dir);
                }
                None => return Ok(Parents::Missing),
            }
        }
        Ok(Parents::Ready)
    }

    fn apply_renames(&mut self, case: &CaseSpec) -> Result<(), SandboxError> {
        for (from, new_name) in renames_deepest_first(case) {
            self.check_parents(case, from, false)?;
            let source = key_of(from);
            if !self.nodes.contains_key(&source) {
                return Err(Unapplicable::RenameSourceMissing { from }.in_case(case));
            }
            let mut target = source.clone();
            *target.last_mut().expect("a plain path has a component") = OsString::from(new_name);
            if self.nodes.contains_key(&target) {
                return Err(Unapplicable::RenameTargetExists { from, new_name }.in_case(case));
            }
            let moved: Vec<Key> = self
                .nodes
                .keys()
                .filter(|key| key.starts_with(&source))
                .cloned()
                .collect();
            for key in moved {
                let node = self.nodes.remove(&key).expect("listed above");
                let mut renamed = target.clone();
                renamed.extend(key[source.len()..].iter().cloned());
                self.nodes.insert(renamed, node);
            }
        }
        Ok(())
    }

    fn apply_links(&mut self, case: &CaseSpec) -> Result<(), SandboxError> {
        for (link, target) in &case.links {
            if let Parents::BelowFile(file) = self.check_parents(case, link, true)? {
                let cause = io::Error::from(io::ErrorKind::NotADirectory);
                return Err(io_error("creating", &case.dir.join(file).join("…"))(
                    cause,
                ));
            }
            let key = key_of(link);
            if self.nodes.contains_key(&key) {
                return Err(Unapplicable::LinkPathExists { link }.in_case(case));
            }
            self.nodes.insert(key, Node::Link(PathBuf::from(target)));
        }
        Ok(())
    }

    /// The target text of the link at `parts`, if there is one.
    fn read_link(&self, parts: &[OsString]) -> Option<PathBuf> {
        match self.nodes.get(parts) {
            Some(Node::Link(target)) => Some(target.clone()),
            _ => None,
        }
    }

    fn check_link_targets(&self, case: &CaseSpec) -> Result<(), SandboxError> {
        let read_link = |parts: &[OsString]| self.read_link(parts);
        for (link, target) in &case.links {
            let mut dir = key_of(link);
            dir.pop();
            super::link_target_refusal(
                case,
                link,
                target,
                resolve_by(&read_link, dir, Path::new(target), &mut 0),
            )?;
        }
        Ok(())
    }

    /// `check_unreadable`'s refusals: a path that does not resolve, or that leads to neither a
    /// regular file nor an allowed `/proc` entry.
    fn check_unreadable(&self, case: &CaseSpec) -> Result<(), SandboxError> {
        let read_link = |parts: &[OsString]| self.read_link(parts);
        for rel in &case.unreadable {
            let not_a_file = match resolve_by(&read_link, Vec::new(), Path::new(rel), &mut 0) {
                Ok(Resolved::Allowed(outside)) => {
                    debug_assert!(LINK_TARGETS_OUTSIDE_THE_CASE.contains(&outside));
                    read_one_byte(Path::new(outside)) == OneByte::NotRegular
                }
                Ok(Resolved::Inside(parts)) => self.nodes.get(&parts) == Some(&Node::Dir),
                Err(_) => true,
            };
            if not_a_file {
                let path = rel.clone();
                return Err(refused(case, Refusal::UnreadableKind { path }));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::case::CaseId;

    /// Each row: a case name and what its `case.toml` adds; [`add_tree`] adds its entries.
    const ROWS: [(&str, &str); 19] = [
        ("ok", ""),
        ("symlink", ""),
        ("fifo", ""),
        ("rename-missing", "renames = { \"skills/x\" = \"y\" }"),
        (
            "rename-onto",
            "renames = { \"skills/a/SKILL.md\" = \"SKILL.md\" }",
        ),
        (
            "nested-renames",
            "renames = { \"skills/d\" = \".git\", \"skills/d/e\" = \".git\" }",
        ),
        (
            "rename-then-link",
            "renames = { \"skills/d\" = \".git\" }\nlinks = { \"skills/.git\" = \"a\" }",
        ),
        ("link-exists", "links = { \"skills/a\" = \"b\" }"),
        (
            "link-through-link",
            "links = { \"skills/l\" = \"a\", \"skills/l/x\" = \"y\" }",
        ),
        (
            "link-made-parents",
            "links = { \"skills/new/deep/l\" = \"../../a\" }",
        ),
        (
            "link-below-file",
            "links = { \"skills/a/SKILL.md/l\" = \"x\" }",
        ),
        ("link-outside", "links = { \"skills/l\" = \"../../../x\" }"),
        (
            "link-chain-outside",
            "links = { \"skills/l\" = \"m/..\", \"skills/m\" = \"../..\" }",
        ),
        (
            "link-proc",
            "links = { \"skills/mem\" = \"/proc/self/mem\" }",
        ),
        (
            "link-loop",
            "links = { \"skills/l\" = \"m\", \"skills/m\" = \"l\" }",
        ),
        ("unreadable-dir", "unreadable = [\"skills/a\"]"),
        (
            "unreadable-proc",
            "links = { \"skills/mem\" = \"/proc/self/mem\" }\nunreadable = [\"skills/mem\"]",
        ),
        (
            "unreadable-outside",
            "links = { \"skills/l\" = \"../../..\" }\nunreadable = [\"skills/l/x\"]",
        ),
        ("unreadable-missing", "unreadable = [\"skills/none\"]"),
    ];

    /// The entries a row needs besides `skills/a/SKILL.md`.
    fn add_tree(name: &str, dir: &Path) {
        match name {
            "symlink" => std::os::unix::fs::symlink("a", dir.join("skills/b")).unwrap(),
            "fifo" => {
                let fifo = std::ffi::CString::new(dir.join("skills/a/pipe").to_str().unwrap());
                assert_eq!(unsafe { libc::mkfifo(fifo.unwrap().as_ptr(), 0o644) }, 0);
            }
            "nested-renames" => fs::create_dir_all(dir.join("skills/d/e")).unwrap(),
            "rename-then-link" => fs::create_dir_all(dir.join("skills/d")).unwrap(),
            _ => {}
        }
    }

    /// The row's case directory under `root`, parsed.
    fn case(root: &Path, name: &str, extra: &str) -> CaseSpec {
        let dir = root.join(name);
        fs::create_dir_all(dir.join("skills/a")).unwrap();
        fs::write(dir.join("skills/a/SKILL.md"), "---\nname: a\n---\n").unwrap();
        add_tree(name, &dir);
        let text = format!("summary = \"s\"\npinned = true\nrules = [\"R\"]\n{extra}\n");
        fs::write(dir.join(MANIFEST), &text).unwrap();
        CaseSpec::parse(CaseId::new("g", name).unwrap(), dir, &text).unwrap()
    }

    #[test]
    fn check_finds_what_prepare_finds_without_a_copy() {
        let root = crate::test_tempdir::tempdir();
        let mut errors = 0;
        for (name, extra) in ROWS {
            let case = case(root.path(), name, extra);
            let prepared = Sandbox::prepare(&case, false)
                .map(drop)
                .map_err(|e| e.to_string());
            let checked = Sandbox::check(&case).map_err(|e| e.to_string());
            if name == "link-below-file" {
                // Both fail making the link below a file (naming the sandbox, the case).
                assert!(
                    prepared.is_err() && checked.is_err(),
                    "{prepared:?} {checked:?}"
                );
                continue;
            }
            errors += usize::from(prepared.is_err());
            assert_eq!(checked, prepared, "case {name}");
        }
        assert_eq!(errors, 12, "the rows exercise every refusal");
    }

    #[test]
    fn every_committed_case_checks_clean() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for case in crate::case::discover(&repo.join("conformance-fixtures")).unwrap() {
            assert!(Sandbox::check(&case).is_ok(), "{}", case.id);
        }
    }
}
