//! Normalise: turn a port's raw `run` reply into the form that is compared.
//!
//! [`normalize`] does, in order:
//!
//! 1. **Redacts roots** in every JSON string, object keys included ([`Redactions`]): root `i`
//!    becomes `{rooti}` (always numbered, even for one root), in its raw spelling and in its
//!    percent-encoded spelling (upper-case hex; every byte but `A-Z a-z 0-9 - . _ ~ /` encoded).
//!    The scan runs left to right; at each position the longest matching spelling wins, so of
//!    `/t/r` and `/t/r/sub` the longer one names the paths below it, and a placeholder is never
//!    scanned again. A root given twice keeps its first index. Empty roots are ignored.
//! 2. Drops `case`, and every top-level field that `compare` does not list (an `error` too; the
//!    runner looks at it before normalising).
//! 3. Drops `detail` from each `inventory.skipped` entry (it is reported, never compared).
//! 4. Sorts `inventory.skills` and `inventory.skipped` by `location` (after redaction, so the
//!    order does not depend on where the sandbox is), then by the entry's canonical JSON, so
//!    the order is total. `loads` stays in request order.
//!
//! It never invents anything: a missing field stays missing, a value of the wrong type is kept
//! as it is, and the comparison reports it. Normalising twice gives the same value.
//!
//! When two distinct keys of one object redact to the same key, the one that sorts last in the
//! original wins (keys are visited in sorted order); this needs a reply that spells one root
//! both raw and encoded as keys of one object.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde_json::{Map, Value};
use skill_ref::canonical::to_canonical_string;

use crate::case::Field;

/// Root spellings and their placeholders, longest spelling first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Redactions {
    /// (spelling, placeholder); sorted by length descending, then spelling.
    entries: Vec<(String, String)>,
    /// The first character of each spelling, sorted and deduplicated: only where one of these
    /// stands can a spelling start.
    firsts: Vec<char>,
}

impl Redactions {
    /// The redactions for `roots`: `{root0}` for `roots[0]`, and so on.
    pub(crate) fn for_roots(roots: &[String]) -> Redactions {
        let mut entries: Vec<(String, String)> = Vec::new();
        for (index, root) in roots.iter().enumerate() {
            if root.is_empty() {
                continue;
            }
            for spelling in [root.clone(), percent_encode(root)] {
                if !entries.iter().any(|(known, _)| *known == spelling) {
                    entries.push((spelling, format!("{{root{index}}}")));
                }
            }
        }
        entries.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let mut firsts: Vec<char> = entries
            .iter()
            .filter_map(|(spelling, _)| spelling.chars().next())
            .collect();
        firsts.sort_unstable();
        firsts.dedup();
        Redactions { entries, firsts }
    }

