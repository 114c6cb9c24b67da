//! Sites of a parse tree (Perses-style): delete a child the grammar allows to be absent (a
//! field that is not required, or one of several nodes of a repeated slot; comments always),
//! and hoist a node, i.e. replace it by a descendant of a kind its slot accepts (`f(g(x))` →
//! `g(x)`, a block → a statement in it, `a ? b : c` → `b`), and replace a name in a repeated
//! slot (an argument, an element) by the grammar's number literal (`f(s, n)` → `f(s, 1)`).
//!
//! Sites nest like the tree (a node's deletion contains its hoistings, which contain its
//! children's sites), so the text layer searches them level by level from the root (HDD).
//! Elements of a separated list (arguments, parameters, initializers, array and object
//! elements) are deleted together with one separator: which one depends on which neighbours
//! go too, so [`Listing::removals`] computes the ranges of a selection.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use minrepro_text::Site;
use tree_sitter::{Node, Tree};

use crate::facts::Facts;
use crate::grammars::Grammar;
use crate::names::Names;

/// Kind of the deletion of a separated list's element.
pub const DELETE_ELEMENT: &str = "delete-element";
/// Kind of the deletion of any other node.
pub const DELETE_NODE: &str = "delete-node";
/// Kind of the replacement of a node by a descendant.
pub const HOIST: &str = "hoist";
/// Kind of the replacement of a name by the grammar's literal ([`Grammar::literal`]).
pub const LITERAL: &str = "name-to-literal";

/// The node kind of names: the same in every grammar of the table.
const NAME: &str = "identifier";

/// Most hoistings offered per node besides its smallest compatible descendant: its largest
/// ones.
const MAX_HOISTS: usize = 1;
/// Most descendants looked at for a node's hoistings.
const HOIST_SCAN: usize = 256;

/// The sites of a tree, with the separated lists their element deletions belong to.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The sites, in text order (containers before what they contain).
    pub sites: Vec<Site>,
    /// The element ranges of each separated list.
    lists: Vec<Vec<Range<usize>>>,
    /// Where each list's trailing separator (after its last element) ends, if it has one: it
    /// goes when every element goes (`{ a, }` → `{ }`, not `{ , }`).
    trailing: Vec<Option<usize>>,
    /// An element deletion's range → (list, position in it).
    members: HashMap<(usize, usize), (usize, usize)>,
    /// The sites (range, replacement) that take away the only declaration of a name the text
    /// still uses elsewhere ([`Names::strands`]): likely to fail, tried late.
    deferred: HashSet<(usize, usize, String)>,
    /// Ranges deleted together with a site, by the site's range (a definition's forward
    /// declarations, see `crate::coarse`): applied with it, never offered alone. Sorted by the
    /// key (a vector, not a map: the listing stays small enough to keep in `Sites` unboxed).
    companions: Vec<Companions>,
}

/// A site's range (start, end) and the ranges deleted with it.
type Companions = ((usize, usize), Vec<Range<usize>>);

impl Listing {
    /// Lists the sites of `tree` (a parse of `text`).
    pub fn new(tree: &Tree, text: &str, facts: &Facts, grammar: &Grammar) -> Listing {
        let mut listing = Listing::default();
        let names = Names::new(tree, text);
        let mut seen: HashSet<(usize, usize, String)> = HashSet::new();
        // Nodes that may go; the root may (its text may become empty).
        let mut deletable = HashSet::from([tree.root_node().id()]);
        let mut stack = vec![tree.root_node()];
        while let Some(parent) = stack.pop() {
            let children = children_of(parent);
            stack.extend(children.iter().rev().map(|(c, _)| *c));
            if parent.is_error() || parent.is_missing() {
                continue;
            }
            let context = Context {
                text,
                facts,
                grammar,
                names: &names,
            };
            listing.add_children(parent, &children, &context, &mut seen, &mut deletable);
        }
        // Text order, containers first; equal ranges keep their order (deletion first).
        let mut order: Vec<usize> = (0..listing.sites.len()).collect();
        let key = |i: usize| {
            let r = &listing.sites[i].range;
            (r.start, std::cmp::Reverse(r.end), i)
        };
        order.sort_by_key(|&i| key(i));
        let mut sites: Vec<Option<Site>> = listing.sites.drain(..).map(Some).collect();
        listing.sites = order.into_iter().filter_map(|i| sites[i].take()).collect();
        listing
    }

