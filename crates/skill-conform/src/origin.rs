//! Where a port's library came from, for the reports: the registry at the version pinned in
//! `adapters/ports.toml`, the registry at a version asked for (`--port NAME@VERSION`), a local
//! checkout (its canonical path and `git` commit), or a command (`--adapter`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::port::{PortRequest, PortSpec, REFERENCE};

/// The origin of `request` as one line; `None` for the built-in reference.
pub(crate) fn describe(
    request: &PortRequest,
    specs: &BTreeMap<String, PortSpec>,
) -> Option<String> {
    match request {
        PortRequest::Command { argv, .. } => Some(format!("adapter `{}`", argv.join(" "))),
        PortRequest::Named { name, .. } if name == REFERENCE => None,
        PortRequest::Named {
            path: Some(path), ..
        } => Some(checkout(path)),
        PortRequest::Named {
            version: Some(version),
            ..
        } => Some(format!("registry, @{version} (asked for)")),
        PortRequest::Named { name, .. } => specs
            .get(name)
            .map(|spec| format!("registry, {} (pinned in adapters/ports.toml)", spec.version)),
    }
}

/// `checkout /src/toolnexus at 1a2b3c4d5e6f` (without the commit when `git` cannot say).
fn checkout(path: &Path) -> String {
    let shown = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    match commit(&shown) {
        Some(commit) => format!("checkout {} at {commit}", shown.display()),
        None => format!("checkout {}", shown.display()),
    }
}

/// The checkout's `HEAD` commit (12 hex digits), with `+dirty` when it has local changes.
fn commit(dir: &Path) -> Option<String> {
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|out| out.status.success())
            .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let head = git(&["rev-parse", "--short=12", "HEAD"]).filter(|head| !head.is_empty())?;
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
        .is_some_and(|status| !status.is_empty());
    Some(if dirty { format!("{head}+dirty") } else { head })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn specs() -> BTreeMap<String, PortSpec> {
        let spec: PortSpec =
            toml::from_str("language = \"py\"\nrun = [\"x\"]\nversion = \"0.21.0\"").unwrap();
        [("python".to_owned(), spec)].into_iter().collect()
    }

    fn origin(given: &str) -> Option<String> {
        describe(&PortRequest::parse_port(given).unwrap(), &specs())
    }

    #[test]
    fn each_kind_of_request_names_its_origin() {
        assert_eq!(
            origin("python").as_deref(),
            Some("registry, 0.21.0 (pinned in adapters/ports.toml)")
        );
        assert_eq!(
            origin("python@0.18.1").as_deref(),
            Some("registry, @0.18.1 (asked for)")
        );
        assert_eq!(origin("reference"), None);
        let adapter = PortRequest::parse_adapter("mine=./serve --fast").unwrap();
        assert_eq!(
            describe(&adapter, &specs()).as_deref(),
            Some("adapter `./serve --fast`")
        );
    }

    #[test]
    fn a_checkout_names_its_path_and_commit() {
        let dir = crate::test_tempdir::tempdir();
        let path = std::fs::canonicalize(dir.path()).unwrap();
        let given = format!("python={}", path.display());
        // Not a git repository: the path alone.
        assert_eq!(origin(&given), Some(format!("checkout {}", path.display())));
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(&path)
                .args(args)
                .output()
                .is_ok_and(|out| out.status.success());
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(path.join("VERSION"), "0.16.0\n").unwrap();
        git(&["add", "VERSION"]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "v",
        ]);
        let clean = origin(&given).unwrap();
        let prefix = format!("checkout {} at ", path.display());
        let commit = clean.strip_prefix(&prefix).unwrap();
        assert_eq!(commit.len(), 12, "{clean}");
        std::fs::write(path.join("VERSION"), "0.17.0\n").unwrap();
        assert_eq!(origin(&given), Some(format!("{clean}+dirty")));
    }
}
