//! Argv templates with literal `{name}` placeholders.

use std::collections::BTreeSet;

use crate::error::TemplateError;

/// One argv item split into literal text and placeholders.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Placeholder(String),
}

/// A predicate's arguments with placeholders validated against the front end's allowed names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgTemplate {
    items: Vec<Vec<Piece>>,
    raw: Vec<String>,
}

impl ArgTemplate {
    /// Parses `args`; `{name}` with a name of letters, digits and `_` is a placeholder and must be
    /// one of `allowed`. Other braces are literal text.
    pub fn parse(args: &[String], allowed: &[&str]) -> Result<Self, TemplateError> {
        let mut items = Vec::with_capacity(args.len());
        for arg in args {
            let pieces = split(arg);
            for piece in &pieces {
                if let Piece::Placeholder(name) = piece {
                    if !allowed.contains(&name.as_str()) {
                        let known: Vec<String> =
                            allowed.iter().map(|n| format!("{{{n}}}")).collect();
                        return Err(TemplateError::UnknownPlaceholder {
                            name: name.clone(),
                            arg: arg.clone(),
                            known,
                        });
                    }
                }
            }
            items.push(pieces);
        }
        Ok(ArgTemplate {
            items,
            raw: args.to_vec(),
        })
    }

    /// The arguments as given (after file resolution), placeholders unexpanded.
    pub fn raw(&self) -> &[String] {
        &self.raw
    }

    /// Every placeholder name used.
    pub fn placeholders(&self) -> BTreeSet<&str> {
        self.items
            .iter()
            .flatten()
            .filter_map(|piece| match piece {
                Piece::Placeholder(name) => Some(name.as_str()),
                Piece::Text(_) => None,
            })
            .collect()
    }

    /// Whether `{name}` occurs anywhere.
    pub fn uses(&self, name: &str) -> bool {
        self.placeholders().contains(name)
    }

    /// Whether item `index` is plain text (no placeholder).
    pub fn is_literal(&self, index: usize) -> bool {
        self.items[index]
            .iter()
            .all(|p| matches!(p, Piece::Text(_)))
    }

    /// Replaces literal item `index` (used to make regular-file arguments absolute).
    pub fn replace_literal(&mut self, index: usize, text: String) {
        self.items[index] = vec![Piece::Text(text.clone())];
        self.raw[index] = text;
    }

    /// Expands every placeholder with `lookup`; a name it cannot expand is an error naming it.
    pub fn expand(
        &self,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<String>, TemplateError> {
        self.items
            .iter()
            .map(|pieces| {
                let mut out = String::new();
                for piece in pieces {
                    match piece {
                        Piece::Text(text) => out.push_str(text),
                        Piece::Placeholder(name) => match lookup(name) {
                            Some(value) => out.push_str(&value),
                            None => return Err(TemplateError::NoValue(name.clone())),
                        },
                    }
                }
                Ok(out)
            })
            .collect()
    }
}

fn split(arg: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut rest = arg;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let closes = after[name_len..].starts_with('}');
        let valid = closes && !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit());
        if valid {
            text.push_str(&rest[..open]);
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            pieces.push(Piece::Placeholder(name.to_owned()));
            rest = &after[name_len + 1..];
        } else {
            text.push_str(&rest[..=open]);
            rest = after;
        }
    }
    text.push_str(rest);
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn expands_placeholders_inside_text() {
        let t = ArgTemplate::parse(
            &args(&["--in={bundle}", "{workspace}/x", "{}", "{\"a\":1}"]),
            &["bundle", "workspace"],
        )
        .unwrap();
        let out = t.expand(&|name| Some(format!("<{name}>"))).unwrap();
        assert_eq!(
            out,
            args(&["--in=<bundle>", "<workspace>/x", "{}", "{\"a\":1}"])
        );
        assert!(t.uses("bundle") && !t.uses("input"));
    }

    #[test]
    fn unknown_placeholder_is_rejected_with_its_name() {
        let err = ArgTemplate::parse(&args(&["{bundel}"]), &["bundle"]).unwrap_err();
        assert!(
            err.to_string().contains("{bundel}") && err.to_string().contains("{bundle}"),
            "{err}"
        );
    }

    #[test]
    fn missing_value_is_an_error() {
        let t = ArgTemplate::parse(&args(&["{input}"]), &["input"]).unwrap();
        assert_eq!(
            t.expand(&|_| None).unwrap_err().to_string(),
            "placeholder {input} has no value here"
        );
    }
}