    /// A listing of `sites` that delete no list elements (their ranges as they are).
    pub fn plain(sites: Vec<Site>) -> Listing {
        Listing {
            sites,
            ..Listing::default()
        }
    }

    /// A listing of `sites` where a site whose range is a key of `companions` also deletes the
    /// ranges it maps to (in [`Listing::removals`]).
    pub fn with_companions(
        sites: Vec<Site>,
        companions: HashMap<(usize, usize), Vec<Range<usize>>>,
    ) -> Listing {
        let mut companions: Vec<_> = companions.into_iter().collect();
        companions.sort_unstable_by_key(|&(key, _)| key);
        Listing {
            sites,
            companions,
            ..Listing::default()
        }
    }

    /// The ranges deleted together with `site` (none for most sites).
    pub fn companions_of(&self, site: &Site) -> &[Range<usize>] {
        let key = (site.range.start, site.range.end);
        self.companions
            .binary_search_by_key(&key, |&(k, _)| k)
            .map_or(&[], |i| self.companions[i].1.as_slice())
    }

    /// Whether `site` likely leaves a name undeclared (see [`Listing::deferred`]).
    pub fn is_deferred(&self, site: &Site) -> bool {
        let key = (site.range.start, site.range.end, site.replacement.clone());
        self.deferred.contains(&key)
    }

    /// Only the sites no other site contains (a node's deletion and hoistings, which share
    /// its range, all stay).
    pub fn outermost(mut self) -> Listing {
        let mut outer: Option<Range<usize>> = None;
        self.sites.retain(|site| {
            let inside = outer.as_ref().is_some_and(|o| {
                o.start <= site.range.start && site.range.end <= o.end && *o != site.range
            });
            if !inside && outer.as_ref().is_none_or(|o| site.range.start >= o.end) {
                outer = Some(site.range.clone());
            }
            !inside
        });
        self
    }

