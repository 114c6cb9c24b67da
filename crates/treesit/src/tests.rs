//! Per-grammar tests: the grammar's sample parses cleanly, deletions the grammar forbids are
//! never offered, hoistings keep a clean parse, separated lists lose one separator per element,
//! and candidates with new syntax errors are refused.

use std::collections::HashSet;
use std::ops::Range;

use std::sync::Arc;

use minrepro_text::{
    splice, GroupSpec, Language, Measure, Prepared, ProbDdSpec, SearchSpec, Site, SitesText,
};
use tree_sitter::Node;

use crate::sites::{DELETE_ELEMENT, DELETE_NODE, HOIST, LITERAL};
use crate::{
    by_name, error_count, Grammar, Group, LoadedGrammar, PreparedSyntax, SyntaxAware, GRAMMARS,
};

/// A small clean program per grammar.
fn sample(name: &str) -> &'static str {
    match name {
        "bash" => "f() {\n  echo a\n  echo b\n}\nif [ -n \"$x\" ]; then\n  echo y\nelse\n  f\nfi\n",
        "c" | "cuda" => "int add(int a, int b, int c) { return a + b + c; }\nint main(void) {\n  int x = add(1, 2, 3), y = 4;\n  if (x > y) { x = y; } else { x = add(x, y, 0); }\n  return x ? add(x, 1, 2) : y;\n}\n",
        "cpp" => "namespace n {\ntemplate <typename T> struct S {\n  T v;\n  int get(int a, int b) const { return a > b ? v : T(); }\n};\n}\nint main() {\n  n::S<int> s{1};\n  for (int i = 0; i < 3; ++i) { s.v += s.get(i, 2); }\n  return s.v;\n}\n",
        "go" => "package main\n\nimport \"fmt\"\n\nfunc add(a int, b int) int {\n\tif a > b {\n\t\treturn a\n\t} else {\n\t\treturn b\n\t}\n}\n\nfunc main() {\n\tfmt.Println(add(1, 2), add(3, 4))\n}\n",
        "java" => "class A {\n  int f(int a, int b) {\n    if (a > b) { return a; } else { return g(h(b)); }\n  }\n  int g(int x) { return x; }\n  int h(int x) { return x > 0 ? x : -x; }\n}\n",
        "javascript" => "function f(a, b) {\n  if (a) { return g(h(a), b); } else { return b; }\n}\nconst o = { a: 1, b: [1, 2, 3] };\nconsole.log(f(o.a, o.b), o.a ? 1 : 2);\n",
        "json" => "{\n  \"a\": [1, 2, {\"b\": null}],\n  \"c\": true,\n  \"d\": \"x\"\n}\n",
        "llvm" => "define i32 @f(i32 %a, i32 %b) {\nentry:\n  %c = add i32 %a, %b\n  %d = mul i32 %c, 2\n  ret i32 %d\n}\n\ndefine i32 @main() {\n  %r = call i32 @f(i32 1, i32 2)\n  ret i32 %r\n}\n",
        "python" => "def f(a, b):\n    if a:\n        return g(h(a), b)\n    else:\n        return b\n\n\nprint(f(1, 2), [1, 2, 3])\n",
        "rust" => "struct S { a: i32, b: i32 }\n\nfn f(x: i32, y: i32) -> i32 {\n    if x > y { g(h(x)) } else { y }\n}\n\nfn main() {\n    let s = S { a: 1, b: 2 };\n    println!(\"{}\", f(s.a, s.b));\n}\n",
        "typescript" => "function f(a: number, b: string): number {\n  if (a > 0) { return g(h(a)); } else { return b.length; }\n}\nconst o = { a: 1, b: [1, 2] };\n",
        "tsx" => "function F(p: { a: number }) {\n  return <div a=\"1\">{p.a ? 1 : 2}</div>;\n}\nconst x = [1, 2, 3];\n",
        other => panic!("no sample for {other}"),
    }
}

/// A fallback that deletes whitespace-separated words (size: their count).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Words;

/// A text's number of words.
pub(crate) struct WordCount;

