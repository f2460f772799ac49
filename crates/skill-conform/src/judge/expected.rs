//! Expected divergences: the strict parser of `adapters/<port>/expected.toml`, the check that
//! every entry still names a case, and the draft `--write-expected` prints.
//!
//! ```toml
//! [[divergence]]
//! cases = "hazards/scalar-*"        # required: a glob over case ids
//! versions = ">=0.19, <0.22"        # optional: a semver range over the port's library version
//! reason = "PyYAML resolves YAML 1.1 booleans"   # required, not blank
//! link = "https://…"                # optional
//! fingerprint = "3f2a09c1d4e5b6a7"  # optional: the wrong output must have this fingerprint
//! ```
//!
//! - Nothing else is allowed: an unknown key, at the top or in an entry, is an error, and so is
//!   a value of the wrong type (serde types read by [`crate::toml_file`]). Every error names the
//!   file, the line, the 1-based entry and the field, on one line (a stale entry's hint, which
//!   the reports show apart, on a second).
//! - `cases` is matched like `--case`: `*` stays inside one segment, `**` crosses `/`.
//! - `versions` is a [`semver::VersionReq`]. A port version with fewer than three parts
//!   (`0.21`) is padded with zeros; an entry with `versions` never applies to a port whose version
//!   is unknown or does not parse.
//! - `fingerprint` is [`FINGERPRINT_LEN`] lower-case hex digits, as the reports print them.
//! - When several entries cover a case, the first in the file wins.
//! - A missing file means no entries.
//!
//! Parse errors are configuration errors (exit 2, the caller's); an entry that matches no case in
//! the whole fixture set ([`check_entries`]) is an expectation error (exit 1).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use globset::GlobMatcher;

use semver::{Version, VersionReq};
use serde::Deserialize;
use toml::Spanned;

use super::{Status, Verdict, FINGERPRINT_LEN};
use crate::case::CaseId;
use crate::error::ExitCode;
use crate::toml_file::{self, Problem, Step, TomlProblem};

/// The keys an entry may have, sorted (for messages).
const FIELDS: [&str; 5] = ["cases", "fingerprint", "link", "reason", "versions"];

/// A problem with an `expected.toml` file or one of its entries.
#[derive(Debug, thiserror::Error)]
pub enum ExpectationError {
    #[error("error reading `{}`", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("error parsing `{}`{}: {message}", path.display(), line.map(|line| format!(", line {line}")).unwrap_or_default())]
    Syntax {
        path: PathBuf,
        line: Option<usize>,
        message: String,
    },
    #[error("error in `{}`: {}key `{key}`: {message} (hint: the file holds only `[[divergence]]` tables)", path.display(), at_line(*line))]
    TopLevel {
        path: PathBuf,
        line: Option<usize>,
        key: String,
        message: String,
    },
    #[error("error in `{}`: {}entry {entry}, field `{field}`: {message} (hint: {hint})", path.display(), at_line(*line))]
    Field {
        path: PathBuf,
        line: Option<usize>,
        /// 1-based.
        entry: usize,
        field: String,
        message: String,
        hint: String,
    },
    #[error("error in `{}`: line {line}: entry {entry}, field `cases`: `{glob}` matches no case in the fixture set\n(hint: fix the glob, or delete the entry if the case is gone)", path.display())]
    NoMatch {
        path: PathBuf,
        /// 1-based, of the entry's `cases`.
        line: usize,
        /// 1-based.
        entry: usize,
        glob: String,
    },
}

/// `line N: ` (empty without a line).
fn at_line(line: Option<usize>) -> String {
    line.map(|line| format!("line {line}: "))
        .unwrap_or_default()
}

impl ExpectationError {
    /// 2 for a file that cannot be read or parsed; 1 for an entry that matches no case.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            ExpectationError::NoMatch { .. } => ExitCode::Divergence,
            _ => ExitCode::Usage,
        }
    }
}

