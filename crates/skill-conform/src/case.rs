//! Cases: discover `conformance-fixtures/<group>/<case>/`, parse each `case.toml`
//! strictly, and select cases by glob.
//!
//! A **case** is a directory holding a skills tree and a `case.toml`:
//!
//! ```toml
//! summary = "one line: what the case pins"      # required
//! pinned = true                                 # required
//! rules = ["TN-YAML-7", "TN-RESC-1"]           # required, non-empty: CONTRACT.md rule ids
//! roots = ["skills"]                            # default ["skills"]
//! sample_limit = 0                              # default 0
//! filter = { a = true }                         # default {}
//! load = ["a", "no-such-skill"]                 # default: accepted names, then `no-such-skill`
//! compare = ["inventory", "loads", "prompt"]    # default these three; or `tool`
//! links = { "skills/alias" = "real" }           # symlink path -> literal target text
//! renames = { "skills/x/dot-git" = ".git" }     # path -> new final component
//! unreadable = ["skills/mem/SKILL.md"]          # paths that must fail to read in the sandbox
//! writing_tool = "accepts"                      # accepts | errors: checked against goldens/writing-tool.json
//! ```
//!
//! Choices this module makes (the schema itself is silent on them):
//!
//! - Every path in `roots`, `links`, `renames` and `unreadable` is a *plain relative path*:
//!   `/`-separated segments, none empty, `.` or `..`, no leading or trailing `/`. So the sandbox
//!   can hand out `SANDBOX/<root>` as written and it is already lexically normal.
//! - Group and case directory names are `[A-Za-z0-9._-]+` and do not start with `.`, so a trial
//!   name `port::group/case` survives libtest filters and shells unquoted.
//! - Besides group directories, the fixture directory may hold `README.md` and `.gitattributes`;
//!   a group directory may hold `README.md`. Anything else at those two levels is an error.
//! - `--case` globs use [`globset`] with `literal_separator`: `*` stays inside one segment
//!   (`frontmatter/*`), `**` crosses `/` (`**/crlf*`).
//!
//! Errors are one line each: the file, the line and field where known, what is wrong, and a
//! `(hint: …)` with the fix. The CLI maps every [`CaseError`] to exit code 2.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use crate::toml_file::{self, Problem, TomlProblem};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toml::Spanned;

/// The name of the manifest file inside a case directory.
pub(crate) const MANIFEST: &str = "case.toml";

/// The name every default `load` list ends with: a skill no fixture defines.
pub(crate) const UNKNOWN_SKILL: &str = "no-such-skill";

/// A setup error about the fixture tree or a `case.toml`. Each renders as one line.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error(
        "fixture directory `{}` does not exist (hint: run from the repository root or pass --repo DIR, the directory holding conformance-fixtures/)",
        dir.display()
    )]
    FixturesMissing { dir: PathBuf },

    #[error("error reading `{}`: {cause}", path.display())]
    Io { path: PathBuf, cause: io::Error },

    #[error("error reading `{}`: {message} (hint: {hint})", path.display())]
    Manifest {
        path: PathBuf,
        message: String,
        hint: String,
    },

    #[error("unexpected `{}` in the fixture tree: {what} (hint: {hint})", path.display())]
    UnexpectedEntry {
        path: PathBuf,
        what: String,
        hint: String,
    },

    #[error("invalid case glob `{glob}`: {message} (hint: quote the glob; `*` stays within one segment, `**` crosses `/`)")]
    BadGlob { glob: String, message: String },
}

/// The id of a case: `group/case`, the path of its directory below the fixture directory.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(try_from = "String", into = "String")]
pub struct CaseId(String);

impl TryFrom<String> for CaseId {
    type Error = String;

    fn try_from(id: String) -> Result<CaseId, String> {
        CaseId::parse(&id).ok_or_else(|| format!("`{id}` is not a case id (`group/case`)"))
    }
}

impl From<CaseId> for String {
    fn from(id: CaseId) -> String {
        id.0
    }
}

impl CaseId {
    /// Builds `group/case`; `None` unless both parts are valid directory names (see module doc).
    pub fn new(group: &str, case: &str) -> Option<CaseId> {
        (valid_name(group) && valid_name(case)).then(|| CaseId(format!("{group}/{case}")))
    }

