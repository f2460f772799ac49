//! `skill-conform explain CASE`: one case told to a port maintainer who does not read Rust.
//!
//! It prints the case's summary, each rule it tests with the rule's one-line statement and its
//! anchor in `CONTRACT.md`, the fixture tree with every byte made visible (the notation of
//! failure blocks: `→` tab, `␍` CR, `⍽` NBSP, `·` trailing space, `<U+XXXX>` others; bytes
//! that are not UTF-8 as `<0xNN>`), the links, renames and unreadable paths the sandbox makes,
//! and the golden. Files are listed in code-point order of their relative paths.

use std::fmt::Write as _;
use std::path::Path;

use crate::case::{CaseId, CaseSpec};
use crate::compare::text::visible_line;
use crate::error::Error;
use crate::goldens::Layout;

/// Files larger than this are summarised by their size, not printed.
const MAX_SHOWN_BYTES: u64 = 16 * 1024;

/// The rule lines of a case: `rule: ID (pinned): statement — anchor`, or the bare id for one
/// the contract does not know (a profile's own ids).
pub(crate) fn rule_lines(rules: &[String]) -> Vec<String> {
    rules
        .iter()
        .map(|id| match skill_ref::rules::lookup(id) {
            Some(rule) => format!("rule: {rule}"),
            None => format!("rule: {id}"),
        })
        .collect()
}

/// The whole explanation of case `id` under `layout`.
pub fn explain(layout: &Layout, id: &str) -> Result<String, Error> {
    let case = find_case(layout, id)?;
    let mut out = String::new();
    let kind = if case.pinned {
        "pinned"
    } else {
        "hazard (unpinned)"
    };
    let _ = writeln!(out, "case: {} ({kind})", case.id);
    let _ = writeln!(out, "summary: {}", case.summary);
    for line in rule_lines(&case.rules) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "roots: {}", case.roots.join(", "));
    sandbox_lines(&mut out, &case);
    let _ = writeln!(out, "\nfixture tree ({}):", rel(layout, &case.dir));
    tree_lines(&mut out, &case.dir, &case.dir);
    let golden = layout.golden_path(&case.id);
    let text = std::fs::read_to_string(&golden).map_err(|e| {
        Error::Usage(format!(
            "golden `{}`: {e} (hint: run `skill-conform goldens --write`)",
            golden.display()
        ))
    })?;
    let _ = writeln!(out, "\ngolden ({}):\n{text}", rel(layout, &golden));
    Ok(out)
}

/// The case `id`, or a usage error naming the closest ids.
fn find_case(layout: &Layout, id: &str) -> Result<CaseSpec, Error> {
    let cases = crate::case::discover(&layout.fixtures).map_err(|e| Error::Usage(e.to_string()))?;
    let wanted = CaseId::parse(id);
    if let Some(case) = cases.iter().find(|c| Some(&c.id) == wanted.as_ref()) {
        return Ok(case.clone());
    }
    let closest = cases
        .iter()
        .map(|c| (strsim::levenshtein(c.id.as_str(), id), c.id.as_str()))
        .min();
    let hint = closest.map_or(String::new(), |(_, best)| {
        format!("; did you mean `{best}`?")
    });
    Err(Error::Usage(format!(
        "no case `{id}` under `{}` (hint: goldens/TABLE.md lists every case{hint})",
        layout.fixtures.display()
    )))
}

/// The links, renames and unreadable paths the sandbox makes, one line each.
fn sandbox_lines(out: &mut String, case: &CaseSpec) {
    for (path, target) in &case.links {
        let _ = writeln!(out, "sandbox link: {path} -> {target}");
    }
    for (path, name) in &case.renames {
        let _ = writeln!(out, "sandbox rename: {path} -> {name}");
    }
    for path in &case.unreadable {
        let _ = writeln!(out, "sandbox unreadable: {path}");
    }
}

/// Every file under `dir` (except `case.toml`), sorted, with its bytes made visible.
fn tree_lines(out: &mut String, top: &Path, dir: &Path) {
    let mut entries: Vec<_> = match std::fs::read_dir(dir) {
        Ok(read) => read.filter_map(Result::ok).collect(),
        Err(e) => {
            let _ = writeln!(out, "  {}: unreadable ({e})", rel_to(top, dir));
            return;
        }
    };
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            tree_lines(out, top, &path);
        } else if path != top.join(crate::case::MANIFEST) {
            file_lines(out, &rel_to(top, &path), &path, meta.len());
        }
    }
}

/// One file: its relative path and size, then each line in the visible notation.
fn file_lines(out: &mut String, name: &str, path: &Path, size: u64) {
    let _ = writeln!(out, "  {} ({size} bytes)", visible_line(name));
    if size > MAX_SHOWN_BYTES {
        let _ = writeln!(out, "    (not shown: over {MAX_SHOWN_BYTES} bytes)");
        return;
    }
    let Ok(bytes) = std::fs::read(path) else {
        let _ = writeln!(out, "    (unreadable)");
        return;
    };
    let text = visible_bytes(&bytes);
    let ends_with_newline = text.ends_with('\n');
    for line in text.trim_end_matches('\n').split('\n') {
        let _ = writeln!(out, "    | {}", visible_line(line));
    }
    if !ends_with_newline && !bytes.is_empty() {
        let _ = writeln!(out, "    (no newline at end of file)");
    }
}

/// The bytes as text, each byte that is not part of valid UTF-8 shown as `<0xNN>`.
fn visible_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            let _ = write!(out, "<0x{byte:02X}>");
        }
    }
    out
}

fn rel(layout: &Layout, path: &Path) -> String {
    let repo = layout.fixtures.parent().unwrap_or(&layout.fixtures);
    rel_to(repo, path)
}

fn rel_to(top: &Path, path: &Path) -> String {
    path.strip_prefix(top)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_are_shown_as_hex_and_text_stays() {
        assert_eq!(visible_bytes(b"a\xffb\n"), "a<0xFF>b\n");
    }

    #[test]
    fn a_known_rule_prints_its_statement_and_anchor_and_an_unknown_one_its_id() {
        let lines = rule_lines(&["TN-YAML-7".into(), "AS-NAME-TOO-LONG".into()]);
        let rule = skill_ref::rules::lookup("TN-YAML-7").unwrap();
        assert_eq!(lines[0], format!("rule: {rule}"));
        assert!(lines[0].contains("crates/skill-ref/CONTRACT.md#TN-YAML-7"));
        assert_eq!(lines[1], "rule: AS-NAME-TOO-LONG");
    }
}
