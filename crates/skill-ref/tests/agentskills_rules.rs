//! One check per rule of the Agent Skills profile (`AGENTSKILLS.md`), named by its code. Each
//! check runs against the reference (it must pass) and against the mutants that break its rule
//! (it must fail), so a check that stops discriminating is noticed; a last test makes sure every
//! rule code has a check.

use std::collections::BTreeSet;

use skill_ref::agentskills::check::check_bytes;
use skill_ref::agentskills::{self, AsConfig, AsMutant, Report, Rule, Verdict};

type Check = fn(&AsConfig) -> Result<(), String>;

/// The SKILL.md text with `lines` as frontmatter and a one-line body.
fn skill_md(lines: &[&str]) -> Vec<u8> {
    format!("---\n{}\n---\nBody.\n", lines.join("\n")).into_bytes()
}

/// The report on `lines` as the frontmatter of a skill in directory `dir`.
fn report(c: &AsConfig, dir: &str, lines: &[&str]) -> Report {
    check_bytes(c, dir, &skill_md(lines))
}

/// Passes when `report` has exactly the `expected` violations.
fn expect(report: &Report, expected: &[Rule]) -> Result<(), String> {
    let wanted = if expected.is_empty() {
        Verdict::Valid
    } else {
        Verdict::Invalid
    };
    if report.violations == expected && report.verdict == wanted {
        Ok(())
    } else {
        Err(format!(
            "violations {:?}, expected {expected:?}",
            report.violations
        ))
    }
}

fn valid_with(c: &AsConfig, dir: &str, extra: &[&str]) -> Report {
    let mut lines = vec!["description: Use when testing."];
    lines.extend_from_slice(extra);
    report(c, dir, &lines)
}

fn file_missing(c: &AsConfig) -> Result<(), String> {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("x");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("skill.md"),
        skill_md(&["name: x", "description: d"]),
    )
    .unwrap();
    expect(
        &agentskills::check_dir(c, &dir).unwrap(),
        &[Rule::FileMissing],
    )
}

fn file_encoding(c: &AsConfig) -> Result<(), String> {
    expect(
        &check_bytes(c, "x", b"---\nname: x\ndescription: \xff\n---\n"),
        &[Rule::FileEncoding],
    )
}

fn fence_missing(c: &AsConfig) -> Result<(), String> {
    expect(
        &check_bytes(c, "x", b"\n---\nname: x\ndescription: d\n---\n"),
        &[Rule::FenceMissing],
    )?;
    expect(&check_bytes(c, "x", b"name: x\n"), &[Rule::FenceMissing])
}

fn fence_unclosed(c: &AsConfig) -> Result<(), String> {
    expect(
        &check_bytes(c, "x", b"---\nname: x\ndescription: d\n----\n"),
        &[Rule::FenceUnclosed],
    )
}

fn fence_closes_at_an_exact_line_even_in_crlf(c: &AsConfig) -> Result<(), String> {
    expect(
        &check_bytes(c, "x", b"---\r\nname: x\r\ndescription: d\r\n---\r\nBody"),
        &[],
    )?;
    expect(
        &check_bytes(c, "x", b"---\nname: x\ndescription: d\n---"),
        &[],
    )
}

fn yaml_invalid(c: &AsConfig) -> Result<(), String> {
    expect(
        &report(c, "x", &["name: x", "description: [open"]),
        &[Rule::YamlInvalid],
    )?;
    expect(
        &report(c, "x", &["name: x", "name: x", "description: d"]),
        &[Rule::YamlInvalid],
    )
}

fn yaml_not_mapping(c: &AsConfig) -> Result<(), String> {
    expect(&report(c, "x", &["- name: x"]), &[Rule::YamlNotMapping])?;
    expect(&check_bytes(c, "x", b"---\n---\n"), &[Rule::YamlNotMapping])
}

fn field_unknown(c: &AsConfig) -> Result<(), String> {
    let r = valid_with(c, "x", &["name: x", "version: 2", "author: a"]);
    expect(&r, &[Rule::FieldUnknown])?;
    if r.unknown_fields != ["author", "version"] {
        return Err(format!("unknown fields {:?}", r.unknown_fields));
    }
    Ok(())
}

fn name_missing(c: &AsConfig) -> Result<(), String> {
    expect(&valid_with(c, "x", &[]), &[Rule::NameMissing])?;
    expect(&valid_with(c, "x", &["name: ~"]), &[Rule::NameMissing])
}

fn name_type(c: &AsConfig) -> Result<(), String> {
    expect(&valid_with(c, "123", &["name: 123"]), &[Rule::NameType])
}

fn name_empty(c: &AsConfig) -> Result<(), String> {
    expect(&valid_with(c, "x", &["name: ''"]), &[Rule::NameEmpty])
}

fn name_too_long(c: &AsConfig) -> Result<(), String> {
    let (ok, long) = ("a".repeat(64), "a".repeat(65));
    expect(&valid_with(c, &ok, &[&format!("name: {ok}")]), &[])?;
    expect(
        &valid_with(c, &long, &[&format!("name: {long}")]),
        &[Rule::NameTooLong],
    )
}

