//! Reviewable spec changes: what `goldens --write` shows and what it refuses.
//!
//! - **Grouped impact.** Changed goldens are grouped by the change itself (each mismatch summed
//!   up without context, e.g. `/prompt line 1: - ## Available Skills + ## Skills`), one block per
//!   group with its cases, the pinned / hazard split and the counts per case group.
//! - **No silent spec moves.** `goldens/FIXTURES.sha256` records a hash of every case's fixture
//!   bytes at the last write. When an existing case's golden changes while its fixture hash and
//!   the contract revision (`goldens/VERSION` against `skill_ref::CONTRACT_REVISION`) are
//!   unchanged, the write is refused before any file is touched, and the fix is printed: bump
//!   the revision and add a `goldens/CHANGELOG.md` entry naming the rule ids and cases that
//!   moved. New cases and changed fixtures need no bump (a changed fixture is marked as such).
//! - **Changelog.** `goldens --check` fails when `goldens/CHANGELOG.md` has no `## REVISION`
//!   heading for the current revision ([`changelog_problem`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::case::{CaseId, CaseSpec};
use crate::compare::text::visible_inline;
use crate::compare::{inline_value, Mismatch};
use crate::error::Error;
use crate::goldens::{Expected, Layout};

/// The generated file of fixture hashes, under `goldens/`.
pub(crate) const FIXTURES_FILE: &str = "FIXTURES.sha256";
/// The contract changelog, under `goldens/`.
pub(crate) const CHANGELOG_FILE: &str = "CHANGELOG.md";

/// SHA-256 over a case directory: every entry's relative path, kind, and bytes (or link
/// target), in sorted order.
pub(crate) fn fixture_hash(dir: &Path) -> String {
    let mut hasher = Sha256::new();
    for entry in walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .flatten()
    {
        let relative = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        hasher.update(relative.to_string_lossy().as_bytes());
        hasher.update([0]);
        let kind = entry.file_type();
        if kind.is_symlink() {
            let target = fs::read_link(entry.path()).unwrap_or_default();
            hasher.update(b"link\0");
            hasher.update(target.to_string_lossy().as_bytes());
        } else if kind.is_file() {
            hasher.update(b"file\0");
            hasher.update(fs::read(entry.path()).unwrap_or_default());
        } else {
            hasher.update(b"dir\0");
        }
        hasher.update([0]);
    }
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `goldens/FIXTURES.sha256`: `HASH  CASE` lines, sorted by case.
fn manifest_text(manifest: &BTreeMap<CaseId, String>) -> String {
    manifest
        .iter()
        .map(|(case, hash)| format!("{hash}  {case}\n"))
        .collect()
}

fn read_manifest(layout: &Layout) -> BTreeMap<CaseId, String> {
    let text = fs::read_to_string(layout.goldens.join(FIXTURES_FILE)).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let (hash, case) = line.split_once("  ")?;
            Some((CaseId::parse(case)?, hash.to_owned()))
        })
        .collect()
}

/// The contract revision `goldens/VERSION` names, if any.
fn recorded_revision(layout: &Layout) -> Option<String> {
    let text = fs::read_to_string(layout.goldens.join("VERSION")).ok()?;
    text.lines()
        .find_map(|line| line.strip_prefix("contract "))
        .map(str::to_owned)
}

/// Why `goldens/CHANGELOG.md` does not do for the current revision, if it does not.
pub fn changelog_problem(layout: &Layout) -> Option<String> {
    let revision = skill_ref::CONTRACT_REVISION;
    let path = layout.goldens.join(CHANGELOG_FILE);
    let text = fs::read_to_string(&path).unwrap_or_default();
    let heading = format!("## {revision}");
    if text.lines().any(|line| line.trim_end() == heading) {
        return None;
    }
    Some(format!(
        "`{}` has no entry for the contract revision `{revision}` (hint: add a `{heading}` section naming the rule ids and the cases that moved)",
        path.display()
    ))
}

/// One change summed up without context: `/prompt line 1: - ## Available Skills + ## Skills`.
pub(crate) fn change_summary(mismatch: &Mismatch) -> String {
    let place = &mismatch.pointer;
    match (&mismatch.expected, &mismatch.actual) {
        (Some(Value::String(old)), Some(Value::String(new)))
            if old.contains('\n') || new.contains('\n') =>
        {
            line_changes(place, old, new)
        }
        (Some(old), Some(new)) => {
            format!("{place}: - {} + {}", inline_value(old), inline_value(new))
        }
        (Some(old), None) => format!("{place}: removed {}", inline_value(old)),
        (None, Some(new)) => format!("{place}: added {}", inline_value(new)),
        (None, None) => format!("{place}: {}", mismatch.note.as_deref().unwrap_or("changed")),
    }
}

/// The changed lines of a multi-line string, each run of changes once: `P line N: - a + b`.
fn line_changes(place: &str, old: &str, new: &str) -> String {
    let diff = similar::TextDiff::from_lines(old, new);
    let mut parts = Vec::new();
    for group in diff.grouped_ops(0) {
        let Some(first) = group.first() else { continue };
        let mut text = format!("line {}:", first.old_range().start + 1);
        for change in group.iter().flat_map(|op| diff.iter_changes(op)) {
            let sign = match change.tag() {
                similar::ChangeTag::Delete => '-',
                similar::ChangeTag::Insert => '+',
                similar::ChangeTag::Equal => continue,
            };
            let line = change.value().trim_end_matches('\n');
            let _ = write!(text, " {sign} {}", visible_inline(line));
        }
        parts.push(text);
    }
    format!("{place} {}", parts.join("; "))
}

