//! The version a toolnexus checkout's Go port reports (`adapters/lib/checkout-version.sh`,
//! sourced by `adapters/golang/setup.sh`): its tags, else its Java port's lockstep version, and
//! Go's "(devel)" only when neither exists — tried on made-up repositories, no network.

use std::path::{Path, PathBuf};
use std::process::Command;

fn library() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../adapters/lib/checkout-version.sh")
}

/// `git ARGS` in `dir`, with no user or system configuration.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A toolnexus-shaped checkout: `golang/` and, with a version, `java/build.gradle`.
fn checkout(dir: &Path, gradle_version: Option<&str>) -> PathBuf {
    std::fs::create_dir_all(dir.join("golang")).unwrap();
    std::fs::write(dir.join("golang/go.mod"), "module example\n").unwrap();
    if let Some(version) = gradle_version {
        std::fs::create_dir_all(dir.join("java")).unwrap();
        let gradle = format!("plugins {{ id 'java' }}\n\nversion = '{version}'\n");
        std::fs::write(dir.join("java/build.gradle"), gradle).unwrap();
    }
    dir.join("golang")
}

fn committed(dir: &Path, gradle_version: Option<&str>) -> PathBuf {
    let golang = checkout(dir, gradle_version);
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "one"]);
    golang
}

/// What `checkout_version PKGDIR` prints.
fn version_of(pkgdir: &Path) -> String {
    let out = Command::new("bash")
        .arg("-c")
        .arg(r#"set -euo pipefail; . "$1"; checkout_version "$2""#)
        .arg("bash")
        .arg(library())
        .arg(pkgdir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn the_go_ports_own_tag_wins_then_a_plain_tag_and_a_later_commit_says_how_far() {
    let dir = crate::common::tempdir();
    let golang = committed(dir.path(), Some("0.9.0"));
    git(dir.path(), &["tag", "v0.15.0"]);
    assert_eq!(version_of(&golang), "0.15.0");
    git(dir.path(), &["tag", "golang/v0.16.0"]);
    assert_eq!(version_of(&golang), "0.16.0");
    std::fs::write(golang.join("x.go"), "package x\n").unwrap();
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "two"]);
    let past = version_of(&golang);
    assert!(past.starts_with("0.16.0-1-g"), "{past}");
    std::fs::write(golang.join("x.go"), "package y\n").unwrap();
    assert!(version_of(&golang).ends_with("-dirty"));
}

fn without_tags_the_java_ports_lockstep_version_and_without_either_nothing() {
    let dir = crate::common::tempdir();
    // A shallow clone as actions/checkout makes by default: one commit, no tags.
    let origin = dir.path().join("origin");
    committed(&origin, Some("0.16.0"));
    git(&origin, &["tag", "golang/v0.16.0"]);
    let url = format!("file://{}", origin.display());
    git(
        dir.path(),
        &["clone", "-q", "--depth", "1", "--no-tags", &url, "shallow"],
    );
    assert_eq!(version_of(&dir.path().join("shallow/golang")), "0.16.0");
    // Not a git work tree at all (a source archive).
    let archive = checkout(&dir.path().join("archive"), Some("0.17.0"));
    assert_eq!(version_of(&archive), "0.17.0");
    // Neither: the adapter says "(devel)".
    let bare = committed(&dir.path().join("bare"), None);
    assert_eq!(version_of(&bare), "");
}

crate::tests![
    the_go_ports_own_tag_wins_then_a_plain_tag_and_a_later_commit_says_how_far,
    without_tags_the_java_ports_lockstep_version_and_without_either_nothing,
];