/// One `[[divergence]]` entry, validated.
#[derive(Clone, Debug)]
pub struct ExpectedEntry {
    /// The file it came from.
    pub path: PathBuf,
    /// 1-based position among the file's entries.
    pub entry: usize,
    /// 1-based line of the entry's `cases`.
    pub line: usize,
    /// The case glob as written.
    pub cases: String,
    matcher: GlobMatcher,
    pub versions: Option<VersionReq>,
    pub reason: String,
    pub link: Option<String>,
    pub fingerprint: Option<String>,
}

impl PartialEq for ExpectedEntry {
    fn eq(&self, other: &Self) -> bool {
        self.path == other.path
            && self.entry == other.entry
            && self.line == other.line
            && self.cases == other.cases
            && self.versions == other.versions
            && self.reason == other.reason
            && self.link == other.link
            && self.fingerprint == other.fingerprint
    }
}

impl ExpectedEntry {
    /// Whether the glob matches the case id.
    pub(crate) fn matches_case(&self, case: &CaseId) -> bool {
        self.matcher.is_match(case.as_str())
    }

    /// Whether the entry applies to a port of this library version (see the module doc).
    pub(crate) fn applies_to_version(&self, version: Option<&str>) -> bool {
        match &self.versions {
            None => true,
            Some(req) => version
                .and_then(parse_lenient_version)
                .is_some_and(|version| req.matches(&version)),
        }
    }
}

/// The first entry that covers `case` at `version`.
pub(crate) fn find_entry<'a>(
    entries: &'a [ExpectedEntry],
    case: &CaseId,
    version: Option<&str>,
) -> Option<&'a ExpectedEntry> {
    entries
        .iter()
        .find(|entry| entry.matches_case(case) && entry.applies_to_version(version))
}

/// `1.2.3`, `v1.2`, `1` → a [`Version`] (missing parts are zero); `None` when it does not parse.
fn parse_lenient_version(text: &str) -> Option<Version> {
    let text = text.trim();
    let text = text.strip_prefix('v').unwrap_or(text);
    if let Ok(version) = Version::parse(text) {
        return Some(version);
    }
    // Pad the numeric core only; anything after `-` or `+` stays where it is.
    let split = text.find(['-', '+']).unwrap_or(text.len());
    let (core, rest) = text.split_at(split);
    let parts = core.split('.').count();
    if parts >= 3 {
        return None;
    }
    let padded = format!("{core}{}{rest}", ".0".repeat(3 - parts));
    Version::parse(&padded).ok()
}

/// Reads `path`; a missing file is no entries.
pub(crate) fn read_expected(path: &Path) -> Result<Vec<ExpectedEntry>, ExpectationError> {
    match std::fs::read_to_string(path) {
        Ok(text) => parse_expected(path, &text),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(ExpectationError::Io {
            path: path.to_owned(),
            source,
        }),
    }
}

/// `adapters/<port>/expected.toml` exactly as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedFile {
    #[serde(default)]
    divergence: Vec<Divergence>,
}

/// One `[[divergence]]` table exactly as written; each value keeps its span for the checks
/// serde cannot make (blank, not a glob, not a range, not a fingerprint, matching no case).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Divergence {
    cases: Spanned<String>,
    #[serde(default)]
    versions: Option<Spanned<String>>,
    reason: Spanned<String>,
    #[serde(default)]
    link: Option<Spanned<String>>,
    #[serde(default)]
    fingerprint: Option<Spanned<String>>,
}

/// Parses the text of `path` (see the module doc for the format).
pub fn parse_expected(path: &Path, text: &str) -> Result<Vec<ExpectedEntry>, ExpectationError> {
    let file: ExpectedFile =
        toml_file::parse(path, text).map_err(|problem| file_error(path, problem))?;
    file.divergence
        .into_iter()
        .enumerate()
        .map(|(index, divergence)| check_entry(path, text, index + 1, divergence))
        .collect()
}

