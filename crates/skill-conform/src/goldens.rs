//! Goldens: the reference's answer to every case, as canonical JSON files that only the
//! reference writes.
//!
//! `goldens/<group>/<case>.json` holds the compared form (`normalize::compared_form`)
//! of the reference's reply; `goldens/VERSION` the golden format and the contract revision;
//! `goldens/TABLE.md` a human-readable accept/skip table. The workflow is insta's:
//! [`write()`] puts a `.json.new` beside each golden that changes, reports the impact, then moves
//! them into place (and refuses to run under `CI`); [`check`] writes nothing and reports stale,
//! missing and orphaned goldens, leftover `.new` files, a stale table or version file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use skill_ref::Config;

use crate::case::{self, CaseId, CaseSpec, Field};
use crate::compare::{self, text::visible_inline, Mismatch};
use crate::error::Error;
use crate::normalize::compared_form;
use crate::profile::Profile;
use crate::reference::run_case;
use crate::sandbox::Sandbox;

/// The golden file format; bump it when the shape of a golden changes.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// Where the fixtures and the goldens live.
#[derive(Clone, Debug)]
pub struct Layout {
    pub fixtures: PathBuf,
    pub goldens: PathBuf,
}

impl Layout {
    /// The standard layout under a repository root.
    pub fn under(repo: &Path) -> Layout {
        Layout {
            fixtures: repo.join("conformance-fixtures"),
            goldens: repo.join("goldens"),
        }
    }

    /// The golden file of a case.
    pub fn golden_path(&self, id: &CaseId) -> PathBuf {
        self.goldens
            .join(id.group())
            .join(format!("{}.json", id.case()))
    }
}

/// The text of `goldens/VERSION`.
pub(crate) fn version_text() -> String {
    format!(
        "format {FORMAT_VERSION}\ncontract {}\n",
        skill_ref::CONTRACT_REVISION
    )
}

/// The reference's expected text for one case, or why the case cannot be judged here.
#[derive(Clone, Debug)]
pub enum Expected {
    Text(String),
    Vacuous(String),
}

/// Computes the expected (golden) text of `case` with `config` in a fresh sandbox.
pub(crate) fn expected_text(case: &CaseSpec, config: Config) -> Result<Expected, Error> {
    let sandbox = Sandbox::prepare(case, false).map_err(|e| Error::Usage(e.to_string()))?;
    if let Some(why) = sandbox.vacuous() {
        return Ok(Expected::Vacuous(why.to_owned()));
    }
    Ok(Expected::Text(expected_in(case, config, sandbox.roots())))
}

/// The expected text of `case` run in an already prepared sandbox with `roots`.
pub(crate) fn expected_in(case: &CaseSpec, config: Config, roots: &[String]) -> String {
    let run = run_case(config, case, roots);
    let compared = compared_form(&run.reply, roots, &case.compare);
    skill_ref::canonical::to_canonical_string(&compared)
}

/// Everything [`check`] found wrong; empty means the goldens are fresh.
#[derive(Debug, Default)]
pub struct CheckReport {
    pub stale: Vec<(CaseId, Vec<Mismatch>)>,
    pub missing: Vec<CaseId>,
    pub orphaned: Vec<PathBuf>,
    pub pending: Vec<PathBuf>,
    pub vacuous: Vec<(CaseId, String)>,
    pub version: Option<String>,
    pub table_stale: bool,
    pub writing_tool: crate::writing_tool::CheckFindings,
}

impl CheckReport {
    /// True when nothing needs regenerating (vacuous cases are reported, not failures).
    pub fn is_fresh(&self) -> bool {
        self.stale.is_empty()
            && self.missing.is_empty()
            && self.orphaned.is_empty()
            && self.pending.is_empty()
            && self.version.is_none()
            && !self.table_stale
            && self.writing_tool.problems.is_empty()
    }

