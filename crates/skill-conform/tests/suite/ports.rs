//! `skill-conform ports` tells the truth without side effects: on a copy of the repository's
//! adapters (with fake ports beside the real ones) it lists each port as `ready`, `toolchain
//! present, not set up` or `unavailable: REASON`, runs no set-up and writes nothing; `ports
//! --setup NAME…` does the set-up, and a remembered success stops holding when the probe
//! output changes.

use std::path::Path;
use std::process::Command;

use skill_conform::tamper::digest_tree;

const BIN: &str = env!("CARGO_BIN_EXE_skill-conform");

use crate::common::repo;

/// `adapters/` of the repository, without caches, into `to`.
fn copy_adapters(to: &Path) {
    let from = repo().join("adapters");
    let walk = walkdir::WalkDir::new(&from)
        .into_iter()
        .filter_entry(|entry| entry.file_name() != ".cache");
    for entry in walk {
        let entry = entry.unwrap();
        let target = to
            .join("adapters")
            .join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A fake port: `probe` as given, and a set-up that appends a line to [`runs`] in its cache
/// (where set-up may write) before running `then`.
fn fake_port(name: &str, probe: &str, then: &str) -> String {
    let script = format!("echo ran >> '{{repo}}/adapters/{name}/.cache/runs'; {then}");
    format!(
        "\n[ports.{name}]\nlanguage = \"Shell\"\nprobe = [{probe}]\nsetup = [\"sh\", \"-c\", {script:?}]\nrun = [\"true\"]\nversion = \"1.0.0\"\ntested = true\n"
    )
}

/// How many times the fake port `name`'s set-up ran.
fn runs(repo: &Path, name: &str) -> usize {
    let path = repo.join("adapters").join(name).join(".cache/runs");
    std::fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

fn ports(repo: &Path, extra: &[&str]) -> String {
    let out = Command::new(BIN)
        .arg("ports")
        .args(extra)
        .arg("--repo")
        .arg(repo)
        .env_remove("CI")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The row of `port`.
fn row_of<'a>(listing: &'a str, port: &str) -> &'a str {
    listing
        .lines()
        .find(|line| line.split_whitespace().next() == Some(port))
        .unwrap_or_else(|| panic!("no row for {port}: {listing}"))
}

/// The status column of a fake port's row (after its pinned version, `1.0.0`).
fn status_of<'a>(listing: &'a str, port: &str) -> &'a str {
    let row = row_of(listing, port);
    row.split_once(" 1.0.0 ")
        .map_or(row, |(_, status)| status.trim())
}

fn ports_lists_three_states_runs_no_set_up_and_writes_nothing() {
    let tmp = crate::common::tempdir();
    let copy = tmp.path().join("repo");
    copy_adapters(&copy);
    let toolchain = tmp.path().join("toolchain-version");
    std::fs::write(&toolchain, "fake 1\n").unwrap();
    let probe_toolchain = format!("[\"cat\", {:?}]", toolchain.display().to_string());
    let fakes = [
        fake_port("made-ready", &probe_toolchain, "echo ok"),
        fake_port("never-set-up", "[\"true\"]", "echo ok"),
        fake_port("no-toolchain", "[\"sh\", \"-c\", \"exit 3\"]", "echo ok"),
        fake_port(
            "fails-set-up",
            "[\"true\"]",
            "echo 'no network' >&2; exit 1",
        ),
    ];
    let ports_toml = copy.join("adapters/ports.toml");
    let mut text = std::fs::read_to_string(&ports_toml).unwrap();
    text.push_str(&fakes.concat());
    std::fs::write(&ports_toml, text).unwrap();

    let set_up = ports(&copy, &["--setup", "made-ready", "fails-set-up"]);
    let set_up_runs = || -> Vec<usize> {
        ["made-ready", "never-set-up", "no-toolchain", "fails-set-up"]
            .map(|name| runs(&copy, name))
            .to_vec()
    };
    assert_eq!(set_up_runs(), [1, 0, 0, 1]);
    assert_eq!(status_of(&set_up, "made-ready"), "ready");

    let before = digest_tree(&copy).unwrap();
    let listing = ports(&copy, &[]);
    let after = digest_tree(&copy).unwrap();
    assert!(
        before.diff(&after).is_empty(),
        "ports wrote:\n{}",
        before.diff(&after)
    );
    assert_eq!(set_up_runs(), [1, 0, 0, 1], "ports ran a set-up");
    assert_eq!(status_of(&listing, "made-ready"), "ready");
    assert_eq!(
        status_of(&listing, "never-set-up"),
        "toolchain present, not set up (set up with: skill-conform ports --setup never-set-up)"
    );
    assert_eq!(
        status_of(&listing, "no-toolchain"),
        "unavailable: toolchain probe `sh -c exit 3` failed (exit status: 3)"
    );
    let failed = status_of(&listing, "fails-set-up");
    assert!(
        failed.starts_with("unavailable: set-up failed (exit status: 1): no network (remembered"),
        "{failed}"
    );
    // The real ports were copied without their caches: none is ready, none was set up.
    for real in ["python", "js", "golang", "java"] {
        let row = row_of(&listing, real);
        assert!(
            row.contains("not set up") || row.contains("unavailable"),
            "{row}"
        );
        assert!(
            !copy.join("adapters").join(real).join(".cache").exists(),
            "{real}"
        );
    }

    // Another toolchain (the probe prints something else): the remembered set-up no longer holds.
    std::fs::write(&toolchain, "fake 2\n").unwrap();
    let listing = ports(&copy, &[]);
    assert!(
        status_of(&listing, "made-ready").starts_with("toolchain present, not set up"),
        "{listing}"
    );
}

crate::tests![ports_lists_three_states_runs_no_set_up_and_writes_nothing,];
