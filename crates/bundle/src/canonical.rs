//! The original reducer's canonical JSON: compact separators, keys sorted by code point, every
//! non-ASCII or control character escaped as `\uXXXX` (lowercase hex, surrogate pairs beyond the
//! BMP), and floating-point numbers printed the way Python's `repr` prints them (`60.0`, `1e+16`,
//! `1e-05`). Candidate digests, cache keys and the reduction log are computed over these bytes,
//! so they equal the original's for the same content.

use std::io::Write;

use serde_json::{Number, Value};
use sha2::{Digest, Sha256};

/// Canonical bytes of `value`.
pub fn to_bytes(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(value, &mut out).expect("writing to memory never fails");
    out
}

/// Hex SHA-256 of the canonical bytes of `value`.
pub fn sha256_hex(value: &Value) -> String {
    let mut hasher = Sha256::new();
    write_value(value, &mut Sha256Writer(&mut hasher)).expect("hashing never fails");
    hex(&hasher.finalize())
}

/// Lowercase hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes of a hex string (`None` if it is not hex of whole bytes).
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A writer that feeds a SHA-256.
pub struct Sha256Writer<'a>(pub &'a mut Sha256);

impl Write for Sha256Writer<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `value` canonically.
pub fn write_value(value: &Value, out: &mut dyn Write) -> std::io::Result<()> {
    match value {
        Value::Null => out.write_all(b"null"),
        Value::Bool(true) => out.write_all(b"true"),
        Value::Bool(false) => out.write_all(b"false"),
        Value::Number(number) => out.write_all(number_text(number).as_bytes()),
        Value::String(text) => write_string(text, out),
        Value::Array(items) => {
            out.write_all(b"[")?;
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.write_all(b",")?;
                }
                write_value(item, out)?;
            }
            out.write_all(b"]")
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            write_object(entries.into_iter(), out)
        }
    }
}

/// Writes an object whose entries are already in key order.
pub fn write_object<'a>(
    entries: impl Iterator<Item = (&'a String, &'a Value)>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    out.write_all(b"{")?;
    for (index, (key, value)) in entries.enumerate() {
        if index > 0 {
            out.write_all(b",")?;
        }
        write_string(key, out)?;
        out.write_all(b":")?;
        write_value(value, out)?;
    }
    out.write_all(b"}")
}

/// Writes a string with Python's `ensure_ascii` escaping.
pub fn write_string(text: &str, out: &mut dyn Write) -> std::io::Result<()> {
    let mut buffer = String::with_capacity(text.len() + 2);
    buffer.push('"');
    for c in text.chars() {
        match c {
            '"' => buffer.push_str("\\\""),
            '\\' => buffer.push_str("\\\\"),
            '\n' => buffer.push_str("\\n"),
            '\r' => buffer.push_str("\\r"),
            '\t' => buffer.push_str("\\t"),
            '\u{8}' => buffer.push_str("\\b"),
            '\u{c}' => buffer.push_str("\\f"),
            ' '..='~' => buffer.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    buffer.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    buffer.push('"');
    out.write_all(buffer.as_bytes())
}

/// A number as Python's `json.dumps` prints it: integers in decimal, floats as `repr`.
pub fn number_text(number: &Number) -> String {
    if let Some(integer) = number.as_i64() {
        integer.to_string()
    } else if let Some(integer) = number.as_u64() {
        integer.to_string()
    } else {
        python_float_repr(number.as_f64().unwrap_or(0.0))
    }
}

/// Python's `repr` of a finite float: the shortest round-trip digits, fixed notation for
/// decimal exponents from -4 to 15, scientific (`1e+16`, `1.5e-07`) otherwise.
pub fn python_float_repr(value: f64) -> String {
    let sign = if value.is_sign_negative() { "-" } else { "" };
    // `{:e}` gives the shortest round-trip digits as `d.ddde[-]x`.
    let scientific = format!("{:e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let point = exponent + 1; // digits before the decimal point
    let count = digits.len() as i32;
    let body = if !(-3..=16).contains(&point) {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exponent_sign = if exponent < 0 { '-' } else { '+' };
        format!("{first}{fraction}e{exponent_sign}{:02}", exponent.abs())
    } else if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point < count {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    } else {
        format!("{digits}{}.0", "0".repeat((point - count) as usize))
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_like_python_repr() {
        // Each pair was printed by CPython 3.11's repr.
        let cases = [
            (60.0, "60.0"),
            (5.0, "5.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.5, "1.5"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (1.2345e16, "1.2345e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (-2.5e-300, "-2.5e-300"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (0.3, "0.3"),
            (2.0 / 3.0, "0.6666666666666666"),
        ];
        for (value, text) in cases {
            assert_eq!(python_float_repr(value), text, "{value}");
        }
    }

    #[test]
    fn canonical_json_sorts_compacts_and_escapes() {
        let value = json!({"b": [1, 2.5, null, true], "a": "é\u{1F600}\n\u{7f}\"\\/", "A": {"z": {}, "y": []}});
        assert_eq!(
            String::from_utf8(to_bytes(&value)).unwrap(),
            r#"{"A":{"y":[],"z":{}},"a":"\u00e9\ud83d\ude00\n\u007f\"\\/","b":[1,2.5,null,true]}"#
        );
        // sha256 of the canonical bytes of {"a": [1]} ('{"a":[1]}').
        assert_eq!(
            sha256_hex(&json!({"a": [1]})),
            hex(&Sha256::digest(br#"{"a":[1]}"#))
        );
        assert_eq!(unhex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(unhex("0g"), None);
    }
}
