//! JSON parsing for inputs: like `serde_json` (which already rejects NaN, Infinity and
//! out-of-range numbers), plus a report of duplicate object keys. The original reducer (Python's
//! `json`) accepts them and keeps the last value; so do we, but each one is reported so that the
//! caller can warn about it.

use std::fmt;

use std::cell::RefCell;

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// A parsed value.
struct Strict(Value);

/// Collects duplicate keys (as "key \"k\"") while parsing.
#[derive(Clone, Copy)]
struct StrictVisitor<'a> {
    duplicates: &'a RefCell<Vec<String>>,
}

impl<'de> DeserializeSeed<'de> for StrictVisitor<'_> {
    type Value = Strict;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for StrictVisitor<'_> {
    type Value = Strict;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E: Error>(self, v: bool) -> Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }
    fn visit_i64<E: Error>(self, v: i64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(v.into())))
    }
    fn visit_u64<E: Error>(self, v: u64) -> Result<Strict, E> {
        Ok(Strict(Value::Number(v.into())))
    }
    fn visit_f64<E: Error>(self, v: f64) -> Result<Strict, E> {
        Number::from_f64(v)
            .map(|n| Strict(Value::Number(n)))
            .ok_or_else(|| E::custom("non-finite number"))
    }
    fn visit_str<E: Error>(self, v: &str) -> Result<Strict, E> {
        Ok(Strict(Value::String(v.to_owned())))
    }
    fn visit_string<E: Error>(self, v: String) -> Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }
    fn visit_unit<E: Error>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_none<E: Error>(self) -> Result<Strict, E> {
        Ok(Strict(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        let mut items = Vec::new();
        while let Some(Strict(item)) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Strict(Value::Array(items)))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut object = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value_seed(self)?;
            if object.contains_key(&key) {
                self.duplicates.borrow_mut().push(format!("key {key:?}"));
            }
            // Like Python's json: the last value wins (at the first key's position).
            object.insert(key, value);
        }
        Ok(Strict(Value::Object(object)))
    }
}

/// Deepest nesting of arrays and objects accepted (serde_json's own recursion limit).
pub const MAX_DEPTH: usize = 128;

/// A parsed document and the duplicate keys it had (the last value of each was kept).
#[derive(Debug)]
pub struct Parsed {
    /// The document.
    pub value: Value,
    /// One `key "k"` per duplicate occurrence, in document order.
    pub duplicates: Vec<String>,
}

/// Parses `bytes` as JSON.
pub(crate) fn parse(bytes: &[u8]) -> Result<Parsed, String> {
    check_integers(bytes)?;
    let duplicates = RefCell::new(Vec::new());
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    StrictVisitor {
        duplicates: &duplicates,
    }
    .deserialize(&mut deserializer)
    .and_then(|value| deserializer.end().map(|()| value))
    .map(|s| Parsed {
        value: s.0,
        duplicates: duplicates.into_inner(),
    })
    .map_err(|e| {
        let text = e.to_string();
        if let Some(token) = non_finite_token(bytes) {
            return format!("non-finite JSON number {token:?} is not supported ({text})");
        }
        if text.starts_with("number out of range") {
            return format!("non-finite JSON number (out of range) is not supported ({text})");
        }
        if text.starts_with("recursion limit exceeded") {
            format!("arrays/objects are nested more than {MAX_DEPTH} levels deep ({text})")
        } else {
            text
        }
    })
}

/// The first `NaN`, `Infinity` or `-Infinity` outside strings (JSON has no such numbers).
fn non_finite_token(bytes: &[u8]) -> Option<&'static str> {
    let mut in_string = false;
    let mut index = 0;
    while index < bytes.len() {
        match (in_string, bytes[index]) {
            (true, b'\\') => index += 1,
            (true, b'"') | (false, b'"') => in_string = !in_string,
            (false, _) => {
                for token in ["NaN", "Infinity", "-Infinity"] {
                    if bytes[index..].starts_with(token.as_bytes()) {
                        return Some(token);
                    }
                }
            }
            _ => {}
        }
        index += 1;
    }
    None
}

/// Rejects integer literals outside the 64-bit range: serde_json would silently turn them into
/// floating-point numbers and the reduced metadata would carry a different value.
fn check_integers(bytes: &[u8]) -> Result<(), String> {
    let mut index = 0;
    let mut in_string = false;
    while index < bytes.len() {
        let byte = bytes[index];
        if in_string {
            match byte {
                b'\\' => index += 1,
                b'"' => in_string = false,
                _ => {}
            }
            index += 1;
            continue;
        }
        if byte == b'"' {
            in_string = true;
            index += 1;
            continue;
        }
        if byte == b'-' || byte.is_ascii_digit() {
            let start = index;
            while index < bytes.len()
                && matches!(bytes[index], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
            {
                index += 1;
            }
            let token = &bytes[start..index];
            let integer = !token.iter().any(|b| matches!(b, b'.' | b'e' | b'E'));
            if integer && token.iter().any(u8::is_ascii_digit) {
                let text = String::from_utf8_lossy(token);
                if text.parse::<i64>().is_err() && text.parse::<u64>().is_err() {
                    let shown: String = text.chars().take(40).collect();
                    let ellipsis = if text.len() > 40 { "…" } else { "" };
                    return Err(format!(
                        "integer {shown}{ellipsis} is outside the 64-bit range \
                         (it would silently lose precision)"
                    ));
                }
            }
            continue;
        }
        index += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_duplicates_and_rejects_non_finite_numbers() {
        let value = parse(br#"{"a": [1, -2, 2.5, "x", null, true, {"b": {}}]}"#)
            .unwrap()
            .value;
        assert_eq!(value["a"][2], 2.5);
        assert_eq!(value["a"][1], -2);
        // Python's json keeps the last value of a duplicate key; the duplicate is reported.
        let parsed = parse(br#"{"a": 1, "b": 0, "a": 2}"#).unwrap();
        assert_eq!(parsed.value, serde_json::json!({"a": 2, "b": 0}));
        assert_eq!(parsed.duplicates, ["key \"a\""]);
        let nested = parse(br#"[{"x": {"k": 1, "k": 1}}]"#).unwrap();
        assert_eq!(nested.duplicates.len(), 1);
        for bad in [
            &b"NaN"[..],
            b"[Infinity]",
            b"-Infinity",
            b"1e999",
            b"{",
            b"[1,]",
        ] {
            assert!(parse(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        // Integers that do not fit 64 bits would change value; deep nesting is a clear error.
        assert!(parse(b"[18446744073709551615, -9223372036854775808, 1e300, \"123456789012345678901234567890\"]").is_ok());
        for bad in [
            &b"[18446744073709551616]"[..],
            b"{\"a\": -9223372036854775809}",
        ] {
            assert!(parse(bad).unwrap_err().contains("outside the 64-bit range"));
        }
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(deep.as_bytes())
            .unwrap_err()
            .contains("nested more than 128 levels"));
        // Key order is preserved.
        let value = parse(br#"{"z": 1, "a": 2}"#).unwrap().value;
        assert_eq!(
            value.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["z", "a"]
        );
    }
}
