//! Header inlining across the documents of a set (C-Reduce's include inlining): an
//! `#include "x.h"` whose `x.h` is a text document of the set, included by no other directive,
//! is replaced by that document's text and the document goes, so the definitions a reproducer
//! needs end up in one file and the header's name, its directive and its file are no longer
//! paid for. It is the set's [`SetRewrites`] group, searched by the text layer with ddmin.
//!
//! A header included more than once stays (inlining it everywhere would grow the set; once,
//! the other includers would miss it).

use std::collections::HashMap;
use std::ops::Range;

use minrepro_text::{Doc, SetRewrites};

/// One `#include "..."` directive of a text document that names another text document of the set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// The including document (index into the documents).
    pub file: usize,
    /// The directive's line, without its newline.
    pub range: Range<usize>,
    /// The included document (index into the documents).
    pub header: usize,
}

/// The quoted name of an `#include "NAME"` line, if `line` is one.
fn quoted_include(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("include")?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(&rest[..end]).filter(|name| !name.is_empty())
}

/// `name` as written in a file called `from`, resolved against `from`'s directory (`.` and
/// `..` folded); `None` when it climbs above the tree's root.
fn resolve(from: &str, name: &str) -> Option<String> {
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// Every directive of `tree` that includes a text file of the tree, in file then text order.
pub fn includes(docs: &[Doc]) -> Vec<Include> {
    let index: HashMap<&str, usize> = docs
        .iter()
        .enumerate()
        .filter(|(_, f)| f.content.text().is_some())
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (file, f) in docs.iter().enumerate() {
        let Some(text) = f.content.text() else {
            continue;
        };
        let mut start = 0;
        for line in text.split_inclusive('\n') {
            let body = line.strip_suffix('\n').unwrap_or(line);
            if let Some(name) = quoted_include(body) {
                // Beside the includer first (the preprocessor's order), then from the root.
                let header = resolve(&f.name, name)
                    .and_then(|n| index.get(n.as_str()).copied())
                    .or_else(|| index.get(name).copied());
                if let Some(header) = header.filter(|&h| h != file) {
                    out.push(Include {
                        file,
                        range: start..start + body.len(),
                        header,
                    });
                }
            }
            start += line.len();
        }
    }
    out
}

/// The directives whose header no other directive includes: those that can be inlined.
pub fn inlinable(docs: &[Doc]) -> Vec<Include> {
    let all = includes(docs);
    let mut count: HashMap<usize, usize> = HashMap::new();
    for include in &all {
        *count.entry(include.header).or_default() += 1;
    }
    all.into_iter().filter(|i| count[&i.header] == 1).collect()
}

/// `tree` with the `chosen` directives of `sites` replaced by their headers' texts (headers
/// inlined into a header that is itself inlined go along) and those headers removed; `None` on
/// a cycle of chosen inclusions.
pub fn inline(docs: &[Doc], sites: &[Include], chosen: &[usize]) -> Option<Vec<Doc>> {
    let picked: Vec<&Include> = chosen.iter().filter_map(|&k| sites.get(k)).collect();
    let mut expanded: HashMap<usize, String> = HashMap::new();
    for file in 0..docs.len() {
        expand(docs, &picked, file, &mut Vec::new(), &mut expanded)?;
    }
    let gone: Vec<usize> = picked.iter().map(|i| i.header).collect();
    let mut edited = docs.to_vec();
    for (i, file) in edited.iter_mut().enumerate() {
        if let Some(text) = expanded.remove(&i) {
            file.content = file.content.with_text(text);
        }
    }
    let mut i = 0;
    edited.retain(|_| {
        i += 1;
        !gone.contains(&(i - 1))
    });
    Some(edited)
}

/// The text of file `file` with its chosen directives expanded (memoised in `expanded`; only
/// files with a chosen directive get an entry).
fn expand(
    docs: &[Doc],
    picked: &[&Include],
    file: usize,
    path: &mut Vec<usize>,
    expanded: &mut HashMap<usize, String>,
) -> Option<()> {
    if expanded.contains_key(&file) {
        return Some(());
    }
    if path.contains(&file) {
        return None;
    }
    let mut own: Vec<&&Include> = picked.iter().filter(|i| i.file == file).collect();
    if own.is_empty() {
        return Some(());
    }
    path.push(file);
    let mut text = docs[file].content.text()?.to_owned();
    own.sort_by_key(|i| std::cmp::Reverse(i.range.start));
    for include in own {
        expand(docs, picked, include.header, path, expanded)?;
        let body = match expanded.get(&include.header) {
            Some(text) => text.clone(),
            None => docs[include.header].content.text()?.to_owned(),
        };
        let body = body.strip_suffix('\n').unwrap_or(&body);
        text.replace_range(include.range.clone(), body);
    }
    path.pop();
    expanded.insert(file, text);
    Some(())
}

/// Header inlining as a group of the text layer's set of documents.
#[derive(Debug, Clone, Copy)]
pub struct Includes;

impl SetRewrites for Includes {
    fn name(&self) -> &'static str {
        "inline-includes"
    }

    fn sites(&self, docs: &[Doc]) -> Vec<(usize, Range<usize>)> {
        inlinable(docs)
            .into_iter()
            .map(|i| (i.file, i.range))
            .collect()
    }

    fn apply(&self, docs: &[Doc], chosen: &[usize]) -> Option<Vec<Doc>> {
        inline(docs, &inlinable(docs), chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Tree;

    fn tree(files: &[(&str, &str)]) -> Vec<Doc> {
        Tree::of_texts(files).docs()
    }

    fn names(docs: &[Doc]) -> Vec<&str> {
        docs.iter().map(|f| f.name.as_str()).collect()
    }

    fn text(doc: &Doc) -> &str {
        doc.content.text().unwrap()
    }

    #[test]
    fn finds_quoted_includes_of_tree_files_only() {
        assert_eq!(quoted_include("  #  include \"a/b.h\" // x"), Some("a/b.h"));
        assert_eq!(quoted_include("#include <stdio.h>"), None);
        assert_eq!(quoted_include("#define include \"x\""), None);
        assert_eq!(
            resolve("src/main.c", "../inc/a.h").as_deref(),
            Some("inc/a.h")
        );
        assert_eq!(resolve("main.c", "../a.h"), None);
        let t = tree(&[
            (
                "src/main.c",
                "#include <stdio.h>\n#include \"api.h\"\n#include \"gone.h\"\nint x;\n",
            ),
            ("src/api.h", "int api(void);\n"),
        ]);
        let found = includes(&t);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].header, 1);
        assert_eq!(&text(&t[0])[found[0].range.clone()], "#include \"api.h\"");
    }

    #[test]
    fn inlines_a_header_included_once_and_removes_it() {
        let t = tree(&[
            (
                "main.c",
                "#include \"a.h\"\nint main(void) { return f(); }\n",
            ),
            ("a.h", "#include \"b.h\"\nint f(void);\n"),
            ("b.h", "typedef int t;\n"),
        ]);
        let sites = inlinable(&t);
        assert_eq!(sites.len(), 2);
        // Both at once: b.h goes into a.h, which goes into main.c.
        let both = inline(&t, &sites, &[0, 1]).unwrap();
        assert_eq!(names(&both), ["main.c"]);
        assert_eq!(
            text(&both[0]),
            "typedef int t;\nint f(void);\nint main(void) { return f(); }\n"
        );
        // One: only b.h goes (into a.h).
        let inner = inline(&t, &sites, &[1]).unwrap();
        assert_eq!(names(&inner), ["main.c", "a.h"]);
        assert_eq!(text(&inner[1]), "typedef int t;\nint f(void);\n");
    }

    #[test]
    fn a_header_included_twice_or_in_a_cycle_stays() {
        let twice = tree(&[
            ("a.c", "#include \"x.h\"\n"),
            ("b.c", "#include \"x.h\"\n"),
            ("x.h", "int x;\n"),
        ]);
        assert!(inlinable(&twice).is_empty());
        let cycle = tree(&[("p.h", "#include \"q.h\"\n"), ("q.h", "#include \"p.h\"\n")]);
        let sites = inlinable(&cycle);
        assert_eq!(sites.len(), 2);
        assert!(inline(&cycle, &sites, &[0, 1]).is_none());
    }
}
