//! Compare: canonical bytes against the golden, and, when they differ, a field-level
//! diff that a human can read.
//!
//! [`compare`] is byte equality of `to_canonical_string(actual)` with the golden's text — never
//! JSON equality, so a golden whose keys were reordered or whose whitespace was touched can never
//! pass. On a difference it returns [`Mismatch`]es found by walking both values: objects key by
//! key (sorted), arrays index by index (extra and missing elements included), each difference
//! named by its RFC 6901 JSON pointer. A golden that is not byte-identical to its own canonical
//! form gets a [`Mismatch`] at pointer `""` with a note saying so (and where it first departs
//! from the canonical form), before any value differences.
//!
//! [`render_mismatches`] turns them into deterministic plain text: a one-line summary (count,
//! then count per top-level field), then one block per pointer; two strings of which one has a
//! line feed get a unified line diff. The notation for invisible characters is documented in
//! [`text`]. No colour: the renderer's output is snapshot-tested, and colouring, if any, belongs
//! to the terminal reporter.

pub mod text;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use skill_ref::canonical::to_canonical_string;

/// One difference between the golden (`expected`) and the normalised reply (`actual`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Mismatch {
    /// RFC 6901 JSON pointer (`~` as `~0`, `/` as `~1`); `""` is the whole document.
    pub pointer: String,
    /// `None`: the golden has nothing here.
    pub expected: Option<Value>,
    /// `None`: the reply has nothing here.
    pub actual: Option<Value>,
    /// Set when the difference is about the golden itself rather than a value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Mismatch {
    fn values(pointer: String, expected: Option<&Value>, actual: Option<&Value>) -> Mismatch {
        Mismatch {
            pointer,
            expected: expected.cloned(),
            actual: actual.cloned(),
            note: None,
        }
    }

    fn note(note: String) -> Mismatch {
        Mismatch {
            pointer: String::new(),
            expected: None,
            actual: None,
            note: Some(note),
        }
    }
}

/// The outcome of comparing one reply with its golden.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Comparison {
    /// The canonical bytes are identical.
    Equal,
    /// They are not; never empty.
    Differs(Vec<Mismatch>),
}

impl Comparison {
    pub fn is_equal(&self) -> bool {
        matches!(self, Comparison::Equal)
    }

    /// The mismatches (empty when equal).
    pub fn mismatches(&self) -> &[Mismatch] {
        match self {
            Comparison::Equal => &[],
            Comparison::Differs(mismatches) => mismatches,
        }
    }
}

const REGENERATE: &str = "regenerate it with `skill-conform goldens --write`";

/// Compares the golden's text `expected` with the normalised reply `actual`, as bytes.
pub fn compare(expected: &str, actual: &Value) -> Comparison {
    if to_canonical_string(actual) == expected {
        return Comparison::Equal;
    }
    let golden: Value = match serde_json::from_str(expected) {
        Ok(golden) => golden,
        Err(error) => {
            return Comparison::Differs(vec![Mismatch::note(format!(
                "the golden is not valid JSON: {error} (hint: {REGENERATE})"
            ))])
        }
    };
    let mut mismatches = Vec::new();
    let canonical = to_canonical_string(&golden);
    if let Some((line, column)) = text::first_difference(expected, &canonical) {
        mismatches.push(Mismatch::note(format!(
            "the golden is not canonical JSON: it departs from its canonical form at line {line}, column {column} (hint: {REGENERATE})"
        )));
    }
    diff_values(&golden, actual, &mut String::new(), &mut mismatches);
    if mismatches.is_empty() {
        // Unreachable while canonical bytes and `Value` equality agree; never report "equal".
        mismatches.push(Mismatch::note(
            "the canonical bytes differ but no value does (a skill-conform bug)".into(),
        ));
    }
    Comparison::Differs(mismatches)
}

/// The differences between two values, by JSON pointer, in document order.
pub(crate) fn value_mismatches(expected: &Value, actual: &Value) -> Vec<Mismatch> {
    let mut mismatches = Vec::new();
    diff_values(expected, actual, &mut String::new(), &mut mismatches);
    mismatches
}