    /// Parses `group/case`.
    pub fn parse(id: &str) -> Option<CaseId> {
        let (group, case) = id.split_once('/')?;
        CaseId::new(group, case)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn group(&self) -> &str {
        self.0.split_once('/').map_or("", |(group, _)| group)
    }

    pub fn case(&self) -> &str {
        self.0.split_once('/').map_or("", |(_, case)| case)
    }
}

impl fmt::Display for CaseId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A top-level field of a reply that a case compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    Inventory,
    Loads,
    Prompt,
    Tool,
}

impl Field {
    pub const ALL: [Field; 4] = [Field::Inventory, Field::Loads, Field::Prompt, Field::Tool];

    /// The field's key in a reply.
    pub fn as_str(self) -> &'static str {
        match self {
            Field::Inventory => "inventory",
            Field::Loads => "loads",
            Field::Prompt => "prompt",
            Field::Tool => "tool",
        }
    }

    /// The default `compare` set: inventory, loads and prompt.
    pub(crate) fn default_set() -> BTreeSet<Field> {
        BTreeSet::from([Field::Inventory, Field::Loads, Field::Prompt])
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `claude plugin validate` (the writing tool) is expected to say about the case's
/// `SKILL.md` files, in the words of `goldens/writing-tool.json`; `goldens --check` compares it
/// with the observation (see [`crate::writing_tool`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WritingTool {
    /// It reaches at least one `SKILL.md` and reports an error for none.
    Accepts,
    /// It reports an error for at least one `SKILL.md`.
    Errors,
}

/// `case.toml` exactly as written. The values a check after serde needs the line of keep
/// their span.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    summary: Spanned<String>,
    pinned: bool,
    rules: Spanned<Vec<String>>,
    #[serde(default = "default_roots")]
    roots: Vec<Spanned<String>>,
    #[serde(default)]
    sample_limit: i64,
    #[serde(default)]
    filter: BTreeMap<String, bool>,
    #[serde(default)]
    load: Option<Vec<String>>,
    #[serde(default)]
    compare: Option<Spanned<Vec<Field>>>,
    #[serde(default)]
    links: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    renames: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    unreadable: Vec<Spanned<String>>,
    #[serde(default)]
    writing_tool: Option<WritingTool>,
}

fn default_roots() -> Vec<Spanned<String>> {
    vec![Spanned::new(0..0, "skills".to_owned())]
}

/// The manifest's fields, sorted, for messages.
const FIELDS: [&str; 12] = [
    "compare",
    "filter",
    "links",
    "load",
    "pinned",
    "renames",
    "roots",
    "rules",
    "sample_limit",
    "summary",
    "unreadable",
    "writing_tool",
];

/// How to write each field, for hints.
fn field_hint(field: &str) -> &'static str {
    match field {
        "summary" => "`summary = \"one line saying what the case pins\"`",
        "pinned" => "`pinned = true` or `pinned = false`",
        "rules" => "`rules = [\"TN-YAML-7\"]`: a non-empty list of rule ids from crates/skill-ref/CONTRACT.md",
        "roots" => "`roots = [\"skills\"]`: plain relative paths inside the case, no `..`",
        "sample_limit" => "`sample_limit = 0`: an integer (0 = default 10, -1 = no sample)",
        "filter" => "`filter = { name = true }`: skill names mapped to booleans",
        "load" => "`load = [\"a\", \"no-such-skill\"]`: a list of skill names",
        "compare" => {
            "`compare = [\"inventory\", \"loads\", \"prompt\"]`: a non-empty list without duplicates of `inventory`, `loads`, `prompt`, `tool`"
        }
        "links" => "`links = { \"skills/alias\" = \"real\" }`: plain relative path -> target text",
        "renames" => "`renames = { \"skills/x/dot-git\" = \".git\" }`: plain relative path -> new name without `/`",
        "unreadable" => "`unreadable = [\"skills/x/SKILL.md\"]`: plain relative paths",
        "writing_tool" => "`writing_tool = \"accepts\"`: `accepts` or `errors`, what `claude plugin validate` says",
        _ => "see the case.toml schema in the doc of skill-conform's `case` module",
    }
}

