//! YAML first (`TN-YAML-1` to `TN-YAML-3`): a real YAML parse, then `name` and `description` read as
//! written.
//!
//! Two passes over the same block. The first, into `serde_yaml_ng::Value`, decides whether the
//! block is YAML at all (duplicate keys at any depth, undefined aliases and tabs are errors) and
//! what *shape* each of the two keys has. The second reads the scalars of those two keys with
//! `deserialize_str`, which hands back the text as written after YAML's own quoting, escapes,
//! folding and comments — with no implicit typing, so `1.50`, `true` and `012` stay as written,
//! and a tag is dropped with its text kept.

use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde_yaml_ng::Value;

use crate::mutant::{Config, Mutant};

/// The shape YAML gave one of the two keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// Not there, or a plain `null`, `~` or empty value.
    Absent,
    /// A scalar, as written (not yet trimmed).
    Text(String),
    /// A sequence or a mapping: structurally wrong, one of the rescue's triggers.
    Structural,
}

/// What the YAML pass made of a block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Yaml {
    /// The parser refused the block; the message is the parser's own.
    Failed(String),
    /// The block parsed, but not to a mapping (empty and comment-only blocks are `null`).
    NotMapping,
    /// A mapping, with the two keys the loader reads.
    Mapping { name: Field, description: Field },
}

/// Parses a frontmatter block.
pub fn parse(config: &Config, block: &str) -> Yaml {
    let mut value: Value = match serde_yaml_ng::from_str(block) {
        Ok(value) => value,
        Err(error) => return Yaml::Failed(error.to_string()),
    };
    let merging = config.is(Mutant::MergeKeysApplied);
    if merging && value.apply_merge().is_err() {
        return Yaml::Failed("merge key on a non-mapping".to_owned());
    }
    let Value::Mapping(mapping) = untag(&value) else {
        return Yaml::NotMapping;
    };
    let shape = |key: &str| match mapping.get(key).map(untag) {
        None => Shape::Absent,
        Some(Value::Null) if !config.is(Mutant::NullIsString) => Shape::Absent,
        Some(Value::Sequence(_) | Value::Mapping(_)) => Shape::Structural,
        Some(_) => Shape::Scalar,
    };
    let name_shape = shape("name");
    let description_shape = shape("description");
    let wanted = Wanted {
        name: name_shape == Shape::Scalar,
        description: description_shape == Shape::Scalar,
    };
    // Under the merge mutant a key may exist only through `<<`, so its text is not in the
    // block; take the merged string instead.
    let merged = |key: &str| match mapping.get(key).map(untag) {
        Some(Value::String(text)) if merging => Some(text.clone()),
        _ => None,
    };
    let mut texts = if wanted.name || wanted.description {
        match wanted.deserialize(serde_yaml_ng::Deserializer::from_str(block)) {
            Ok(texts) => texts,
            // The first pass accepted the block, so the second cannot disagree; if it ever
            // does, the file is treated as YAML refused it, never silently loaded.
            Err(error) => return Yaml::Failed(error.to_string()),
        }
    } else {
        Texts::default()
    };
    texts.name = texts.name.or_else(|| merged("name"));
    texts.description = texts.description.or_else(|| merged("description"));
    let field = |shape: Shape, text: Option<String>| match shape {
        Shape::Absent => Field::Absent,
        Shape::Structural => Field::Structural,
        Shape::Scalar => text.map_or(Field::Absent, Field::Text),
    };
    Yaml::Mapping {
        name: field(name_shape, texts.name),
        description: field(description_shape, texts.description),
    }
}