    /// `text` with every root spelling replaced by its placeholder.
    ///
    /// Left to right, longest spelling first at each position (see the module doc). Only a
    /// position that holds the first character of some spelling can start a match, so the text
    /// between two such positions is copied in one piece: roots are absolute paths, and most
    /// strings hold few `/` (this was the runner's hottest function, one character at a time).
    pub(crate) fn redact_str(&self, text: &str) -> String {
        if self.entries.is_empty() {
            return text.to_owned();
        }
        let next_candidate = |rest: &str| match self.firsts.as_slice() {
            [only] => rest.find(*only),
            many => rest.find(many),
        };
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        'scan: while let Some(at) = next_candidate(rest) {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            for (spelling, placeholder) in &self.entries {
                if rest.starts_with(spelling.as_str()) {
                    out.push_str(placeholder);
                    rest = &rest[spelling.len()..];
                    continue 'scan;
                }
            }
            let c = rest
                .chars()
                .next()
                .expect("a candidate position holds a character");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out.push_str(rest);
        out
    }

    /// `value` with every string, object keys included, redacted.
    pub fn redact(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.redact_str(text)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.redact(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, v)| (self.redact_str(key), self.redact(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// The percent-encoded spelling of a root: the reference's own encoding of `file://` bases.
pub use skill_ref::skill_block::percent_encode;

/// The compared form of a raw reply (see the module doc).
pub(crate) fn normalize(reply: &Value, roots: &[String], compare: &BTreeSet<Field>) -> Value {
    let redacted = Redactions::for_roots(roots).redact(reply);
    let Value::Object(mut map) = redacted else {
        return redacted;
    };
    map.retain(|key, _| compare.iter().any(|field| field.as_str() == key));
    if let Some(Value::Object(inventory)) = map.get_mut(Field::Inventory.as_str()) {
        normalize_inventory(inventory);
    }
    Value::Object(map)
}

fn normalize_inventory(inventory: &mut Map<String, Value>) {
    if let Some(Value::Array(skipped)) = inventory.get_mut("skipped") {
        for entry in skipped.iter_mut() {
            if let Value::Object(entry) = entry {
                entry.remove("detail");
            }
        }
        sort_by_location(skipped);
    }
    if let Some(Value::Array(skills)) = inventory.get_mut("skills") {
        sort_by_location(skills);
    }
}

fn sort_by_location(entries: &mut [Value]) {
    let mut keyed: Vec<(Option<String>, String, Value)> = entries
        .iter()
        .map(|entry| {
            let location = entry.get("location").map(|location| match location {
                Value::String(text) => text.clone(),
                other => to_canonical_string(other),
            });
            (location, to_canonical_string(entry), entry.clone())
        })
        .collect();
    keyed.sort_by(|a, b| match (&a.0, &b.0) {
        (Some(x), Some(y)) => x.cmp(y).then_with(|| a.1.cmp(&b.1)),
        // Entries without a location go last.
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    for (slot, (_, _, entry)) in entries.iter_mut().zip(keyed) {
        *slot = entry;
    }
}

/// The compared form of any reply: an error reply compares as `{"error": MESSAGE}` (redacted),
/// anything else as [`normalize`] makes it.
pub(crate) fn compared_form(reply: &Value, roots: &[String], compare: &BTreeSet<Field>) -> Value {
    match reply.get("error") {
        Some(error) => {
            let mut map = Map::new();
            map.insert(
                "error".to_owned(),
                Redactions::for_roots(roots).redact(error),
            );
            Value::Object(map)
        }
        None => normalize(reply, roots, compare),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn roots(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn all_fields() -> BTreeSet<Field> {
        Field::ALL.into_iter().collect()
    }

    #[test]
    fn redaction_table() {
        let table: &[(&[&str], &str, &str)] = &[
            (&["/t/r"], "/t/r/a/SKILL.md", "{root0}/a/SKILL.md"),
            (
                &["/t/a", "/t/ab"],
                "/t/ab/x and /t/a/x",
                "{root1}/x and {root0}/x",
            ),
            (
                &["/t/ab", "/t/a"],
                "/t/ab/x and /t/a/x",
                "{root0}/x and {root1}/x",
            ),
            (
                &["/t/r", "/t/r/sub"],
                "/t/r/sub/s/SKILL.md",
                "{root1}/s/SKILL.md",
            ),
            (
                &["/t/r/sub", "/t/r"],
                "/t/r/x/SKILL.md",
                "{root1}/x/SKILL.md",
            ),
            (&["/t/r", "/t/r"], "/t/r/x", "{root0}/x"),
            (&["/t/r"], "file:///t/r/a/", "file://{root0}/a/"),
            (
                &["/t/my root"],
                "file:///t/my%20root/a/ and /t/my root/a",
                "file://{root0}/a/ and {root0}/a",
            ),
            (
                &["/t/é"],
                "/t/%C3%A9/x /t/é/x /t/%c3%a9/x",
                "{root0}/x {root0}/x /t/%c3%a9/x",
            ),
            (&["/t/r"], "no root here", "no root here"),
            (&[""], "/t/r", "/t/r"),
            (&[], "/t/r", "/t/r"),
        ];
        for (roots_list, input, expected) in table {
            let redactions = Redactions::for_roots(&roots(roots_list));
            assert_eq!(
                redactions.redact_str(input),
                *expected,
                "roots {roots_list:?}"
            );
        }
    }

    #[test]
    fn percent_encoding_is_upper_case_and_keeps_unreserved() {
        assert_eq!(
            percent_encode("/a-b.c_d~e/f g%é+"),
            "/a-b.c_d~e/f%20g%25%C3%A9%2B"
        );
    }

    #[test]
    fn keys_are_redacted_too() {
        let value = json!({"/t/r/a": {"nested": ["/t/r", {"/t/r": 1}]}});
        assert_eq!(
            Redactions::for_roots(&roots(&["/t/r"])).redact(&value),
            json!({"{root0}/a": {"nested": ["{root0}", {"{root0}": 1}]}})
        );
    }

    #[test]
    fn normalize_drops_sorts_and_filters() {
        let reply = json!({
            "case": "g/c",
            "inventory": {
                "skills": [
                    {"name": "b", "description": null, "location": "/t/r/b/SKILL.md"},
                    {"name": "a", "description": "d", "location": "/t/r/a/SKILL.md"},
                ],
                "skipped": [
                    {"location": "/t/r/z/SKILL.md", "reason": "missing-name", "detail": "x"},
                    {"location": "/t/r/m/SKILL.md", "reason": "unreadable", "detail": null},
                ],
            },
            "loads": [
                {"name": "b", "isError": false, "output": "base file:///t/r/b/"},
                {"name": "a", "isError": false, "output": "a"},
            ],
            "prompt": "p /t/r",
            "tool": {"name": "skill"},
            "extra": true,
        });
        let compare = Field::default_set();
        assert_eq!(
            normalize(&reply, &roots(&["/t/r"]), &compare),
            json!({
                "inventory": {
                    "skills": [
                        {"name": "a", "description": "d", "location": "{root0}/a/SKILL.md"},
                        {"name": "b", "description": null, "location": "{root0}/b/SKILL.md"},
                    ],
                    "skipped": [
                        {"location": "{root0}/m/SKILL.md", "reason": "unreadable"},
                        {"location": "{root0}/z/SKILL.md", "reason": "missing-name"},
                    ],
                },
                "loads": [
                    {"name": "b", "isError": false, "output": "base file://{root0}/b/"},
                    {"name": "a", "isError": false, "output": "a"},
                ],
                "prompt": "p {root0}",
            })
        );
    }

    #[test]
    fn compare_selects_fields_and_missing_stays_missing() {
        let reply = json!({"case": "g/c", "inventory": {"skills": [], "skipped": []}, "tool": 1});
        let compare = BTreeSet::from([Field::Inventory, Field::Prompt, Field::Tool]);
        assert_eq!(
            normalize(&reply, &[], &compare),
            json!({"inventory": {"skills": [], "skipped": []}, "tool": 1})
        );
        let only_inventory = BTreeSet::from([Field::Inventory]);
        assert_eq!(
            normalize(&reply, &[], &only_inventory),
            json!({"inventory": {"skills": [], "skipped": []}})
        );
    }

    #[test]
    fn sort_is_after_redaction_and_total() {
        // Raw order puts root1's path first; redacted order puts {root0} first.
        let reply = json!({"inventory": {"skills": [
            {"name": "y", "location": "/t/a/SKILL.md"},
            {"name": "x", "location": "/t/b/SKILL.md"},
            {"name": "w", "location": "/t/b/SKILL.md"},
            {"name": "nowhere"},
        ], "skipped": []}});
        let normal = normalize(&reply, &roots(&["/t/b", "/t/a"]), &all_fields());
        let names: Vec<&str> = normal["inventory"]["skills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["w", "x", "y", "nowhere"]);
    }

    #[test]
    fn odd_shapes_are_kept_not_fixed() {
        assert_eq!(
            normalize(&json!("/t/r"), &roots(&["/t/r"]), &all_fields()),
            json!("{root0}")
        );
        let reply = json!({"inventory": {"skills": "nope", "skipped": [1, {"detail": 2}]}});
        assert_eq!(
            normalize(&reply, &[], &all_fields()),
            json!({"inventory": {"skills": "nope", "skipped": [1, {}]}})
        );
    }

    /// The scan as the module doc states it: at every position, the longest spelling that
    /// starts there, else the one character.
    fn every_position(redactions: &Redactions, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        'scan: while let Some(c) = rest.chars().next() {
            for (spelling, placeholder) in &redactions.entries {
                if rest.starts_with(spelling.as_str()) {
                    out.push_str(placeholder);
                    rest = &rest[spelling.len()..];
                    continue 'scan;
                }
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }

    fn root_strategy() -> impl Strategy<Value = String> {
        proptest::collection::vec("[a-c]{1,2}", 1..4)
            .prop_map(|parts| format!("/{}", parts.join("/")))
    }

    fn reply_strategy() -> impl Strategy<Value = (Vec<String>, Value)> {
        (proptest::collection::vec(root_strategy(), 1..4), proptest::collection::vec("[a-c/ %]{0,12}", 0..6))
            .prop_map(|(roots, tails)| {
                let skills: Vec<Value> = tails
                    .iter()
                    .enumerate()
                    .map(|(i, tail)| {
                        let root = &roots[i % roots.len()];
                        json!({"name": tail, "location": format!("{root}/{tail}"), "description": null})
                    })
                    .collect();
                let skipped: Vec<Value> = tails
                    .iter()
                    .map(|tail| json!({"location": tail, "reason": "missing-name", "detail": tail}))
                    .collect();
                let prompt = tails.join(&roots[0]);
                let reply = json!({
                    "case": "g/c",
                    "inventory": {"skills": skills, "skipped": skipped},
                    "loads": [{"name": "x", "isError": true, "output": prompt.clone()}],
                    "prompt": prompt,
                });
                (roots, reply)
            })
    }

    proptest! {
        #[test]
        fn normalising_twice_is_idempotent((roots, reply) in reply_strategy()) {
            let compare = all_fields();
            let once = normalize(&reply, &roots, &compare);
            let twice = normalize(&once, &roots, &compare);
            prop_assert_eq!(once, twice);
        }

        #[test]
        fn path_names_the_longest_root_it_starts_with(
            roots in proptest::collection::vec(root_strategy(), 1..5),
            pick in 0usize..5,
            tail in "(/[a-c]{1,3}){0,3}",
        ) {
            let path = format!("{}{}", roots[pick % roots.len()], tail);
            let (index, longest) = roots
                .iter()
                .enumerate()
                .filter(|(_, root)| path.starts_with(root.as_str()))
                .max_by(|(i, a), (j, b)| a.len().cmp(&b.len()).then(j.cmp(i)))
                .unwrap();
            let redacted = Redactions::for_roots(&roots).redact_str(&path);
            let expected_start = format!("{{root{index}}}");
            prop_assert!(redacted.starts_with(&expected_start), "{} -> {}", path, redacted);
            prop_assert!(!redacted.contains(longest.as_str()));
        }

        #[test]
        fn the_scan_equals_trying_every_position(
            roots in proptest::collection::vec("[/aé%]{0,4}", 0..4),
            text in "[/aé%b]{0,24}",
        ) {
            let redactions = Redactions::for_roots(&roots);
            prop_assert_eq!(redactions.redact_str(&text), every_position(&redactions, &text));
        }

        #[test]
        fn text_without_roots_is_unchanged(text in "[^/]{0,20}", roots in proptest::collection::vec(root_strategy(), 0..3)) {
            prop_assert_eq!(Redactions::for_roots(&roots).redact_str(&text), text);
        }
    }
}
