//! Broken TOML files of every kind we read (`case.toml` of both profiles, `adapters/ports.toml`,
//! `adapters/<port>/expected.toml`), fed to `skill-conform run`: each is exit 2 and one line on
//! stderr naming the file, the line and the field — never a panic. A proptest feeds mangled
//! files to the readers directly: one line, never a panic.

use std::path::Path;

use crate::common::{copy_from_repo, skill_conform};
use proptest::prelude::*;

/// The file a row breaks, below the temporary repository.
const CASE: &str = "conformance-fixtures/frontmatter/colon-space/case.toml";
const PORTS: &str = "adapters/ports.toml";
const EXPECTED: &str = "adapters/reference/expected.toml";

const MINIMAL_CASE: &str = "summary = \"s\"\npinned = true\nrules = [\"TN-YAML-1\"]\n";
const PORT: &str = "[ports.py]\nlanguage = \"python\"\nrun = [\"x\"]\nversion = \"1\"\n";

/// (file, its broken text, what the one line must say besides the file).
fn rows() -> Vec<(&'static str, String, Vec<&'static str>)> {
    let case = |extra: &str| format!("{MINIMAL_CASE}{extra}");
    let entry = |body: &str| format!("[[divergence]]\n{body}");
    vec![
        // case.toml: wrong type, nested wrong type, unknown key, missing key, bad path.
        (CASE, case("sample_limit = \"ten\"\n"), vec!["line 4: field `sample_limit`: invalid type: string"]),
        (CASE, case("filter = { a = 1 }\n"), vec!["line 4: field `filter`: invalid type: integer `1`, expected a boolean, at `filter.a`"]),
        (CASE, case("compare = [\"loads\", \"tol\"]\n"), vec!["line 4: field `compare`: unknown variant `tol`", "at `compare[1]`"]),
        (CASE, MINIMAL_CASE.replace("pinned", "pinnedd"), vec!["line 2: unknown field `pinnedd`", "did you mean `pinned`?"]),
        // A key missing at the top of the file has no line of its own: the field is named.
        (CASE, MINIMAL_CASE.replace("pinned = true\n", ""), vec!["missing field `pinned`"]),
        (CASE, case("roots = [\"skills\",\n  \"../x\"]\n"), vec!["line 5: field `roots`: `../x` has a `..` segment"]),
        (CASE, case("links = { \"skills/a\" = \"\" }\n"), vec!["line 4: field `links`: `skills/a` has an empty target"]),
        (CASE, "summary = \"s\npinned = true\n".into(), vec!["line 1: "]),
        // ports.toml: unknown key, wrong type, wrong type in a list, missing key.
        (PORTS, format!("{PORT}probes = []\n"), vec!["line 5: unknown field `probes` in `ports.py`, expected one of"]),
        (PORTS, PORT.replace("\"python\"", "3"), vec!["line 2: field `ports.py.language`: invalid type: integer `3`"]),
        (PORTS, PORT.replace("[\"x\"]", "[\"x\", 1]"), vec!["line 3: field `ports.py.run[1]`: invalid type: integer `1`"]),
        (PORTS, PORT.replace("version = \"1\"\n", ""), vec!["line 1: missing field `version` in `ports.py`"]),
        (PORTS, "[tools]\n".into(), vec!["ports.toml`: missing field `ports` (hint: "]),
        (PORTS, format!("{PORT}[tools.claude-code]\npackage = \"p\"\n"), vec!["line 5: missing field `version` in `tools.claude-code`"]),
        // expected.toml: wrong type, unknown key, missing key, bad glob, bad range, blank, syntax.
        (EXPECTED, entry("cases = 3\nreason = \"r\"\n"), vec!["line 2: entry 1, field `cases`: invalid type: integer `3`, expected a string"]),
        (EXPECTED, entry("cases = \"a/*\"\nreasons = \"r\"\n"), vec!["line 3: entry 1, field `reasons`: unknown field", "valid fields are"]),
        (EXPECTED, entry("cases = \"a/*\"\n"), vec!["line 1: entry 1, field `reason`: is missing"]),
        (EXPECTED, entry("cases = \"a/[\"\nreason = \"r\"\n"), vec!["line 2: entry 1, field `cases`: `a/[` is not a glob"]),
        (EXPECTED, entry("cases = \"a/*\"\nreason = \"r\"\nversions = \"about 1\"\n"), vec!["line 4: entry 1, field `versions`: `about 1` is not a version range"]),
        (EXPECTED, entry("cases = \"a/*\"\nreason = \"  \"\n"), vec!["line 3: entry 1, field `reason`: is blank"]),
        (EXPECTED, "divergences = []\n".into(), vec!["line 1: key `divergences`: unknown key"]),
        (EXPECTED, entry("cases = \"a\nreason = 1\n"), vec![", line 2: "]),
    ]
}

