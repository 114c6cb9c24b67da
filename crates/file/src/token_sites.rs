//! Token-level sites: comments, single tokens, identifiers renamed shorter, string literals
//! emptied or halved, integers reduced, and whitespace normalisation.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;

use minrepro_text::SiteInfo;

use crate::lex::{Kind, Token};
use minrepro_text::Site;

/// Removal of every comment.
pub fn comment_sites(tokens: &[Token]) -> Vec<Site> {
    tokens
        .iter()
        .filter(|t| t.kind == Kind::Comment)
        .map(|t| Site::removal("remove-comment", t.range.clone()))
        .collect()
}

/// Removal of every counted token (runs of tokens also come from the search's chunks, and
/// from [`token_run_sites`]).
pub fn token_sites(tokens: &[Token]) -> Vec<Site> {
    tokens
        .iter()
        .filter(|t| t.counts())
        .map(|t| Site::removal("remove-token", t.range.clone()))
        .collect()
}

/// Largest text (in counted tokens) offered runs of tokens: the runs are last-mile edits, each
/// tried alone once its line changes, so on a larger text they cost about a run per token for
/// little gain (measured in bench/text).
pub const TOKEN_RUNS_MAX_TOKENS: usize = 32;

/// Removal of every run of two and of three consecutive counted tokens (C-Vise's `rm-toks-2`
/// and `rm-toks-3`: `long f =` of `long f = x / 0;`, or `-> d`), runs of two first; none on a
/// text of more than [`TOKEN_RUNS_MAX_TOKENS`] tokens. Runs overlap: a selection applies the
/// first of overlapping runs only.
pub fn token_run_sites(tokens: &[Token]) -> Vec<Site> {
    let counted: Vec<&Token> = tokens.iter().filter(|t| t.counts()).collect();
    if counted.len() > TOKEN_RUNS_MAX_TOKENS {
        return Vec::new();
    }
    (2..=3)
        .flat_map(|n| {
            counted.windows(n).map(|w| {
                Site::removal(
                    "remove-token-run",
                    w[0].range.start..w[w.len() - 1].range.end,
                )
            })
        })
        .collect()
}

/// The `n`-th name of `a, b, …, z, aa, ab, …`.
fn short_name(mut n: usize) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'a' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).expect("ascii")
}

/// One site per identifier that a shorter unused name can replace: its range spans the first
/// to the last occurrence and its replacement renames every occurrence in between, so a rename
/// is never applied halfway. Identifiers are taken in order of first occurrence.
pub fn rename_sites(text: &str, tokens: &[Token]) -> Vec<Site> {
    let mut occurrences: BTreeMap<usize, (&str, Vec<usize>)> = BTreeMap::new();
    let mut first: std::collections::HashMap<&str, usize> = Default::default();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind == Kind::Word {
            let word = &text[t.range.clone()];
            let key = *first.entry(word).or_insert(t.range.start);
            occurrences
                .entry(key)
                .or_insert((word, Vec::new()))
                .1
                .push(i);
        }
    }
    let used: HashSet<&str> = first.keys().copied().collect();
    let mut fresh = (0..).map(short_name).filter(|n| !used.contains(n.as_str()));
    let mut out = Vec::new();
    for (word, at) in occurrences.into_values() {
        if word.len() <= 1 {
            continue;
        }
        let name = fresh.next().expect("infinite");
        if name.len() >= word.len() {
            continue;
        }
        let start = tokens[at[0]].range.start;
        let end = tokens[*at.last().expect("non-empty")].range.end;
        let mut replacement = String::new();
        let mut pos = start;
        for &k in &at {
            replacement.push_str(&text[pos..tokens[k].range.start]);
            replacement.push_str(&name);
            pos = tokens[k].range.end;
        }
        out.push(Site {
            kind: "rename-identifier",
            range: start..end,
            replacement,
        });
    }
    out
}

