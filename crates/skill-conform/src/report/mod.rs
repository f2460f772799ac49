//! Report: render a run's [`Results`] for people and machines. Nothing here runs an
//! adapter or judges anything; every renderer is a pure function of the results and a
//! [`Redactor`].
//!
//! | file          | renderer                      | for                                      |
//! |---------------|-------------------------------|------------------------------------------|
//! | `matrix.txt`  | [`terminal::render`]          | the terminal: matrix, totals, failures   |
//! | `report.json` | [`json::render`]              | tools: everything, canonical JSON        |
//! | `junit.xml`   | [`junit::render`]             | CI test tabs: one suite per port         |
//! | `summary.md`  | [`markdown::render`]          | a CI job summary                         |
//! | `report.html` | [`html::render`]              | people: the matrix in a browser          |
//!
//! `skill-conform corpus` has its own three, from a [`crate::corpus::CorpusReport`]:
//! `corpus.md` and `corpus.json` ([`corpus`]) and `corpus.html` ([`corpus_html`], sharing
//! `report.html`'s frame, style, filter and escaping).
//!
//! All four are built from one [`model::Model`] (sorted ports and cases, totals, failures,
//! clusters, notes), so they agree with each other, and — because [`Results`] is a set of
//! `BTreeMap`s — their bytes do not depend on the order trials finished in.
//!
//! The [`Redactor`] makes output stable for snapshots and diffable between runs: durations become
//! `[DURATION]`, paths under the sandbox's temporary directory `[SANDBOX]`, paths under the
//! repository `[REPO]`, and (optionally) port versions and runtimes `[VERSION]`.

pub mod corpus;
pub mod corpus_html;
pub mod format;
pub mod html;
pub mod interop;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod merge;
pub mod model;
pub mod terminal;
pub mod vocabulary;

use std::io;
use std::path::Path;

use serde_json::{Map, Value};

use crate::judge::Results;

pub use model::Model;

/// What replaces a duration.
pub const DURATION: &str = "[DURATION]";
/// What replaces the sandbox directory.
pub(crate) const SANDBOX: &str = "[SANDBOX]";
/// What replaces the repository root.
pub const REPO: &str = "[REPO]";
/// What replaces a version or runtime.
pub const VERSION: &str = "[VERSION]";

/// Replaces volatile parts of the output with placeholders (see the module doc).
///
/// Paths are replaced as plain substrings, longest first, so a sandbox inside the repository is
/// still `[SANDBOX]`. Give canonical paths (the sandbox hands them out), without a trailing `/`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redactor {
    durations: bool,
    versions: bool,
    /// (path, placeholder), longest path first.
    paths: Vec<(String, &'static str)>,
}

impl Redactor {
    /// Redacts nothing: what `run` writes by default.
    pub fn none() -> Redactor {
        Redactor::default()
    }

    /// Replaces durations with [`DURATION`].
    pub fn durations(mut self, on: bool) -> Redactor {
        self.durations = on;
        self
    }

    /// Replaces port versions and runtimes with [`VERSION`].
    pub fn versions(mut self, on: bool) -> Redactor {
        self.versions = on;
        self
    }

    /// Replaces `dir` (the sandboxes' parent directory) with [`SANDBOX`].
    pub fn sandbox(self, dir: impl AsRef<Path>) -> Redactor {
        self.path(dir.as_ref(), SANDBOX)
    }

    /// Replaces `dir` (the repository root) with [`REPO`].
    pub fn repo(self, dir: impl AsRef<Path>) -> Redactor {
        self.path(dir.as_ref(), REPO)
    }

    fn path(mut self, dir: &Path, placeholder: &'static str) -> Redactor {
        let text = dir.to_string_lossy();
        let text = text.trim_end_matches('/');
        if !text.is_empty() {
            self.paths.push((text.to_owned(), placeholder));
            self.paths
                .sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        }
        self
    }

    /// `text` with every known path replaced by its placeholder.
    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (path, placeholder) in &self.paths {
            if out.contains(path.as_str()) {
                out = out.replace(path.as_str(), placeholder);
            }
        }
        out
    }

    /// A duration for humans: `12 ms`, or [`DURATION`].
    pub fn duration_ms(&self, ms: u64) -> String {
        if self.durations {
            DURATION.to_owned()
        } else {
            format!("{ms} ms")
        }
    }

    /// Whether durations are redacted (renderers then leave out times they would compute).
    pub(crate) fn redacts_durations(&self) -> bool {
        self.durations
    }

    /// A version or runtime string, or [`VERSION`].
    pub fn version(&self, version: &str) -> String {
        if self.versions {
            VERSION.to_owned()
        } else {
            self.text(version)
        }
    }

    /// `value` with paths redacted in every string and key, and every `durationMs` replaced by
    /// the string [`DURATION`] when durations are redacted.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.text(text)),
            Value::Array(items) => Value::Array(items.iter().map(|item| self.json(item)).collect()),
            Value::Object(map) => {
                let mut out = Map::new();
                for (key, item) in map {
                    let item = if self.durations && key == "durationMs" && item.is_number() {
                        Value::String(DURATION.to_owned())
                    } else {
                        self.json(item)
                    };
                    out.insert(self.text(key), item);
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }
}

/// The file names [`write_reports`] writes, in the order it writes them.
pub const REPORT_FILES: [&str; 4] = ["report.json", "junit.xml", "summary.md", "matrix.txt"];

/// Writes `report.json`, `junit.xml`, `summary.md` and `matrix.txt` into `dir` (created if
/// missing), each rendered from `results` through `redactor`, and a badge per real port under
/// `badges/` ([`interop::write_badges`]), and `report.html` ([`html`]). The terminal matrix is written without colour.
pub fn write_reports(results: &Results, dir: &Path, redactor: &Redactor) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let model = Model::new(results);
    let junit = junit::render_model(&model, redactor).map_err(io::Error::other)?;
    let files = [
        json::render_model(&model, redactor),
        junit,
        markdown::render_model(&model, redactor),
        terminal::render_model(&model, redactor, terminal::Options::default()),
    ];
    for (name, text) in REPORT_FILES.iter().zip(files) {
        std::fs::write(dir.join(name), text)?;
    }
    std::fs::write(
        dir.join("report.html"),
        html::render_model(&model, redactor),
    )?;
    interop::write_badges(&model, dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_longest_first_and_in_keys() {
        let redactor = Redactor::none()
            .repo("/srv/repo/")
            .sandbox("/srv/repo/target/tmp");
        assert_eq!(
            redactor.text("/srv/repo/target/tmp/c/x and /srv/repo/a"),
            "[SANDBOX]/c/x and [REPO]/a"
        );
        let value = json!({"/srv/repo/k": ["/srv/repo/target/tmp"], "durationMs": 5});
        assert_eq!(
            redactor.json(&value),
            json!({"[REPO]/k": ["[SANDBOX]"], "durationMs": 5})
        );
        let redactor = redactor.durations(true).versions(true);
        assert_eq!(redactor.json(&value)["durationMs"], json!("[DURATION]"));
        assert_eq!(redactor.duration_ms(7), "[DURATION]");
        assert_eq!(redactor.version("0.21.0"), "[VERSION]");
        assert_eq!(Redactor::none().duration_ms(7), "7 ms");
        assert_eq!(Redactor::none().text("/a"), "/a");
    }
}
