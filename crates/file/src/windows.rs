//! Runs of N consecutive tokens removed, one group per N, each swept left to right by the text
//! layer (C-Vise's `rm-toks-N`; see `minrepro_text::Language::sweeps`): after the coarse groups
//! and the single tokens, what is left is mostly needed, and an edit that needs several
//! neighbouring tokens gone at once (`template < T >`, `-> d`) is found where it is for one run
//! per position, while ProbDD over overlapping runs mostly applies one run of each cluster and
//! pays again for every run it finds needed.

use crate::lex::Token;
use minrepro_text::Site;

/// The run lengths swept, one group each, in round order, after the single tokens: longer runs
/// first. Runs of three catch `long f =` of `long f = s / 0`, runs of four `template < T >`.
/// Longer runs are swept only later and on larger texts ([`LONG_WINDOW_SIZES`]): on a small
/// text a sweep costs a run per token for the rare construct that long, and swept before the
/// single tokens it takes what they would have found one by one (measured in bench/text).
pub const WINDOW_SIZES: [usize; 3] = [4, 3, 2];

/// Largest text (in counted tokens) swept: a sweep costs up to a run per token each round, and
/// pays only once the coarse groups have left a text whose tokens are mostly needed, which is
/// the size of a typical reproducer (tens of tokens); above it the runs buy little (measured in
/// bench/text).
pub const WINDOW_MAX_TOKENS: usize = 64;

/// The longer run lengths, swept last in the round (after the shortenings), only on texts too
/// large for [`WINDOW_SIZES`]' sweeps and at most [`LONG_WINDOW_MAX_TOKENS`]: there a construct
/// spanning several lines (a dead branch's `(( x )) then ... elif`) can go as one run, while on
/// the small texts the short sweeps cover, a long run is rarely removable where its short runs
/// were not (measured in bench/text).
pub const LONG_WINDOW_SIZES: [usize; 4] = [8, 7, 6, 5];

/// Largest text (in counted tokens) swept with [`LONG_WINDOW_SIZES`]: a sweep costs a run per
/// token, so its expected gain per run falls with the text's size; above a few hundred tokens
/// the coarser groups still remove more per run (measured in bench/text).
pub const LONG_WINDOW_MAX_TOKENS: usize = 400;

/// The text sizes (counted tokens) on which runs of `n` tokens are swept.
pub fn window_bounds(n: usize) -> std::ops::RangeInclusive<usize> {
    if n > WINDOW_SIZES[0] {
        long_bounds()
    } else {
        0..=WINDOW_MAX_TOKENS
    }
}

/// The text sizes (counted tokens) the longer runs, and the late short ones, are swept on.
fn long_bounds() -> std::ops::RangeInclusive<usize> {
    WINDOW_MAX_TOKENS + 1..=LONG_WINDOW_MAX_TOKENS
}

/// Stable names of the late groups, by run length (two and three; see [`LATE_WINDOW_SIZES`]).
pub const LATE_WINDOW_NAMES: [&str; 4] = [
    "late-window-0",
    "late-window-1",
    "late-window-2",
    "late-window-3",
];

/// Stable names of the groups, by run length (up to eight; see [`WINDOW_SIZES`] and
/// [`LONG_WINDOW_SIZES`]).
pub const WINDOW_NAMES: [&str; 9] = [
    "window-0", "window-1", "window-2", "window-3", "window-4", "window-5", "window-6", "window-7",
    "window-8",
];

/// Removal of every run of `n` consecutive counted tokens, by position (the run starting at the
/// k-th counted token is the k-th site, so the sites before an applied one stay the same); none
/// on a text whose counted tokens are outside [`window_bounds`] or fewer than `n`. Runs of one
/// token are `remove-token` sites, longer ones `remove-token-run` (as the token groups'), so a
/// run that failed alone in one group is not tried again by another on an unchanged neighbourhood.
pub fn window_sites(tokens: &[Token], n: usize) -> Vec<Site> {
    runs_of(tokens, n, window_bounds(n))
}

/// Runs of two and three tokens swept again, last in the round (after the longer runs), on the
/// texts the longer runs are swept on: a short run whose removal failed next to something
/// since removed (`int ae=0;` once the declaration before it went, `.len()` of `q.len();`) is
/// otherwise never tried on those texts.
pub const LATE_WINDOW_SIZES: [usize; 2] = [3, 2];

