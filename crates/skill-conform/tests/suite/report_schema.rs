//! The committed JSON Schemas of `report.json` and `corpus.json` are the ones the report types
//! generate, and a report of the previous format still validates and merges.
//!
//! `UPDATE_SCHEMAS=1 cargo test -p skill-conform --test report_schema` rewrites the committed
//! files.

use std::path::{Path, PathBuf};

use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

use crate::common::repo;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/report-format-1.json")
}

fn check_committed(file: &str, generated: &Value) {
    let path = repo().join("schemas").join(file);
    let generated = to_canonical_string(generated);
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/{file} is stale (hint: UPDATE_SCHEMAS=1 cargo test -p skill-conform --test report_schema)"
    );
}

fn committed_schemas_match_the_report_types() {
    check_committed(
        "report.schema.json",
        &skill_conform::report::format::schema(),
    );
    check_committed("corpus.schema.json", &skill_conform::corpus::schema());
}

fn a_report_of_the_previous_format_validates_and_merges() {
    let report: Value = serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    let errors = crate::common::schema_errors(&skill_conform::report::format::schema(), &report);
    assert!(errors.is_empty(), "{errors:#?}");
    let merged = skill_conform::report::merge::merge_reports(&[fixture()]).unwrap();
    assert!(
        merged.contains("| java | - | unavailable: `mvn` not found on PATH"),
        "{merged}"
    );
    assert!(merged.contains("| elixir | - | broken | 0/0 |"), "{merged}");
    assert!(
        merged.contains("## Expectation errors (1), each failing its job"),
        "{merged}"
    );
}

fn a_corpus_json_of_the_previous_format_validates_and_reads() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-format-1.json");
    let text = std::fs::read_to_string(path).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["format"], 1);
    let errors = crate::common::schema_errors(&skill_conform::corpus::schema(), &value);
    assert!(errors.is_empty(), "{errors:#?}");
    let report = skill_conform::corpus::read(&text).unwrap();
    // Format 1's claim is kept as it was; nothing says it was complete.
    assert_eq!(report.agreement, Some(false));
    assert!(!report.complete);
    assert_eq!(report.disagreeing(), ["ghost", "mutant-ldw"]);
    let mut future = value.clone();
    future["format"] = Value::from(3);
    let error = skill_conform::corpus::read(&future.to_string()).unwrap_err();
    assert!(
        error.contains("not a corpus.json of format 2 or 1"),
        "{error}"
    );
}

fn a_report_that_breaks_the_model_is_a_usage_error_naming_the_file() {
    let dir = crate::common::tempdir();
    let path = dir.path().join("report.json");
    let mut report: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture()).unwrap()).unwrap();
    report["trials"]["python"]["hazards/bom"]["status"] = Value::from("great");
    std::fs::write(&path, report.to_string()).unwrap();
    let err = skill_conform::report::merge::merge_reports(std::slice::from_ref(&path))
        .unwrap_err()
        .to_string();
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains("is not a valid report.json"), "{err}");
    report["format"] = Value::from(9);
    std::fs::write(&path, report.to_string()).unwrap();
    let err = skill_conform::report::merge::merge_reports(&[path])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("is not a skill-conform report of format 1"),
        "{err}"
    );
}

crate::tests![
    committed_schemas_match_the_report_types,
    a_report_of_the_previous_format_validates_and_merges,
    a_corpus_json_of_the_previous_format_validates_and_reads,
    a_report_that_breaks_the_model_is_a_usage_error_naming_the_file,
];
