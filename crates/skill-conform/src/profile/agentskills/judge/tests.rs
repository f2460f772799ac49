use super::*;
use serde_json::json;

fn set(codes: &[&str]) -> BTreeSet<String> {
    codes.iter().map(|c| (*c).to_owned()).collect()
}

fn all() -> BTreeSet<String> {
    set(&CAPABILITIES)
}

const FACTS: CaseFacts<'static> = CaseFacts {
    pinned: true,
    root: "/tmp/sc/root0",
};

fn golden() -> Value {
    json!({"prompt": "<p>{root0}/a/SKILL.md</p>", "skills": [
        {"dir": "a", "verdict": "valid", "violations": [], "unknownFields": [],
         "properties": {"name": "a"}},
        {"dir": "B", "verdict": "invalid", "violations": ["AS-NAME-CHARSET", "AS-NAME-DIR-MISMATCH"],
         "unknownFields": [], "properties": {"name": "B"}}]})
}

fn reply() -> Value {
    let mut reply = golden();
    reply["prompt"] = json!("<p>/tmp/sc/root0/a/SKILL.md</p>");
    reply
}

#[test]
fn name_format_stands_for_a_non_empty_subset_of_the_name_format_codes_only() {
    let want = set(&["AS-NAME-CHARSET", "AS-NAME-HYPHEN-EDGE"]);
    assert!(codes_match(&set(&[NAME_FORMAT]), &want));
    assert!(codes_match(&set(&[NAME_FORMAT, "AS-NAME-CHARSET"]), &want));
    assert!(!codes_match(&set(&[NAME_FORMAT]), &set(&[])));
    assert!(!codes_match(
        &set(&[NAME_FORMAT]),
        &set(&["AS-NAME-HYPHEN-DOUBLE"])
    ));
    let with_other = set(&["AS-NAME-CHARSET", "AS-DESCRIPTION-EMPTY"]);
    assert!(!codes_match(&set(&[NAME_FORMAT]), &with_other));
    assert!(codes_match(
        &set(&[NAME_FORMAT, "AS-DESCRIPTION-EMPTY"]),
        &with_other
    ));
    assert!(!codes_match(&set(&["AS-NAME-CHARSET"]), &want));
}

#[test]
fn an_equal_reply_passes_with_the_root_written_back() {
    let judgement = judge(&golden(), &reply(), &all(), FACTS);
    assert_eq!(judgement.status, Status::Pass, "{judgement:?}");
    assert!(judgement.not_offered.is_empty());
}

#[test]
fn properties_count_only_where_the_golden_is_valid() {
    let mut reply = reply();
    reply["skills"][1]["properties"] = Value::Null;
    assert_eq!(judge(&golden(), &reply, &all(), FACTS).status, Status::Pass);
    reply["skills"][0]["properties"] = json!({"name": "other"});
    let judgement = judge(&golden(), &reply, &all(), FACTS);
    assert_eq!(judgement.status, Status::Fail);
    assert!(
        judgement.differences[0].starts_with("a: properties"),
        "{judgement:?}"
    );
}

#[test]
fn a_differing_verdict_fails_a_pinned_case_and_is_a_gap_on_a_hazard() {
    let mut reply = reply();
    reply["skills"][1]["verdict"] = json!("valid");
    reply["skills"][1]["violations"] = json!([]);
    assert_eq!(judge(&golden(), &reply, &all(), FACTS).status, Status::Fail);
    let hazard = CaseFacts {
        pinned: false,
        ..FACTS
    };
    assert_eq!(judge(&golden(), &reply, &all(), hazard).status, Status::Gap);
}

#[test]
fn a_prompt_differs_as_a_gap_and_a_missing_capability_is_not_offered() {
    let mut reply = reply();
    reply["prompt"] = json!("<other/>");
    let judgement = judge(&golden(), &reply, &all(), FACTS);
    assert_eq!(judgement.status, Status::Pass);
    let Part::Differs(line) = &judgement.prompt else {
        panic!("{judgement:?}")
    };
    assert!(line.starts_with("prompt differs at line 1"), "{line}");
    let offered = set(&["validate", "unknown-fields", "properties"]);
    let judgement = judge(&golden(), &reply, &offered, FACTS);
    assert_eq!(judgement.status, Status::Pass);
    assert_eq!(judgement.not_offered, ["prompt"]);
}

#[test]
fn an_error_reply_is_an_error_and_a_missing_skill_differs() {
    let error = json!({"error": "boom"});
    assert_eq!(
        judge(&golden(), &error, &all(), FACTS).status,
        Status::Error
    );
    let mut reply = reply();
    reply["skills"].as_array_mut().unwrap().pop();
    assert_eq!(judge(&golden(), &reply, &all(), FACTS).status, Status::Fail);
}