/// Removal of every run of `n` consecutive counted tokens on texts of 65 to 400 counted
/// tokens (see [`LATE_WINDOW_SIZES`]), like [`window_sites`].
pub fn late_window_sites(tokens: &[Token], n: usize) -> Vec<Site> {
    runs_of(tokens, n, long_bounds())
}

/// Runs of `n` counted tokens, by position, if the text's counted tokens are within `bounds`.
fn runs_of(tokens: &[Token], n: usize, bounds: std::ops::RangeInclusive<usize>) -> Vec<Site> {
    let counted: Vec<&Token> = tokens.iter().filter(|t| t.counts()).collect();
    if n == 0 || !bounds.contains(&counted.len()) {
        return Vec::new();
    }
    let kind = if n == 1 {
        "remove-token"
    } else {
        "remove-token-run"
    };
    counted
        .windows(n)
        .map(|w| Site::removal(kind, w[0].range.start..w[n - 1].range.end))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use crate::lex::{tokens, Syntax};

    #[test]
    fn runs_of_n_tokens_by_position_on_texts_up_to_the_limit() {
        let text = "template<T> f() { g; }";
        let toks = tokens(text, &Syntax::PLAIN);
        // 11 counted tokens: 8 runs of four, in position order.
        let sites = window_sites(&toks, 4);
        assert_eq!(sites.len(), 8);
        let out: Vec<String> = sites.iter().map(|s| apply(text, &[s])).collect();
        assert_eq!(out[0], " f() { g; }");
        assert_eq!(out[1], "template() { g; }");
        assert_eq!(out[7], "template<T> f() ");
        assert!(sites.iter().all(|s| s.kind == "remove-token-run"));
        let singles = window_sites(&toks, 1);
        assert_eq!(singles.len(), 11);
        assert_eq!(singles[0].kind, "remove-token");
        assert!(window_sites(&toks, 12).is_empty());
        // Runs longer than four only on texts of 65 to 400 tokens.
        assert!(window_sites(&toks, 5).is_empty());
        assert!(window_sites(&toks, 0).is_empty());
        assert!(WINDOW_SIZES
            .iter()
            .chain(&LONG_WINDOW_SIZES)
            .all(|&n| WINDOW_NAMES[n] == format!("window-{n}")));
        let large = "x ".repeat(WINDOW_MAX_TOKENS + 1);
        assert!(window_sites(&tokens(&large, &Syntax::PLAIN), 2).is_empty());
        let limit = "x ".repeat(WINDOW_MAX_TOKENS);
        assert_eq!(
            window_sites(&tokens(&limit, &Syntax::PLAIN), 2).len(),
            WINDOW_MAX_TOKENS - 1
        );
        assert!(window_sites(&tokens(&limit, &Syntax::PLAIN), 8).is_empty());
        let long = window_sites(&tokens(&large, &Syntax::PLAIN), 8);
        assert_eq!(long.len(), WINDOW_MAX_TOKENS + 1 - 7);
        assert_eq!(apply(&large, &[&long[0]]).trim_start(), "x ".repeat(57));
        let largest = "x ".repeat(LONG_WINDOW_MAX_TOKENS);
        assert_eq!(
            window_sites(&tokens(&largest, &Syntax::PLAIN), 5).len(),
            LONG_WINDOW_MAX_TOKENS - 4
        );
        let too_large = "x ".repeat(LONG_WINDOW_MAX_TOKENS + 1);
        assert!(window_sites(&tokens(&too_large, &Syntax::PLAIN), 5).is_empty());
        // The late short runs: on the long runs' texts only.
        assert!(late_window_sites(&tokens(&limit, &Syntax::PLAIN), 2).is_empty());
        assert!(late_window_sites(&tokens(&too_large, &Syntax::PLAIN), 2).is_empty());
        let late = late_window_sites(&tokens(&largest, &Syntax::PLAIN), 2);
        assert_eq!(late.len(), LONG_WINDOW_MAX_TOKENS - 1);
        assert!(late.iter().all(|s| s.kind == "remove-token-run"));
        assert!(LATE_WINDOW_SIZES
            .iter()
            .all(|&n| LATE_WINDOW_NAMES[n] == format!("late-window-{n}")));
    }
}
