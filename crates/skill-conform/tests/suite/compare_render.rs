//! Snapshots of the mismatch renderer (`compare::render_mismatches`).

use serde_json::{json, Value};
use skill_conform::compare::{compare, render_mismatches, Comparison};
use skill_ref::canonical::to_canonical_string;

fn reply() -> Value {
    json!({
        "inventory": {
            "skills": [
                {"name": "alpha", "description": "Does alpha things.", "location": "{root0}/alpha/SKILL.md"},
                {"name": "beta", "description": null, "location": "{root0}/beta/SKILL.md"},
            ],
            "skipped": [{"location": "{root0}/gamma/SKILL.md", "reason": "missing-name"}],
        },
        "loads": [
            {"name": "alpha", "isError": false, "output": "<skill_content name=\"alpha\">\n# Alpha\n\nStep one.\nStep two.\nStep three.\nStep four.\nStep five.\n</skill_content>"},
            {"name": "no-such-skill", "isError": true, "output": "Skill \"no-such-skill\" not found. Available skills: alpha, beta"},
        ],
        "prompt": "## Skills\n- alpha: Does alpha things.\n",
    })
}

fn render(actual: &Value) -> String {
    match compare(&to_canonical_string(&reply()), actual) {
        Comparison::Equal => "equal\n".to_owned(),
        Comparison::Differs(mismatches) => render_mismatches(&mismatches),
    }
}

fn equal_reply_renders_nothing() {
    assert_eq!(render(&reply()), "equal\n");
}

fn scalar_changes_missing_and_extra() {
    let mut actual = reply();
    actual["inventory"]["skills"][0]["description"] = json!("Does alpha things. ");
    actual["inventory"]["skills"][1]["description"] = json!("");
    actual["inventory"]["skipped"][0]["reason"] = json!("malformed-frontmatter");
    actual["loads"].as_array_mut().unwrap().pop();
    actual["tool"] = json!({"name": "skill", "description": "tab\there"});
    insta::assert_snapshot!(render(&actual));
}

fn multi_line_output_gets_a_line_diff_with_visible_invisibles() {
    let mut actual = reply();
    actual["loads"][0]["output"] = json!(
        "<skill_content name=\"alpha\">\r\n# Alpha\n\nStep\u{a0}one.\nStep\ttwo.\nStep three.  \nStep four.\nStep five.\n</skill_content>\n"
    );
    actual["prompt"] = json!("\u{feff}## Skills\n- alpha: Does alpha things.\u{2028}\u{85}\n");
    insta::assert_snapshot!(render(&actual));
}

fn golden_not_canonical_is_said_first() {
    let golden = to_canonical_string(&reply()).replacen("\"prompt\": ", "\"prompt\":\t", 1);
    let mut actual = reply();
    actual["loads"][1]["isError"] = json!(false);
    let Comparison::Differs(mismatches) = compare(&golden, &actual) else {
        panic!("a non-canonical golden never compares equal");
    };
    insta::assert_snapshot!(render_mismatches(&mismatches));
}

fn keys_with_slashes_and_tildes() {
    let expected = json!({"a/b": {"~x": [1, 2]}});
    let actual = json!({"a/b": {"~x": [1, 3, 4]}});
    let Comparison::Differs(mismatches) = compare(&to_canonical_string(&expected), &actual) else {
        panic!("differs");
    };
    insta::assert_snapshot!(render_mismatches(&mismatches));
}

crate::tests![
    equal_reply_renders_nothing,
    scalar_changes_missing_and_extra,
    multi_line_output_gets_a_line_diff_with_visible_invisibles,
    golden_not_canonical_is_said_first,
    keys_with_slashes_and_tildes,
];