fn diff_values(expected: &Value, actual: &Value, pointer: &mut String, out: &mut Vec<Mismatch>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let keys: BTreeSet<&String> = e.keys().chain(a.keys()).collect();
            for key in keys {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&escape_token(key));
                match (e.get(key), a.get(key)) {
                    (Some(ev), Some(av)) => diff_values(ev, av, pointer, out),
                    (ev, av) => out.push(Mismatch::values(pointer.clone(), ev, av)),
                }
                pointer.truncate(len);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            for index in 0..e.len().max(a.len()) {
                let len = pointer.len();
                let _ = write!(pointer, "/{index}");
                match (e.get(index), a.get(index)) {
                    (Some(ev), Some(av)) => diff_values(ev, av, pointer, out),
                    (ev, av) => out.push(Mismatch::values(pointer.clone(), ev, av)),
                }
                pointer.truncate(len);
            }
        }
        (e, a) if e != a => out.push(Mismatch::values(pointer.clone(), Some(e), Some(a))),
        _ => {}
    }
}

/// One reference token of a JSON pointer: `~` as `~0`, `/` as `~1`.
pub(crate) fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// The top-level field a pointer falls under, for the summary.
fn field_of(pointer: &str) -> String {
    match pointer.strip_prefix('/') {
        None => "(document)".to_owned(),
        Some(rest) => rest
            .split('/')
            .next()
            .unwrap_or("")
            .replace("~1", "/")
            .replace("~0", "~"),
    }
}

/// Renders mismatches as plain text (see the module doc). Deterministic: same input, same bytes.
pub fn render_mismatches(mismatches: &[Mismatch]) -> String {
    let mut out = String::new();
    let mut per_field: BTreeMap<String, usize> = BTreeMap::new();
    for mismatch in mismatches {
        *per_field.entry(field_of(&mismatch.pointer)).or_default() += 1;
    }
    let count = mismatches.len();
    let _ = write!(
        out,
        "{count} mismatch{}",
        if count == 1 { "" } else { "es" }
    );
    if !per_field.is_empty() {
        let fields: Vec<String> = per_field
            .iter()
            .map(|(field, n)| format!("{field}: {n}"))
            .collect();
        let _ = write!(out, " ({})", fields.join(", "));
    }
    out.push('\n');

    for mismatch in mismatches {
        out.push('\n');
        let place = if mismatch.pointer.is_empty() {
            "(document)".to_owned()
        } else {
            mismatch.pointer.clone()
        };
        if let Some(note) = &mismatch.note {
            let _ = writeln!(out, "{place}: {note}");
        }
        match (&mismatch.expected, &mismatch.actual) {
            (None, None) => {}
            (Some(expected), None) => {
                let _ = writeln!(out, "{place}: missing in actual");
                let _ = writeln!(out, "  expected: {}", inline_value(expected));
            }
            (None, Some(actual)) => {
                let _ = writeln!(out, "{place}: unexpected in actual");
                let _ = writeln!(out, "  actual:   {}", inline_value(actual));
            }
            (Some(Value::String(expected)), Some(Value::String(actual)))
                if expected.contains('\n') || actual.contains('\n') =>
            {
                let _ = writeln!(out, "{place}: changed (line diff: - expected, + actual)");
                for line in text::line_diff(expected, actual).lines() {
                    // Content never ends in whitespace (trailing spaces show as `·`), so trimming
                    // only drops the indent of an empty context line.
                    let row = format!("  {line}");
                    let _ = writeln!(out, "{}", row.trim_end());
                }
            }
            (Some(expected), Some(actual)) => {
                let _ = writeln!(out, "{place}: changed");
                let _ = writeln!(out, "  expected: {}", inline_value(expected));
                let _ = writeln!(out, "  actual:   {}", inline_value(actual));
            }
        }
    }
    out
}

/// A value as compact JSON on one line, its strings in the visible notation rather than escaped.
pub(crate) fn inline_value(value: &Value) -> String {
    let mut out = String::new();
    write_inline(value, &mut out);
    out
}

