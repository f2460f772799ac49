//! Canonical JSON: the one byte form every golden and every compared reply takes.
//!
//! Keys sorted in code-point order (serde_json's default `Map` is a `BTreeMap`, and UTF-8 byte
//! order is code-point order), two-space indent, non-ASCII written as UTF-8 rather than escaped,
//! and one trailing newline. Two values are equal as JSON exactly when their canonical bytes are.

use serde::Serialize;

/// Serialises `value` in canonical form.
pub fn to_canonical_string<T: Serialize + ?Sized>(value: &T) -> String {
    // Going through `Value` sorts the keys of structs as well as of maps.
    let value = serde_json::to_value(value).expect("wire types always serialise to JSON");
    let mut text = serde_json::to_string_pretty(&value).expect("a JSON value always prints");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_by_code_point_and_utf8_is_unescaped() {
        let value = json!({"b": 1, "B": 2, "a": {"z": "é\u{1F600}", "ß": null}});
        assert_eq!(
            to_canonical_string(&value),
            "{\n  \"B\": 2,\n  \"a\": {\n    \"z\": \"é\u{1F600}\",\n    \"ß\": null\n  },\n  \"b\": 1\n}\n"
        );
    }
}
