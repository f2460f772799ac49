//! A port set-up's outcome, remembered. A failure: the next run reports the port unavailable
//! with the same reason at once instead of paying for the same failure again (an install that
//! cannot reach its registry takes seconds every run). A success: `skill-conform ports` can say
//! `ready` without running set-up.
//!
//! The failure marker is `adapters/<port>/.cache/setup-failed`, the success marker
//! `adapters/<port>/.cache/setup-ok` (the cache is never committed). Both are keyed by the same
//! [`SetupKey`]: the version asked for, the set-up command and the toolchain probes' output —
//! install another toolchain, change the set-up command or ask for another version, and neither
//! holds. The success marker lists one key per line, one per version set up (each port's cache
//! keeps one install per version). A set-up that succeeds removes the failure marker and adds
//! its key; one that fails writes the failure marker and removes its key.
//! `--retry-setup` ([`retry_every_setup`]) ignores the failure marker for one run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::{Digest, Sha256};

/// Set once by the CLI's `--retry-setup`: every remembered failure is tried again.
static RETRY: AtomicBool = AtomicBool::new(false);

/// Makes this process retry every remembered set-up failure (`--retry-setup`).
pub(crate) fn retry_every_setup() {
    RETRY.store(true, Ordering::Relaxed);
}

fn retrying() -> bool {
    RETRY.load(Ordering::Relaxed)
}

/// What a remembered failure holds for: the version asked for and what the probes printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SetupKey(String);

impl SetupKey {
    pub fn new(asked: &str, probe_output: &str) -> SetupKey {
        let mut hash = Sha256::new();
        hash.update(asked.as_bytes());
        hash.update([0]);
        hash.update(probe_output.as_bytes());
        let digest = hash.finalize();
        SetupKey(digest.iter().map(|byte| format!("{byte:02x}")).collect())
    }
}

/// The marker file of `port` under `repo`.
pub(crate) fn marker_path(repo: &Path, port: &str) -> PathBuf {
    repo.join("adapters")
        .join(port)
        .join(".cache")
        .join("setup-failed")
}

/// The success marker of `port` under `repo`: one [`SetupKey`] per line.
pub(crate) fn success_path(repo: &Path, port: &str) -> PathBuf {
    marker_path(repo, port).with_file_name("setup-ok")
}

/// The keys of the success marker, sorted (none when it cannot be read).
fn succeeded_keys(repo: &Path, port: &str) -> Vec<String> {
    let text = std::fs::read_to_string(success_path(repo, port)).unwrap_or_default();
    let mut keys: Vec<String> = text
        .lines()
        .filter_map(|line| line.strip_prefix("key "))
        .map(str::to_owned)
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Whether a set-up of `port` for `key` succeeded and nothing failed for that key since.
pub fn succeeded(repo: &Path, port: &str, key: &SetupKey) -> bool {
    succeeded_keys(repo, port).contains(&key.0)
}

/// Writes the success marker with `keys` (removed when there are none).
fn write_succeeded(repo: &Path, port: &str, keys: &[String]) {
    let path = success_path(repo, port);
    if keys.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    let text: String = keys.iter().map(|key| format!("key {key}\n")).collect();
    let _ = std::fs::write(&path, text);
}

/// Whether a marker exists for `port` (and `--retry-setup` was not given): only then are the
/// probes run before set-up, to compare their output with the marker's key.
pub(crate) fn has_marker(repo: &Path, port: &str) -> bool {
    !retrying() && marker_path(repo, port).is_file()
}

/// The remembered failure of `port` for `key`, as the reason the port is unavailable.
pub(crate) fn recall(repo: &Path, port: &str, key: &SetupKey) -> Option<String> {
    if retrying() {
        return None;
    }
    remembered_failure(repo, port, key)
}

/// The remembered failure of `port` for `key`, whether or not `--retry-setup` was given (what
/// `skill-conform ports` reports).
pub(crate) fn remembered_failure(repo: &Path, port: &str, key: &SetupKey) -> Option<String> {
    let path = marker_path(repo, port);
    let text = std::fs::read_to_string(&path).ok()?;
    let (first, reason) = text.split_once('\n')?;
    (first.strip_prefix("key ")? == key.0).then(|| {
        format!(
            "{} (remembered from an earlier run in `{}`; pass --retry-setup to try again)",
            reason.trim_end(),
            path.display()
        )
    })
}

/// Records the outcome of a set-up that ran: a failure writes the failure marker and takes its
/// key out of the success marker; a success removes the failure marker and adds its key. The
/// markers are a convenience: not being able to write them changes nothing else.
pub(crate) fn record(repo: &Path, port: &str, key: &SetupKey, outcome: &Result<String, String>) {
    let path = marker_path(repo, port);
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let mut keys = succeeded_keys(repo, port);
    match outcome {
        Ok(_) => {
            let _ = std::fs::remove_file(&path);
            if let Err(at) = keys.binary_search(&key.0) {
                keys.insert(at, key.0.clone());
            }
        }
        Err(reason) => {
            let _ = std::fs::write(&path, format!("key {}\n{reason}\n", key.0));
            keys.retain(|kept| *kept != key.0);
        }
    }
    write_succeeded(repo, port, &keys);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_recalled_for_its_key_only_and_a_success_forgets_it() {
        let repo = crate::test_tempdir::tempdir();
        let key = SetupKey::new("0.21.0", "Python 3.11.2\n");
        assert!(!has_marker(repo.path(), "python"));
        record(repo.path(), "python", &key, &Err("pip: no network".into()));
        assert!(has_marker(repo.path(), "python"));
        let reason = recall(repo.path(), "python", &key).unwrap();
        assert!(
            reason.starts_with("pip: no network (remembered"),
            "{reason}"
        );
        assert!(reason.contains("--retry-setup"), "{reason}");
        // Another version, another toolchain: set-up runs again.
        let newer = SetupKey::new("0.22.0", "Python 3.11.2\n");
        assert_eq!(recall(repo.path(), "python", &newer), None);
        let other_python = SetupKey::new("0.21.0", "Python 3.12.1\n");
        assert_eq!(recall(repo.path(), "python", &other_python), None);
        // Another port's marker is its own.
        assert_eq!(recall(repo.path(), "js", &key), None);
        record(repo.path(), "python", &key, &Ok("ready".into()));
        assert_eq!(recall(repo.path(), "python", &key), None);
        assert!(!has_marker(repo.path(), "python"));
    }

    #[test]
    fn a_success_is_remembered_for_its_key_only_until_that_key_fails() {
        let repo = crate::test_tempdir::tempdir();
        let key = SetupKey::new("0.21.0", "Python 3.11.2\n");
        let newer = SetupKey::new("0.22.0", "Python 3.11.2\n");
        let other_python = SetupKey::new("0.21.0", "Python 3.12.1\n");
        assert!(!succeeded(repo.path(), "python", &key));
        record(repo.path(), "python", &key, &Ok("/venv/bin/python".into()));
        record(
            repo.path(),
            "python",
            &newer,
            &Ok("/venv/bin/python".into()),
        );
        assert!(succeeded(repo.path(), "python", &key));
        assert!(succeeded(repo.path(), "python", &newer));
        assert!(!succeeded(repo.path(), "python", &other_python));
        assert!(!succeeded(repo.path(), "js", &key));
        record(repo.path(), "python", &key, &Err("pip: no network".into()));
        assert!(!succeeded(repo.path(), "python", &key));
        assert!(succeeded(repo.path(), "python", &newer));
        record(
            repo.path(),
            "python",
            &newer,
            &Err("pip: no network".into()),
        );
        assert!(!success_path(repo.path(), "python").exists());
    }
}
