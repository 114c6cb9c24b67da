//! Any text file as a language of the shared text layer (`minrepro_text::Language`): the groups
//! of this crate, searched with ProbDD (bracket regions level by level, outer regions first);
//! every text is valid; the size is the token count.

use std::borrow::Cow;

use std::sync::Arc;

use minrepro_text::{
    EncodeError, Encoded, GroupSpec, Language, LevelPolicy, Measure, ProbDdSpec, SearchSpec,
    SiteInfo, SiteKeys, SitesText, TextKey,
};

use crate::groups::{group_name, round, Group, Lexed};
use crate::lex::Syntax;
use crate::structure::BracketEdit;
use crate::token_sites;
#[cfg(doc)]
use crate::tree::Content;

/// A text file of one [`Syntax`] (chosen by its name).
#[derive(Debug, Clone, Copy)]
pub struct TextFile {
    /// Comment and indentation rules.
    pub syntax: Syntax,
    /// Written in latin-1, byte for character (it was not UTF-8: see [`Content::Latin1`]).
    pub latin1: bool,
    /// Reduced by the text layer itself, not as the fallback of a syntax-aware language
    /// (`minrepro_treesit::SyntaxAware`, which maps this language's group specs, sweeps
    /// included, and filters its tidy candidates): bracket regions emptied first, runs of tokens swept instead of
    /// ProbDD's runs of two and three, braces made `;`, and, outside indentation-sensitive
    /// syntaxes, whitespace normalised by the tidy instead of the `blank` group. Otherwise the
    /// groups and tidy of before, plus the swept substitutions (the window sweeps would repeat
    /// what the syntax groups already removed node by node, a run per token for nothing).
    pub standalone: bool,
}

/// A text with the sites of one group, sized in tokens of its syntax.
pub type PreparedText = SitesText<Syntax>;

impl Measure for Syntax {
    fn measure(&self, text: &str) -> usize {
        Lexed::new(text, *self).size().0
    }
}

/// `text` without trailing whitespace and blank lines, if that changes it.
fn lines_tidied(text: &str) -> Option<(&'static str, String)> {
    crate::token_sites::tidy_site(text).map(|site| ("tidy", site.replacement))
}

impl TextFile {
    /// Whether whitespace is normalised by the tidy instead of the `blank` group: a standalone
    /// file outside indentation-sensitive syntaxes.
    fn tidies_whitespace(&self) -> bool {
        self.standalone && !self.syntax.indented
    }

    /// `text` with the whitespace between a number and the word after it removed, if any:
    /// lexed as one token then (`0 call` -> `0call`, as in LLVM IR, where `0call` still reads
    /// as `0` and `call`), so the text is a token smaller when the test still accepts it.
    fn numbers_joined(&self, text: &str) -> Option<String> {
        use crate::lex::Kind;
        let tokens = Lexed::new(text, self.syntax).tokens;
        let mut joined = String::with_capacity(text.len());
        let mut pos = 0;
        for (i, token) in tokens.iter().enumerate() {
            if token.kind != Kind::Number {
                continue;
            }
            let gap = tokens[i + 1..]
                .iter()
                .take_while(|t| matches!(t.kind, Kind::Space | Kind::Newline));
            let (skipped, end) = gap.fold((0, token.range.end), |(n, _), t| (n + 1, t.range.end));
            let next = tokens.get(i + 1 + skipped);
            if skipped > 0 && next.is_some_and(|t| t.kind == Kind::Word) {
                joined.push_str(&text[pos..token.range.end]);
                pos = end;
            }
        }
        (pos > 0).then(|| {
            joined.push_str(&text[pos..]);
            joined
        })
    }

    /// `text` with every `blank` site applied (runs of spaces made one, spaces next to
    /// punctuation and indentation removed, words kept apart), then without trailing
    /// whitespace and blank lines.
    fn normalised(&self, text: &str) -> String {
        let sites = Lexed::new(text, self.syntax).sites(Group::Blank);
        let spaced = minrepro_text::splice(text, &sites.iter().collect::<Vec<_>>());
        crate::token_sites::tidy_site(&spaced).map_or(spaced, |site| site.replacement)
    }
}

