//! Small substitutions, one at a time, swept left to right by the text layer (see
//! `minrepro_text::Language::sweeps`): a word replaced by a smaller word of the same text or by
//! `0`, and an empty bracket pair by `0`. After renaming, a small reproducer often still
//! declares something only to name it once more (`class g { class h {} h k() {} }`): using a
//! name that is there anyway (`g k()`) lets the declaration go; `long f = f / 0` needs `f`
//! declared where `0 / 0` does not; `"tier": {}` is a token larger than `"tier": 0`. Neither a
//! removal nor a rename (to an unused name) reaches those texts.
//!
//! On larger texts only the cheap subset that matters there is offered: a word that is a whole
//! element of a bracketed comma-separated list (`{ag, ac, 3300}`) and occurs elsewhere too
//! becomes `0`, so that an argument or field the reproducer no longer reads stops naming a
//! declaration, which can then go (`int ag; … z[n++]=(struct h){ag,ac,3300};` keeps `ag`
//! declared only for the initialiser).

use std::collections::{BTreeSet, HashMap};

use crate::lex::{Kind, Token};
use minrepro_text::Site;

/// Largest text (in counted tokens) offered substitutions: there are up to (words × distinct
/// words) sites, each tried alone, so they are a last-mile edit, like the runs of two and three
/// tokens ([`crate::token_sites::TOKEN_RUNS_MAX_TOKENS`]).
pub const SUBSTITUTE_MAX_TOKENS: usize = 32;

/// Largest text (in counted tokens) whose words that occur exactly twice are offered
/// substitutions: on a mid-size reproducer a name named twice is mostly declared once and used
/// once (`struct Job; … VecDeque<Job>`), and replacing the use by a word already there
/// (`VecDeque<fn>`, which rustc still types) lets the declaration and what it needed go
/// (the bench's `rust_borrow`: 82 → 72 tokens). Words named more often rarely free anything
/// by one occurrence, and a word named once is not declared elsewhere: both are left out, so
/// the sites stay a few per distinct word named twice.
pub const SUBSTITUTE_TWICE_MAX_TOKENS: usize = 128;

/// Tokens before a word that make it the first or a later element of a bracketed list.
const LIST_OPENERS: [&str; 4] = ["(", "[", "{", ","];
/// Tokens after a word that end its element.
const LIST_CLOSERS: [&str; 4] = [",", ")", "]", "}"];

/// The number every word may also become.
const ZERO: &str = "0";

/// Words in shortlex order (shorter first, then bytewise): a substitution is offered only
/// towards a smaller word, so a text never grows and two words never swap back and forth.
fn shortlex(word: &str) -> (usize, &str) {
    (word.len(), word)
}

/// Every empty bracket pair (`()`, `[]`, `{}`, blanks inside allowed) replaced by `0`; on a
/// text of at most [`SUBSTITUTE_MAX_TOKENS`] counted tokens, every word occurrence replaced by
/// `0` and by every distinct smaller word of the text (shortlex order, the smallest first); on
/// one of at most [`SUBSTITUTE_TWICE_MAX_TOKENS`] only the occurrences of words named exactly
/// twice; on a larger text than [`SUBSTITUTE_MAX_TOKENS`], every list word (see
/// [`list_words`]) replaced by `0` too (once); by position.
pub fn substitution_sites(text: &str, tokens: &[Token]) -> Vec<Site> {
    let counted: Vec<&Token> = tokens.iter().filter(|t| t.counts()).collect();
    let small = counted.len() <= SUBSTITUTE_MAX_TOKENS;
    let mid = !small && counted.len() <= SUBSTITUTE_TWICE_MAX_TOKENS;
    // How often each word occurs (what larger texts' sites depend on).
    let mut occurrences: HashMap<&str, usize> = HashMap::new();
    for token in counted.iter().filter(|t| !small && t.kind == Kind::Word) {
        *occurrences.entry(&text[token.range.clone()]).or_default() += 1;
    }
    // Which words are offered replacements: every word of a small text, the words named
    // exactly twice of a mid-size one.
    let offered = |word: &str| small || (mid && occurrences.get(word) == Some(&2));
    let mut listed = if small {
        Vec::new()
    } else {
        list_words(text, &counted, &occurrences)
    }
    .into_iter()
    .peekable();
    let words = counted
        .iter()
        .filter(|t| (small || mid) && t.kind == Kind::Word);
    // `0` too: the smallest replacement, an expression almost everywhere a name is one.
    let distinct: BTreeSet<(usize, &str)> = words
        .map(|t| shortlex(&text[t.range.clone()]))
        .chain([shortlex(ZERO)])
        .collect();
    let mut sites = Vec::new();
    for (i, token) in counted.iter().enumerate() {
        let here = &text[token.range.clone()];
        let closer = counted.get(i + 1).map(|t| &text[t.range.clone()]);
        if matches!(
            (here, closer),
            ("(", Some(")")) | ("[", Some("]")) | ("{", Some("}"))
        ) {
            sites.push(Site {
                kind: "zero-empty-brackets",
                range: token.range.start..counted[i + 1].range.end,
                replacement: ZERO.to_owned(),
            });
        }
        let zeroed = listed.next_if_eq(&i).is_some();
        if zeroed {
            sites.push(Site {
                kind: "zero-list-word",
                range: token.range.clone(),
                replacement: ZERO.to_owned(),
            });
        }
        if token.kind != Kind::Word || !offered(here) {
            continue;
        }
        for &(_, smaller) in distinct.range(..shortlex(here)) {
            if zeroed && smaller == ZERO {
                continue;
            }
            sites.push(Site {
                kind: "substitute-word",
                range: token.range.clone(),
                replacement: smaller.to_owned(),
            });
        }
    }
    sites
}

