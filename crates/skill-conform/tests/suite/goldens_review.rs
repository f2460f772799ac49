//! Reviewable spec changes on a copy of the repository's fixtures and goldens: a moved rule
//! (simulated by rewording the prompt heading `## Available Skills` in the copied goldens, so the reference's output
//! now differs from them exactly as after a one-word change to the reference) shows as one
//! grouped block; `goldens --write` refuses it while the contract revision is unchanged and
//! writes nothing; a case whose fixture changed is accepted and marked; with the revision bumped
//! the write is accepted. The repository's changelog names the current revision.

use std::fs;
use std::path::{Path, PathBuf};

use skill_conform::goldens::{self, Layout};
use skill_conform::goldens_review::changelog_problem;

use crate::common::repo;

/// Copies a tree, keeping symlinks as symlinks.
fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).sort_by_file_name() {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        let kind = entry.file_type();
        if kind.is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Rewords the prompt heading in every copied golden that has it; returns how many.
fn reword_prompt_heading(goldens: &Path) -> Vec<PathBuf> {
    let mut touched = Vec::new();
    for entry in walkdir::WalkDir::new(goldens).sort_by_file_name() {
        let path = entry.unwrap().into_path();
        if path.extension().is_none_or(|ext| ext != "json") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        if text.contains("\\n## Available Skills\\n") {
            let moved = text.replace("\\n## Available Skills\\n", "\\n## Skills\\n");
            fs::write(&path, moved).unwrap();
            touched.push(path);
        }
    }
    touched
}

fn a_moved_rule_is_grouped_refused_without_a_bump_and_accepted_with_one() {
    let tmp = crate::common::tempdir();
    let layout = Layout::under(tmp.path());
    copy_tree(&repo().join("conformance-fixtures"), &layout.fixtures);
    copy_tree(&repo().join("goldens"), &layout.goldens);
    // The writing-tool column checks fixtures against its own observations; this test touches a
    // fixture, and without the file the column is only "not measured".
    fs::remove_file(layout.goldens.join("writing-tool.json")).unwrap();
    assert!(changelog_problem(&layout).is_none());

    let touched = reword_prompt_heading(&layout.goldens);
    assert!(touched.len() > 10, "{touched:?}");
    let error = goldens::regenerate(&layout).unwrap_err().to_string();
    // One block for all of them: `113 cases, 53 pinned, 60 hazard: /prompt line 4: …`.
    let change = ": /prompt line 4: - ## Skills + ## Available Skills";
    let group = error
        .lines()
        .find(|line| line.ends_with(change))
        .unwrap_or_else(|| panic!("no group line in {error}"))
        .to_owned();
    assert!(
        group.starts_with(&format!("{} cases, ", touched.len())),
        "{group}"
    );
    assert!(error.starts_with("refusing to write goldens: "), "{error}");
    assert!(error.contains("  by case group: "), "{error}");
    assert!(error.contains("bump CONTRACT_REVISION"), "{error}");
    assert!(error.contains("goldens/CHANGELOG.md"), "{error}");
    let still = fs::read_to_string(&touched[0]).unwrap();
    assert!(
        !still.contains("## Available Skills"),
        "refused, yet written"
    );

    // A case whose fixture changed needs no bump and is marked in the impact.
    let golden = &touched[0];
    let group_dir = golden.parent().unwrap().file_name().unwrap();
    let case_name = golden.file_stem().unwrap();
    let case_toml = layout
        .fixtures
        .join(group_dir)
        .join(case_name)
        .join("case.toml");
    let mut toml = fs::read_to_string(&case_toml).unwrap();
    toml.push_str("\n# touched by the test\n");
    fs::write(&case_toml, toml).unwrap();
    let case_id = format!(
        "{}/{}",
        group_dir.to_string_lossy(),
        case_name.to_string_lossy()
    );
    let error = goldens::regenerate(&layout).unwrap_err().to_string();
    assert!(!error.contains(&format!("changed {case_id}\n")), "{error}");

    // With the revision bumped the same write is accepted and shows the grouped impact.
    fs::write(layout.goldens.join("VERSION"), "format 1\ncontract older\n").unwrap();
    let report = goldens::regenerate(&layout).unwrap();
    let impact = report.render(tmp.path());
    println!("{impact}");
    assert!(impact.contains(&group), "{impact}");
    assert!(
        impact.contains(&format!("  changed {case_id} (fixture changed)\n")),
        "{impact}"
    );
    assert_eq!(
        impact.matches("line 4: - ## Skills").count(),
        1,
        "one block"
    );
    assert!(goldens::check(&layout).unwrap().is_fresh());
}

fn the_changelog_must_name_the_current_revision() {
    assert_eq!(changelog_problem(&Layout::under(&repo())), None);
    let tmp = crate::common::tempdir();
    let layout = Layout::under(tmp.path());
    fs::create_dir_all(&layout.goldens).unwrap();
    fs::write(
        layout.goldens.join("CHANGELOG.md"),
        "# Contract changelog\n\n## older\n",
    )
    .unwrap();
    let problem = changelog_problem(&layout).unwrap();
    assert!(problem.contains(skill_ref::CONTRACT_REVISION), "{problem}");
}

fn goldens_check_fails_without_a_changelog_entry() {
    let tmp = crate::common::tempdir();
    let layout = Layout::under(tmp.path());
    copy_tree(&repo().join("conformance-fixtures"), &layout.fixtures);
    copy_tree(&repo().join("goldens"), &layout.goldens);
    let check = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_skill-conform"))
            .args(["goldens", "--check", "--repo"])
            .arg(tmp.path())
            .output()
            .unwrap()
    };
    assert_eq!(check().status.code(), Some(0));
    fs::remove_file(layout.goldens.join("CHANGELOG.md")).unwrap();
    let out = check();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("has no entry for the contract revision"),
        "{stdout}"
    );
}

crate::tests![
    a_moved_rule_is_grouped_refused_without_a_bump_and_accepted_with_one,
    the_changelog_must_name_the_current_revision,
    goldens_check_fails_without_a_changelog_entry,
];