fn name_charset(c: &AsConfig) -> Result<(), String> {
    expect(&valid_with(c, "v2-0", &["name: v2-0"]), &[])?;
    expect(&valid_with(c, "Up", &["name: Up"]), &[Rule::NameCharset])?;
    expect(&valid_with(c, "a_b", &["name: a_b"]), &[Rule::NameCharset])?;
    expect(
        &valid_with(c, "café", &["name: café"]),
        &[Rule::NameCharset],
    )
}

fn name_hyphen_edge(c: &AsConfig) -> Result<(), String> {
    expect(&valid_with(c, "-a", &["name: -a"]), &[Rule::NameHyphenEdge])?;
    expect(&valid_with(c, "a-", &["name: a-"]), &[Rule::NameHyphenEdge])
}

fn name_hyphen_double(c: &AsConfig) -> Result<(), String> {
    expect(
        &valid_with(c, "a--b", &["name: a--b"]),
        &[Rule::NameHyphenDouble],
    )
}

fn name_dir_mismatch(c: &AsConfig) -> Result<(), String> {
    expect(
        &valid_with(c, "folder", &["name: other"]),
        &[Rule::NameDirMismatch],
    )
}

fn description_missing(c: &AsConfig) -> Result<(), String> {
    expect(&report(c, "x", &["name: x"]), &[Rule::DescriptionMissing])?;
    expect(
        &report(c, "x", &["name: x", "description:"]),
        &[Rule::DescriptionMissing],
    )
}

fn description_type(c: &AsConfig) -> Result<(), String> {
    expect(
        &report(c, "x", &["name: x", "description: 1.50"]),
        &[Rule::DescriptionType],
    )
}

fn description_empty(c: &AsConfig) -> Result<(), String> {
    expect(
        &report(c, "x", &["name: x", "description: \"\""]),
        &[Rule::DescriptionEmpty],
    )
}

fn description_too_long(c: &AsConfig) -> Result<(), String> {
    let fits = format!("description: {}", "é".repeat(1024));
    expect(&report(c, "x", &["name: x", &fits]), &[])?;
    let long = format!("description: {}", "d".repeat(1025));
    expect(
        &report(c, "x", &["name: x", &long]),
        &[Rule::DescriptionTooLong],
    )
}

fn license_type(c: &AsConfig) -> Result<(), String> {
    expect(
        &valid_with(c, "x", &["name: x", "license: true"]),
        &[Rule::LicenseType],
    )?;
    expect(&valid_with(c, "x", &["name: x", "license: null"]), &[])
}

fn compatibility_type(c: &AsConfig) -> Result<(), String> {
    let r = valid_with(c, "x", &["name: x", "compatibility: {os: linux}"]);
    expect(&r, &[Rule::CompatibilityType])
}

fn compatibility_empty(c: &AsConfig) -> Result<(), String> {
    expect(
        &valid_with(c, "x", &["name: x", "compatibility: ''"]),
        &[Rule::CompatibilityEmpty],
    )
}

fn compatibility_too_long(c: &AsConfig) -> Result<(), String> {
    let fits = format!("compatibility: {}", "c".repeat(500));
    expect(&valid_with(c, "x", &["name: x", &fits]), &[])?;
    let long = format!("compatibility: {}", "c".repeat(501));
    expect(
        &valid_with(c, "x", &["name: x", &long]),
        &[Rule::CompatibilityTooLong],
    )
}

fn metadata_type(c: &AsConfig) -> Result<(), String> {
    let ok = valid_with(c, "x", &["name: x", "metadata: {a: b, version: '1.0'}"]);
    expect(&ok, &[])?;
    let nested = valid_with(c, "x", &["name: x", "metadata: {a: {b: c}}"]);
    expect(&nested, &[Rule::MetadataType])?;
    expect(
        &valid_with(c, "x", &["name: x", "metadata: {v: 1.50}"]),
        &[Rule::MetadataType],
    )?;
    expect(
        &valid_with(c, "x", &["name: x", "metadata: [a]"]),
        &[Rule::MetadataType],
    )
}

fn allowed_tools_type(c: &AsConfig) -> Result<(), String> {
    expect(
        &valid_with(c, "x", &["name: x", "allowed-tools: Read Bash(git:*)"]),
        &[],
    )?;
    expect(
        &valid_with(c, "x", &["name: x", "allowed-tools: [Read]"]),
        &[Rule::AllowedToolsType],
    )
}

/// The prompt lists the valid skills only, escaped.
fn prompt_lists_valid_skills_escaped(c: &AsConfig) -> Result<(), String> {
    let root = tempfile::tempdir().unwrap();
    for (dir, lines) in [
        ("a", vec!["name: a", "description: 'x < y & z'"]),
        ("b", vec!["name: other", "description: d"]),
    ] {
        std::fs::create_dir(root.path().join(dir)).unwrap();
        std::fs::write(root.path().join(dir).join("SKILL.md"), skill_md(&lines)).unwrap();
    }
    let out = agentskills::run_case(c, root.path(), "R").unwrap();
    let expected = "<available_skills>\n  <skill>\n    <name>a</name>\n    <description>x &lt; y &amp; z</description>\n    <location>R/a/SKILL.md</location>\n  </skill>\n</available_skills>";
    if out.prompt == expected {
        Ok(())
    } else {
        Err(format!("prompt {:?}", out.prompt))
    }
}