/// The changes of one case, as the key its group is found by.
fn group_key(mismatches: &[Mismatch]) -> String {
    let parts: Vec<String> = mismatches.iter().map(change_summary).collect();
    parts.join("; ")
}

/// What the review knows about the cases being written.
#[derive(Clone, Debug, Default)]
pub struct Review {
    pinned: BTreeMap<CaseId, bool>,
    fixtures_changed: BTreeSet<CaseId>,
    manifest: BTreeMap<CaseId, String>,
}

impl Review {
    /// Reads the recorded fixture hashes and revision and refuses (before anything is written)
    /// when an existing case's golden moves with neither its fixture nor the revision changed.
    pub(crate) fn before_write(
        layout: &Layout,
        cases: &[CaseSpec],
        expected: &BTreeMap<CaseId, Expected>,
    ) -> Result<Review, Error> {
        let recorded = read_manifest(layout);
        let bumped = recorded_revision(layout).as_deref() != Some(skill_ref::CONTRACT_REVISION);
        let mut review = Review::default();
        let mut unexplained = Vec::new();
        for case in cases {
            let hash = fixture_hash(&case.dir);
            let fixture_changed = recorded.get(&case.id) != Some(&hash);
            review.pinned.insert(case.id.clone(), case.pinned);
            review.manifest.insert(case.id.clone(), hash);
            if fixture_changed {
                review.fixtures_changed.insert(case.id.clone());
            } else if !bumped {
                if let Some(moved) = golden_change(layout, &case.id, expected.get(&case.id)) {
                    unexplained.push((case, moved));
                }
            }
        }
        if unexplained.is_empty() {
            return Ok(review);
        }
        Err(Error::Usage(review.refusal(&unexplained)))
    }

    fn refusal(&self, unexplained: &[(&CaseSpec, Vec<Mismatch>)]) -> String {
        let rules: BTreeSet<&str> = unexplained
            .iter()
            .flat_map(|(case, _)| case.rules.iter().map(String::as_str))
            .collect();
        let changed: Vec<(CaseId, Vec<Mismatch>)> = unexplained
            .iter()
            .map(|(case, moved)| (case.id.clone(), moved.clone()))
            .collect();
        format!(
            "refusing to write goldens: {} existing case(s) change while their fixtures and the contract revision `{}` are unchanged:\n{}(hint: bump CONTRACT_REVISION in crates/skill-ref/src/lib.rs and add a `## NEW-REVISION` entry to goldens/{CHANGELOG_FILE} naming the rules that moved ({}) and the cases above, then write again)",
            changed.len(),
            skill_ref::CONTRACT_REVISION,
            self.render_changes(&changed),
            rules.into_iter().collect::<Vec<_>>().join(", ")
        )
    }

    /// Writes `goldens/FIXTURES.sha256` for the cases just written.
    pub(crate) fn after_write(&self, layout: &Layout) -> Result<(), Error> {
        let path = layout.goldens.join(FIXTURES_FILE);
        fs::write(&path, manifest_text(&self.manifest))
            .map_err(|e| Error::io(format!("writing `{}`", path.display()), e))
    }

    /// The changed goldens, one block per identical change (largest group first).
    pub(crate) fn render_changes(&self, changed: &[(CaseId, Vec<Mismatch>)]) -> String {
        let mut groups: BTreeMap<String, Vec<&CaseId>> = BTreeMap::new();
        for (case, mismatches) in changed {
            groups.entry(group_key(mismatches)).or_default().push(case);
        }
        let mut groups: Vec<(String, Vec<&CaseId>)> = groups.into_iter().collect();
        groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        let mut out = String::new();
        for (key, cases) in groups {
            let _ = writeln!(out, "{}: {key}", self.split(&cases));
            let _ = writeln!(out, "  by case group: {}", self.by_group(&cases));
            for case in cases {
                let mark = if self.fixtures_changed.contains(case) {
                    " (fixture changed)"
                } else {
                    ""
                };
                let _ = writeln!(out, "  changed {case}{mark}");
            }
        }
        out
    }

    fn is_pinned(&self, case: &CaseId) -> bool {
        self.pinned.get(case).copied().unwrap_or(false)
    }

    /// `113 cases, all pinned` / `3 cases, 2 pinned, 1 hazard`.
    fn split(&self, cases: &[&CaseId]) -> String {
        let pinned = cases.iter().filter(|case| self.is_pinned(case)).count();
        let hazard = cases.len() - pinned;
        let count = format!(
            "{} case{}",
            cases.len(),
            if cases.len() == 1 { "" } else { "s" }
        );
        match (pinned, hazard) {
            (_, 0) => format!("{count}, all pinned"),
            (0, _) => format!("{count}, all hazard"),
            _ => format!("{count}, {pinned} pinned, {hazard} hazard"),
        }
    }

    /// `discovery 3 (2 pinned), prompt 40 (40 pinned)`.
    fn by_group(&self, cases: &[&CaseId]) -> String {
        let mut groups: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for case in cases {
            let entry = groups.entry(case.group()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(self.is_pinned(case));
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(group, (all, pinned))| format!("{group} {all} ({pinned} pinned)"))
            .collect();
        parts.join(", ")
    }
}

/// The mismatches between a case's committed golden and its new text, when both exist and
/// differ.
fn golden_change(
    layout: &Layout,
    case: &CaseId,
    expected: Option<&Expected>,
) -> Option<Vec<Mismatch>> {
    let Some(Expected::Text(text)) = expected else {
        return None;
    };
    let old = fs::read_to_string(layout.golden_path(case)).ok()?;
    if old == *text {
        return None;
    }
    let actual: Value = serde_json::from_str(text).ok()?;
    Some(crate::compare::compare(&old, &actual).mismatches().to_vec())
}