fn untag(value: &Value) -> &Value {
    match value {
        Value::Tagged(tagged) => untag(&tagged.value),
        other => other,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Absent,
    Scalar,
    Structural,
}

/// Which of the two keys the second pass should read as text.
#[derive(Clone, Copy)]
struct Wanted {
    name: bool,
    description: bool,
}

#[derive(Default)]
struct Texts {
    name: Option<String>,
    description: Option<String>,
}

impl<'de> DeserializeSeed<'de> for Wanted {
    type Value = Texts;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Texts, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Wanted {
    type Value = Texts;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Texts, A::Error> {
        let mut texts = Texts::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key.0.as_deref() {
                Some("name") if self.name => texts.name = Some(map.next_value_seed(AsWritten)?),
                Some("description") if self.description => {
                    texts.description = Some(map.next_value_seed(AsWritten)?)
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(texts)
    }
}

/// A mapping key: its text when it is a string, `None` for any other key.
struct Key(Option<String>);

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(Some(v.to_owned())))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Key, E> {
                Ok(Key(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Key, E> {
                Ok(Key(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Key, E> {
                Ok(Key(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Key, E> {
                Ok(Key(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key(None))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Key, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Key(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Key, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Key(None))
            }
            fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Key, A::Error> {
                let (IgnoredAny, variant) = data.variant::<IgnoredAny>()?;
                de::VariantAccess::newtype_variant::<IgnoredAny>(variant)?;
                Ok(Key(None))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

/// Reads a scalar as written: `deserialize_str` skips YAML's implicit typing.
struct AsWritten;

impl<'de> DeserializeSeed<'de> for AsWritten {
    type Value = String;
    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for AsWritten {
    type Value = String;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a scalar")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        Ok(v.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapping(block: &str) -> (Field, Field) {
        match parse(&Config::default(), block) {
            Yaml::Mapping { name, description } => (name, description),
            other => panic!("{block:?} gave {other:?}"),
        }
    }

    fn text(s: &str) -> Field {
        Field::Text(s.to_owned())
    }

    #[test]
    fn scalars_are_read_as_written() {
        for (written, expected) in [
            ("1.50", "1.50"),
            ("true", "true"),
            ("yes", "yes"),
            ("012", "012"),
            ("0x1F", "0x1F"),
            ("1_000", "1_000"),
            ("1:20", "1:20"),
            (".inf", ".inf"),
            ("2024-01-01", "2024-01-01"),
            ("12345678901234567890", "12345678901234567890"),
            ("!!str 012", "012"),
            ("'null'", "null"),
            ("\"a\\tb\"", "a\tb"),
            ("plain # comment", "plain"),
        ] {
            let (_, description) = mapping(&format!("name: x\ndescription: {written}"));
            assert_eq!(description, text(expected), "{written}");
        }
    }

    #[test]
    fn plain_nulls_and_empty_values_are_absent() {
        for written in ["null", "Null", "NULL", "~", ""] {
            let (_, description) = mapping(&format!("name: x\ndescription: {written}"));
            assert_eq!(description, Field::Absent, "{written:?}");
        }
        let (_, description) = parse_mutated(Mutant::NullIsString, "name: x\ndescription: ~");
        assert_eq!(description, text("~"));
    }

    fn parse_mutated(mutant: Mutant, block: &str) -> (Field, Field) {
        match parse(&Config::mutated(mutant), block) {
            Yaml::Mapping { name, description } => (name, description),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sequences_and_mappings_are_structural() {
        assert_eq!(
            mapping("name: [a]\ndescription: {k: v}"),
            (Field::Structural, Field::Structural)
        );
        assert_eq!(mapping("name: !custom [a]").0, Field::Structural);
    }

    #[test]
    fn block_scalars_anchors_and_aliases_resolve() {
        let (_, d) = mapping("name: x\ndescription: |\n  one\n  two: three\n");
        assert_eq!(d, text("one\ntwo: three\n"));
        let (_, d) = mapping("name: x\ndescription: >\n  one\n  two\n");
        assert_eq!(d, text("one two\n"));
        let (_, d) = mapping("name: x\nbase: &d shared\ndescription: *d");
        assert_eq!(d, text("shared"));
    }

    #[test]
    fn refusals_are_failures_and_non_mappings_are_distinct() {
        for block in [
            "name: x\ndescription: Use when: y",
            "name: x\nname: y",
            "name: x\nmeta:\n  k: 1\n  k: 2",
            "name: x\nother: *nope",
            "name: x\ndescription: [unterminated, flow",
            "name: x\n\tdescription: tab",
        ] {
            assert!(
                matches!(parse(&Config::default(), block), Yaml::Failed(_)),
                "{block:?}"
            );
        }
        for block in ["", "# only a comment", "nocolon", "- a\n- b"] {
            assert_eq!(
                parse(&Config::default(), block),
                Yaml::NotMapping,
                "{block:?}"
            );
        }
    }
}