/// A [`TomlProblem`] of an `expected.toml` in this module's words: syntax, a top-level key, or
/// an entry's field.
fn file_error(path: &Path, problem: TomlProblem) -> ExpectationError {
    let field_error =
        |entry: usize, field: &str, message: String, hint: String| ExpectationError::Field {
            path: path.to_owned(),
            line: problem.line,
            entry,
            field: field.to_owned(),
            message,
            hint,
        };
    let top = |key: &str, message: String| ExpectationError::TopLevel {
        path: path.to_owned(),
        line: problem.line,
        key: key.to_owned(),
        message,
    };
    let valid = FIELDS.map(|field| format!("`{field}`")).join(", ");
    match (&problem.problem, problem.path.as_slice()) {
        (Problem::Syntax, _) => ExpectationError::Syntax {
            path: path.to_owned(),
            line: problem.line,
            message: problem.message.clone(),
        },
        (Problem::UnknownField { name }, []) => top(name, "unknown key".into()),
        (_, [Step::Key(_)]) => top("divergence", "is not an array of tables".into()),
        (problem_kind, [Step::Key(_), Step::Index(index), rest @ ..]) => {
            let entry = index + 1;
            match (problem_kind, rest) {
                (Problem::UnknownField { name }, _) => field_error(
                    entry,
                    name,
                    "unknown field".into(),
                    format!("valid fields are {valid}"),
                ),
                (Problem::MissingField { name }, _) => {
                    field_error(entry, name, "is missing".into(), field_hint(name).into())
                }
                (_, [Step::Key(field), ..]) => field_error(
                    entry,
                    field,
                    problem.message.clone(),
                    field_hint(field).into(),
                ),
                _ => field_error(
                    entry,
                    "divergence",
                    "is not a table".into(),
                    "write each entry as a `[[divergence]]` table".into(),
                ),
            }
        }
        _ => top("divergence", problem.message.clone()),
    }
}

/// Whether `text` is a fingerprint: [`FINGERPRINT_LEN`] lower-case hex digits.
fn is_fingerprint(text: &str) -> bool {
    text.len() == FINGERPRINT_LEN && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The checks of one entry serde cannot make, each error on the line of its value.
fn check_entry(
    path: &Path,
    text: &str,
    entry: usize,
    divergence: Divergence,
) -> Result<ExpectedEntry, ExpectationError> {
    let bad = |field: &str, value: &Spanned<String>, message: String| ExpectationError::Field {
        path: path.to_owned(),
        line: Some(toml_file::line_of(text, value.span().start)),
        entry,
        field: field.to_owned(),
        message,
        hint: field_hint(field).into(),
    };
    let fields = [
        ("cases", Some(&divergence.cases)),
        ("versions", divergence.versions.as_ref()),
        ("reason", Some(&divergence.reason)),
        ("link", divergence.link.as_ref()),
        ("fingerprint", divergence.fingerprint.as_ref()),
    ];
    for (field, value) in fields {
        if let Some(value) = value.filter(|value| value.get_ref().trim().is_empty()) {
            return Err(bad(field, value, "is blank".into()));
        }
    }
    let cases = &divergence.cases;
    let matcher = crate::case::case_glob(cases.get_ref()).map_err(|glob_error| {
        let message = format!("`{}` is not a glob: {}", cases.get_ref(), glob_error.kind());
        bad("cases", cases, message)
    })?;
    let versions = divergence
        .versions
        .as_ref()
        .map(|range| {
            VersionReq::parse(range.get_ref()).map_err(|semver_error| {
                let message = format!(
                    "`{}` is not a version range: {semver_error}",
                    range.get_ref()
                );
                bad("versions", range, message)
            })
        })
        .transpose()?;
    if let Some(print) = divergence
        .fingerprint
        .as_ref()
        .filter(|print| !is_fingerprint(print.get_ref()))
    {
        let message = format!(
            "`{}` is not {FINGERPRINT_LEN} lower-case hex digits",
            print.get_ref()
        );
        return Err(bad("fingerprint", print, message));
    }
    Ok(ExpectedEntry {
        path: path.to_owned(),
        entry,
        line: toml_file::line_of(text, cases.span().start),
        cases: divergence.cases.into_inner(),
        matcher,
        versions,
        reason: divergence.reason.into_inner(),
        link: divergence.link.map(Spanned::into_inner),
        fingerprint: divergence.fingerprint.map(Spanned::into_inner),
    })
}

fn field_hint(field: &str) -> &'static str {
    match field {
        "cases" => "write `cases = \"group/case-*\"`: a glob over case ids; `*` stays in one segment, `**` crosses `/`",
        "versions" => "write `versions = \">=0.19, <0.22\"`: a semver range over the port's library version",
        "reason" => "write `reason = \"why the port differs\"`",
        "link" => "write `link = \"https://…\"`: the issue that tracks the divergence",
        "fingerprint" => "copy the fingerprint the report prints for the failing trial",
        _ => "see the doc of skill-conform's `judge::expected` module",
    }
}

