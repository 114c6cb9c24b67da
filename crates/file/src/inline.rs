//! Header inlining across the files of a tree (C-Reduce's include inlining): an
//! `#include "x.h"` whose `x.h` is a text file of the tree, included by no other directive, is
//! replaced by that file's text and the file goes, so the definitions a reproducer needs end up
//! in one file and the header's name, its directive and its file are no longer paid for.
//!
//! A header included more than once stays (inlining it everywhere would grow the tree; once,
//! the other includers would miss it). The search is ddmin over the inlinable directives, the
//! list re-derived from every accepted tree; a candidate is only proposed when it is strictly
//! smaller than the current tree.

use std::collections::HashMap;
use std::ops::Range;

use minrepro_engine::{Ddmin, Pass, Proposal, Search};
use serde_json::json;

use crate::tree::Tree;

/// One `#include "..."` directive of a text file that names another text file of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// The including file (index into [`Tree::files`]).
    pub file: usize,
    /// The directive's line, without its newline.
    pub range: Range<usize>,
    /// The included file (index into [`Tree::files`]).
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
pub fn includes(tree: &Tree) -> Vec<Include> {
    let index: HashMap<&str, usize> = tree
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.text().is_some())
        .map(|(i, f)| (f.name.as_str(), i))
        .collect();
    let mut out = Vec::new();
    for (file, f) in tree.files.iter().enumerate() {
        let Some(text) = f.text() else { continue };
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
pub fn inlinable(tree: &Tree) -> Vec<Include> {
    let all = includes(tree);
    let mut count: HashMap<usize, usize> = HashMap::new();
    for include in &all {
        *count.entry(include.header).or_default() += 1;
    }
    all.into_iter().filter(|i| count[&i.header] == 1).collect()
}

/// `tree` with the `chosen` directives of `sites` replaced by their headers' texts (headers
/// inlined into a header that is itself inlined go along) and those headers removed; `None` on
/// a cycle of chosen inclusions.
pub fn inline(tree: &Tree, sites: &[Include], chosen: &[usize]) -> Option<Tree> {
    let picked: Vec<&Include> = chosen.iter().filter_map(|&k| sites.get(k)).collect();
    let mut expanded: HashMap<usize, String> = HashMap::new();
    for file in 0..tree.files.len() {
        expand(tree, &picked, file, &mut Vec::new(), &mut expanded)?;
    }
    let gone: Vec<usize> = picked.iter().map(|i| i.header).collect();
    let mut edited = tree.clone();
    for (i, file) in edited.files.iter_mut().enumerate() {
        if let Some(text) = expanded.remove(&i) {
            file.content = file.content.with_text(text);
        }
    }
    let mut i = 0;
    edited.files.retain(|_| {
        i += 1;
        !gone.contains(&(i - 1))
    });
    Some(edited)
}

/// The text of file `file` with its chosen directives expanded (memoised in `expanded`; only
/// files with a chosen directive get an entry).
fn expand(
    tree: &Tree,
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
    let mut text = tree.files[file].text()?.to_owned();
    own.sort_by_key(|i| std::cmp::Reverse(i.range.start));
    for include in own {
        expand(tree, picked, include.header, path, expanded)?;
        let body = match expanded.get(&include.header) {
            Some(text) => text.clone(),
            None => tree.files[include.header].text()?.to_owned(),
        };
        let body = body.strip_suffix('\n').unwrap_or(&body);
        text.replace_range(include.range.clone(), body);
    }
    path.pop();
    expanded.insert(file, text);
    Some(())
}

/// The pass inlining headers included once.
#[derive(Debug, Clone, Copy)]
pub struct InlinePass;

impl Pass<Tree> for InlinePass {
    fn name(&self) -> String {
        "inline-includes".into()
    }

    fn search(&self, _current: &Tree) -> Box<dyn Search<Tree> + '_> {
        // The directives are re-listed from each tree asked about: a line scan, cheap next to
        // a predicate run.
        let search = Ddmin::new(
            0,
            |now: &Tree| inlinable(now).len(),
            |now: &Tree, chosen: &[usize]| {
                let sites = inlinable(now);
                let edited = inline(now, &sites, chosen)?;
                let headers: Vec<&str> = chosen
                    .iter()
                    .filter_map(|&k| sites.get(k))
                    .map(|i| now.files[i.header].name.as_str())
                    .collect();
                edited.smaller_than(now).then(|| Proposal {
                    change: json!({ "group": "inline-includes", "headers": headers }),
                    case: edited,
                })
            },
        );
        Box::new(search)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use minrepro_engine::run_search;

    fn tree(files: &[(&str, &str)]) -> Tree {
        Tree::of_texts(files)
    }

    fn names(tree: &Tree) -> Vec<&str> {
        tree.files.iter().map(|f| f.name.as_str()).collect()
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
        assert_eq!(
            &t.files[0].text().unwrap()[found[0].range.clone()],
            "#include \"api.h\""
        );
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
            both.files[0].text().unwrap(),
            "typedef int t;\nint f(void);\nint main(void) { return f(); }\n"
        );
        assert!(both.smaller_than(&t));
        // One: only b.h goes (into a.h).
        let inner = inline(&t, &sites, &[1]).unwrap();
        assert_eq!(names(&inner), ["main.c", "a.h"]);
        assert_eq!(
            inner.files[1].text().unwrap(),
            "typedef int t;\nint f(void);\n"
        );
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

    #[test]
    fn the_pass_inlines_what_the_predicate_allows() {
        let start = tree(&[
            (
                "main.c",
                "#include \"keep.h\"\n#include \"util.h\"\nint main(void) { return g(); }\n",
            ),
            ("keep.h", "int k;\n"),
            ("util.h", "int g(void);\n"),
        ]);
        // The predicate needs keep.h to stay a file of its own.
        let keep = |t: &Tree| t.files.iter().any(|f| f.name == "keep.h");
        let mut offered = 0;
        let mut search = InlinePass.search(&start);
        let end = run_search(&mut *search, start.clone(), &mut |p| {
            offered += 1;
            keep(&p.case)
        });
        assert_eq!(names(&end), ["main.c", "keep.h"]);
        assert_eq!(
            end.files[0].text().unwrap(),
            "#include \"keep.h\"\nint g(void);\nint main(void) { return g(); }\n"
        );
        assert!(offered >= 2, "{offered}");
    }
}