/// (rule code or "prompt", check, the mutants that must make it fail)
const CHECKS: &[(&str, Check, &[AsMutant])] = &[
    ("AS-FILE-MISSING", file_missing, &[]),
    ("AS-FILE-ENCODING", file_encoding, &[]),
    (
        "AS-FENCE-MISSING",
        fence_missing,
        &[AsMutant::FenceAfterBlankLine],
    ),
    ("AS-FENCE-UNCLOSED", fence_unclosed, &[]),
    (
        "AS-FENCE-UNCLOSED",
        fence_closes_at_an_exact_line_even_in_crlf,
        &[],
    ),
    ("AS-YAML-INVALID", yaml_invalid, &[]),
    ("AS-YAML-NOT-MAPPING", yaml_not_mapping, &[]),
    (
        "AS-FIELD-UNKNOWN",
        field_unknown,
        &[AsMutant::UnknownFieldsAllowed],
    ),
    ("AS-NAME-MISSING", name_missing, &[]),
    ("AS-NAME-TYPE", name_type, &[]),
    ("AS-NAME-EMPTY", name_empty, &[AsMutant::EmptyNameAllowed]),
    ("AS-NAME-TOO-LONG", name_too_long, &[AsMutant::NameLimit65]),
    (
        "AS-NAME-CHARSET",
        name_charset,
        &[AsMutant::NameUppercaseAllowed],
    ),
    (
        "AS-NAME-HYPHEN-EDGE",
        name_hyphen_edge,
        &[AsMutant::NameHyphenEdgeAllowed],
    ),
    (
        "AS-NAME-HYPHEN-DOUBLE",
        name_hyphen_double,
        &[AsMutant::NameDoubleHyphenAllowed],
    ),
    (
        "AS-NAME-DIR-MISMATCH",
        name_dir_mismatch,
        &[AsMutant::NameDirIgnored],
    ),
    (
        "AS-DESCRIPTION-MISSING",
        description_missing,
        &[AsMutant::DescriptionOptional],
    ),
    ("AS-DESCRIPTION-TYPE", description_type, &[]),
    (
        "AS-DESCRIPTION-EMPTY",
        description_empty,
        &[AsMutant::EmptyDescriptionAllowed],
    ),
    (
        "AS-DESCRIPTION-TOO-LONG",
        description_too_long,
        &[
            AsMutant::DescriptionLimit1025,
            AsMutant::DescriptionLengthInBytes,
        ],
    ),
    ("AS-LICENSE-TYPE", license_type, &[]),
    ("AS-COMPATIBILITY-TYPE", compatibility_type, &[]),
    (
        "AS-COMPATIBILITY-EMPTY",
        compatibility_empty,
        &[AsMutant::EmptyCompatibilityAllowed],
    ),
    (
        "AS-COMPATIBILITY-TOO-LONG",
        compatibility_too_long,
        &[AsMutant::CompatibilityLimit501],
    ),
    (
        "AS-METADATA-TYPE",
        metadata_type,
        &[AsMutant::MetadataNestedAllowed],
    ),
    ("AS-ALLOWED-TOOLS-TYPE", allowed_tools_type, &[]),
    (
        "prompt",
        prompt_lists_valid_skills_escaped,
        &[AsMutant::PromptUnescaped, AsMutant::PromptListsInvalid],
    ),
];

#[test]
fn each_rule_holds_in_the_reference_and_fails_under_its_mutants() {
    let mut failures = Vec::new();
    for (code, check, mutants) in CHECKS {
        if let Err(e) = check(&AsConfig::default()) {
            failures.push(format!("{code}: reference: {e}"));
        }
        for &mutant in *mutants {
            if check(&AsConfig::mutated(mutant)).is_ok() {
                failures.push(format!("{code}: passes under mutant {mutant}"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn every_rule_and_every_mutant_has_a_check() {
    let checked: BTreeSet<&str> = CHECKS.iter().map(|(code, _, _)| *code).collect();
    let unchecked: Vec<&str> = Rule::ALL
        .iter()
        .map(|r| r.code())
        .filter(|c| !checked.contains(c))
        .collect();
    assert!(unchecked.is_empty(), "rules without a check: {unchecked:?}");
    let used: BTreeSet<AsMutant> = CHECKS
        .iter()
        .flat_map(|(_, _, m)| m.iter().copied())
        .collect();
    let unused: Vec<&str> = AsMutant::ALL
        .iter()
        .filter(|m| !used.contains(m))
        .map(|m| m.name())
        .collect();
    assert!(unused.is_empty(), "mutants no check names: {unused:?}");
}