impl Measure for WordCount {
    fn measure(&self, text: &str) -> usize {
        words(text).len()
    }
}

/// A text and its word sites.
type WordsText = SitesText<WordCount>;

fn words(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

impl Language for Words {
    type Group = ();
    type Prepared = WordsText;
    /// One group, "words": ProbDD up to a prior of 0.25, sites identified by their own text,
    /// a text keyed by its word count in the first byte (enough to tell the test texts apart).
    fn groups(&self) -> Vec<GroupSpec<()>> {
        let search = SearchSpec::ProbDd(ProbDdSpec {
            max_prior: 0.25,
            ..ProbDdSpec::default()
        });
        let spec = GroupSpec::new((), "words", search)
            .identities(Arc::new(|text, sites| {
                let id = |site: &minrepro_text::SiteInfo<'_>| {
                    let mut key = [0; 32];
                    let word = &text.as_bytes()[site.range.clone()];
                    let n = word.len().min(32);
                    key[..n].copy_from_slice(&word[..n]);
                    key
                };
                sites.iter().map(id).collect()
            }))
            .fruitless(Some(Arc::new(|text| {
                let mut key = [0; 32];
                key[0] = words(text).len() as u8;
                key
            })));
        vec![spec]
    }
    fn size(&self, text: &str) -> usize {
        words(text).len()
    }
    fn prepare(&self, text: &str, _: ()) -> WordsText {
        let sites = words(text)
            .into_iter()
            .map(|range| Site {
                kind: "word",
                range,
                replacement: String::new(),
            })
            .collect();
        SitesText::new(text, sites, WordCount)
    }
    fn prepare_current(&self, text: &str) -> WordsText {
        SitesText::new(text, Vec::new(), WordCount)
    }
    fn is_valid(&self, _: &str) -> bool {
        true
    }
}

fn syntax(name: &str) -> LoadedGrammar {
    LoadedGrammar::new(by_name(name).unwrap()).unwrap()
}

/// Every grammar with its loaded syntax and its sample: what the per-grammar tests run on.
fn samples() -> impl Iterator<Item = (&'static Grammar, LoadedGrammar, &'static str)> {
    GRAMMARS
        .iter()
        .map(|grammar| (grammar, syntax(grammar.name), sample(grammar.name)))
}