/// String literals emptied (`half == false`) or cut to the first half of their contents.
pub fn string_sites(text: &str, tokens: &[Token], half: bool) -> Vec<Site> {
    tokens
        .iter()
        .filter(|t| t.kind == Kind::Str && t.range.len() > 2)
        .filter_map(|t| {
            let inner = &text[t.range.start + 1..t.range.end - 1];
            let keep = if half {
                let mut cut = inner.len() / 2;
                while !inner.is_char_boundary(cut) {
                    cut -= 1;
                }
                // Never cut between a backslash and the character it escapes.
                let backslashes = inner[..cut]
                    .bytes()
                    .rev()
                    .take_while(|&b| b == b'\\')
                    .count();
                cut -= backslashes % 2;
                if cut == 0 {
                    return None;
                }
                &inner[..cut]
            } else {
                ""
            };
            Some(Site {
                kind: if half { "halve-string" } else { "empty-string" },
                range: t.range.start + 1..t.range.end - 1,
                replacement: keep.to_string(),
            })
        })
        .collect()
}

/// Integer literals (decimal or `0x` hexadecimal, without suffix) replaced by `0`
/// (`half == false`) or by half their value.
pub fn integer_sites(text: &str, tokens: &[Token], half: bool) -> Vec<Site> {
    tokens
        .iter()
        .filter(|t| t.kind == Kind::Number)
        .filter_map(|t| {
            let literal = &text[t.range.clone()];
            let value = if let Some(hex) = literal.strip_prefix("0x") {
                u128::from_str_radix(hex, 16).ok()?
            } else if literal.bytes().all(|b| b.is_ascii_digit()) {
                literal.parse::<u128>().ok()?
            } else {
                return None;
            };
            let replacement = match (half, value) {
                (false, _) if literal != "0" => "0".to_string(),
                (true, 2..) => (value / 2).to_string(),
                _ => return None,
            };
            (replacement != literal).then(|| Site {
                kind: if half {
                    "halve-integer"
                } else {
                    "zero-integer"
                },
                range: t.range.clone(),
                replacement,
            })
        })
        .collect()
}

/// Whitespace normalisation: blank lines and trailing whitespace removed, runs of spaces made
/// one space, spaces next to punctuation removed, and (unless `indented`) indentation removed.
/// Spaces between two words or numbers are kept, so no two tokens merge.
pub fn blank_sites(text: &str, tokens: &[Token], indented: bool) -> Vec<Site> {
    let mut out = Vec::new();
    for line in tokens.split_inclusive(|t| t.kind == Kind::Newline) {
        let (first, last) = (&line[0], &line[line.len() - 1]);
        if line.iter().all(|t| !t.counts()) {
            out.push(Site::removal(
                "remove-blank-line",
                first.range.start..last.range.end,
            ));
            continue;
        }
        let word_like =
            |t: Option<&Token>| t.is_some_and(|t| matches!(t.kind, Kind::Word | Kind::Number));
        for (i, t) in line.iter().enumerate() {
            if t.kind != Kind::Space {
                continue;
            }
            let prev = i.checked_sub(1).map(|k| &line[k]);
            let next = line.get(i + 1).filter(|n| n.kind != Kind::Newline);
            let site = if prev.is_none() {
                (!indented).then(|| Site::removal("remove-indentation", t.range.clone()))
            } else if next.is_none() {
                Some(Site::removal("remove-trailing-space", t.range.clone()))
            } else if !(word_like(prev) && word_like(next)) {
                Some(Site::removal("remove-space", t.range.clone()))
            } else {
                (&text[t.range.clone()] != " ").then(|| Site {
                    kind: "single-space",
                    range: t.range.clone(),
                    replacement: " ".to_string(),
                })
            };
            out.extend(site);
        }
    }
    out
}

/// The text's shape, hashed: its counted tokens with every identifier replaced by the number of
/// its first occurrence, a line break after each non-blank line, and (when `indented`) each
/// line's indentation width. Renames and whitespace edits keep it; any other edit changes it.
/// A removal that failed on one text is taken to fail on every text of the same shape, so a
/// group that found nothing is not searched again until the shape changes.
pub fn shape_key(text: &str, tokens: &[Token], indented: bool) -> [u8; 32] {
    let mut names: std::collections::HashMap<&str, usize> = Default::default();
    let mut hasher = blake3::Hasher::new();
    let (mut line_start, mut blank) = (true, true);
    for t in tokens {
        let piece = &text[t.range.clone()];
        match t.kind {
            Kind::Newline => {
                if !blank {
                    hasher.update(b"\n");
                }
                (line_start, blank) = (true, true);
                continue;
            }
            Kind::Space => {
                if line_start && indented {
                    hasher.update(format!("\0i{}", piece.len()).as_bytes());
                }
            }
            Kind::Word => {
                let next = names.len();
                let number = *names.entry(piece).or_insert(next);
                hasher.update(format!("\0w{number}").as_bytes());
                blank = false;
            }
            _ => {
                hasher.update(b"\0");
                hasher.update(piece.as_bytes());
                blank = false;
            }
        }
        line_start = false;
    }
    *hasher.finalize().as_bytes()
}

