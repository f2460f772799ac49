//! The one way the project reads TOML: every file (`case.toml` of both profiles,
//! `adapters/ports.toml`, `adapters/<port>/expected.toml`) is a serde type, closed with
//! `#[serde(deny_unknown_fields)]`, deserialized by [`parse`]. Its error, a [`TomlProblem`],
//! names the file, the 1-based line (from the parser's own span) and the field path (from
//! [`serde_path_to_error`], e.g. `divergence[1].reason`), on one line.
//!
//! Checks serde cannot express (a blank reason, a range that does not parse) run over the typed
//! value afterwards; a field they need the line of is a [`toml::Spanned`], read by [`line_of`].

use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

/// One step of a field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// A key of a table.
    Key(String),
    /// A 0-based position in an array.
    Index(usize),
}

/// What is wrong, as far as the reader of the file needs to know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Problem {
    /// The text is not TOML.
    Syntax,
    /// A key the table does not have (the path leads to the table).
    UnknownField { name: String },
    /// A required key is absent (the path leads to the table).
    MissingField { name: String },
    /// The value at the path has the wrong type or an unknown variant.
    Invalid,
}

/// A TOML file that did not read as its type: where, what, and the parser's words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TomlProblem {
    pub file: PathBuf,
    /// 1-based line of the error's span, when the parser gave one.
    pub line: Option<usize>,
    /// The path to the value (or, for a key problem, to its table); empty at the top.
    pub path: Vec<Step>,
    pub problem: Problem,
    /// The parser's message, trimmed, on one line.
    pub message: String,
}

/// Deserializes the text of `file` as `T`: a syntax error first, then the first error of the
/// typed value, each as a [`TomlProblem`].
pub fn parse<T: DeserializeOwned>(file: &Path, text: &str) -> Result<T, TomlProblem> {
    let problem = |error: &toml::de::Error, path: Vec<Step>, problem: Problem| TomlProblem {
        file: file.to_owned(),
        line: error.span().map(|span| line_of(text, span.start)),
        path,
        problem,
        message: error.message().trim().replace('\n', "; "),
    };
    let syntax = |error: toml::de::Error| problem(&error, Vec::new(), Problem::Syntax);
    text.parse::<toml::Table>().map_err(syntax)?;
    let deserializer = toml::Deserializer::parse(text).map_err(syntax)?;
    serde_path_to_error::deserialize(deserializer).map_err(|error| {
        let mut path = steps(error.path());
        let inner = error.into_inner();
        let kind = classify(inner.message());
        if matches!(kind, Problem::UnknownField { .. }) {
            path.pop(); // the unknown key itself: the path leads to its table
        }
        problem(&inner, path, kind)
    })
}

/// How `serde_spanned` names the fields of its private struct (`$__serde_spanned_private_value`).
const SPANNED_PRIVATE: &str = "$__serde_spanned_private_";

/// The 1-based line holding byte `offset` of `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// The steps of a `serde_path_to_error` path: the keys and indices, without the private key
/// through which a [`toml::Spanned`] reaches its value.
fn steps(path: &serde_path_to_error::Path) -> Vec<Step> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|segment| match segment {
            Segment::Map { key } if key.starts_with(SPANNED_PRIVATE) => None,
            Segment::Map { key } => Some(Step::Key(key.clone())),
            Segment::Seq { index } => Some(Step::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

/// serde's own words for a key problem (`serde::de::Error::unknown_field`/`missing_field`,
/// which `toml` does not override) to a [`Problem`]; anything else is a bad value.
fn classify(message: &str) -> Problem {
    let quoted = |prefix: &str| {
        let rest = message.strip_prefix(prefix)?;
        Some(rest.split_once('`')?.0.to_owned())
    };
    if let Some(name) = quoted("unknown field `") {
        Problem::UnknownField { name }
    } else if let Some(name) = quoted("missing field `") {
        Problem::MissingField { name }
    } else {
        Problem::Invalid
    }
}

impl TomlProblem {
    /// `line N: ` (empty without a line).
    pub(crate) fn at_line(&self) -> String {
        self.line
            .map(|line| format!("line {line}: "))
            .unwrap_or_default()
    }

    /// The field path as TOML would address it: `ports.py.run`, `divergence[1].reason`.
    pub fn path_text(&self) -> String {
        path_text(&self.path)
    }

    /// The top-level key the problem is under, if any.
    pub(crate) fn top_key(&self) -> Option<&str> {
        match self.path.first() {
            Some(Step::Key(key)) => Some(key),
            _ => None,
        }
    }

    /// What is wrong and where, without the file: `line 5: unknown field `probes` in
    /// `ports.py`, expected …`, `line 2: field `ports.py.run`: invalid type: …`.
    pub fn what(&self) -> String {
        let within = if self.path.is_empty() {
            String::new()
        } else {
            format!(" in `{}`", self.path_text())
        };
        let line = self.at_line();
        match &self.problem {
            Problem::UnknownField { name } => {
                // serde's `, expected one of …` after the name, if it said it.
                let said = format!("unknown field `{name}`");
                let rest = self.message.strip_prefix(&said).unwrap_or_default();
                format!("{line}{said}{within}{rest}")
            }
            // A key missing at the top has no line of its own.
            Problem::MissingField { name } if self.path.is_empty() => {
                format!("missing field `{name}`")
            }
            Problem::MissingField { name } => format!("{line}missing field `{name}`{within}"),
            Problem::Invalid if !self.path.is_empty() => {
                format!("{line}field `{}`: {}", self.path_text(), self.message)
            }
            Problem::Syntax | Problem::Invalid => format!("{line}{}", self.message),
        }
    }
}

/// A field path as TOML would address it.
fn path_text(path: &[Step]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) if text.is_empty() => text.push_str(key),
            Step::Key(key) => {
                text.push('.');
                text.push_str(key);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
        }
    }
    text
}

impl fmt::Display for TomlProblem {
    /// `error reading `FILE`: ` and [`TomlProblem::what`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "error reading `{}`: {}",
            self.file.display(),
            self.what()
        )
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use toml::Spanned;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Entry {
        #[allow(dead_code)]
        name: Spanned<String>,
        #[serde(default)]
        #[allow(dead_code)]
        sizes: Vec<u8>,
    }

    type File = BTreeMap<String, Vec<Entry>>;

    fn problem(text: &str) -> TomlProblem {
        parse::<File>(Path::new("f.toml"), text).unwrap_err()
    }

    #[test]
    fn the_line_comes_from_the_span_and_the_path_from_serde() {
        let bad = problem("[[e]]\nname = \"a\"\n[[e]]\nname = \"b\"\nsizes = [1, \"x\"]\n");
        assert_eq!((bad.line, bad.problem.clone()), (Some(5), Problem::Invalid));
        assert_eq!(bad.path_text(), "e[1].sizes[1]");
        // Through a Spanned value, its private key is not part of the path.
        assert_eq!(problem("[[e]]\nname = 3\n").path_text(), "e[0].name");
        let unknown = problem("[[e]]\nname = \"a\"\nsize = 1\n");
        assert_eq!(unknown.path_text(), "e[0]", "the path leads to the table");
        assert_eq!(
            unknown.to_string(),
            "error reading `f.toml`: line 3: unknown field `size` in `e[0]`, expected `name` or `sizes`"
        );
        let syntax = problem("[[e]\n");
        assert_eq!((syntax.line, syntax.problem), (Some(1), Problem::Syntax));
        assert!(!syntax.message.contains('\n'));
    }
}