/// A parsed and validated case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseSpec {
    pub id: CaseId,
    /// The case directory (the fixture directory joined with the id).
    pub dir: PathBuf,
    pub summary: String,
    pub pinned: bool,
    pub rules: Vec<String>,
    /// Plain relative paths inside the case, in caller order (may repeat, may not exist).
    pub roots: Vec<String>,
    pub sample_limit: i64,
    pub filter: BTreeMap<String, bool>,
    /// `None`: the default list (see [`CaseSpec::default_load`]).
    pub load: Option<Vec<String>>,
    pub compare: BTreeSet<Field>,
    /// Symlink path (relative to the case) -> literal target text.
    pub links: BTreeMap<String, String>,
    /// Path (relative to the case, before renaming) -> new final component.
    pub renames: BTreeMap<String, String>,
    pub unreadable: Vec<String>,
    pub writing_tool: Option<WritingTool>,
}

impl CaseSpec {
    /// Reads `dir/case.toml` for the case `id`.
    pub fn read(id: CaseId, dir: PathBuf) -> Result<CaseSpec, CaseError> {
        let path = dir.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|cause| CaseError::Io {
            path: path.clone(),
            cause,
        })?;
        CaseSpec::parse(id, dir, &text)
    }

    /// Parses the text of `dir/case.toml`; messages name that path, and the line and field.
    pub fn parse(id: CaseId, dir: PathBuf, text: &str) -> Result<CaseSpec, CaseError> {
        let path = dir.join(MANIFEST);
        let manifest: Manifest = toml_file::parse(&path, text).map_err(manifest_error)?;
        let checked = Checked { path: &path, text };
        let compare = checked.manifest(&manifest)?;
        let plain = |map: BTreeMap<String, Spanned<String>>| {
            map.into_iter()
                .map(|(key, value)| (key, value.into_inner()))
                .collect()
        };
        let plain_list =
            |list: Vec<Spanned<String>>| list.into_iter().map(Spanned::into_inner).collect();
        Ok(CaseSpec {
            id,
            dir,
            summary: manifest.summary.into_inner(),
            pinned: manifest.pinned,
            rules: manifest.rules.into_inner(),
            roots: plain_list(manifest.roots),
            sample_limit: manifest.sample_limit,
            filter: manifest.filter,
            load: manifest.load,
            compare,
            links: plain(manifest.links),
            renames: plain(manifest.renames),
            unreadable: plain_list(manifest.unreadable),
            writing_tool: manifest.writing_tool,
        })
    }

    /// The default `load` list: the accepted names in code-point order (duplicates once), then
    /// [`UNKNOWN_SKILL`].
    pub(crate) fn default_load(accepted_names: &[String]) -> Vec<String> {
        let mut names: Vec<String> = accepted_names.to_vec();
        names.sort();
        names.dedup();
        names.push(UNKNOWN_SKILL.to_owned());
        names
    }

    /// The case's `load` list if it has one, else [`CaseSpec::default_load`].
    pub(crate) fn load_or_default(&self, accepted_names: &[String]) -> Vec<String> {
        match &self.load {
            Some(load) => load.clone(),
            None => CaseSpec::default_load(accepted_names),
        }
    }
}

