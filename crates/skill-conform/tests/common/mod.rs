//! Helpers shared by the browser tests (`report_html.rs`, `corpus_html.rs`): finding Debian's
//! headless `chromium`, and running it on a page.

use std::path::{Path, PathBuf};
use std::process::Command;

/// chromium's path, or `None` after printing why the test is skipped; with
/// `SKILL_CONFORM_REQUIRE_CHROMIUM=1` (CI) a missing chromium fails instead.
pub fn chromium() -> Option<PathBuf> {
    let found = ["chromium", "chromium-browser"].iter().find_map(|name| {
        let out = Command::new("which").arg(name).output().ok()?;
        out.status
            .success()
            .then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
    });
    if found.is_none() {
        let required = std::env::var("SKILL_CONFORM_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "chromium is not installed and SKILL_CONFORM_REQUIRE_CHROMIUM=1 (hint: apt-get install -y chromium)"
        );
        println!("skipped: chromium is not installed (set SKILL_CONFORM_REQUIRE_CHROMIUM=1 to fail instead)");
    }
    found
}

/// Runs headless chromium on `url` with `extra` flags and a profile in `profile`; its stdout.
pub fn headless(chromium: &Path, profile: &Path, extra: &[&str], url: &str) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-dev-shm-usage",
            "--window-size=1400,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("chromium starts");
    assert!(out.status.success(), "chromium failed: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}
