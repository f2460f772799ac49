//! The goldens are fresh, every mutant is killed, and the comparison notices a mutated golden.
//! These run in `cargo test`, so a change to the reference, a fixture or a golden that is not
//! regenerated and reviewed fails the build.

use std::fs;

use serde_json::Value;
use skill_conform::case;
use skill_conform::compare::compare;
use skill_conform::goldens::{self, Layout};

use crate::common::{copy_tree, repo};

fn goldens_are_fresh() {
    let report = goldens::check(&Layout::under(&repo())).expect("check runs");
    assert!(report.is_fresh(), "{}", report.render(&repo()));
}

fn every_mutant_is_killed_as_its_rule_requires() {
    let (_, outcomes) = crate::common::mutant_outcomes();
    let survivors: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.is_killed())
        .map(|o| o.line())
        .collect();
    assert!(survivors.is_empty(), "{}", survivors.join("\n"));
    assert!(outcomes.len() >= 15);
}

/// Mutations of a golden's text that must never compare equal to the true output.
fn golden_mutations(text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    // Change one space of indentation.
    out.push(("one more space", text.replacen("\n  \"", "\n   \"", 1)));
    // Flip a value: a boolean, or one character of the first string value.
    if text.contains("false") {
        out.push(("flip a boolean", text.replacen("false", "true", 1)));
    }
    if let Some(at) = text.find(": \"") {
        let mut s = text.to_owned();
        s.insert(at + 3, 'X');
        out.push(("edit a string", s));
    }
    // Reorder the keys of the top-level object (same JSON value, other bytes).
    let value: Value = serde_json::from_str(text).unwrap();
    if let Value::Object(map) = &value {
        if map.len() >= 2 {
            let mut entries: Vec<String> = map
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}: {}",
                        serde_json::to_string(k).unwrap(),
                        serde_json::to_string(v).unwrap()
                    )
                })
                .collect();
            entries.reverse();
            out.push(("reorder keys", format!("{{{}}}\n", entries.join(", "))));
        }
    }
    out.push(("drop the trailing newline", text.trim_end().to_owned()));
    out
}

fn the_comparison_notices_every_golden_mutation() {
    let layout = Layout::under(&repo());
    let mut checked = 0;
    for id in [
        "frontmatter/hash-inline",
        "sampling/cap-after-sort",
        "prompt/mixed-described",
        "tool/declaration",
    ] {
        let id = case::CaseId::parse(id).unwrap();
        let text = fs::read_to_string(layout.golden_path(&id)).unwrap();
        let actual: Value = serde_json::from_str(&text).unwrap();
        assert!(
            compare(&text, &actual).is_equal(),
            "{id}: a golden equals itself"
        );
        for (what, mutated) in golden_mutations(&text) {
            assert_ne!(mutated, text, "{id}: mutation `{what}` changed nothing");
            assert!(
                !compare(&mutated, &actual).is_equal(),
                "{id}: `{what}` went unnoticed"
            );
            checked += 1;
        }
    }
    assert!(checked >= 16);
}

fn check_reports_stale_missing_orphaned_and_pending_goldens() {
    let tmp = crate::common::tempdir();
    let layout = Layout::under(tmp.path());
    let real = Layout::under(&repo());
    copy_tree(
        &real.fixtures.join("prompt"),
        &layout.fixtures.join("prompt"),
    );
    copy_tree(&real.goldens.join("prompt"), &layout.goldens.join("prompt"));
    fs::remove_dir_all(layout.fixtures.join("prompt/none-described")).unwrap();
    // The real TABLE.md lists every case; the copy has fewer, so write a fresh set first.
    goldens::regenerate(&layout).expect("write");
    assert!(goldens::check(&layout).unwrap().is_fresh());

    let stale = layout.golden_path(&case::CaseId::parse("prompt/mixed-described").unwrap());
    fs::write(
        &stale,
        fs::read_to_string(&stale)
            .unwrap()
            .replacen("Skills", "skills", 1),
    )
    .unwrap();
    let missing = layout.golden_path(&case::CaseId::parse("prompt/codepoint-order").unwrap());
    fs::remove_file(&missing).unwrap();
    fs::write(layout.goldens.join("prompt/ghost.json"), "{}\n").unwrap();
    fs::write(
        layout.goldens.join("prompt/filter-allowlist.json.new"),
        "{}\n",
    )
    .unwrap();
    fs::write(layout.goldens.join("VERSION"), "format 0\n").unwrap();

    let report = goldens::check(&layout).unwrap();
    assert!(!report.is_fresh());
    let text = report.render(tmp.path());
    for needle in [
        "stale golden: prompt/mixed-described",
        "missing golden: prompt/codepoint-order",
        "orphaned golden (no such case): goldens/prompt/ghost.json",
        "leftover pending file: goldens/prompt/filter-allowlist.json.new",
        "goldens/VERSION is stale",
        "hint: run `skill-conform goldens --write`",
    ] {
        assert!(text.contains(needle), "missing `{needle}` in:\n{text}");
    }
    let written = goldens::regenerate(&layout).unwrap();
    assert_eq!(written.changed.len(), 1);
    assert_eq!(written.added.len(), 1);
    assert_eq!(written.removed.len(), 2);
    assert!(goldens::check(&layout).unwrap().is_fresh());
}

fn goldens_write_refuses_under_ci_and_says_why() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_skill-conform"))
        .args(["goldens", "--write", "--repo"])
        .arg(repo())
        .env("CI", "true")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: refusing to write goldens: `CI` is set"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
}

crate::tests![
    goldens_are_fresh,
    every_mutant_is_killed_as_its_rule_requires,
    the_comparison_notices_every_golden_mutation,
    check_reports_stale_missing_orphaned_and_pending_goldens,
    goldens_write_refuses_under_ci_and_says_why,
];