    /// The sites of one parent's children.
    fn add_children(
        &mut self,
        parent: Node<'_>,
        children: &[(Node<'_>, Option<&'static str>)],
        context: &Context<'_>,
        seen: &mut HashSet<(usize, usize, String)>,
        deletable: &mut HashSet<usize>,
    ) {
        let Context {
            text,
            facts,
            grammar,
            names,
        } = *context;
        let members: Vec<(Node<'_>, Option<&'static str>)> = children
            .iter()
            .filter(|(c, _)| c.is_named() && !c.is_extra())
            .copied()
            .collect();
        let separated = children
            .iter()
            .any(|(c, _)| !c.is_named() && grammar.separators.contains(&c.kind()));
        let list = separated.then(|| {
            self.lists
                .push(members.iter().map(|(c, _)| c.byte_range()).collect());
            self.trailing.push(trailing_separator(children, grammar));
            self.lists.len() - 1
        });
        // `removed`: the bytes the site takes away (a hoisting keeps its descendant's).
        let mut push = |site: Site, removed: &[Range<usize>], seen: &mut HashSet<_>| {
            let key = (site.range.start, site.range.end, site.replacement.clone());
            if !site.range.is_empty() && seen.insert(key.clone()) {
                if names.strands(removed) {
                    self.deferred.insert(key);
                }
                self.sites.push(site);
            }
        };
        for (child, _) in children
            .iter()
            .filter(|(c, _)| c.is_extra() && c.is_named())
        {
            let site = deletion(DELETE_NODE, lines_of(text, child.byte_range()));
            let removed = [site.range.clone()];
            push(site, &removed, seen);
        }
        for (index, &(child, field)) in members.iter().enumerate() {
            if child.is_error() || child.is_missing() {
                continue;
            }
            let Some(slot) = facts.slot(parent.kind(), field) else {
                continue;
            };
            let in_slot = members.iter().filter(|(_, f)| *f == field).count();
            // A node as long as its parent takes the parent with it: only if that may go too.
            let alone =
                child.byte_range() != parent.byte_range() || deletable.contains(&parent.id());
            if (!slot.required || (slot.multiple && in_slot > 1)) && alone {
                deletable.insert(child.id());
                match list {
                    Some(list) => {
                        let range = child.byte_range();
                        self.members.insert((range.start, range.end), (list, index));
                        push(deletion(DELETE_ELEMENT, range.clone()), &[range], seen);
                    }
                    None => {
                        // An optional field goes with the tokens that introduce it (`: T`,
                        // `= v`, `-> T`, `; 3`).
                        let start = if field.is_some() && !slot.multiple {
                            leading_tokens(children, child, grammar)
                        } else {
                            child.start_byte()
                        };
                        let site = deletion(DELETE_NODE, lines_of(text, start..child.end_byte()));
                        let removed = [site.range.clone()];
                        push(site, &removed, seen);
                    }
                }
            }
            // A name in a repeated slot (an argument, an element) → a literal where one fits:
            // the call keeps its arity and often its type error (`consume(s, n)` →
            // `consume(s, 1)`), and `n`'s declaration may go. Only in repeated slots: elsewhere
            // names are mostly callees and assigned places, where a literal fails.
            if let Some(literal) = grammar.literal.filter(|_| slot.multiple) {
                if child.kind() == NAME && slot.compatible(NAME, literal.kind) {
                    let site = Site {
                        kind: LITERAL,
                        range: child.byte_range(),
                        replacement: literal.text.to_owned(),
                    };
                    let removed = [site.range.clone()];
                    push(site, &removed, seen);
                }
            }
            let whole = &text[child.byte_range()];
            // Blanks the node starts or ends with (some grammars include a newline) stay.
            let before = &whole[..whole.len() - whole.trim_start().len()];
            let after = &whole[whole.trim_end().len()..];
            let fits = |kind: &str| slot.compatible(child.kind(), kind);
            let hoistable = !grammar
                .no_hoist
                .iter()
                .any(|&(kind, name)| kind == parent.kind() && field == Some(name));
            // A slot that is never hoisted does not walk the node's descendants at all.
            let hoisted_nodes = if hoistable {
                hoists(child, fits)
            } else {
                Vec::new()
            };
            for hoisted in hoisted_nodes {
                let replacement = format!("{before}{}{after}", text[hoisted.clone()].trim());
                let range = child.byte_range();
                let removed = [range.start..hoisted.start, hoisted.end..range.end];
                let site = Site {
                    kind: HOIST,
                    range,
                    replacement,
                };
                push(site, &removed, seen);
            }
        }
    }

    /// The byte ranges that the deletions among `selected` remove, as plain sites: an element
    /// of a separated list goes with the separator after it, or before it when no element
    /// after it stays; other sites as they are.
    pub fn removals<'s>(&self, selected: &[&'s Site]) -> Vec<std::borrow::Cow<'s, Site>> {
        use std::borrow::Cow;
        let mut out = Vec::with_capacity(selected.len());
        let mut gone: HashMap<usize, Vec<usize>> = HashMap::new();
        for &site in selected {
            let member = (site.kind == DELETE_ELEMENT)
                .then(|| self.members.get(&(site.range.start, site.range.end)))
                .flatten();
            match member {
                Some(&(list, index)) => gone.entry(list).or_default().push(index),
                None => out.push(Cow::Borrowed(site)),
            }
            // A companion that another selected site also deletes is spliced once (`splice`
            // leaves out a range that overlaps an earlier one).
            for range in self.companions_of(site) {
                out.push(Cow::Owned(deletion(site.kind, range.clone())));
            }
        }
        let mut lists: Vec<_> = gone.into_iter().collect();
        lists.sort_unstable();
        for (list, mut indices) in lists {
            let elements = &self.lists[list];
            indices.sort_unstable();
            indices.dedup();
            let mut at = 0;
            while at < indices.len() {
                let first = indices[at];
                let mut last = first;
                while at + 1 < indices.len() && indices[at + 1] == last + 1 {
                    at += 1;
                    last += 1;
                }
                at += 1;
                let range = if last + 1 < elements.len() {
                    elements[first].start..elements[last + 1].start
                } else if first > 0 {
                    elements[first - 1].end..elements[last].end
                } else {
                    let end = self.trailing[list].unwrap_or(elements[last].end);
                    elements[first].start..end
                };
                out.push(Cow::Owned(deletion(DELETE_ELEMENT, range)));
            }
        }
        out
    }
}