/// A repository with one case and its golden, the real ports.toml, and the reference's
/// expected.toml empty.
fn minimal_repo(dir: &Path) {
    for rel in [
        "conformance-fixtures/frontmatter/colon-space",
        "goldens/frontmatter/colon-space.json",
        "goldens/VERSION",
        PORTS,
    ] {
        copy_from_repo(rel, dir);
    }
    std::fs::create_dir_all(dir.join("adapters/reference")).unwrap();
    std::fs::write(dir.join(EXPECTED), "").unwrap();
}

fn every_broken_file_is_one_line_naming_file_line_and_field() {
    let tmp = crate::common::tempdir();
    minimal_repo(tmp.path());
    for (file, text, needles) in rows() {
        let path = tmp.path().join(file);
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text).unwrap();
        let reports = tmp.path().join("reports");
        let out = skill_conform(&[
            "run",
            "--port",
            "reference",
            "--repo",
            tmp.path().to_str().unwrap(),
            "--report-dir",
            reports.to_str().unwrap(),
        ]);
        std::fs::write(&path, good).unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let row = format!("{file} with {text:?}: {stderr}");
        assert_eq!(out.status.code(), Some(2), "{row}");
        assert_eq!(stderr.lines().count(), 1, "one line: {row}");
        assert!(stderr.starts_with("error: "), "{row}");
        assert!(
            stderr.contains(&format!("{file}`")),
            "names the file: {row}"
        );
        for needle in needles {
            assert!(stderr.contains(needle), "`{needle}` in {row}");
        }
        assert!(!reports.exists(), "nothing ran: {row}");
    }
}

fn a_broken_agentskills_case_toml_names_file_line_and_field() {
    let tmp = crate::common::tempdir();
    let case = tmp.path().join("g/c");
    std::fs::create_dir_all(case.join("skills")).unwrap();
    std::fs::write(
        case.join("case.toml"),
        "summary = \"s\"\npinned = true\nrules = [\"AS-1\"]\nhazard = []\n",
    )
    .unwrap();
    let error = skill_conform::profile::agentskills::case::discover(tmp.path())
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("g/c/case.toml`: line 4: unknown field `hazard`"),
        "{error}"
    );
    assert!(!error.contains('\n'), "{error}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Any text, and a valid file with a byte range cut out or replaced, reads as a value or as
    /// one line naming the file: never a panic.
    fn mangled_files_never_panic(
        cut in 0usize..200,
        len in 0usize..12,
        junk in "[\\[\\]=\"a-z0-9 .,{}\n]{0,8}",
        which in 0usize..3,
    ) {
        let valid = [
            format!("{MINIMAL_CASE}roots = [\"skills\"]\nfilter = {{ a = true }}\ncompare = [\"loads\"]\n"),
            format!("{PORT}probe = [[\"true\"]]\n[tools.t]\npackage = \"p\"\nversion = \"1\"\nsetup = [\"s\"]\n"),
            "[[divergence]]\ncases = \"a/*\"\nversions = \">=1\"\nreason = \"r\"\nfingerprint = \"0123456789abcdef\"\n".to_owned(),
        ];
        let text = &valid[which];
        let start = cut.min(text.len());
        let end = (start + len).min(text.len());
        let (start, end) = (floor(text, start), floor(text, end));
        let mangled = format!("{}{junk}{}", &text[..start], &text[end..]);
        let message = read_as(which, &mangled);
        if let Some(message) = message {
            prop_assert_eq!(message.lines().count(), 1, "{}", message);
            prop_assert!(message.contains("`"), "{}", message);
        }
    }
}

/// The largest char boundary at or before `at`.
fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Reads `text` as file kind `which` (0 case.toml, 1 ports.toml, 2 expected.toml); the error
/// message, if any.
fn read_as(which: usize, text: &str) -> Option<String> {
    match which {
        0 => skill_conform::case::CaseSpec::parse(
            skill_conform::case::CaseId::new("g", "c").unwrap(),
            "g/c".into(),
            text,
        )
        .err()
        .map(|e| e.to_string()),
        1 => {
            let dir = crate::common::tempdir();
            std::fs::create_dir(dir.path().join("adapters")).unwrap();
            std::fs::write(dir.path().join(PORTS), text).unwrap();
            skill_conform::port::read_ports(dir.path())
                .err()
                .map(|e| e.to_string())
        }
        _ => skill_conform::judge::expected::parse_expected(Path::new(EXPECTED), text)
            .err()
            .map(|e| e.to_string()),
    }
}

crate::tests![
    every_broken_file_is_one_line_naming_file_line_and_field,
    a_broken_agentskills_case_toml_names_file_line_and_field,
    mangled_files_never_panic,
];