/// The checks of a `case.toml` serde cannot make, each error naming the file, the line of the
/// value and the field.
struct Checked<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Checked<'_> {
    fn invalid<T>(&self, field: &str, at: &Spanned<T>, message: String) -> CaseError {
        // A default value (`roots`) has no place in the file: no line then.
        let line = (at.span() != (0..0)).then(|| toml_file::line_of(self.text, at.span().start));
        CaseError::Manifest {
            path: self.path.to_owned(),
            message: format!("{}field `{field}`: {message}", at_line(line)),
            hint: format!("write {}", field_hint(field)),
        }
    }

    /// Every check; the `compare` set on success.
    fn manifest(&self, manifest: &Manifest) -> Result<BTreeSet<Field>, CaseError> {
        if manifest.summary.get_ref().trim().is_empty() {
            return Err(self.invalid("summary", &manifest.summary, "is empty".into()));
        }
        let rules = &manifest.rules;
        if rules.get_ref().is_empty() {
            return Err(self.invalid("rules", rules, "is empty".into()));
        }
        if rules.get_ref().iter().any(|rule| rule.trim().is_empty()) {
            return Err(self.invalid("rules", rules, "contains an empty rule".into()));
        }
        self.plain_paths("roots", &manifest.roots)?;
        let compare = self.compare(manifest.compare.as_ref())?;
        for (link, target) in &manifest.links {
            self.plain_path("links", link, target)?;
            if target.get_ref().is_empty() || target.get_ref().contains('\0') {
                let message = format!("`{link}` has an empty target or one containing NUL");
                return Err(self.invalid("links", target, message));
            }
        }
        for (from, to) in &manifest.renames {
            self.plain_path("renames", from, to)?;
            let name = to.get_ref();
            if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\0']) {
                let message =
                    format!("`{from}` is renamed to `{name}`, which is not a single file name");
                return Err(self.invalid("renames", to, message));
            }
        }
        self.plain_paths("unreadable", &manifest.unreadable)
            .map(|()| compare)
    }

    fn compare(&self, compare: Option<&Spanned<Vec<Field>>>) -> Result<BTreeSet<Field>, CaseError> {
        let Some(list) = compare else {
            return Ok(Field::default_set());
        };
        if list.get_ref().is_empty() {
            return Err(self.invalid("compare", list, "is empty".into()));
        }
        let mut set = BTreeSet::new();
        for field in list.get_ref() {
            if !set.insert(*field) {
                return Err(self.invalid("compare", list, format!("lists `{field}` twice")));
            }
        }
        Ok(set)
    }

    fn plain_paths(&self, field: &str, paths: &[Spanned<String>]) -> Result<(), CaseError> {
        paths
            .iter()
            .try_for_each(|path| self.plain_path(field, path.get_ref(), path))
    }

    /// `path` a plain relative path, else an error on the line of `at`.
    fn plain_path<T>(&self, field: &str, path: &str, at: &Spanned<T>) -> Result<(), CaseError> {
        check_plain_path(path).map_err(|why| self.invalid(field, at, format!("`{path}` {why}")))
    }
}

/// `Ok` for a plain relative path: `/`-separated segments, none empty, `.` or `..`.
fn check_plain_path(path: &str) -> Result<(), &'static str> {
    if path.is_empty() {
        return Err("is empty");
    }
    if path.starts_with('/') {
        return Err("is absolute; write a path relative to the case directory");
    }
    if path.contains('\0') {
        return Err("contains NUL");
    }
    for segment in path.split('/') {
        match segment {
            "" => return Err("has an empty segment (a doubled or trailing `/`)"),
            "." => return Err("has a `.` segment"),
            ".." => return Err("has a `..` segment; paths must stay inside the case"),
            _ => {}
        }
    }
    Ok(())
}

/// A [`TomlProblem`] of a `case.toml` in this module's words: the line and field, and a hint.
fn manifest_error(problem: TomlProblem) -> CaseError {
    let line = problem.at_line();
    let (message, hint) = match &problem.problem {
        Problem::UnknownField { name } => {
            let valid = FIELDS.map(|f| format!("`{f}`")).join(", ");
            let hint = match closest_field(name) {
                Some(guess) => format!("did you mean `{guess}`?"),
                None => {
                    "remove it, or see the schema in the doc of skill-conform's `case` module".into()
                }
            };
            (format!("{line}unknown field `{name}`, expected one of {valid}"), hint)
        }
        // A key missing at the top has no line of its own.
        Problem::MissingField { name } => (
            format!("missing field `{name}`"),
            format!("add {}", field_hint(name)),
        ),
        Problem::Invalid if problem.top_key().is_some_and(|key| FIELDS.contains(&key)) => {
            let field = problem.top_key().unwrap_or_default();
            let within = if problem.path.len() > 1 {
                format!(", at `{}`", problem.path_text())
            } else {
                String::new()
            };
            (
                format!("{line}field `{field}`: {}{within}", problem.message),
                format!("write {}", field_hint(field)),
            )
        }
        Problem::Syntax | Problem::Invalid => (
            format!("{line}{}", problem.message),
            "case.toml must be valid TOML; see the schema in the doc of skill-conform's `case` module".into(),
        ),
    };
    CaseError::Manifest {
        path: problem.file,
        message,
        hint,
    }
}

fn at_line(line: Option<usize>) -> String {
    line.map(|line| format!("line {line}: "))
        .unwrap_or_default()
}

/// The valid field within edit distance 2 of `name` ([`strsim::levenshtein`]), the first
/// closest one.
fn closest_field(name: &str) -> Option<&'static str> {
    let mut best: Option<(usize, &'static str)> = None;
    for field in FIELDS {
        let distance = strsim::levenshtein(name, field);
        let better = match best {
            Some((d, _)) => distance < d,
            None => true,
        };
        if distance <= 2 && better {
            best = Some((distance, field));
        }
    }
    best.map(|(_, field)| field)
}

