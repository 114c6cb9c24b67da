//! Words replaced by a smaller word of the same text or by `0`, one occurrence at a time, swept left to
//! right by the text layer (see `minrepro_text::Language::sweeps`). After renaming, a small
//! reproducer often still declares something only to name it once more (`class g { class h {}
//! h k() {} }`): using a name that is there anyway (`g k()`) lets the declaration go. Neither a
//! removal nor a rename (to an unused name) reaches that text.

use std::collections::BTreeSet;

use crate::lex::{Kind, Token};
use crate::Site;

/// Largest text (in counted tokens) offered substitutions: there are up to (words × distinct
/// words) sites, each tried alone, so they are a last-mile edit, like the runs of two and three
/// tokens ([`crate::lexical::TOKEN_RUNS_MAX_TOKENS`]).
pub const SUBSTITUTE_MAX_TOKENS: usize = 32;

/// The number every word may also become.
const ZERO: &str = "0";

/// Words in shortlex order (shorter first, then bytewise): a substitution is offered only
/// towards a smaller word, so a text never grows and two words never swap back and forth.
fn shortlex(word: &str) -> (usize, &str) {
    (word.len(), word)
}

/// Every word occurrence replaced by `0` and by every distinct smaller word of the text
/// (shortlex order), by position, the smallest replacement first; none on a text of more than
/// [`SUBSTITUTE_MAX_TOKENS`] counted tokens.
pub fn substitution_sites(text: &str, tokens: &[Token]) -> Vec<Site> {
    if tokens.iter().filter(|t| t.counts()).count() > SUBSTITUTE_MAX_TOKENS {
        return Vec::new();
    }
    let words: Vec<&Token> = tokens.iter().filter(|t| t.kind == Kind::Word).collect();
    // `0` too: the smallest replacement, an expression almost everywhere a name is one
    // (`long f = 0 / 0` lets `long f =` go where `f / 0` needed the declaration).
    let distinct: BTreeSet<(usize, &str)> = words
        .iter()
        .map(|t| shortlex(&text[t.range.clone()]))
        .chain([shortlex(ZERO)])
        .collect();
    let mut sites = Vec::new();
    for token in words {
        let word = shortlex(&text[token.range.clone()]);
        for &(_, smaller) in distinct.range(..word) {
            sites.push(Site {
                kind: "substitute-word",
                range: token.range.clone(),
                replacement: smaller.to_owned(),
            });
        }
    }
    sites
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use crate::lex::{tokens, Syntax};
    use std::path::Path;

    fn sites(text: &str) -> Vec<Site> {
        let syntax = Syntax::for_path(Path::new("a.java"));
        substitution_sites(text, &tokens(text, &syntax))
    }

    #[test]
    fn each_occurrence_is_offered_every_smaller_word_of_the_text() {
        let text = "class g{ class h{} h k(){} }";
        let all = sites(text);
        let offered: Vec<(usize, &str)> = all
            .iter()
            .map(|s| (s.range.start, s.replacement.as_str()))
            .collect();
        // Every word → 0 first; `class` (twice) → g, h, k; `h` (twice) → g; `k` → g, h.
        let class2 = text.rfind("class").unwrap();
        let g = text.find('g').unwrap();
        let (h1, h2) = (text.find('h').unwrap(), text.rfind('h').unwrap());
        let k = text.find('k').unwrap();
        let expected = [
            (0, "0"),
            (0, "g"),
            (0, "h"),
            (0, "k"),
            (g, "0"),
            (class2, "0"),
            (class2, "g"),
            (class2, "h"),
            (class2, "k"),
            (h1, "0"),
            (h1, "g"),
            (h2, "0"),
            (h2, "g"),
            (k, "0"),
            (k, "g"),
            (k, "h"),
        ];
        assert_eq!(offered, expected);
        let return_type = all
            .iter()
            .find(|s| s.range.start == h2 && s.replacement == "g")
            .unwrap();
        assert_eq!(apply(text, &[return_type]), "class g{ class h{} g k(){} }");
    }

    #[test]
    fn nothing_is_offered_on_larger_texts_or_without_words() {
        let large = "int a; ".repeat(SUBSTITUTE_MAX_TOKENS);
        assert!(sites(&large).is_empty());
        assert!(sites("42 + \"b\"").is_empty());
        let only_zero: Vec<String> = sites("a a;").into_iter().map(|s| s.replacement).collect();
        assert_eq!(only_zero, ["0", "0"]);
    }
}