/// Every node of a tree with its parent and field.
fn nodes_with_slots(root: Node<'_>) -> Vec<(Node<'_>, Node<'_>, Option<&'static str>)> {
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(parent) = stack.pop() {
        let mut cursor = parent.walk();
        if cursor.goto_first_child() {
            loop {
                out.push((cursor.node(), parent, cursor.field_name()));
                stack.push(cursor.node());
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
    }
    out
}

#[test]
fn every_sample_parses_cleanly_and_has_sites_of_every_kind() {
    for (grammar, syntax, text) in samples() {
        if std::env::var("SHOW").as_deref() == Ok(grammar.name) {
            for site in syntax.listing(text).sites {
                eprintln!(
                    "{} {:?} -> {:?}",
                    site.kind,
                    &text[site.range.clone()],
                    site.replacement
                );
            }
            eprintln!("{}", syntax.parse(text).unwrap().root_node().to_sexp());
        }
        assert_eq!(syntax.errors(text), 0, "{}", grammar.name);
        let kinds: HashSet<&str> = syntax.listing(text).sites.iter().map(|s| s.kind).collect();
        assert!(kinds.contains(DELETE_NODE), "{}: {kinds:?}", grammar.name);
        // LLVM IR has no nested expressions in this sample.
        if grammar.name != "llvm" {
            assert!(kinds.contains(HOIST), "{}: {kinds:?}", grammar.name);
        }
        if grammar.name != "bash" {
            assert!(
                kinds.contains(DELETE_ELEMENT),
                "{}: {kinds:?}",
                grammar.name
            );
        }
    }
}

#[test]
fn a_deletion_the_grammar_forbids_is_never_offered() {
    for (grammar, syntax, text) in samples() {
        let tree = syntax.parse(text).unwrap();
        let deleted: HashSet<Range<usize>> = syntax
            .listing(text)
            .sites
            .iter()
            .filter(|s| s.kind != HOIST && s.kind != LITERAL)
            .map(|s| s.range.clone())
            .collect();
        let all = nodes_with_slots(tree.root_node());
        let mut checked = 0;
        for &(node, parent, field) in &all {
            if !node.is_named() || node.is_extra() || parent.byte_range() == node.byte_range() {
                continue;
            }
            let slot = syntax
                .facts
                .slot(parent.kind(), field)
                .unwrap_or_else(|| panic!("{}: no slot {}.{field:?}", grammar.name, parent.kind()));
            let in_slot = all
                .iter()
                .filter(|(n, p, f)| *p == parent && *f == field && n.is_named() && !n.is_extra())
                .count();
            if slot.required && (!slot.multiple || in_slot == 1) {
                checked += 1;
                let range = node.byte_range();
                let line = crate::sites::lines_of(text, range.clone());
                assert!(
                    !deleted.contains(&range) && !deleted.contains(&line),
                    "{}: required {} of {} offered for deletion: {:?}",
                    grammar.name,
                    node.kind(),
                    parent.kind(),
                    &text[range]
                );
            }
        }
        assert!(checked > 0, "{}", grammar.name);
    }
}

#[test]
fn hoisting_keeps_a_clean_parse() {
    for (grammar, syntax, text) in samples() {
        let listing = syntax.listing(text);
        let hoists: Vec<&Site> = listing.sites.iter().filter(|s| s.kind == HOIST).collect();
        let broken: Vec<String> = hoists
            .iter()
            .filter(|site| syntax.errors(&splice(text, &[site])) > 0)
            .map(|site| format!("{:?} -> {:?}", &text[site.range.clone()], site.replacement))
            .collect();
        assert!(broken.is_empty(), "{}: {broken:#?}", grammar.name);
    }
}

/// The texts of `name`'s sample that its sites of `kind` replace, with their replacements.
fn offered(name: &str, text: &str, kind: &str) -> Vec<(String, String)> {
    syntax(name)
        .listing(text)
        .sites
        .iter()
        .filter(|s| s.kind == kind)
        .map(|s| {
            (
                text[s.range.clone()].trim().to_owned(),
                s.replacement.clone(),
            )
        })
        .collect()
}

#[test]
fn c_offers_the_perses_edits() {
    let text = "int f(int a, int b) {\n  if (a) return g(h(a)); else return a ? b : 0;\n}\n";
    let deleted = offered("c", text, DELETE_NODE);
    assert!(deleted.contains(&("else return a ? b : 0;".into(), String::new())));
    assert!(deleted.iter().all(|(t, _)| t != "(a)"), "{deleted:?}");
    let hoisted = offered("c", text, HOIST);
    // The ternary's smallest descendant (the last of equal length) and its largest (the first).
    for (from, to) in [("g(h(a))", "h(a)"), ("a ? b : 0", "a"), ("a ? b : 0", "0")] {
        assert!(
            hoisted.contains(&(from.into(), to.into())),
            "{from} → {to}: {hoisted:?}"
        );
    }
    let elements = offered("c", text, DELETE_ELEMENT);
    assert!(elements.contains(&("int b".into(), String::new())));
}

#[test]
fn an_element_of_a_list_goes_with_one_comma() {
    let text = "int x = f(a, bb, c);\n";
    let syntax = syntax("c");
    let listing = syntax.listing(text);
    let element = |name: &str| {
        listing
            .sites
            .iter()
            .find(|s| s.kind == DELETE_ELEMENT && &text[s.range.clone()] == name)
            .unwrap()
    };
    let apply = |names: &[&str]| {
        let chosen: Vec<&Site> = names.iter().map(|n| element(n)).collect();
        let removals = listing.removals(&chosen);
        let plain: Vec<&Site> = removals.iter().map(|c| c.as_ref()).collect();
        splice(text, &plain)
    };
    assert_eq!(apply(&["a"]), "int x = f(bb, c);\n");
    assert_eq!(apply(&["c"]), "int x = f(a, bb);\n");
    assert_eq!(apply(&["bb", "c"]), "int x = f(a);\n");
    assert_eq!(apply(&["a", "bb"]), "int x = f(c);\n");
    assert_eq!(apply(&["a", "c"]), "int x = f(bb);\n");
    assert_eq!(apply(&["a", "bb", "c"]), "int x = f();\n");
}

#[test]
fn candidates_with_new_syntax_errors_are_refused_in_the_syntax_group_only() {
    let text = "int main ( void ) { return 0 ; }\n";
    // The fallback's candidates are not re-parsed: a broken one is sized.
    let language = SyntaxAware::new(by_name("c").unwrap(), Words).unwrap();
    let words = language.prepare(text, Group::Other(()));
    let close = words.sites().iter().find(|s| &text[s.range.clone()] == ")");
    assert_eq!(words.check(&words.apply(&[close.unwrap()])), Some(9));
    let groups = language.groups();
    let syntax_spec = groups.iter().find(|spec| spec.group == Group::Syntax);
    assert_eq!(syntax_spec.map(|spec| spec.name), Some("syntax"));
    assert!(syntax_spec.unwrap().levels.is_some());
    // The syntax group's are: every candidate it sizes parses without errors.
    let tree = language.prepare(text, Group::Syntax);
    assert!(!tree.sites().is_empty());
    for site in tree.sites() {
        let edited = tree.apply(&[site]);
        if let Some(size) = tree.check(&edited) {
            assert!(size < 10, "{}", edited.text);
            assert_eq!(error_count(&syntax("c").parse(&edited.text).unwrap()), 0);
        }
    }
    // A broken text made from it is refused, never sized.
    assert_eq!(
        tree.check(&"int main ( void ) { return 0 ; \n".to_owned().into()),
        None
    );
}

#[test]
fn the_smallest_compatible_descendant_is_offered_first() {
    let text = "long f(long s) { return (s - s) * 0; }\n";
    let listing = syntax("c").listing(text);
    let product: Vec<&str> = listing
        .sites
        .iter()
        .filter(|s| s.kind == HOIST && &text[s.range.clone()] == "(s - s) * 0")
        .map(|s| s.replacement.as_str())
        .collect();
    assert_eq!(product.first(), Some(&"0"), "{product:?}");
    assert!(product.contains(&"(s - s)"), "{product:?}");
}

#[test]
fn the_syntax_group_and_the_fallbacks_have_the_fallbacks_fruitless_keys() {
    let language = SyntaxAware::new(by_name("c").unwrap(), Words).unwrap();
    let (a, b) = ("int a ;\n", "int a , b ;\n");
    let specs = language.groups();
    let key = |text: &str, group| {
        let spec = specs.iter().find(|spec| spec.group == group)?;
        spec.fruitless.as_ref().map(|key| key(text))
    };
    assert!(key(a, Group::Syntax).is_some());
    assert_eq!(key(a, Group::Syntax), key(a, Group::Other(())));
    assert_ne!(key(a, Group::Syntax), key(b, Group::Syntax));
}

#[test]
fn an_optional_field_goes_with_the_tokens_that_introduce_it() {
    let text = "fn f() -> u8 {\n    let x: [u8; 3] = [1, 2, 3];\n    x[0]\n}\n";
    let syntax = syntax("rust");
    let deleted = offered("rust", text, DELETE_NODE);
    for gone in ["-> u8", ": [u8; 3]", "= [1, 2, 3]", "; 3"] {
        assert!(
            deleted.contains(&(gone.into(), String::new())),
            "{gone}: {deleted:?}"
        );
    }
    for site in syntax
        .listing(text)
        .sites
        .iter()
        .filter(|s| s.kind == DELETE_NODE)
    {
        let edited = splice(text, &[site]);
        let bare = ["u8", "[u8; 3]", "[1, 2, 3]", "3"];
        assert!(
            !bare.contains(&text[site.range.clone()].trim()),
            "{:?} alone leaves its token: {edited:?}",
            &text[site.range.clone()]
        );
    }
}

#[test]
fn a_list_loses_its_trailing_separator_with_its_last_element() {
    let text = "struct S {\n    a: u8,\n    b: u8,\n}\n";
    let syntax = syntax("rust");
    let listing = syntax.listing(text);
    let elements: Vec<&Site> = listing
        .sites
        .iter()
        .filter(|s| s.kind == DELETE_ELEMENT)
        .collect();
    assert_eq!(elements.len(), 2);
    let removals = listing.removals(&elements);
    let plain: Vec<&Site> = removals.iter().map(|c| c.as_ref()).collect();
    let edited = splice(text, &plain);
    assert_eq!(edited.replace(char::is_whitespace, ""), "structS{}");
    assert_eq!(syntax.errors(&edited), 0);
    // One element: the other's comma stays.
    let one = listing.removals(&elements[1..]);
    let plain: Vec<&Site> = one.iter().map(|c| c.as_ref()).collect();
    assert_eq!(
        splice(text, &plain).replace(char::is_whitespace, ""),
        "structS{a:u8,}"
    );
}

#[test]
fn a_fallback_group_checked_early_comes_after_the_syntax_group_and_refuses_broken_parses() {
    let language = SyntaxAware::new(by_name("c").unwrap(), Words)
        .unwrap()
        .checking_early(vec![((), "syntax-words")]);
    let specs = language.groups();
    let groups: Vec<_> = specs.iter().map(|spec| (spec.group, spec.name)).collect();
    assert_eq!(
        groups,
        [
            (Group::Coarse, "syntax-coarse"),
            (Group::Depth, "syntax-depth"),
            (Group::Syntax, "syntax"),
            (Group::Outer, "syntax-outer"),
            (Group::Rewrites, "syntax-rewrites"),
            (Group::Checked(()), "syntax-words"),
            (Group::Other(()), "words")
        ]
    );
    // The fallback's groups keep the fallback's whole spec: its prior policy, its identities of
    // sites and its key of a text.
    for spec in &specs[5..] {
        assert_eq!(spec.probdd_spec().map(|p| p.max_prior), Some(0.25));
        let ids = (spec.identities.as_ref().unwrap())("a b a", &[]);
        assert!(ids.is_empty());
        assert_eq!((spec.fruitless.as_ref().unwrap())("a b")[0], 2);
    }
    // The syntax groups are keyed like the fallback's first group, identified by lines.
    assert_eq!((specs[0].fruitless.as_ref().unwrap())("a b c")[0], 3);
    assert!(specs[0].identities.is_none());
    let text = "int main ( void ) { return 0 ; }\n";
    let site = |prepared: &PreparedSyntax<Words>, word: &str| {
        let found = prepared
            .sites()
            .iter()
            .find(|s| &text[s.range.clone()] == word);
        prepared.apply(&[found.unwrap()])
    };
    let checked = language.prepare(text, Group::Checked(()));
    assert_eq!(checked.check(&site(&checked, ")")), None);
    assert_eq!(checked.check(&site(&checked, "0")), Some(9));
    // The same group in its own place stays unchecked.
    let unchecked = language.prepare(text, Group::Other(()));
    assert_eq!(unchecked.check(&site(&unchecked, ")")), Some(9));
}

#[test]
fn the_outer_group_offers_the_outermost_sites_only() {
    let text = "int f(void) { return g(h(1)); }\nint x;\n";
    let language = SyntaxAware::new(by_name("c").unwrap(), Words).unwrap();
    let all = language.prepare(text, Group::Syntax);
    let outer = language.prepare(text, Group::Outer);
    let ranges: Vec<&str> = outer
        .sites()
        .iter()
        .map(|s| text[s.range.clone()].trim())
        .collect();
    assert_eq!(ranges, ["int f(void) { return g(h(1)); }", "int x;"]);
    assert!(all.sites().len() > outer.sites().len());
    // Checked like the syntax group.
    let broken = text.replace("int x;", "int x");
    assert_eq!(outer.check(&broken.into()), None);
}

#[test]
fn a_name_in_a_list_may_become_the_grammars_literal() {
    // Arguments (one or several) and initializer elements; not the callee, a declarator, a
    // parameter or an initializer's value.
    let text = "int f(int a, int b) { int x = a, y = b; g(x, h(y)); int v[] = {x, 2}; }\n";
    let one = |name: &str| (name.to_owned(), "1".to_owned());
    assert_eq!(offered("c", text, LITERAL), [one("x"), one("y"), one("x")]);
    // Java: `int`'s literal kind; Rust: a macro's tokens are not arguments.
    let java = "class A { int f(int a) { return g(a, h(a)); } }\n";
    assert_eq!(offered("java", java, LITERAL), [one("a"), one("a")]);
    let rust = "fn f(a: i32) -> i32 { println!(\"{}\", a); g(a) }\n";
    assert_eq!(offered("rust", rust, LITERAL), [one("a")]);
    for (grammar, syntax, text) in samples() {
        let listing = syntax.listing(text);
        let literals: Vec<&Site> = listing.sites.iter().filter(|s| s.kind == LITERAL).collect();
        if grammar.literal.is_none() {
            assert!(literals.is_empty(), "{}: {literals:?}", grammar.name);
        }
        if ["c", "cpp", "java", "javascript", "python", "rust"].contains(&grammar.name) {
            assert!(!literals.is_empty(), "{}", grammar.name);
        }
        for site in literals {
            let edited = splice(text, &[site]);
            assert_eq!(syntax.errors(&edited), 0, "{}: {edited}", grammar.name);
        }
    }
}

#[test]
fn the_syntax_group_re_sweeps_its_levels_as_the_grammar_says() {
    for grammar in GRAMMARS {
        let language = SyntaxAware::new(grammar, Words).unwrap();
        let groups = language.groups();
        let syntax = groups.iter().find(|spec| spec.group == Group::Syntax);
        let policy = syntax.unwrap().levels.unwrap();
        assert_eq!(policy.resweep, grammar.resweep, "{}", grammar.name);
        assert_eq!(policy.stop_after_fruitless, Some(2), "{}", grammar.name);
    }
    assert!(!by_name("llvm").unwrap().resweep);
    assert!(by_name("rust").unwrap().resweep);
}

#[test]
fn a_function_definitions_declarator_is_not_hoisted_in_c_like_grammars() {
    let text = "static long fee(long amount, int kind) { return g(amount); }\n";
    for name in ["c", "cpp", "cuda"] {
        let hoisted = offered(name, text, HOIST);
        assert!(
            hoisted.iter().all(|(from, _)| !from.starts_with("fee(")),
            "{name}: {hoisted:?}"
        );
        // What the body holds is still hoisted.
        let call = ("g(amount)".to_owned(), "amount".to_owned());
        assert!(hoisted.contains(&call), "{name}: {hoisted:?}");
    }
}

#[test]
fn a_reparse_from_the_source_tree_counts_the_errors_a_fresh_parse_counts() {
    // Every site alone and every run of three sites together, valid or broken, in every
    // grammar's sample: the incremental parse must judge candidates as a fresh one does.
    for (grammar, syntax, text) in samples() {
        let tree = syntax.parse(text).unwrap();
        let sites = syntax.listing(text).sites;
        let mut candidates: Vec<String> = sites.iter().map(|s| splice(text, &[s])).collect();
        for run in sites.chunks(3) {
            let mut run: Vec<&Site> = run.iter().collect();
            run.sort_by_key(|s| s.range.start);
            run.dedup_by(|b, a| b.range.start < a.range.end);
            candidates.push(splice(text, &run));
        }
        candidates.push(String::new());
        candidates.push(format!("{text}}}"));
        for edited in &candidates {
            let fresh = error_count(&syntax.parse(edited).unwrap());
            let reused = error_count(&syntax.reparse(&tree, text, edited).unwrap());
            assert_eq!(reused, fresh, "{}: {edited}", grammar.name);
        }
    }
}