    /// A short human-readable account, one line per problem, paths relative to `repo`.
    pub fn render(&self, repo: &Path) -> String {
        let rel = |p: &Path| p.strip_prefix(repo).unwrap_or(p).display().to_string();
        let mut out = String::new();
        if let Some(version) = &self.version {
            let _ = writeln!(
                out,
                "goldens/VERSION is stale ({version}): regenerate every golden"
            );
        }
        for (id, mismatches) in &self.stale {
            let _ = writeln!(
                out,
                "stale golden: {id} ({} field(s) differ)",
                mismatches.len()
            );
        }
        for id in &self.missing {
            let _ = writeln!(out, "missing golden: {id}");
        }
        for path in &self.orphaned {
            let _ = writeln!(out, "orphaned golden (no such case): {}", rel(path));
        }
        for path in &self.pending {
            let _ = writeln!(out, "leftover pending file: {}", rel(path));
        }
        if self.table_stale {
            let _ = writeln!(out, "goldens/TABLE.md is stale");
        }
        out.push_str(&self.writing_tool.render());
        for (id, why) in &self.vacuous {
            let _ = writeln!(out, "vacuous here (not checked): {id}: {why}");
        }
        if !self.is_fresh() {
            out.push_str("(hint: run `skill-conform goldens --write` and review the impact)\n");
        }
        out
    }
}

/// Every `*.json` and `*.new` file of the toolnexus profile under the goldens directory, sorted.
fn golden_files(goldens: &Path) -> Vec<PathBuf> {
    profile_files(goldens, Profile::Toolnexus)
        .into_iter()
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".json") || name.ends_with(".new")
        })
        .collect()
}

/// Every file in `dir`, the golden directory of `profile`, sorted: the one lister behind each
/// profile's orphan check. The toolnexus profile's directory is the goldens root, which holds the
/// other profiles' subtrees: those are theirs and left out.
pub(crate) fn profile_files(dir: &Path, profile: Profile) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| profile != Profile::Toolnexus || !in_another_profile(dir, p))
        .collect();
    files.sort();
    files
}

/// True for a file under another profile's golden directory (see `crate::profile`).
fn in_another_profile(goldens: &Path, file: &Path) -> bool {
    let top = file
        .strip_prefix(goldens)
        .ok()
        .and_then(|r| r.iter().next());
    top.is_some_and(|dir| Profile::is_subtree_of_another(&dir.to_string_lossy()))
}

/// Computes the expected text of every case.
pub fn expected_all(cases: &[CaseSpec]) -> Result<BTreeMap<CaseId, Expected>, Error> {
    cases
        .iter()
        .map(|case| Ok((case.id.clone(), expected_text(case, Config::default())?)))
        .collect()
}

/// Checks the committed goldens against the reference; writes nothing.
pub fn check(layout: &Layout) -> Result<CheckReport, Error> {
    let cases = case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
    let expected = expected_all(&cases)?;
    let mut report = CheckReport::default();
    let version_path = layout.goldens.join("VERSION");
    let version = fs::read_to_string(&version_path).unwrap_or_default();
    if version != version_text() {
        report.version = Some(if version.is_empty() {
            "missing".to_owned()
        } else {
            format!(
                "says `{}`, the reference is `{}`",
                version.trim().replace('\n', ", "),
                version_text().trim().replace('\n', ", ")
            )
        });
    }
    let mut known = vec![layout.goldens.join(crate::writing_tool::FILE)];
    for (id, expected) in &expected {
        let path = layout.golden_path(id);
        known.push(path.clone());
        let text = match expected {
            Expected::Vacuous(why) => {
                report.vacuous.push((id.clone(), why.clone()));
                continue;
            }
            Expected::Text(text) => text,
        };
        match fs::read_to_string(&path) {
            Err(_) => report.missing.push(id.clone()),
            Ok(golden) if golden != *text => {
                let actual: Value = serde_json::from_str(text).expect("canonical text parses");
                let mismatches = compare::compare(&golden, &actual).mismatches().to_vec();
                report.stale.push((id.clone(), mismatches));
            }
            Ok(_) => {}
        }
    }
    for file in golden_files(&layout.goldens) {
        if file.to_string_lossy().ends_with(".new") {
            report.pending.push(file);
        } else if !known.contains(&file) {
            report.orphaned.push(file);
        }
    }
    let column = crate::writing_tool::Column::load(&layout.goldens);
    let table = table(&cases, &expected, &column);
    report.writing_tool = crate::writing_tool::check(layout, &cases);
    report.table_stale = fs::read_to_string(layout.goldens.join("TABLE.md")).ok() != Some(table);
    Ok(report)
}

/// What [`write()`] changed.
#[derive(Debug, Default)]
pub struct WriteReport {
    pub added: Vec<CaseId>,
    pub changed: Vec<(CaseId, Vec<Mismatch>)>,
    pub removed: Vec<PathBuf>,
    pub unchanged: usize,
    /// Groups the changes for the impact ([`crate::goldens_review`]).
    pub review: crate::goldens_review::Review,
}