fn write_inline(value: &Value, out: &mut String) {
    match value {
        Value::String(text) => push_quoted(out, text),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_inline(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let keys: BTreeSet<&String> = map.keys().collect();
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_quoted(out, key);
                out.push(':');
                write_inline(&map[key], out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// `"text"` in the visible notation, with `"` and `\\` escaped as in JSON.
fn push_quoted(out: &mut String, text: &str) {
    out.push('"');
    out.push_str(
        &text::visible_inline(text)
            .replace('\\', "\\\\")
            .replace('"', "\\\""),
    );
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn golden(value: &Value) -> String {
        to_canonical_string(value)
    }

    fn reply() -> Value {
        json!({
            "inventory": {"skills": [{"name": "a", "description": "d", "location": "{root0}/a/SKILL.md"}], "skipped": []},
            "loads": [{"name": "a", "isError": false, "output": "x\ny\n"}],
            "prompt": "p",
        })
    }

    #[test]
    fn equal_when_bytes_match() {
        assert_eq!(compare(&golden(&reply()), &reply()), Comparison::Equal);
    }

    #[test]
    fn flipped_value_is_named_by_pointer() {
        let mut actual = reply();
        actual["loads"][0]["isError"] = json!(true);
        assert_eq!(
            compare(&golden(&reply()), &actual).mismatches(),
            [Mismatch {
                pointer: "/loads/0/isError".into(),
                expected: Some(json!(false)),
                actual: Some(json!(true)),
                note: None,
            }]
        );
    }

    #[test]
    fn golden_with_reordered_keys_is_not_equal() {
        let text = golden(&reply());
        let reordered = text.replacen(
            "\"description\": \"d\",\n        \"location\": \"{root0}/a/SKILL.md\",",
            "\"location\": \"{root0}/a/SKILL.md\",\n        \"description\": \"d\",",
            1,
        );
        assert_ne!(reordered, text);
        let comparison = compare(&reordered, &reply());
        let mismatches = comparison.mismatches();
        assert_eq!(mismatches.len(), 1);
        assert_eq!(mismatches[0].pointer, "");
        let note = mismatches[0].note.as_deref().unwrap();
        assert!(note.starts_with("the golden is not canonical JSON: it departs from its canonical form at line 5, column 10"), "{note}");
    }

    #[test]
    fn golden_with_one_space_changed_is_not_equal() {
        let text = golden(&reply()).replacen("\"prompt\": \"p\"", "\"prompt\":  \"p\"", 1);
        let comparison = compare(&text, &reply());
        assert!(!comparison.is_equal());
        assert!(comparison.mismatches()[0]
            .note
            .as_deref()
            .unwrap()
            .contains("not canonical"));
        // Missing trailing newline too.
        let text = golden(&reply());
        assert!(!compare(text.trim_end(), &reply()).is_equal());
    }

    #[test]
    fn invalid_golden_is_reported() {
        let comparison = compare("{", &reply());
        assert!(comparison.mismatches()[0]
            .note
            .as_deref()
            .unwrap()
            .starts_with("the golden is not valid JSON"));
    }

    #[test]
    fn missing_and_extra() {
        let mut actual = reply();
        actual.as_object_mut().unwrap().remove("prompt");
        actual["loads"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": "no-such-skill"}));
        actual["tool"] = json!(null);
        assert_eq!(
            compare(&golden(&reply()), &actual).mismatches(),
            [
                Mismatch::values(
                    "/loads/1".into(),
                    None,
                    Some(&json!({"name": "no-such-skill"}))
                ),
                Mismatch::values("/prompt".into(), Some(&json!("p")), None),
                Mismatch::values("/tool".into(), None, Some(&json!(null))),
            ]
        );
    }

    #[test]
    fn type_change_is_one_mismatch() {
        let expected = json!({"a": [1, 2]});
        let actual = json!({"a": {"0": 1}});
        assert_eq!(value_mismatches(&expected, &actual).len(), 1);
    }

    #[test]
    fn pointer_tokens_are_escaped() {
        let expected = json!({"a/b": {"~c": 1}});
        let actual = json!({"a/b": {"~c": 2}});
        assert_eq!(value_mismatches(&expected, &actual)[0].pointer, "/a~1b/~0c");
        assert_eq!(field_of("/a~1b/~0c"), "a/b");
    }

    fn json_strategy() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..3).prop_map(Value::from),
            "[a~/\t\n ]{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                proptest::collection::btree_map("[a~/]{0,2}", inner, 0..4)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn canonical_text_of_a_value_equals_it(value in json_strategy()) {
            proptest::prop_assert!(compare(&golden(&value), &value).is_equal());
        }

        #[test]
        fn every_mismatch_points_at_what_differs(expected in json_strategy(), actual in json_strategy()) {
            let comparison = compare(&golden(&expected), &actual);
            proptest::prop_assert_eq!(comparison.is_equal(), expected == actual);
            for mismatch in comparison.mismatches() {
                proptest::prop_assert!(mismatch.note.is_none());
                proptest::prop_assert_eq!(mismatch.expected.as_ref(), expected.pointer(&mismatch.pointer));
                proptest::prop_assert_eq!(mismatch.actual.as_ref(), actual.pointer(&mismatch.pointer));
                proptest::prop_assert_ne!(&mismatch.expected, &mismatch.actual);
            }
        }
    }

    #[test]
    fn first_difference_positions() {
        use text::first_difference;
        assert_eq!(first_difference("ab\ncd", "ab\ncx"), Some((2, 2)));
        assert_eq!(first_difference("é\n", "é"), Some((1, 2)));
        assert_eq!(first_difference("same", "same"), None);
    }
}