/// The indices (into `counted`) of the words that are a whole element of a bracketed
/// comma-separated list (the previous counted token is one of [`LIST_OPENERS`], the next one of
/// [`LIST_CLOSERS`]) and occur more than once in the text: a word named once declares nothing
/// another token needs, so making it `0` gains nothing later. Each such site is one run a round
/// until it fails (then it is skipped while its neighbouring tokens stay the same).
/// `uses`: how often each word occurs in the text.
fn list_words(text: &str, counted: &[&Token], uses: &HashMap<&str, usize>) -> Vec<usize> {
    let word = |t: &Token| (t.kind == Kind::Word).then(|| &text[t.range.clone()]);
    let is = |i: Option<usize>, set: &[&str]| {
        i.and_then(|i| counted.get(i))
            .is_some_and(|t| set.contains(&&text[t.range.clone()]))
    };
    (0..counted.len())
        .filter(|&i| word(counted[i]).is_some_and(|w| uses[w] > 1))
        .filter(|&i| is(i.checked_sub(1), &LIST_OPENERS) && is(Some(i + 1), &LIST_CLOSERS))
        .collect()
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

    /// `declarations` times `int a; ` (three tokens each): the filler that makes a text large.
    fn filler(declarations: usize) -> String {
        "int a; ".repeat(declarations)
    }

    #[test]
    fn each_occurrence_is_offered_every_smaller_word_of_the_text() {
        let text = "class g{ class h{} h k(){} }";
        let all = sites(text);
        let offered: Vec<(usize, &str)> = all
            .iter()
            .map(|s| (s.range.start, s.replacement.as_str()))
            .collect();
        // Every word → 0 first; `class` (twice) → g, h, k; `h` (twice) → g; `k` → g, h; and
        // the empty pairs `{}`, `()`, `{}` → 0.
        let class2 = text.rfind("class").unwrap();
        let g = text.find('g').unwrap();
        let (h1, h2) = (text.find('h').unwrap(), text.rfind('h').unwrap());
        let k = text.find('k').unwrap();
        let pairs: Vec<usize> = ["{}", "()", "(){}"]
            .iter()
            .map(|p| text.find(p).unwrap() + p.len() - 2)
            .collect();
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
            (pairs[0], "0"),
            (h2, "0"),
            (h2, "g"),
            (k, "0"),
            (k, "g"),
            (k, "h"),
            (pairs[1], "0"),
            (pairs[2], "0"),
        ];
        assert_eq!(offered, expected);
        let return_type = all
            .iter()
            .find(|s| s.range.start == h2 && s.replacement == "g")
            .unwrap();
        assert_eq!(apply(text, &[return_type]), "class g{ class h{} g k(){} }");
    }

    #[test]
    fn empty_bracket_pairs_become_zero_on_texts_of_any_size() {
        let text = filler(SUBSTITUTE_MAX_TOKENS) + "x = f( ) + {} + g[1];";
        let all = sites(&text);
        let kinds: Vec<&str> = all.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, ["zero-empty-brackets", "zero-empty-brackets"]);
        let zeroed = apply(&text, &all.iter().collect::<Vec<_>>());
        assert!(zeroed.ends_with("x = f0 + 0 + g[1];"), "{zeroed}");
    }

    #[test]
    fn on_a_mid_size_text_only_the_words_named_twice_are_offered() {
        // `Job` is named twice (declared, used), `x` once, `int` and `a` many times.
        let padding = filler(SUBSTITUTE_MAX_TOKENS / 3 + 1);
        let text = format!("enum Job; {padding}struct S {{ q: Vec<Job> }} x");
        let all = sites(&text);
        let (declared, used) = (text.find("Job").unwrap(), text.rfind("Job").unwrap());
        let at: Vec<usize> = all.iter().map(|s| s.range.start).collect();
        assert!(at.iter().all(|&a| a == declared || a == used), "{all:?}");
        // Every smaller word of the text (shortlex), `0` first; `Vec` and `int` are larger.
        let offered: Vec<&str> = all
            .iter()
            .filter(|s| s.range.start == used)
            .map(|s| s.replacement.as_str())
            .collect();
        assert_eq!(offered, ["0", "S", "a", "q", "x"]);
        let freed = all
            .iter()
            .find(|s| s.range.start == used && s.replacement == "S")
            .unwrap();
        assert!(apply(&text, &[freed]).ends_with("q: Vec<S> } x"));
        let large = format!("{text}{}", "b; ".repeat(SUBSTITUTE_TWICE_MAX_TOKENS));
        assert!(sites(&large).iter().all(|s| s.kind != "substitute-word"));
        // A list word named twice is made `0` once, by the list-word site.
        let listed = format!("{text} f(x);");
        let zeros: Vec<&str> = sites(&listed)
            .iter()
            .filter(|s| s.replacement == "0" && s.range.start == listed.rfind('x').unwrap())
            .map(|s| s.kind)
            .collect();
        assert_eq!(zeros, ["zero-list-word"]);
    }

    #[test]
    fn on_larger_texts_only_repeated_list_words_become_zero() {
        let text = filler(SUBSTITUTE_MAX_TOKENS)
            + "int ag; int ac; z=(struct h){ag,ac,3300}; f(ag); g[ac]; f(once); f(ag+1); x=ag,y;";
        let all = sites(&text);
        let at: Vec<(&str, usize)> = all.iter().map(|s| (s.kind, s.range.start)).collect();
        let expected: Vec<(&str, usize)> = ["{ag", ",ac", "(ag)", "[ac"]
            .iter()
            .map(|w| ("zero-list-word", text.find(w).unwrap() + 1))
            .collect();
        assert_eq!(at, expected);
        let zeroed = apply(&text, &all.iter().collect::<Vec<_>>());
        assert!(
            zeroed.ends_with("{0,0,3300}; f(0); g[0]; f(once); f(ag+1); x=ag,y;"),
            "{zeroed}"
        );
        assert!(zeroed.contains("int ag; int ac;"), "{zeroed}");
        // A small text keeps its word substitutions (`ag` -> `0`, `f`), with no second site
        // for a list word.
        let small = sites("int ag; f(ag, 1);");
        let ag = "int ag; f(".len();
        let kinds: Vec<&str> = small
            .iter()
            .filter(|s| s.range.start == ag)
            .map(|s| s.kind)
            .collect();
        assert_eq!(kinds, ["substitute-word", "substitute-word"]);
    }

    #[test]
    fn no_word_is_offered_on_larger_texts_outside_lists_or_without_words() {
        let large = filler(SUBSTITUTE_MAX_TOKENS);
        assert!(sites(&large).is_empty());
        let once = format!("{large}f(a0, b);");
        assert!(sites(&once).is_empty());
        assert!(sites("42 + \"b\"").is_empty());
        let only_zero: Vec<String> = sites("a a;").into_iter().map(|s| s.replacement).collect();
        assert_eq!(only_zero, ["0", "0"]);
    }
}