impl WriteReport {
    /// The impact, for the terminal.
    pub fn render(&self, repo: &Path) -> String {
        let mut out = String::new();
        for id in &self.added {
            let _ = writeln!(out, "added   {id}");
        }
        out.push_str(&self.review.render_changes(&self.changed));
        for path in &self.removed {
            let _ = writeln!(
                out,
                "removed {}",
                path.strip_prefix(repo).unwrap_or(path).display()
            );
        }
        let _ = writeln!(
            out,
            "{} added, {} changed, {} removed, {} unchanged",
            self.added.len(),
            self.changed.len(),
            self.removed.len(),
            self.unchanged
        );
        out
    }
}

/// True when the environment says this is CI, where goldens are never written.
pub(crate) fn is_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Regenerates every golden, `VERSION` and `TABLE.md`; refuses when `CI` is set.
pub fn write(layout: &Layout) -> Result<WriteReport, Error> {
    if is_ci() {
        return Err(Error::Usage(
            "refusing to write goldens: `CI` is set (hint: goldens are regenerated locally and reviewed, never in CI)".into(),
        ));
    }
    regenerate(layout)
}

/// [`write()`] without the CI guard: for a layout that is not the repository's own (tests).
pub fn regenerate(layout: &Layout) -> Result<WriteReport, Error> {
    let cases = case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
    let expected = expected_all(&cases)?;
    // Refuses a spec move without a revision bump before anything is written.
    let review = crate::goldens_review::Review::before_write(layout, &cases, &expected)?;
    let io = |what: &str, path: &Path, e| Error::io(format!("{what} `{}`", path.display()), e);
    let mut report = WriteReport::default();
    // 1. Pending files beside every golden that changes.
    let mut pending = Vec::new();
    for (id, expected) in &expected {
        let Expected::Text(text) = expected else {
            return Err(Error::Usage(format!(
                "case `{id}` is vacuous on this filesystem; goldens must be written where every precondition holds"
            )));
        };
        let path = layout.golden_path(id);
        match fs::read_to_string(&path) {
            Ok(old) if old == *text => report.unchanged += 1,
            old => {
                let new = PathBuf::from(format!("{}.new", path.display()));
                fs::create_dir_all(new.parent().expect("a golden has a parent"))
                    .map_err(|e| io("creating", &new, e))?;
                fs::write(&new, text).map_err(|e| io("writing", &new, e))?;
                match old {
                    Ok(old) => {
                        let actual: Value = serde_json::from_str(text).expect("canonical");
                        report.changed.push((
                            id.clone(),
                            compare::compare(&old, &actual).mismatches().to_vec(),
                        ));
                    }
                    Err(_) => report.added.push(id.clone()),
                }
                pending.push((new, path));
            }
        }
    }
    // 2. Move them into place; remove orphans and stale pending files.
    for (new, path) in pending {
        fs::rename(&new, &path).map_err(|e| io("moving", &new, e))?;
    }
    let mut known: Vec<PathBuf> = expected.keys().map(|id| layout.golden_path(id)).collect();
    known.push(layout.goldens.join(crate::writing_tool::FILE));
    for file in golden_files(&layout.goldens) {
        if !known.contains(&file) {
            fs::remove_file(&file).map_err(|e| io("removing", &file, e))?;
            report.removed.push(file);
        }
    }
    remove_empty_dirs(&layout.goldens);
    fs::write(layout.goldens.join("VERSION"), version_text())
        .map_err(|e| io("writing", &layout.goldens.join("VERSION"), e))?;
    let column = crate::writing_tool::Column::load(&layout.goldens);
    fs::write(
        layout.goldens.join("TABLE.md"),
        table(&cases, &expected, &column),
    )
    .map_err(|e| io("writing", &layout.goldens.join("TABLE.md"), e))?;
    review.after_write(layout)?;
    report.review = review;
    Ok(report)
}

fn remove_empty_dirs(dir: &Path) {
    if let Ok(read) = fs::read_dir(dir) {
        for entry in read.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_dirs(&entry.path());
                let _ = fs::remove_dir(entry.path());
            }
        }
    }
}

/// Escapes a table cell: pipes, and invisible characters made visible.
fn cell(text: &str) -> String {
    visible_inline(text).replace('|', "\\|")
}

