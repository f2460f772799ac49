//! A failed port set-up, remembered: the next run reports the port unavailable with the same
//! reason at once instead of paying for the same failure again (an install that cannot reach its
//! registry takes seconds every run).
//!
//! The marker is `adapters/<port>/.cache/setup-failed` (the cache is never committed). It is
//! keyed by the version asked for and the toolchain probes' output: install another toolchain,
//! or ask for another version, and set-up runs again. A set-up that succeeds removes the marker,
//! and `--retry-setup` ([`retry_every_setup`]) ignores it for one run.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::{Digest, Sha256};

/// Set once by the CLI's `--retry-setup`: every remembered failure is tried again.
static RETRY: AtomicBool = AtomicBool::new(false);

/// Makes this process retry every remembered set-up failure (`--retry-setup`).
pub fn retry_every_setup() {
    RETRY.store(true, Ordering::Relaxed);
}

fn retrying() -> bool {
    RETRY.load(Ordering::Relaxed)
}

/// What a remembered failure holds for: the version asked for and what the probes printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupKey(String);

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
pub fn marker_path(repo: &Path, port: &str) -> PathBuf {
    repo.join("adapters")
        .join(port)
        .join(".cache")
        .join("setup-failed")
}

/// Whether a marker exists for `port` (and `--retry-setup` was not given): only then are the
/// probes run before set-up, to compare their output with the marker's key.
pub fn has_marker(repo: &Path, port: &str) -> bool {
    !retrying() && marker_path(repo, port).is_file()
}

/// The remembered failure of `port` for `key`, as the reason the port is unavailable.
pub fn recall(repo: &Path, port: &str, key: &SetupKey) -> Option<String> {
    if retrying() {
        return None;
    }
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

/// Records the outcome of a set-up that ran: a failure writes the marker, a success removes it.
/// The marker is a convenience: not being able to write it changes nothing else.
pub fn record(repo: &Path, port: &str, key: &SetupKey, outcome: &Result<String, String>) {
    let path = marker_path(repo, port);
    match outcome {
        Ok(_) => {
            let _ = std::fs::remove_file(&path);
        }
        Err(reason) => {
            if let Some(dir) = path.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&path, format!("key {}\n{reason}\n", key.0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_recalled_for_its_key_only_and_a_success_forgets_it() {
        let repo = tempfile::tempdir().unwrap();
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
}