impl TextFile {
    /// The groups in round order (see [`Language::groups`]).
    fn group_order(&self) -> Vec<Group> {
        // Outside indentation-sensitive syntaxes whitespace is normalised by the tidy (all at
        // once, one run a round) instead of the `blank` group (a run per accepted set of
        // sites for no token gain).
        let tidies_whitespace = self.tidies_whitespace();
        let mut order = round();
        if self.standalone {
            // Bracket regions emptied first, before the lines (shrinkray's `hollow` comes
            // early too): every function body emptied at once removes every use of what the
            // lines group could otherwise delete only together with those uses: one run then
            // opens every definition to removal (measured in bench/text).
            let empty = Group::Brackets(BracketEdit::Empty);
            order.retain(|g| *g != empty);
            order.insert(0, empty);
        }
        // Deep chains cut first: each costs about log2 of its depth in runs, and every level it
        // cuts is a level no later group tries to remove one run at a time.
        std::iter::once(Group::Depth)
            .chain(order)
            .filter(|g| *g != Group::Tidy)
            .filter(|g| self.syntax.indented || !matches!(g, Group::Indented(_)))
            .filter(|g| !(tidies_whitespace && *g == Group::Blank))
            // The sweeps of runs of tokens replace ProbDD's runs of two and three: on a text
            // whose tokens are mostly needed, most runs fail, and a sweep pays one run per
            // position where ProbDD pays again for every run it finds needed. Braces made `;`
            // (a body a declaration needs to stay a definition) come with them. As the fallback
            // of the syntax-aware language, whose groups already remove nodes, the groups of
            // before.
            .filter(|g| match g {
                Group::TokenRuns => !self.standalone,
                Group::Window(_)
                | Group::LateWindow(_)
                | Group::Brackets(BracketEdit::Semicolon) => self.standalone,
                _ => true,
            })
            .collect()
    }

    /// The spec of `group`: ProbDD (the word substitutions and runs of tokens swept), bracket
    /// regions and list elements level by level (outer regions first), every group but the
    /// comments skipping sites that failed alone, sites identified by their neighbouring tokens,
    /// and a search not repeated on a text of the same shape (see [`token_sites::shape_key`]).
    fn spec(&self, group: Group) -> GroupSpec<Group> {
        let syntax = self.syntax;
        let search = match group {
            Group::Window(_) | Group::LateWindow(_) | Group::Substitute => SearchSpec::Sweep,
            Group::Depth => SearchSpec::Bisect,
            _ => SearchSpec::ProbDd(ProbDdSpec {
                learns_prior: true,
                // Token removals often need several tokens at once (`d ( ) {`): from a mostly
                // kept list, sets of three or four neighbouring tokens rather than single ones.
                max_prior: if group == Group::Tokens { 0.25 } else { 0.5 },
                // Where most forms of a level were needed, most of the next level's are too.
                prior_fallback: match group {
                    Group::Lines(Some(level)) if level > 0 => Some(Group::Lines(Some(level - 1))),
                    _ => None,
                },
                ..ProbDdSpec::default()
            }),
        };
        // A failed site is tried again when a token next to it changed, not its whole line; a
        // line or region also when one of its identifiers is no longer used elsewhere.
        let uses = matches!(
            group,
            Group::Lines(_) | Group::Indented(_) | Group::Brackets(BracketEdit::Remove)
        );
        let identities: SiteKeys = Arc::new(move |text: &str, sites: &[SiteInfo<'_>]| {
            let lexed = Lexed::new(text, syntax);
            token_sites::site_identities(text, &lexed.tokens, sites, uses)
        });
        // Renames and whitespace edits keep the key: those two groups must see them.
        let fruitless = (!matches!(group, Group::Rename | Group::Blank)).then(|| {
            Arc::new(move |text: &str| {
                let lexed = Lexed::new(text, syntax);
                token_sites::shape_key(text, &lexed.tokens, syntax.indented)
            }) as TextKey
        });
        let spec = GroupSpec::new(group, group_name(group), search)
            // Edits that failed alone rarely work later (a changed neighbourhood gives them a
            // new identity, so they are tried again then); comments are cheap to retry, and a
            // bisection of depth proposes no single sites.
            .skip_failed(!matches!(
                group,
                Group::Comments | Group::Tidy | Group::Depth
            ))
            .identities(identities)
            .fruitless(fruitless);
        // Nested regions: the outer ones first.
        if matches!(group, Group::Brackets(_) | Group::Elements) {
            spec.levels(LevelPolicy::default())
        } else {
            spec
        }
    }

    /// The one tidy candidate of a text: every whitespace normalisation at once where the tidy
    /// normalises whitespace, else without trailing whitespace and blank lines.
    fn tidied(&self, text: &str) -> Option<(&'static str, String)> {
        if !self.tidies_whitespace() {
            return lines_tidied(text);
        }
        let normalised = self.normalised(text);
        (normalised != text).then_some(("tidy-whitespace", normalised))
    }
}

impl Language for TextFile {
    type Group = Group;
    type Prepared = PreparedText;

    fn groups(&self) -> Vec<GroupSpec<Group>> {
        self.group_order()
            .into_iter()
            .map(|group| self.spec(group))
            .collect()
    }

    fn size(&self, text: &str) -> usize {
        Lexed::new(text, self.syntax).size().0
    }

    fn prepare(&self, text: &str, group: Group) -> PreparedText {
        let lexed = Lexed::new(text, self.syntax);
        SitesText::sized(text, lexed.size().0, lexed.sites(group), self.syntax)
    }

    fn prepare_current(&self, text: &str) -> PreparedText {
        SitesText::new(text, Vec::new(), self.syntax)
    }

    fn is_valid(&self, _text: &str) -> bool {
        true
    }