/// `goldens/TABLE.md`: one row per candidate `SKILL.md` of every case.
pub fn table(
    cases: &[CaseSpec],
    expected: &BTreeMap<CaseId, Expected>,
    column: &crate::writing_tool::Column,
) -> String {
    let mut out = String::from(
        "# Goldens: what the reference does with every fixture\n\n\
         Generated by `skill-conform goldens --write`; never edit by hand. One row per `SKILL.md`\n\
         the reference looked at (cases that compare no inventory get one row). *Pinned* cases\n\
         gate CI; the others are hazards, reported as contract gaps. Descriptions show invisible\n\
         characters as the diff does (`→` tab, `␍` CR, `⍽` NBSP, `<U+XXXX>` others). The last\n\
         column is the writing tool's static check (`claude plugin validate`, not Claude Code's\n\
         runtime loader) from `goldens/writing-tool.json`: `accepts`, `errors: …`, or `not seen`\n\
         where the plugin layout `skills/<name>/SKILL.md` does not reach the file.\n\n\
         | case | pinned | SKILL.md | verdict | description or reason | claude plugin validate |\n\
         |---|---|---|---|---|---|\n",
    );
    for case in cases {
        let pinned = if case.pinned { "yes" } else { "no" };
        let rows = match expected.get(&case.id) {
            Some(Expected::Text(text)) => table_rows(text, case),
            Some(Expected::Vacuous(why)) => vec![("—".into(), "vacuous".into(), cell(why))],
            None => vec![],
        };
        for (location, verdict, what) in rows {
            let writing = cell(&column.cell(&case.id, &location));
            let _ = writeln!(
                out,
                "| {} | {pinned} | {location} | {verdict} | {what} | {writing} |",
                case.id
            );
        }
    }
    out.push_str(&column.section(cases, expected));
    out
}

fn table_rows(text: &str, case: &CaseSpec) -> Vec<(String, String, String)> {
    let value: Value = serde_json::from_str(text).expect("canonical text parses");
    if let Some(error) = value.get("error").and_then(Value::as_str) {
        return vec![("—".into(), "error".into(), cell(error))];
    }
    if !case.compare.contains(&Field::Inventory) {
        let fields: Vec<&str> = case.compare.iter().map(|f| f.as_str()).collect();
        return vec![(
            "—".into(),
            "—".into(),
            format!("compares {}", fields.join(", ")),
        )];
    }
    let location =
        |entry: &Value| cell(entry.get("location").and_then(Value::as_str).unwrap_or("?"));
    let mut rows = Vec::new();
    let inventory = &value["inventory"];
    for skill in inventory["skills"].as_array().into_iter().flatten() {
        let description = match skill.get("description").and_then(Value::as_str) {
            Some(d) => format!("`{}`", cell(d)),
            None => "*(no description)*".to_owned(),
        };
        let name = skill.get("name").and_then(Value::as_str).unwrap_or("?");
        rows.push((location(skill), format!("ok `{}`", cell(name)), description));
    }
    for skip in inventory["skipped"].as_array().into_iter().flatten() {
        let reason = skip.get("reason").and_then(Value::as_str).unwrap_or("?");
        rows.push((location(skip), "skip".to_owned(), reason.to_owned()));
    }
    rows.sort();
    if rows.is_empty() {
        rows.push(("—".into(), "—".into(), "no candidates".into()));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_lists_its_own_goldens_and_no_other() {
        let dir = crate::test_tempdir::tempdir();
        for rel in [
            "TABLE.md",
            "g/c.json",
            "g/c.json.new",
            "agentskills/g/c.json",
        ] {
            let path = dir.path().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, "x").unwrap();
        }
        let listed = |dir: &Path, files: Vec<PathBuf>| -> Vec<String> {
            let rel = |p: &PathBuf| p.strip_prefix(dir).unwrap().display().to_string();
            files.iter().map(rel).collect()
        };
        let root = dir.path();
        let own = root.join("agentskills");
        assert_eq!(
            listed(root, profile_files(root, Profile::Toolnexus)),
            ["TABLE.md", "g/c.json", "g/c.json.new"]
        );
        assert_eq!(
            listed(&own, profile_files(&own, Profile::Agentskills)),
            ["g/c.json"]
        );
        assert_eq!(
            listed(root, golden_files(root)),
            ["g/c.json", "g/c.json.new"]
        );
    }
}