/// Discovers every case below `fixtures_dir`, sorted by id.
pub fn discover(fixtures_dir: &Path) -> Result<Vec<CaseSpec>, CaseError> {
    match std::fs::metadata(fixtures_dir) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(CaseError::UnexpectedEntry {
                path: fixtures_dir.to_owned(),
                what: "the fixture directory is not a directory".into(),
                hint: "pass --repo DIR, the directory holding conformance-fixtures/".into(),
            })
        }
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(CaseError::FixturesMissing {
                dir: fixtures_dir.to_owned(),
            })
        }
        Err(cause) => {
            return Err(CaseError::Io {
                path: fixtures_dir.to_owned(),
                cause,
            })
        }
    }

    let mut cases = Vec::new();
    for (group, group_path) in sorted_entries(fixtures_dir)? {
        let kind = entry_kind(&group_path)?;
        if kind == Kind::File && (group == "README.md" || group == ".gitattributes") {
            continue;
        }
        if kind == Kind::Dir && crate::profile::Profile::is_subtree_of_another(&group) {
            continue; // another profile's fixtures (see `crate::profile`)
        }
        if kind != Kind::Dir || !valid_name(&group) {
            return Err(unexpected(
                &group_path,
                kind,
                "the fixture directory holds group directories, `README.md` and `.gitattributes`",
            ));
        }
        for (case, case_path) in sorted_entries(&group_path)? {
            let kind = entry_kind(&case_path)?;
            if kind == Kind::File && case == "README.md" {
                continue;
            }
            let id = match (kind, CaseId::new(&group, &case)) {
                (Kind::Dir, Some(id)) => id,
                _ => {
                    return Err(unexpected(
                        &case_path,
                        kind,
                        "a group directory holds case directories and `README.md`",
                    ))
                }
            };
            let manifest = case_path.join(MANIFEST);
            if entry_kind(&manifest)? != Kind::File {
                return Err(CaseError::UnexpectedEntry {
                    path: case_path,
                    what: format!("a case directory without a `{MANIFEST}` file"),
                    hint: format!("add `{MANIFEST}` (summary, pinned, rules), or move the directory out of the fixture tree"),
                });
            }
            cases.push(CaseSpec::read(id, case_path)?);
        }
    }
    cases.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(cases)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Missing,
    File,
    Dir,
    Symlink,
    Other,
}

fn entry_kind(path: &Path) -> Result<Kind, CaseError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => Ok(if meta.file_type().is_symlink() {
            Kind::Symlink
        } else if meta.is_dir() {
            Kind::Dir
        } else if meta.is_file() {
            Kind::File
        } else {
            Kind::Other
        }),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Kind::Missing),
        Err(cause) => Err(CaseError::Io {
            path: path.to_owned(),
            cause,
        }),
    }
}

fn unexpected(path: &Path, kind: Kind, layout: &str) -> CaseError {
    let what = match kind {
        Kind::Dir => "a directory whose name is not `[A-Za-z0-9._-]+` (or starts with `.`)",
        Kind::File => "a file",
        Kind::Symlink => "a symlink (declare symlinks in a case's `links` instead)",
        Kind::Other | Kind::Missing => "a special file",
    };
    CaseError::UnexpectedEntry {
        path: path.to_owned(),
        what: what.into(),
        hint: format!("{layout}; move or rename it"),
    }
}

/// The entries of `dir` as (UTF-8 name, path), sorted by name.
fn sorted_entries(dir: &Path) -> Result<Vec<(String, PathBuf)>, CaseError> {
    let io_error = |cause| CaseError::Io {
        path: dir.to_owned(),
        cause,
    };
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error)? {
        let entry = entry.map_err(io_error)?;
        let path = entry.path();
        let Ok(name) = entry.file_name().into_string() else {
            return Err(CaseError::UnexpectedEntry {
                path,
                what: "a name that is not UTF-8".into(),
                hint: "rename it; group and case names are `[A-Za-z0-9._-]+`".into(),
            });
        };
        entries.push((name, path));
    }
    entries.sort();
    Ok(entries)
}

/// `--case` globs, matched against case ids.
#[derive(Clone, Debug)]
pub struct CaseSelector {
    globs: Vec<(String, GlobMatcher)>,
}

