//! Parsing a reply line as JSON that means one thing only: an object with the same key twice is
//! refused, instead of keeping the last value as `serde_json` does (a port could otherwise
//! answer two ways at once and be judged on whichever came last).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Why a line is not strict JSON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StrictJsonError {
    /// Not JSON at all.
    Invalid,
    /// An object names this key twice.
    DuplicateKey(String),
}

/// Parses `line` like `serde_json::from_str::<Value>`, but refuses duplicate object keys.
pub fn parse(line: &str) -> Result<Value, StrictJsonError> {
    let duplicate = RefCell::new(None);
    let mut deserializer = serde_json::Deserializer::from_str(line);
    let value = StrictValue(&duplicate)
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match (value, duplicate.into_inner()) {
        (_, Some(key)) => Err(StrictJsonError::DuplicateKey(key)),
        (Ok(value), None) => Ok(value),
        (Err(_), None) => Err(StrictJsonError::Invalid),
    }
}

/// Deserializes one JSON value, checking every object for duplicate keys; the first duplicate
/// found is left in the cell.
#[derive(Clone, Copy)]
struct StrictValue<'a>(&'a RefCell<Option<String>>);

impl<'de> DeserializeSeed<'de> for StrictValue<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictValue<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        Ok(Value::from(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(self)?;
            if object.contains_key(&key) {
                *self.0.borrow_mut() = Some(key);
                return Err(de::Error::custom("duplicate key"));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_refused_at_any_depth() {
        assert_eq!(
            parse(r#"{"case":"a","case":"b"}"#),
            Err(StrictJsonError::DuplicateKey("case".into()))
        );
        assert_eq!(
            parse(r#"{"inventory":{"skills":[{"name":"x","name":"y"}]}}"#),
            Err(StrictJsonError::DuplicateKey("name".into()))
        );
    }

    #[test]
    fn everything_else_parses_as_serde_json_does() {
        for line in [
            r#"{"a":[1,-2,3.5,true,null,"s\u00e9"],"b":{"c":{}},"d":18446744073709551615}"#,
            "[]",
            "\"x\"",
        ] {
            let plain: Value = serde_json::from_str(line).unwrap();
            assert_eq!(parse(line), Ok(plain), "{line}");
        }
        assert_eq!(parse("{not json"), Err(StrictJsonError::Invalid));
        assert_eq!(parse("{} {}"), Err(StrictJsonError::Invalid));
    }
}