/// The entries whose glob matches no case in the whole fixture set (not only the selected
/// cases), in entry order.
pub(crate) fn check_entries<'a>(
    entries: &[ExpectedEntry],
    all_case_ids: impl IntoIterator<Item = &'a CaseId> + Clone,
) -> Vec<ExpectationError> {
    entries
        .iter()
        .filter(|entry| {
            !all_case_ids
                .clone()
                .into_iter()
                .any(|case| entry.matches_case(case))
        })
        .map(|entry| ExpectationError::NoMatch {
            path: entry.path.clone(),
            line: entry.line,
            entry: entry.entry,
            glob: entry.cases.clone(),
        })
        .collect()
}

/// A draft `expected.toml` for `port` (what `--write-expected` prints): one entry per case whose
/// verdict is `fail`, `gap` or `expected-fail`, sorted by case id, each with its exact case id,
/// its fingerprint and a TODO reason (an `expected-fail` keeps the reason and link it matched).
pub(crate) fn draft_expected<'a>(
    port: &str,
    verdicts: impl IntoIterator<Item = (&'a CaseId, &'a Verdict)>,
) -> String {
    let sorted: BTreeMap<&CaseId, &Verdict> = verdicts
        .into_iter()
        .filter(|(_, verdict)| {
            matches!(
                verdict.status,
                Status::Fail | Status::Gap | Status::ExpectedFail
            )
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Draft of adapters/{port}/expected.toml, written by `skill-conform run --write-expected`."
    );
    out.push_str(
        "# One entry per case that diverged. Replace each TODO reason, add a `link`, and widen\n\
         # `cases` (a glob over case ids) or add `versions` where that says it better.\n",
    );
    for (case, verdict) in sorted {
        let (reason, link) = match (&verdict.evidence.expected, verdict.status) {
            (Some(matched), Status::ExpectedFail) => (matched.reason.clone(), matched.link.clone()),
            _ => (
                format!("TODO: observed {} — describe why", verdict.status),
                None,
            ),
        };
        out.push_str("\n[[divergence]]\n");
        let _ = writeln!(out, "cases = {}", toml_string(case.as_str()));
        let _ = writeln!(out, "reason = {}", toml_string(&reason));
        if let Some(link) = link {
            let _ = writeln!(out, "link = {}", toml_string(&link));
        }
        if let Some(print) = &verdict.evidence.fingerprint {
            let _ = writeln!(out, "fingerprint = {}", toml_string(print));
        }
    }
    out
}

/// A TOML basic string holding `text`.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::{repro_command, Evidence};

    fn path() -> PathBuf {
        PathBuf::from("adapters/python/expected.toml")
    }

    fn parse(text: &str) -> Result<Vec<ExpectedEntry>, ExpectationError> {
        parse_expected(&path(), text)
    }

    fn message(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    fn id(text: &str) -> CaseId {
        CaseId::parse(text).unwrap()
    }

    const FULL: &str = r#"
[[divergence]]
cases = "hazards/scalar-*"
versions = ">=0.19, <0.22"
reason = "PyYAML resolves YAML 1.1 booleans"
link = "https://example.invalid/issue/1"
fingerprint = "0123456789abcdef"

[[divergence]]
cases = "frontmatter/**"
reason = "other"
"#;

    #[test]
    fn parses_every_field() {
        let entries = parse(FULL).unwrap();
        assert_eq!(entries.len(), 2);
        let first = &entries[0];
        assert_eq!(first.entry, 1);
        assert_eq!(first.cases, "hazards/scalar-*");
        assert_eq!(first.reason, "PyYAML resolves YAML 1.1 booleans");
        assert_eq!(
            first.link.as_deref(),
            Some("https://example.invalid/issue/1")
        );
        assert_eq!(first.fingerprint.as_deref(), Some("0123456789abcdef"));
        assert!(first.matches_case(&id("hazards/scalar-yes")));
        assert!(!first.matches_case(&id("hazards/other")));
        assert!(first.applies_to_version(Some("0.21.0")));
        assert!(first.applies_to_version(Some("0.19")));
        assert!(first.applies_to_version(Some("v0.20")));
        assert!(!first.applies_to_version(Some("0.22.0")));
        assert!(!first.applies_to_version(None));
        assert!(!first.applies_to_version(Some("nightly")));
        assert!(entries[1].applies_to_version(None));
    }

    #[test]
    fn first_matching_entry_wins() {
        let entries = parse(
            "[[divergence]]\ncases = \"g/*\"\nreason = \"one\"\n\
             [[divergence]]\ncases = \"g/c\"\nreason = \"two\"\n",
        )
        .unwrap();
        assert_eq!(
            find_entry(&entries, &id("g/c"), None).unwrap().reason,
            "one"
        );
        assert!(find_entry(&entries, &id("h/c"), None).is_none());
    }

    #[test]
    fn empty_file_and_missing_file_have_no_entries() {
        assert!(parse("").unwrap().is_empty());
        assert!(read_expected(Path::new("/nonexistent/expected.toml"))
            .unwrap()
            .is_empty());
    }

    #[test]
    fn errors_name_file_entry_and_field() {
        let unknown = message(
            "[[divergence]]\ncases = \"a/*\"\nreason = \"r\"\n\
             [[divergence]]\ncases = \"a/*\"\nreason = \"r\"\nfingerprints = \"x\"\n",
        );
        assert_eq!(
            unknown,
            "error in `adapters/python/expected.toml`: line 7: entry 2, field `fingerprints`: unknown field \
             (hint: valid fields are `cases`, `fingerprint`, `link`, `reason`, `versions`)"
        );
        let missing = message("[[divergence]]\ncases = \"a/*\"\n");
        assert!(
            missing.starts_with(
                "error in `adapters/python/expected.toml`: line 1: entry 1, field `reason`: is missing"
            ),
            "{missing}"
        );
        let wrong_type = message("[[divergence]]\ncases = 3\nreason = \"r\"\n");
        assert!(
            wrong_type.contains(
                "line 2: entry 1, field `cases`: invalid type: integer `3`, expected a string"
            ),
            "{wrong_type}"
        );
        let blank = message("[[divergence]]\ncases = \"a/*\"\nreason = \"  \"\n");
        assert!(
            blank.contains("line 3: entry 1, field `reason`: is blank"),
            "{blank}"
        );
        let glob = message("[[divergence]]\ncases = \"a/[\"\nreason = \"r\"\n");
        assert!(
            glob.contains("line 2: entry 1, field `cases`: `a/[` is not a glob"),
            "{glob}"
        );
        let range =
            message("[[divergence]]\ncases = \"a/*\"\nreason = \"r\"\nversions = \"about 1\"\n");
        assert!(
            range.contains("line 4: entry 1, field `versions`: `about 1` is not a version range"),
            "{range}"
        );
        let print =
            message("[[divergence]]\ncases = \"a/*\"\nreason = \"r\"\nfingerprint = \"ABC\"\n");
        assert!(
            print.contains(
                "line 4: entry 1, field `fingerprint`: `ABC` is not 16 lower-case hex digits"
            ),
            "{print}"
        );
    }

    #[test]
    fn top_level_and_syntax_errors() {
        let top = message("divergences = []\n");
        assert!(
            top.starts_with(
                "error in `adapters/python/expected.toml`: line 1: key `divergences`: unknown key"
            ),
            "{top}"
        );
        let not_array = message("divergence = 3\n");
        assert!(
            not_array.contains("is not an array of tables"),
            "{not_array}"
        );
        let not_table = message("divergence = [1]\n");
        assert!(not_table.contains("entry 1, field `divergence`: is not a table"));
        let syntax = message("[[divergence]]\ncases = \"a\nreason = 1\n");
        assert!(
            syntax.starts_with("error parsing `adapters/python/expected.toml`, line 2: "),
            "{syntax}"
        );
        assert_eq!(parse("x = 1").unwrap_err().exit_code(), ExitCode::Usage);
    }

    #[test]
    fn entries_matching_no_case_are_errors() {
        let entries = parse(FULL).unwrap();
        let cases = [id("hazards/scalar-yes"), id("discovery/basic")];
        let errors = check_entries(&entries, &cases);
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].to_string(),
            "error in `adapters/python/expected.toml`: line 10: entry 2, field `cases`: `frontmatter/**` matches no case in the fixture set\n\
             (hint: fix the glob, or delete the entry if the case is gone)"
        );
        assert_eq!(errors[0].exit_code(), ExitCode::Divergence);
        let all = [id("hazards/scalar-no"), id("frontmatter/x")];
        assert!(check_entries(&entries, &all).is_empty());
    }

    fn verdict(status: Status, print: Option<&str>) -> Verdict {
        Verdict {
            status,
            evidence: Evidence {
                fingerprint: print.map(str::to_owned),
                repro: repro_command("python", &id("g/c")),
                ..Evidence::default()
            },
        }
    }

    #[test]
    fn draft_lists_diverging_cases_sorted_and_parses_back() {
        let entries = parse(FULL).unwrap();
        let mut kept = verdict(Status::ExpectedFail, Some("00000000000000ff"));
        kept.evidence.expected = Some(super::super::ExpectedMatch::new(
            &entries[0],
            Some("00000000000000ff"),
        ));
        let verdicts = [
            (id("z/last"), verdict(Status::Gap, Some("1111111111111111"))),
            (
                id("a/first"),
                verdict(Status::Fail, Some("2222222222222222")),
            ),
            (
                id("m/pass"),
                verdict(Status::Pass, Some("3333333333333333")),
            ),
            (id("m/error"), verdict(Status::Error, None)),
            (id("hazards/scalar-yes"), kept),
        ];
        let draft = draft_expected("python", verdicts.iter().map(|(c, v)| (c, v)));
        assert_eq!(
            draft,
            "# Draft of adapters/python/expected.toml, written by `skill-conform run --write-expected`.\n\
             # One entry per case that diverged. Replace each TODO reason, add a `link`, and widen\n\
             # `cases` (a glob over case ids) or add `versions` where that says it better.\n\
             \n[[divergence]]\ncases = \"a/first\"\nreason = \"TODO: observed fail — describe why\"\nfingerprint = \"2222222222222222\"\n\
             \n[[divergence]]\ncases = \"hazards/scalar-yes\"\nreason = \"PyYAML resolves YAML 1.1 booleans\"\nlink = \"https://example.invalid/issue/1\"\nfingerprint = \"00000000000000ff\"\n\
             \n[[divergence]]\ncases = \"z/last\"\nreason = \"TODO: observed gap — describe why\"\nfingerprint = \"1111111111111111\"\n"
        );
        assert_eq!(parse(&draft).unwrap().len(), 3);
    }
}
