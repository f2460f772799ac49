//! `case::discover` and `CaseSelector` on temporary fixture trees.

use std::fs;
use std::path::Path;

use skill_conform::case::{discover, CaseError, CaseSelector};

const MINIMAL: &str = "summary = \"s\"\npinned = true\nrules = [\"TN-YAML-1\"]\n";

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn tree(cases: &[&str]) -> tempfile::TempDir {
    let dir = crate::common::tempdir();
    for case in cases {
        write(&dir.path().join(case).join("case.toml"), MINIMAL);
        write(
            &dir.path().join(case).join("skills/a/SKILL.md"),
            "---\nname: a\n---\n",
        );
    }
    dir
}

fn ids(cases: &[skill_conform::case::CaseSpec]) -> Vec<String> {
    cases.iter().map(|case| case.id.to_string()).collect()
}

fn discovers_cases_sorted_by_id() {
    let dir = tree(&["zeta/b", "alpha/z", "alpha/B", "alpha/a"]);
    write(&dir.path().join("README.md"), "docs");
    write(&dir.path().join("alpha/README.md"), "docs");
    let cases = discover(dir.path()).unwrap();
    assert_eq!(ids(&cases), ["alpha/B", "alpha/a", "alpha/z", "zeta/b"]);
    assert_eq!(cases[0].dir, dir.path().join("alpha/B"));
}

fn missing_fixture_dir_is_a_clear_error() {
    let dir = crate::common::tempdir();
    let missing = dir.path().join("conformance-fixtures");
    let error = discover(&missing).unwrap_err();
    assert!(matches!(error, CaseError::FixturesMissing { .. }));
    assert_eq!(
        error.to_string(),
        format!(
            "fixture directory `{}` does not exist (hint: run from the repository root or pass --repo DIR, the directory holding conformance-fixtures/)",
            missing.display()
        )
    );
}

fn stray_file_at_the_top_is_an_error_naming_it() {
    let dir = tree(&["g/c"]);
    write(&dir.path().join("notes.txt"), "");
    let message = discover(dir.path()).unwrap_err().to_string();
    assert!(
        message.contains(&format!("`{}`", dir.path().join("notes.txt").display())),
        "{message}"
    );
    assert!(message.contains("(hint: "), "{message}");
}

fn stray_file_in_a_group_is_an_error() {
    let dir = tree(&["g/c"]);
    write(&dir.path().join("g/stray.toml"), "");
    let message = discover(dir.path()).unwrap_err().to_string();
    assert!(message.contains("g/stray.toml"), "{message}");
}

fn case_dir_without_manifest_is_an_error() {
    let dir = tree(&["g/c"]);
    fs::create_dir_all(dir.path().join("g/empty")).unwrap();
    let message = discover(dir.path()).unwrap_err().to_string();
    assert!(
        message.contains("g/empty") && message.contains("case.toml"),
        "{message}"
    );
}

fn bad_manifest_names_the_file() {
    let dir = tree(&["frontmatter/plain"]);
    write(
        &dir.path().join("frontmatter/plain/case.toml"),
        "summary = \"s\"\npinnedd = true\nrules = [\"TN-YAML-1\"]\n",
    );
    let message = discover(dir.path()).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!(
            "error reading `{}`: line 2: unknown field `pinnedd`",
            dir.path().join("frontmatter/plain/case.toml").display()
        )),
        "{message}"
    );
    assert!(
        message.ends_with("(hint: did you mean `pinned`?)"),
        "{message}"
    );
}

fn globs_select_cases_and_report_unmatched() {
    let dir = tree(&[
        "frontmatter/crlf",
        "frontmatter/plain",
        "order/crlf-names",
        "order/depth",
    ]);
    let cases = discover(dir.path()).unwrap();

    let all = CaseSelector::new::<&str>(&[]).unwrap().select(&cases);
    assert_eq!(all.cases.len(), 4);
    assert!(all.unmatched.is_empty());

    let picked = CaseSelector::new(&["frontmatter/*", "nothing/*", "**/crlf*"])
        .unwrap()
        .select(&cases);
    let picked_ids: Vec<String> = picked.cases.iter().map(|c| c.id.to_string()).collect();
    assert_eq!(
        picked_ids,
        ["frontmatter/crlf", "frontmatter/plain", "order/crlf-names"]
    );
    assert_eq!(picked.unmatched, ["nothing/*"]);

    // `*` stays within one segment.
    let star = CaseSelector::new(&["*crlf*"]).unwrap().select(&cases);
    assert!(star.cases.is_empty());
    assert_eq!(star.unmatched, ["*crlf*"]);
}

fn bad_glob_is_an_error() {
    let message = CaseSelector::new(&["a/[b"]).unwrap_err().to_string();
    assert!(message.starts_with("invalid case glob `a/[b`"), "{message}");
}

crate::tests![
    discovers_cases_sorted_by_id,
    missing_fixture_dir_is_a_clear_error,
    stray_file_at_the_top_is_an_error_naming_it,
    stray_file_in_a_group_is_an_error,
    case_dir_without_manifest_is_an_error,
    bad_manifest_names_the_file,
    globs_select_cases_and_report_unmatched,
    bad_glob_is_an_error,
];
