//! Per-grammar tests: the grammar's sample parses cleanly, deletions the grammar forbids are
//! never offered, hoistings keep a clean parse, separated lists lose one separator per element,
//! and candidates with new syntax errors are refused.

use std::collections::HashSet;
use std::ops::Range;

use minrepro_text::{splice, Language, Measure, Policy, Prepared, Site, SitesText};
use tree_sitter::Node;

use crate::sites::{DELETE_ELEMENT, DELETE_NODE, HOIST};
use crate::{by_name, error_count, Group, Syntax, SyntaxAware, GRAMMARS};

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
struct Words;

/// A text's number of words.
struct WordCount;

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
    fn groups(&self) -> Vec<()> {
        vec![()]
    }
    fn group_name(&self, _: ()) -> &'static str {
        "words"
    }
    fn policy(&self, _: ()) -> Policy {
        Policy::default()
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

fn syntax(name: &str) -> Syntax {
    Syntax::new(by_name(name).unwrap()).unwrap()
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
    for grammar in GRAMMARS {
        let syntax = syntax(grammar.name);
        let text = sample(grammar.name);
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
    for grammar in GRAMMARS {
        let syntax = syntax(grammar.name);
        let text = sample(grammar.name);
        let tree = syntax.parse(text).unwrap();
        let deleted: HashSet<Range<usize>> = syntax
            .listing(text)
            .sites
            .iter()
            .filter(|s| s.kind != HOIST)
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
    for grammar in GRAMMARS {
        let syntax = syntax(grammar.name);
        let text = sample(grammar.name);
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
    for (from, to) in [("g(h(a))", "h(a)"), ("a ? b : 0", "a"), ("a ? b : 0", "b")] {
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
fn candidates_with_new_syntax_errors_are_refused_in_every_group() {
    let language = SyntaxAware::new(by_name("c").unwrap(), Words).unwrap();
    assert_eq!(language.group_name(Group::Syntax), "syntax");
    assert!(language.policy(Group::Syntax).levels);
    let text = "int main ( void ) { return 0 ; }\n";
    let words = language.prepare(text, Group::Other(()));
    let site = |word: &str| {
        words
            .sites()
            .iter()
            .find(|s| &text[s.range.clone()] == word)
    };
    let broken = words.apply(&[site(")").unwrap()]);
    assert_eq!(words.check(&broken), None);
    let fine = words.apply(&[site("0").unwrap()]);
    assert_eq!(words.check(&fine), Some(9));
    let tree = language.prepare(text, Group::Syntax);
    for site in tree.sites() {
        let edited = tree.apply(&[site]);
        if let Some(size) = tree.check(&edited) {
            assert!(size < 10, "{edited}");
            assert_eq!(error_count(&syntax("c").parse(&edited).unwrap()), 0);
        }
    }
}
