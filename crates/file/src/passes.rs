//! The engine passes of `minrepro file`: whole files removed first, then one pass per site
//! [`Group`], each searching the group's sites across every text file of the current tree with
//! ProbDD (over the sites of the tree the search starts from) or ddmin (sites re-derived after
//! every acceptance). Only candidates strictly smaller than the current tree in (tokens, bytes,
//! contents) are proposed, so a reduction always ends.

use std::sync::{Arc, Mutex};

use minrepro_engine::{Ddmin, Pass, ProbDd, Proposal, Search};
use serde_json::json;

use crate::tree::{Content, Tree};
use crate::{apply, BracketEdit, Site};
use crate::{Group, GROUPS_AFTER_LEVELS, MAX_INDENT_RANK, MAX_LINE_LEVEL};

/// ProbDD's prior probability that a site must stay.
const PROBDD_PRIOR: f64 = 0.1;

/// Longest site list searched with ProbDD: its sets start at about 1 / prior sites, so on
/// thousands of sites of which few matter ddmin's halving needs far fewer runs.
pub const PROBDD_MAX_SITES: usize = 1000;

/// How a group's sites are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Probabilistic delta debugging (lists up to [`PROBDD_MAX_SITES`]; longer ones use ddmin).
    ProbDd,
    /// Complement-based ddmin, sites re-derived from the current tree after every acceptance.
    Ddmin,
}

/// Every group in round order: coarse removals first, shortenings after, the tidy last.
pub fn round() -> Vec<Group> {
    let mut groups: Vec<Group> = (0..=MAX_LINE_LEVEL)
        .map(|l| Group::Lines(Some(l)))
        .collect();
    groups.extend((0..=MAX_INDENT_RANK).map(Group::Indented));
    groups.extend(GROUPS_AFTER_LEVELS);
    groups
}

/// A site of one file of the tree.
type TreeSite = (usize, Site);

/// The sites of `group` in every text file of `tree`, file by file.
fn tree_sites(tree: &Tree, group: Group) -> Vec<TreeSite> {
    tree.lexed()
        .into_iter()
        .flat_map(|(i, lexed)| {
            let ok = match group {
                Group::Indented(_) => lexed.syntax.indented,
                _ => true,
            };
            let sites = if ok { lexed.sites(group) } else { Vec::new() };
            sites.into_iter().map(move |s| (i, s))
        })
        .collect()
}

/// `base` with the `chosen` sites applied, if that is strictly smaller than `current`.
fn candidate(
    base: &Tree,
    sites: &[TreeSite],
    chosen: &[usize],
    current: &Tree,
    group: Group,
) -> Option<Proposal<Tree>> {
    let mut edited = base.clone();
    for (i, file) in edited.files.iter_mut().enumerate() {
        let (Content::Text(text) | Content::Latin1(text)) = &file.content else {
            continue;
        };
        let picked: Vec<&Site> = chosen
            .iter()
            .filter_map(|&k| sites.get(k))
            .filter(|(f, _)| *f == i)
            .map(|(_, s)| s)
            .collect();
        if !picked.is_empty() {
            file.content = file.content.with_text(apply(text, &picked));
        }
    }
    edited.smaller_than(current).then(|| Proposal {
        case: edited,
        change: json!({ "group": group.to_string(), "sites": chosen.len() }),
    })
}

/// The pass of one group.
#[derive(Debug, Clone)]
pub struct GroupPass {
    group: Group,
    strategy: Strategy,
}

impl GroupPass {
    /// Every group's pass, in round order, but the token runs swept left to right (the text
    /// layer's sweep is not implemented over trees; ProbDD over overlapping runs mostly applies
    /// one run of each cluster), and the braces made `;` and the words substituted (measured
    /// on single files only).
    pub fn all(strategy: Strategy) -> Vec<GroupPass> {
        round()
            .into_iter()
            .filter(|g| {
                !matches!(
                    g,
                    Group::Window(_)
                        | Group::LateWindow(_)
                        | Group::Brackets(BracketEdit::Semicolon)
                        | Group::Substitute
                )
            })
            .map(|group| GroupPass { group, strategy })
            .collect()
    }
}

/// The sites of the last tree asked about (a ddmin search asks about the same tree many times).
type Memo = Arc<Mutex<Option<Arc<(Tree, Vec<TreeSite>)>>>>;