/// The cases a [`CaseSelector`] picked, and the globs that matched none of them.
#[derive(Debug)]
pub struct Selection<'a> {
    pub cases: Vec<&'a CaseSpec>,
    /// In the order given; the caller reports them (an empty glob is an error, insta-style).
    pub unmatched: Vec<String>,
}

/// The one case-glob builder (`--case`, the `cases` of `expected.toml`, fault injection):
/// `*` and `?` stay within one segment, `**` crosses `/`, `\` escapes.
pub(crate) fn case_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map(|glob| glob.compile_matcher())
}

impl CaseSelector {
    /// Compiles the globs. No globs selects every case.
    pub fn new<S: AsRef<str>>(patterns: &[S]) -> Result<CaseSelector, CaseError> {
        let globs = patterns
            .iter()
            .map(|pattern| {
                let pattern = pattern.as_ref();
                case_glob(pattern)
                    .map(|matcher| (pattern.to_owned(), matcher))
                    .map_err(|error| CaseError::BadGlob {
                        glob: pattern.to_owned(),
                        message: error.kind().to_string(),
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(CaseSelector { globs })
    }

    /// Whether the id matches any glob (or there are no globs).
    pub fn is_match(&self, id: &CaseId) -> bool {
        self.globs.is_empty() || self.globs.iter().any(|(_, m)| m.is_match(id.as_str()))
    }

    /// The matching cases, in input order, and the globs that matched nothing.
    pub fn select<'a>(&self, cases: &'a [CaseSpec]) -> Selection<'a> {
        let unmatched = self
            .globs
            .iter()
            .filter(|(_, m)| !cases.iter().any(|case| m.is_match(case.id.as_str())))
            .map(|(pattern, _)| pattern.clone())
            .collect();
        Selection {
            cases: cases
                .iter()
                .filter(|case| self.is_match(&case.id))
                .collect(),
            unmatched,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = "summary = \"s\"\npinned = true\nrules = [\"TN-YAML-7\"]\n";

    fn parse(text: &str) -> Result<CaseSpec, CaseError> {
        CaseSpec::parse(
            CaseId::new("g", "c").unwrap(),
            PathBuf::from("conformance-fixtures/g/c"),
            text,
        )
    }

    fn error(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn minimal_case_gets_the_defaults() {
        let case = parse(MINIMAL).unwrap();
        assert_eq!(case.roots, ["skills"]);
        assert_eq!(case.sample_limit, 0);
        assert!(case.filter.is_empty());
        assert_eq!(case.load, None);
        assert_eq!(case.compare, Field::default_set());
        assert!(case.links.is_empty() && case.renames.is_empty() && case.unreadable.is_empty());
        assert_eq!(case.writing_tool, None);
    }

    #[test]
    fn full_case_parses() {
        let text = format!(
            "{MINIMAL}roots = [\"a\", \"b/c\"]\nsample_limit = -1\nfilter = {{ x = true, y = false }}\n\
             load = [\"x\", \"no-such-skill\"]\ncompare = [\"tool\", \"inventory\"]\n\
             links = {{ \"a/alias\" = \"../b\" }}\nrenames = {{ \"a/x/dot-git\" = \".git\" }}\n\
             unreadable = [\"a/m/SKILL.md\"]\nwriting_tool = \"errors\"\n"
        );
        let case = parse(&text).unwrap();
        assert_eq!(case.roots, ["a", "b/c"]);
        assert_eq!(case.sample_limit, -1);
        assert_eq!(case.filter.get("y"), Some(&false));
        assert_eq!(case.load.as_deref().unwrap(), ["x", "no-such-skill"]);
        assert_eq!(
            case.compare.iter().copied().collect::<Vec<_>>(),
            [Field::Inventory, Field::Tool]
        );
        assert_eq!(case.links["a/alias"], "../b");
        assert_eq!(case.renames["a/x/dot-git"], ".git");
        assert_eq!(case.writing_tool, Some(WritingTool::Errors));
    }

    #[test]
    fn unknown_field_names_file_line_and_guess() {
        assert_eq!(
            error("summary = \"s\"\npinnedd = true\nrules = [\"TN-YAML-7\"]\n"),
            "error reading `conformance-fixtures/g/c/case.toml`: line 2: unknown field `pinnedd`, \
             expected one of `compare`, `filter`, `links`, `load`, `pinned`, `renames`, `roots`, \
             `rules`, `sample_limit`, `summary`, `unreadable`, `writing_tool` \
             (hint: did you mean `pinned`?)"
        );
    }

    #[test]
    fn missing_field_says_what_to_add() {
        assert_eq!(
            error("summary = \"s\"\nrules = [\"TN-YAML-7\"]\n"),
            "error reading `conformance-fixtures/g/c/case.toml`: missing field `pinned` \
             (hint: add `pinned = true` or `pinned = false`)"
        );
    }

    #[test]
    fn wrong_type_names_the_field() {
        let message = error(&format!("{MINIMAL}filter = {{ a = 1 }}\n"));
        assert!(
            message
                .contains("line 4: field `filter`: invalid type: integer `1`, expected a boolean"),
            "{message}"
        );
        let message = error(&format!(
            "{MINIMAL}compare = [\n  \"inventory\",\n  \"tol\",\n]\n"
        ));
        assert!(
            message.contains("line 6: field `compare`: unknown variant `tol`"),
            "{message}"
        );
        assert!(!message.contains('\n'));
        let message = error(&format!("{MINIMAL}[links]\n\"a/b\" = 3\n"));
        assert!(message.contains("field `links`"), "{message}");
    }

    #[test]
    fn validation_errors() {
        let cases = [
            ("compare = []", "field `compare`: is empty"),
            (
                "compare = [\"loads\", \"loads\"]",
                "field `compare`: lists `loads` twice",
            ),
            ("roots = [\"/abs\"]", "field `roots`: `/abs` is absolute"),
            (
                "roots = [\"a/../b\"]",
                "field `roots`: `a/../b` has a `..` segment",
            ),
            ("roots = [\"a/\"]", "has an empty segment"),
            (
                "renames = { \"a/b\" = \"x/y\" }",
                "field `renames`: `a/b` is renamed to `x/y`",
            ),
            (
                "links = { \"../x\" = \"y\" }",
                "field `links`: `../x` has a `..` segment",
            ),
            (
                "unreadable = [\"./x\"]",
                "field `unreadable`: `./x` has a `.` segment",
            ),
        ];
        for (line, expected) in cases {
            let message = error(&format!("{MINIMAL}{line}\n"));
            assert!(message.contains(expected), "{line}: {message}");
            assert!(message.contains("(hint: write `"), "{message}");
        }
        assert!(error("summary = \"\"\npinned = true\nrules = [\"x\"]\n")
            .contains("`summary`: is empty"));
        assert!(error("summary = \"s\"\npinned = true\nrules = []\n").contains("`rules`: is empty"));
    }

    #[test]
    fn default_load_is_code_point_order_then_unknown() {
        let names: Vec<String> = ["b", "a", "ß", "z", "B", "\u{E000}", "\u{1F600}"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            CaseSpec::default_load(&names),
            [
                "B",
                "a",
                "b",
                "z",
                "ß",
                "\u{E000}",
                "\u{1F600}",
                "no-such-skill"
            ]
        );
        let mut case = parse(MINIMAL).unwrap();
        assert_eq!(case.load_or_default(&[]), ["no-such-skill"]);
        case.load = Some(vec!["q".into()]);
        assert_eq!(case.load_or_default(&names), ["q"]);
    }

    #[test]
    fn case_id_parts() {
        let id = CaseId::parse("frontmatter/colon-space").unwrap();
        assert_eq!((id.group(), id.case()), ("frontmatter", "colon-space"));
        assert_eq!(id.to_string(), "frontmatter/colon-space");
        assert!(CaseId::parse("a/b/c").is_none());
        assert!(CaseId::parse(".a/b").is_none());
        assert!(CaseId::parse("a b/c").is_none());
    }

    #[test]
    fn case_globs_have_one_meaning_of_star() {
        let glob = |pattern: &str, id: &str| case_glob(pattern).unwrap().is_match(id);
        assert!(glob("hang/*", "hang/x"));
        assert!(!glob("*", "hang/x"), "`*` stays within one segment");
        assert!(!glob("h*x", "hang/x"));
        assert!(glob("**/x", "hang/x"), "`**` crosses `/`");
        assert!(glob("hang/\\*", "hang/*") && !glob("hang/\\*", "hang/x"));
    }

    #[test]
    fn edit_distance_guesses() {
        assert_eq!(closest_field("pinnedd"), Some("pinned"));
        assert_eq!(closest_field("root"), Some("roots"));
        assert_eq!(closest_field("totally"), None);
    }
}
