use std::sync::Arc;

use minrepro_engine::{run_search, Pass, Width};

use super::*;
use crate::docs::{join, Content};
use crate::language::{Edited, Strategy};
use crate::passes::group_passes;
use crate::state::SharedState;
use crate::testlang::Lines;

fn text_doc(name: &str, text: &str) -> Doc {
    Doc {
        name: name.into(),
        content: Content::Text(text.into()),
    }
}

fn lines() -> Lines {
    Lines {
        probdd: true,
        levels: false,
        skip_failed: true,
        ..Lines::default()
    }
}

/// The text every pass of `language` reduces `text` to, round after round until nothing
/// changes, the first interesting proposal of a batch accepted.
fn reduce<L: Language>(language: L, text: &str, interesting: &dyn Fn(&str) -> bool) -> String {
    let state = SharedState::new(language, text, Strategy::ProbDd);
    let passes = group_passes(&state);
    let mut current = text.to_owned();
    loop {
        let before = current.clone();
        for pass in &passes {
            let mut search = pass.search(&current);
            search.set_width(Width::SEQUENTIAL);
            current = run_search(&mut *search, current, &mut |p| interesting(&p.case));
        }
        if current == before {
            return current;
        }
    }
}

/// The body of the document named `name` in a set's text.
fn body<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    parts(text)
        .into_iter()
        .find(|p| p.name == name)
        .map(|p| &text[p.body])
}

fn names(text: &str) -> Vec<&str> {
    parts(text).into_iter().map(|p| p.name).collect()
}

#[test]
fn a_set_is_reduced_across_its_documents_and_loses_the_ones_not_needed() {
    let docs = vec![
        text_doc("a.txt", "w\nx\ny\n"),
        text_doc("sub/b.txt", "y\nq\nr\n"),
        text_doc("c.txt", "unused\n"),
        Doc {
            name: "blob".into(),
            content: Content::Binary(Arc::new(vec![0, 1, 2])),
        },
    ];
    let languages = docs.iter().map(|d| (d.name.clone(), lines())).collect();
    let set = DocSet::new(languages, true);
    let names_of = |specs: Vec<GroupSpec<DocGroup<()>>>| -> Vec<&'static str> {
        specs.iter().map(|s| s.name).collect()
    };
    assert_eq!(names_of(set.groups()), ["files", "lines"]);
    let text = join(&docs);
    assert_eq!(set.size(&text), 3 + 3 + 1 + 4);
    // x must stay in a.txt and q in sub/b.txt; nothing else matters.
    let has = |t: &str, name: &str, line: &str| body(t, name).is_some_and(|b| b.contains(line));
    let interesting = |t: &str| has(t, "a.txt", "x\n") && has(t, "sub/b.txt", "q\n");
    let reduced = reduce(set, &text, &interesting);
    assert_eq!(names(&reduced), ["a.txt", "sub/b.txt"]);
    assert_eq!(body(&reduced, "a.txt"), Some("x\n"));
    assert_eq!(body(&reduced, "sub/b.txt"), Some("q\n"));
}

#[test]
fn whole_documents_go_but_never_all_of_them() {
    let docs = vec![text_doc("a", "x\n"), text_doc("b", "y\n")];
    let languages = docs.iter().map(|d| (d.name.clone(), lines())).collect();
    let set = DocSet::new(languages, true);
    let text = join(&docs);
    // The current text, against which candidates of older bases are judged, has its size.
    assert_eq!(set.prepare_current(&text).size(), set.size(&text));
    let prepared = set.prepare(&text, DocGroup::Files);
    assert_eq!(prepared.sites().len(), 2);
    let all: Vec<_> = prepared.sites().iter().collect();
    let none_left = prepared.apply(&all);
    assert_eq!(prepared.check(&none_left), None);
    let one_left = prepared.apply(&all[..1]);
    assert_eq!(one_left.text(), join(&docs[1..]));
    assert_eq!(prepared.check(&one_left), Some(1 + 1));
    // Keeping the first document, only the others may go.
    let languages = docs.iter().map(|d| (d.name.clone(), lines())).collect();
    let kept = DocSet::new(languages, true).keeping_first();
    let prepared = kept.prepare(&text, DocGroup::Files);
    assert_eq!(prepared.sites().len(), 1);
    let all: Vec<_> = prepared.sites().iter().collect();
    assert_eq!(prepared.apply(&all).text(), join(&docs[..1]));
}

#[test]
fn one_document_is_its_language_unchanged() {
    let text = "a\nb\nc\nd\n";
    let interesting = |t: &str| t.contains("b\n") && t.contains("d\n");
    let alone = reduce(lines(), text, &interesting);
    let set = DocSet::new(vec![("f.txt".to_owned(), lines())], false);
    let names: Vec<&str> = set.groups().iter().map(|s| s.name).collect();
    assert_eq!(names, ["lines"]);
    assert_eq!(set.size(text), lines().size(text));
    assert_eq!(reduce(set, text, &interesting), alone);
    assert_eq!(alone, "b\nd\n");
}

/// Moves the last document's text to the end of the first one (one rewrite, logged at the
/// first one's end).
struct Append;

impl SetRewrites for Append {
    fn name(&self) -> &'static str {
        "append"
    }

    fn sites(&self, docs: &[Doc]) -> Vec<(usize, std::ops::Range<usize>)> {
        match docs {
            [first, _, ..] => {
                let end = first.content.text().map_or(0, str::len);
                vec![(0, end..end)]
            }
            _ => Vec::new(),
        }
    }

    fn apply(&self, docs: &[Doc], chosen: &[usize]) -> Option<Vec<Doc>> {
        if chosen != [0] {
            return None;
        }
        let mut docs = docs.to_vec();
        let last = docs.pop()?;
        let joined = format!("{}{}", docs[0].content.text()?, last.content.text()?);
        docs[0].content = docs[0].content.with_text(joined);
        Some(docs)
    }
}

#[test]
fn a_front_ends_rewrite_across_documents_is_a_group_of_the_set() {
    let docs = vec![text_doc("main", "m\n"), text_doc("lib", "l\n")];
    let languages = docs.iter().map(|d| (d.name.clone(), lines())).collect();
    let set = DocSet::new(languages, true).with_rewrites(Arc::new(Append));
    let names_of: Vec<&str> = set.groups().iter().map(|s| s.name).collect();
    assert_eq!(names_of, ["files", "append", "lines"]);
    // Both lines must stay, and the test needs a single file.
    let interesting =
        |t: &str| names(t).len() == 1 && body(t, "main").is_some_and(|b| b == "m\nl\n");
    let start = join(&docs);
    let prepared = set.prepare(&start, DocGroup::Rewrites);
    let all: Vec<_> = prepared.sites().iter().collect();
    let merged = prepared.apply(&all);
    assert!(interesting(merged.text()));
    assert_eq!(prepared.check(&merged), Some(2 + 1));
    assert_eq!(
        reduce(set, &start, &|t| names(t).len() == 1 && interesting(t)),
        join(&[text_doc("main", "m\nl\n")])
    );
}