    fn tidy_steps(&self, text: &str) -> Vec<(&'static str, String)> {
        // All whitespace normalised, else (e.g. a space the test needs) only the blank lines
        // and trailing spaces gone.
        let all = self
            .tidies_whitespace()
            .then(|| self.tidied(text))
            .flatten();
        let tidied = all.as_ref().map_or(text, |(_, tidied)| tidied.as_str());
        let joined = self
            .tidies_whitespace()
            .then(|| self.numbers_joined(tidied));
        let joined = joined.flatten().map(|joined| ("tidy-join-numbers", joined));
        joined
            .into_iter()
            .chain(all)
            .chain(lines_tidied(text))
            .collect()
    }

    fn encode<'t>(&self, text: &'t str) -> Result<Encoded<'t>, EncodeError> {
        Ok(Encoded::One(if self.latin1 {
            Cow::Owned(minrepro_text::latin1_bytes(text))
        } else {
            Cow::Borrowed(text.as_bytes())
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_text::Prepared;
    use std::path::Path;

    /// A standalone UTF-8 text file named `name`.
    fn standalone(name: &str) -> TextFile {
        TextFile {
            syntax: Syntax::for_path(Path::new(name)),
            latin1: false,
            standalone: true,
        }
    }

    #[test]
    fn names_match_display_and_groups_follow_the_syntax() {
        for group in round() {
            assert_eq!(group_name(group), group.to_string());
        }
        let c = standalone("a.c");
        assert!(!c
            .group_order()
            .iter()
            .any(|g| matches!(g, Group::Indented(_))));
        let yaml = standalone("a.yaml");
        assert!(yaml.group_order().contains(&Group::Indented(0)));
        let prepared = c.prepare("int a; int b;\n", Group::Tokens);
        assert_eq!(prepared.size(), 6);
        let first = &prepared.sites()[0];
        let edited = prepared.apply(&[first]);
        assert_eq!(edited, " a; int b;\n");
        assert_eq!(prepared.check(&edited), Some(5));
    }

    #[test]
    fn whitespace_is_tidied_at_once_outside_indented_syntaxes() {
        let c = standalone("a.c");
        assert!(!c.group_order().contains(&Group::Blank));
        let text = "int  f ( int a ) {\n\n    return a ;  \n}\n";
        let steps = c.tidy_steps(text);
        let kinds: Vec<&str> = steps.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(kinds, ["tidy-whitespace", "tidy"]);
        assert_eq!(steps[0].1, "int f(int a){\nreturn a;\n}\n");
        assert_eq!(steps[1].1, "int  f ( int a ) {\n    return a ;\n}\n");
        assert_eq!(c.size(&steps[0].1), c.size(text));
        assert!(c.group_order().contains(&Group::Window(2)));
        assert!(!c.group_order().contains(&Group::TokenRuns));
        assert_eq!(
            c.group_order()[..2],
            [Group::Depth, Group::Brackets(BracketEdit::Empty)]
        );
        let semicolon = Group::Brackets(BracketEdit::Semicolon);
        let at = |g: Group| c.group_order().iter().position(|x| *x == g);
        assert_eq!(
            at(semicolon),
            at(Group::Brackets(BracketEdit::Hoist)).map(|i| i + 1)
        );
        // As the fallback of a syntax-aware language: the groups and the tidy of before.
        let wrapped = TextFile {
            standalone: false,
            ..c
        };
        let groups = wrapped.group_order();
        assert!(groups.contains(&Group::Blank) && groups.contains(&Group::TokenRuns));
        assert!(!groups.iter().any(|g| matches!(g, Group::Window(_))));
        assert!(!groups.contains(&semicolon));
        assert_eq!(groups[..2], [Group::Depth, Group::Lines(Some(0))]);
        let kinds: Vec<&str> = wrapped.tidy_steps(text).iter().map(|s| s.0).collect();
        assert_eq!(kinds, ["tidy"]);
        // Indented syntaxes keep the group and the line tidy alone.
        let yaml = standalone("a.yaml");
        assert!(yaml.group_order().contains(&Group::Blank));
        let kinds: Vec<&str> = yaml.tidy_steps("a:  1 \n\n").iter().map(|s| s.0).collect();
        assert_eq!(kinds, ["tidy"]);
    }
    #[test]
    fn a_number_and_the_word_after_it_are_joined_first() {
        let ll = standalone("a.ll");
        let text = "%a = or i32 %r, 0\ncall void @f(i32 %a)\n";
        let steps = ll.tidy_steps(text);
        let kinds: Vec<&str> = steps.iter().map(|(kind, _)| *kind).collect();
        assert_eq!(kinds, ["tidy-join-numbers", "tidy-whitespace"]);
        assert_eq!(steps[0].1, "%a=or i32%r,0call void@f(i32%a)\n");
        assert_eq!(ll.size(&steps[0].1), ll.size(text) - 1);
        // Nothing to join: the steps of before.
        let kinds: Vec<String> = ll
            .tidy_steps("ret  void\n")
            .into_iter()
            .map(|s| s.0.to_owned())
            .collect();
        assert_eq!(kinds, ["tidy-whitespace"]);
        assert_eq!(ll.numbers_joined("i32 0, 1\n"), None);
    }
}