/// Counted tokens on each side of a site that its identity takes in (see [`site_identities`]).
pub const IDENTITY_CONTEXT: usize = 2;

/// The identities of `sites` (in text order) across texts, for remembering the sites that failed
/// alone: a site is known by its kind, its replacement (identifier characters folded) and the
/// counted tokens it covers with [`IDENTITY_CONTEXT`] more on each side, identifiers numbered by
/// first occurrence in that window, so that a failed site is tried again only when a token next
/// to it changed (not anything on its line) and renames keep it; sites with equal windows are
/// told apart by their order. With `uses` (removals of whole lines and regions, which often
/// work once what they define is no longer used), also whether each identifier in the site
/// occurs outside it. A rename is known by the identifier it renames (renames leave the token
/// count alone: one that failed is not tried again).
pub fn site_identities(
    text: &str,
    tokens: &[Token],
    sites: &[SiteInfo<'_>],
    uses: bool,
) -> Vec<[u8; 32]> {
    let counted: Vec<&Token> = tokens.iter().filter(|t| t.counts()).collect();
    let mut everywhere: HashMap<&str, usize> = HashMap::new();
    if uses {
        for t in counted.iter().filter(|t| t.kind == Kind::Word) {
            *everywhere.entry(&text[t.range.clone()]).or_insert(0) += 1;
        }
    }
    let mut order: HashMap<[u8; 32], u64> = HashMap::new();
    let mut bytes: Vec<u8> = Vec::new();
    sites
        .iter()
        .map(|site| {
            // The window's bytes are gathered, then hashed at once: the same digest as feeding
            // them piece by piece, without a hasher call per token (sites nest: a window can
            // hold most of the text, and a text most of its tokens' windows).
            bytes.clear();
            bytes.extend_from_slice(site.kind.as_bytes());
            bytes.extend_from_slice(b"\0");
            let lo = counted.partition_point(|t| t.range.start < site.range.start);
            if site.kind == "rename-identifier" {
                let name = counted.get(lo).map_or("", |t| &text[t.range.clone()]);
                bytes.extend_from_slice(name.as_bytes());
            } else {
                let hi = counted
                    .partition_point(|t| t.range.start < site.range.end)
                    .max(lo);
                let from = lo.saturating_sub(IDENTITY_CONTEXT);
                let to = (hi + IDENTITY_CONTEXT).min(counted.len());
                let mut names: HashMap<&str, usize> = HashMap::new();
                for (k, t) in counted[from..to].iter().enumerate() {
                    let inside = (lo..hi).contains(&(from + k));
                    bytes.extend_from_slice(if inside { b"\0s" } else { b"\0c" });
                    let piece = &text[t.range.clone()];
                    if t.kind == Kind::Word {
                        let next = names.len();
                        let number = *names.entry(piece).or_insert(next);
                        let _ = write!(bytes, "w{number}");
                    } else {
                        bytes.extend_from_slice(piece.as_bytes());
                    }
                }
                if uses {
                    // Whether each identifier of the site also occurs outside it.
                    let mut inside: Vec<(&str, usize)> = Vec::new();
                    for t in counted[lo..hi].iter().filter(|t| t.kind == Kind::Word) {
                        let word = &text[t.range.clone()];
                        match inside.iter_mut().find(|(w, _)| *w == word) {
                            Some((_, n)) => *n += 1,
                            None => inside.push((word, 1)),
                        }
                    }
                    bytes.extend_from_slice(b"\0u");
                    for (word, n) in inside {
                        let outside = everywhere.get(word).is_some_and(|&all| all > n);
                        bytes.extend_from_slice(if outside { b"1" } else { b"0" });
                    }
                }
                if lo == hi {
                    // No token inside (whitespace, or the inside of a string): its own text.
                    bytes.extend_from_slice(b"\0t");
                    bytes.extend_from_slice(text.get(site.range.clone()).unwrap_or("").as_bytes());
                }
                bytes.extend_from_slice(b"\0r");
                let mut in_word = false;
                for c in site.replacement.chars() {
                    let word = c.is_alphanumeric() || c == '_' || c == '$';
                    if !word {
                        bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    } else if !in_word {
                        bytes.extend_from_slice(b"w");
                    }
                    in_word = word;
                }
            }
            let window = *blake3::hash(&bytes).as_bytes();
            let nth = order.entry(window).or_insert(0);
            let mut hasher = blake3::Hasher::new();
            hasher.update(&window);
            hasher.update(&nth.to_le_bytes());
            *nth += 1;
            *hasher.finalize().as_bytes()
        })
        .collect()
}

/// The whole text tidied at once: trailing whitespace and blank lines removed, one final
/// newline kept if the text had one. `None` if that changes nothing.
pub fn tidy_site(text: &str) -> Option<Site> {
    let mut tidy = String::with_capacity(text.len());
    for line in text.lines() {
        let line = line.trim_end();
        if !line.is_empty() {
            tidy.push_str(line);
            tidy.push('\n');
        }
    }
    if !text.ends_with('\n') && tidy.ends_with('\n') {
        tidy.pop();
    }
    (tidy.len() < text.len()).then_some(Site {
        kind: "tidy",
        range: 0..text.len(),
        replacement: tidy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply;
    use crate::lex::{tokens, Syntax};
    use std::path::Path;

    fn all(text: &str, sites: &[Site]) -> String {
        apply(text, &sites.iter().collect::<Vec<_>>())
    }

    #[test]
    fn renames_whole_identifiers_to_unused_short_names() {
        let text = "count = a + count * total; total";
        let toks = tokens(text, &Syntax::PLAIN);
        let sites = rename_sites(text, &toks);
        assert_eq!(sites.len(), 2);
        assert_eq!(apply(text, &[&sites[0]]), "b = a + b * total; total");
        assert_eq!(all(text, &sites[1..]), "count = a + count * c; c");
        assert_eq!(short_name(0), "a");
        assert_eq!(short_name(26), "aa");
        assert_eq!(short_name(27), "ab");
    }

    #[test]
    fn strings_and_integers() {
        let text = r#"x = "hello\"!" + 0x20 + 7 + 0 + 1.5 + 'ab'"#;
        let toks = tokens(text, &Syntax::for_path(Path::new("a.py")));
        assert_eq!(
            all(text, &string_sites(text, &toks, false)),
            r#"x = "" + 0x20 + 7 + 0 + 1.5 + ''"#
        );
        assert_eq!(
            all(text, &string_sites(text, &toks, true)),
            r#"x = "hell" + 0x20 + 7 + 0 + 1.5 + 'a'"#
        );
        assert_eq!(
            all(text, &integer_sites(text, &toks, false)),
            r#"x = "hello\"!" + 0 + 0 + 0 + 1.5 + 'ab'"#
        );
        assert_eq!(
            all(text, &integer_sites(text, &toks, true)),
            r#"x = "hello\"!" + 16 + 3 + 0 + 1.5 + 'ab'"#
        );
    }

    #[test]
    fn runs_of_two_and_three_tokens_on_small_texts() {
        let text = "long f = s->d / 0;";
        let toks = tokens(text, &Syntax::PLAIN);
        let sites = token_run_sites(&toks);
        // 10 counted tokens (`->` is two): 9 runs of two, 8 of three.
        assert_eq!(sites.len(), 17);
        assert_eq!(apply(text, &[&sites[1]]), "long  s->d / 0;");
        assert_eq!(apply(text, &[&sites[9]]), " s->d / 0;");
        assert_eq!(apply(text, &[&sites[13]]), "long f = s / 0;");
        // Overlapping runs: the first applies.
        assert_eq!(apply(text, &[&sites[0], &sites[1]]), " = s->d / 0;");
        let large = "x ".repeat(TOKEN_RUNS_MAX_TOKENS + 1);
        assert!(token_run_sites(&tokens(&large, &Syntax::PLAIN)).is_empty());
    }

    #[test]
    fn comments_and_tokens() {
        let syn = Syntax::for_path(Path::new("a.ll"));
        let text = "ret i32 0 ; done\n";
        let toks = tokens(text, &syn);
        assert_eq!(all(text, &comment_sites(&toks)), "ret i32 0 \n");
        assert_eq!(token_sites(&toks).len(), 4);
    }

    #[test]
    fn shape_keeps_renames_and_whitespace_but_not_other_edits() {
        let c = Syntax::for_path(Path::new("a.c"));
        let key = |text: &str, syn: &Syntax| shape_key(text, &tokens(text, syn), syn.indented);
        let base = key("int count = 1;\nf(count);\n", &c);
        assert_eq!(key("int a = 1;\n\n  f( a );\n", &c), base);
        for other in [
            "int count = 2;\nf(count);\n",
            "int count = 1;\nf(total);\n",
            "int count = 1; f(count);\n",
            "int count = 1;\nf(count)\n",
        ] {
            assert_ne!(key(other, &c), base, "{other}");
        }
        let yaml = Syntax::for_path(Path::new("a.yaml"));
        assert_ne!(key("a:\n  b: 1\n", &yaml), key("a:\nb: 1\n", &yaml));
    }

    #[test]
    fn identities_change_with_neighbouring_tokens_only_and_survive_renames() {
        let c = Syntax::for_path(Path::new("a.c"));
        let ids = |text: &str| {
            let toks = tokens(text, &c);
            let sites = token_sites(&toks);
            let infos: Vec<SiteInfo<'_>> = sites.iter().map(Site::info).collect();
            site_identities(text, &toks, &infos, false)
        };
        // 12 counted tokens, one site each.
        let base = ids("int total = count + 1 ; f ( total ) ;\n");
        assert_eq!(base.len(), 12);
        // Every identity is distinct, even of equal-looking windows.
        let distinct: HashSet<_> = base.iter().collect();
        assert_eq!(distinct.len(), 12);
        assert_eq!(
            ids("int a = b + 1 ; f ( a ) ;\n"),
            base,
            "renames keep them"
        );
        assert_eq!(
            ids("int total = count + 1 ;\n  f ( total ) ;"),
            base,
            "whitespace too"
        );
        // `1` -> `2`: the sites within two tokens of it change, the others do not.
        let changed = ids("int total = count + 2 ; f ( total ) ;\n");
        let same: Vec<bool> = base.iter().zip(&changed).map(|(a, b)| a == b).collect();
        let expected = [
            true, true, true, false, false, false, false, false, true, true, true, true,
        ];
        assert_eq!(same, expected);
        // A rename site is known by its identifier.
        let text = "count = count + total ;";
        let toks = tokens(text, &c);
        let sites = rename_sites(text, &toks);
        let infos: Vec<SiteInfo<'_>> = sites.iter().map(Site::info).collect();
        let other = "x ; count = 2 * count ; total ;";
        let other_toks = tokens(other, &c);
        let other_sites = rename_sites(other, &other_toks);
        let other_infos: Vec<SiteInfo<'_>> = other_sites.iter().map(Site::info).collect();
        let first = site_identities(text, &toks, &infos, false);
        let second = site_identities(other, &other_toks, &other_infos, false);
        assert_eq!(first[0], second[0], "count");
        assert_eq!(first[1], second[1], "total");
        assert_ne!(first[0], first[1]);
        // With `uses`, a line is new again once an identifier of it is used nowhere else.
        let line_ids = |text: &str| {
            let toks = tokens(text, &c);
            let sites = crate::structure::line_sites(text, &toks, None);
            let infos: Vec<SiteInfo<'_>> = sites.iter().map(Site::info).collect();
            site_identities(text, &toks, &infos, true)
        };
        let used = line_ids("int helper ;\nx ;\ny ;\nhelper ( ) ;\n");
        let unused = line_ids("int helper ;\nx ;\ny ;\nother ( ) ;\n");
        assert_ne!(used[0], unused[0]);
        assert_eq!(used[1], unused[1]);
        assert_eq!(
            line_ids("int helper ;\nx ;\ny ;\nhelper ( 1 ) ;\n")[0],
            used[0]
        );
    }

    #[test]
    fn whitespace_normalisation_keeps_words_apart() {
        let text = "  int   x  =  1 ;  \n\n   \nb\n";
        let toks = tokens(text, &Syntax::PLAIN);
        assert_eq!(all(text, &blank_sites(text, &toks, false)), "int x=1;\nb\n");
        assert_eq!(
            all(text, &blank_sites(text, &toks, true)),
            "  int x=1;\nb\n"
        );
        assert_eq!(tidy_site("a  \n\n b\n").unwrap().replacement, "a\n b\n");
        assert!(tidy_site("a\nb").is_none());
    }
}