fn memoized(memo: &Memo, current: &Tree, group: Group) -> Arc<(Tree, Vec<TreeSite>)> {
    let mut memo = memo.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(known) = memo.as_ref().filter(|m| m.0 == *current) {
        return Arc::clone(known);
    }
    let fresh = Arc::new((current.clone(), tree_sites(current, group)));
    *memo = Some(Arc::clone(&fresh));
    fresh
}

impl Pass<Tree> for GroupPass {
    fn name(&self) -> String {
        self.group.to_string()
    }

    fn search(&self, current: &Tree) -> Box<dyn Search<Tree> + '_> {
        let group = self.group;
        let sites = tree_sites(current, group);
        if self.strategy == Strategy::ProbDd && sites.len() <= PROBDD_MAX_SITES {
            let base = Arc::new((current.clone(), sites));
            let n = base.1.len();
            let search = ProbDd::new(n, PROBDD_PRIOR, move |now: &Tree, chosen: &[usize]| {
                candidate(&base.0, &base.1, chosen, now, group)
            });
            return Box::new(search);
        }
        let memo: Memo = Arc::new(Mutex::new(None));
        let (length_memo, build_memo) = (Arc::clone(&memo), memo);
        let search = Ddmin::new(
            0,
            move |now: &Tree| memoized(&length_memo, now, group).1.len(),
            move |now: &Tree, chunk: &[usize]| {
                let known = memoized(&build_memo, now, group);
                candidate(&known.0, &known.1, chunk, now, group)
            },
        );
        Box::new(search)
    }
}

/// Removal of whole files (never the last one), with ddmin.
#[derive(Debug, Clone, Copy)]
pub struct FilesPass;

impl Pass<Tree> for FilesPass {
    fn name(&self) -> String {
        "files".into()
    }

    fn search(&self, _current: &Tree) -> Box<dyn Search<Tree> + '_> {
        let search = Ddmin::new(
            1,
            |now: &Tree| now.files.len(),
            |now: &Tree, removed: &[usize]| {
                let mut edited = now.clone();
                let mut names = Vec::new();
                for &i in removed.iter().rev() {
                    if i < edited.files.len() {
                        names.push(edited.files.remove(i).name);
                    }
                }
                names.reverse();
                Some(Proposal {
                    case: edited,
                    change: json!({ "group": "files", "removed": names }),
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

    /// A sequential reduction with `passes` until nothing changes, with `keep` as the predicate.
    fn reduce(mut current: Tree, passes: &[&dyn Pass<Tree>], keep: impl Fn(&Tree) -> bool) -> Tree {
        loop {
            let before = current.clone();
            for pass in passes {
                let mut search = pass.search(&current);
                current = run_search(&mut *search, current, &mut |p| keep(&p.case));
            }
            if current == before {
                return current;
            }
        }
    }

    #[test]
    fn reduces_a_two_file_c_project_to_what_the_predicate_needs() {
        let start = Tree::of_texts(&[
            ("main.c", "#include \"u.h\"\n/* entry */\nint main(void) {\n  int unused = 42;\n  return helper(7);\n}\n"),
            ("u.h", "int helper(int x);\nint other(void);\n"),
            ("notes.txt", "nothing to see\n"),
        ]);
        let keep = |t: &Tree| {
            let text: String = t.files.iter().filter_map(|f| f.text()).collect();
            t.files.iter().any(|f| f.name == "u.h")
                && text.contains("helper(")
                && text.contains("int helper")
        };
        let passes = GroupPass::all(Strategy::ProbDd);
        let mut all: Vec<&dyn Pass<Tree>> = vec![&FilesPass];
        all.extend(passes.iter().map(|p| p as &dyn Pass<Tree>));
        let reduced = reduce(start.clone(), &all, keep);
        assert!(keep(&reduced));
        let names: Vec<&str> = reduced.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["u.h"]);
        assert_eq!(reduced.files[0].text(), Some("int helper(\n"));
        let ddmin = GroupPass::all(Strategy::Ddmin);
        let mut all: Vec<&dyn Pass<Tree>> = vec![&FilesPass];
        all.extend(ddmin.iter().map(|p| p as &dyn Pass<Tree>));
        assert_eq!(reduce(start, &all, keep), reduced);
    }
}