/// What site listing reads.
#[derive(Clone, Copy)]
struct Context<'a> {
    text: &'a str,
    facts: &'a Facts,
    grammar: &'a Grammar,
    names: &'a Names,
}

/// The children of `node` with their field names.
fn children_of(node: Node<'_>) -> Vec<(Node<'_>, Option<&'static str>)> {
    let mut out = Vec::with_capacity(node.child_count());
    let mut cursor = node.walk();
    if cursor.goto_first_child() {
        loop {
            out.push((cursor.node(), cursor.field_name()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// Where the separator right after the last named child of a list ends, if there is one.
fn trailing_separator(
    children: &[(Node<'_>, Option<&'static str>)],
    grammar: &Grammar,
) -> Option<usize> {
    let last = children
        .iter()
        .rposition(|(c, _)| c.is_named() && !c.is_extra())?;
    let (next, _) = children.get(last + 1)?;
    (!next.is_named() && grammar.separators.contains(&next.kind())).then(|| next.end_byte())
}

/// Opening brackets: never taken along with an optional field.
const OPENERS: [&str; 4] = ["(", "[", "{", "<"];

/// Where the deletion of `child` (an optional field) starts: before the anonymous tokens
/// right before it (not separators or opening brackets) when a named sibling precedes them,
/// else at `child`.
fn leading_tokens(
    children: &[(Node<'_>, Option<&'static str>)],
    child: Node<'_>,
    grammar: &Grammar,
) -> usize {
    let Some(at) = children.iter().position(|(c, _)| c.id() == child.id()) else {
        return child.start_byte();
    };
    let mut start = child.start_byte();
    for (before, _) in children[..at].iter().rev() {
        if before.is_named() {
            return start;
        }
        let kind = before.kind();
        if before.is_extra() || grammar.separators.contains(&kind) || OPENERS.contains(&kind) {
            break;
        }
        start = before.start_byte();
    }
    child.start_byte()
}

fn deletion(kind: &'static str, range: Range<usize>) -> Site {
    Site {
        kind,
        range,
        replacement: String::new(),
    }
}

/// `range` widened to whole lines (with the newline) when only blanks share its lines.
pub(crate) fn lines_of(text: &str, range: Range<usize>) -> Range<usize> {
    let start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[range.end..]
        .find('\n')
        .map_or(text.len(), |i| range.end + i + 1);
    let blank = |s: &str| {
        s.chars()
            .all(|c| c == ' ' || c == '\t' || c == '\r' || c == '\n')
    };
    if blank(&text[start..range.start]) && blank(&text[range.end..end]) {
        start..end
    } else {
        range
    }
}

/// The byte ranges of descendants of `node` whose kind `fits` (the outermost ones on each
/// path): the smallest, then at most [`MAX_HOISTS`] of the largest, largest first.
fn hoists(node: Node<'_>, fits: impl Fn(&str) -> bool) -> Vec<Range<usize>> {
    let whole = node.byte_range();
    let mut found: Vec<Range<usize>> = Vec::new();
    let mut stack: Vec<Node<'_>> = children_of(node)
        .into_iter()
        .rev()
        .map(|(c, _)| c)
        .collect();
    let mut scanned = 0;
    while let Some(next) = stack.pop() {
        scanned += 1;
        if scanned > HOIST_SCAN {
            break;
        }
        let range = next.byte_range();
        if next.is_named()
            && !next.is_extra()
            && !next.has_error()
            && range != whole
            && !range.is_empty()
            && fits(next.kind())
        {
            found.push(range);
            continue;
        }
        stack.extend(children_of(next).into_iter().rev().map(|(c, _)| c));
    }
    found.sort_by_key(|r| (std::cmp::Reverse(r.len()), r.start));
    // The smallest first (`(x - x) * 0` → `0`, not only `(x - x)`), then the largest.
    let smallest = found.pop();
    found.truncate(MAX_HOISTS);
    smallest.into_iter().chain(found).collect()
}
