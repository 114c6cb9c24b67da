//! [`DocSet`]: the language of a set of documents (see `docs`), each document reduced in its own
//! language (chosen by its name), the whole set by one reduction: every group's sites of every
//! document are searched together, and the set's own group removes whole documents. A text
//! that is no set (one document) is its language's text, reduced exactly as without the set.

use std::ops::Range;
use std::sync::Arc;

use crate::docs::{is_set, latin1_bytes, parts, split, Doc};
use crate::language::{EncodeError, Encoded, Language, Prepared};
use crate::site::SiteInfo;
use crate::spec::{GroupSpec, SearchSpec, SiteKeys, TextKey};

mod prepared;
#[cfg(test)]
mod tests;

use prepared::{document, set_size};
pub use prepared::{DocSite, EditedSet, PreparedSet};

/// A group of a set: whole documents removed, or a group of the documents' language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DocGroup<G> {
    /// Whole documents removed (never all of them).
    Files,
    /// The front end's edits across documents ([`SetRewrites`]).
    Rewrites,
    /// The documents' group.
    Inner(G),
}

/// The language of a set of documents in languages `L` (see the module documentation).
pub struct DocSet<L: Language> {
    /// The language of each document of the original, by name (documents are only ever
    /// removed, never added or renamed); the first also of a text that is no set.
    languages: Arc<Vec<(String, L)>>,
    /// Each language's groups (in `languages` order).
    specs: Vec<Vec<GroupSpec<L::Group>>>,
    /// Whether the original is a set (else one document: no `Files` group).
    set: bool,
    /// The front end's edits across documents, if any.
    rewrites: Option<Arc<dyn SetRewrites>>,
    /// Whether the first document is never removed whole (the file a predicate runs).
    keep_first: bool,
}

/// Edits of a set that no one document's sites express (e.g. a header inlined into its one
/// includer and removed): what a front end adds to [`DocSet`] as a group of its own, searched
/// with ddmin after whole documents.
pub trait SetRewrites: Send + Sync {
    /// The group's name (logged).
    fn name(&self) -> &'static str;
    /// The rewrites of `docs`, each as the document and the range of its body it rewrites
    /// (what it is identified and logged by).
    fn sites(&self, docs: &[Doc]) -> Vec<(usize, Range<usize>)>;
    /// `docs` with the `chosen` rewrites (indices into [`SetRewrites::sites`]) applied, if
    /// they can be together.
    fn apply(&self, docs: &[Doc], chosen: &[usize]) -> Option<Vec<Doc>>;
}

impl<L: Language> DocSet<L> {
    /// The set of the documents named as `languages` says, each in its language; `set`:
    /// the original's text is a set (see `docs::join`), not one document's text.
    pub fn new(languages: Vec<(String, L)>, set: bool) -> Self {
        assert!(!languages.is_empty(), "a set has at least one document");
        let specs = languages.iter().map(|(_, l)| l.groups()).collect();
        DocSet {
            languages: Arc::new(languages),
            specs,
            set,
            rewrites: None,
            keep_first: false,
        }
    }

    /// The same set, whose first document is never removed whole (e.g. the program a
    /// predicate runs; a front end's rewrites still may rewrite it).
    pub fn keeping_first(mut self) -> Self {
        self.keep_first = true;
        self
    }

    /// The same set with `rewrites` as a group (of a set only).
    pub fn with_rewrites(mut self, rewrites: Arc<dyn SetRewrites>) -> Self {
        self.rewrites = Some(rewrites);
        self
    }

    /// The index of the language of the document named `name`.
    fn index_of(&self, name: &str) -> usize {
        language_index(&self.languages, self.set, name)
    }

    /// The language of the document named `name`.
    fn language_of(&self, name: &str) -> &L {
        &self.languages[self.index_of(name)].1
    }

    /// Whether the language at `index` lists `group`.
    fn lists(&self, index: usize, group: L::Group) -> bool {
        self.specs[index].iter().any(|s| s.group == group)
    }

    /// The inner groups in round order: the first language's, then each other's not listed
    /// yet, right after the group that precedes it there.
    fn merged_groups(&self) -> Vec<L::Group> {
        let mut order: Vec<L::Group> = Vec::new();
        for specs in &self.specs {
            let mut at = 0;
            for spec in specs {
                match order.iter().position(|g| *g == spec.group) {
                    Some(i) => at = i + 1,
                    None => {
                        order.insert(at, spec.group);
                        at += 1;
                    }
                }
            }
        }
        order
    }

    /// The spec of inner `group` for a set: the first listing language's, its keys taken per
    /// document from each document's language.
    fn set_spec(&self, group: L::Group) -> GroupSpec<DocGroup<L::Group>> {
        let spec_of = |i: usize| self.specs[i].iter().find(|s| s.group == group);
        let first = (0..self.specs.len())
            .find_map(spec_of)
            .expect("a merged group is listed")
            .clone();
        let names: Vec<String> = self.languages.iter().map(|(n, _)| n.clone()).collect();
        let identities: Arc<Vec<Option<SiteKeys>>> = Arc::new(
            (0..self.specs.len())
                .map(|i| spec_of(i).and_then(|s| s.identities.clone()))
                .collect(),
        );
        let fruitless: Vec<Option<TextKey>> = (0..self.specs.len())
            .map(|i| spec_of(i).and_then(|s| s.fruitless.clone()))
            .collect();
        let any_fruitless = fruitless.iter().any(Option::is_some);
        let (id_names, key_names) = (Arc::new(names), Arc::new(fruitless));
        let key_index = Arc::clone(&id_names);
        let mut spec = first.map(DocGroup::Inner);
        spec.identities = Some(Arc::new(move |text: &str, sites: &[SiteInfo<'_>]| {
            document_identities(text, sites, &|name| index(&id_names, name), &identities)
        }));
        spec.fruitless = any_fruitless.then(|| {
            Arc::new(move |text: &str| {
                let mut hasher = blake3::Hasher::new();
                for part in parts(text) {
                    hasher.update(part.name.as_bytes());
                    hasher.update(&[0, part.kind as u8, 0]);
                    let body = &text[part.body.clone()];
                    match key_names[index(&key_index, part.name)].as_ref() {
                        Some(key) if part.is_text() => hasher.update(&key(body)),
                        _ => hasher.update(blake3::hash(body.as_bytes()).as_bytes()),
                    };
                }
                *hasher.finalize().as_bytes()
            }) as TextKey
        });
        spec
    }
}

/// The index of the language of the document named `name` in `languages` (of a set or not).
fn language_index<L>(languages: &[(String, L)], set: bool, name: &str) -> usize {
    match set {
        true => languages.iter().position(|(n, _)| n == name).unwrap_or(0),
        false => 0,
    }
}

/// The size of a text of the set of `languages` (see [`set_size`]).
fn text_size<L: Language>(languages: &[(String, L)], set: bool, text: &str) -> usize {
    if !is_set(text) {
        return languages[0].1.size(text);
    }
    let sizes = parts(text).into_iter().map(|part| match part.is_text() {
        true => languages[language_index(languages, set, part.name)]
            .1
            .size(&text[part.body]),
        false => 0,
    });
    set_size(set, sizes)
}

/// The position of `name` in `names` (0 if absent).
fn index(names: &[String], name: &str) -> usize {
    names.iter().position(|n| n == name).unwrap_or(0)
}

/// The identities of a set's sites (in text order, each inside one document's body): each
/// document's by its language's keys (or [`line_identity`](crate::line_identity)) over its
/// body, with the document's name mixed in, so that alike sites of two documents differ.
fn document_identities(
    text: &str,
    sites: &[SiteInfo<'_>],
    index_of: &dyn Fn(&str) -> usize,
    keys: &[Option<SiteKeys>],
) -> Vec<[u8; 32]> {
    let mut ids = Vec::with_capacity(sites.len());
    let mut rest = sites;
    for part in parts(text) {
        let inside = rest
            .iter()
            .take_while(|s| s.range.start >= part.body.start && s.range.end <= part.body.end)
            .count();
        let (mine, after) = rest.split_at(inside);
        rest = after;
        if mine.is_empty() {
            continue;
        }
        let body = &text[part.body.clone()];
        let shifted: Vec<SiteInfo<'_>> = mine
            .iter()
            .map(|s| SiteInfo {
                kind: s.kind,
                range: s.range.start - part.body.start..s.range.end - part.body.start,
                replacement: s.replacement,
            })
            .collect();
        let own = match &keys[index_of(part.name)] {
            Some(keys) => keys(body, &shifted),
            None => shifted
                .iter()
                .map(|s| crate::candidate::line_identity(body, s))
                .collect(),
        };
        for id in own {
            let fields: [&[u8]; 2] = [part.name.as_bytes(), &id];
            ids.push(*minrepro_predicate::digest_fields(&fields).as_bytes());
        }
    }
    // Sites outside every body (none are listed so) keep the default identity.
    ids.extend(
        rest.iter()
            .map(|s| crate::candidate::line_identity(text, s)),
    );
    ids
}

impl<L: Language> DocSet<L>
where
    <L::Prepared as Prepared>::Site: Clone,
{
    /// `text` prepared for `group` (`with_sites` false: no sites, as the current text).
    fn prepared(
        &self,
        text: &str,
        group: DocGroup<L::Group>,
        with_sites: bool,
    ) -> PreparedSet<L::Prepared> {
        let mut docs = Vec::new();
        let mut sites = Vec::new();
        let all = parts(text);
        let whole_sites = with_sites && self.set && group == DocGroup::Files && all.len() > 1;
        for (i, part) in all.iter().enumerate() {
            let index = self.index_of(part.name);
            let language = &self.languages[index].1;
            let body = &text[part.body.clone()];
            let prepared = match group {
                DocGroup::Inner(g) if part.is_text() && self.lists(index, g) => {
                    Some(language.prepare(body, g))
                }
                _ if !with_sites && part.is_text() => Some(language.prepare_current(body)),
                _ => None,
            };
            let size = match (&prepared, part.is_text()) {
                (Some(p), _) => p.size(),
                (None, true) => language.size(body),
                (None, false) => 0,
            };
            if let Some(p) = prepared.as_ref().filter(|_| with_sites) {
                sites.extend(p.sites().iter().map(|site| DocSite::Inner {
                    doc: i,
                    offset: part.body.start,
                    site: site.clone(),
                }));
            }
            if whole_sites && !(self.keep_first && i == 0) {
                sites.push(DocSite::Whole {
                    doc: i,
                    range: part.whole.clone(),
                });
            }
            docs.push(document(part, prepared, size));
        }
        let rewrites = match (&self.rewrites, group) {
            (Some(with), DocGroup::Rewrites) if with_sites && self.set => {
                let split = split(text, "");
                let starts: Vec<usize> = all.iter().map(|p| p.body.start).collect();
                sites.extend(with.sites(&split).into_iter().enumerate().map(
                    |(index, (doc, range))| DocSite::Rewrite {
                        index,
                        range: range.start + starts[doc]..range.end + starts[doc],
                        kind: with.name(),
                    },
                ));
                Some((split, Arc::clone(with)))
            }
            _ => None,
        };
        let (languages, set) = (Arc::clone(&self.languages), self.set);
        PreparedSet {
            source: text.to_owned(),
            set: self.set,
            size: set_size(self.set, docs.iter().map(|d| d.size)),
            docs,
            sites,
            rewrites,
            measure: Arc::new(move |text: &str| text_size(&languages, set, text)),
        }
    }
}

impl<L: Language> Language for DocSet<L>
where
    <L::Prepared as Prepared>::Site: Clone,
    <L::Prepared as Prepared>::Edited: Send + Sync,
{
    type Group = DocGroup<L::Group>;
    type Prepared = PreparedSet<L::Prepared>;
    const SIZE_UNIT: &'static str = L::SIZE_UNIT;

    fn groups(&self) -> Vec<GroupSpec<Self::Group>> {
        if !self.set {
            return self.specs[0]
                .iter()
                .cloned()
                .map(|s| s.map(DocGroup::Inner))
                .collect();
        }
        // Whole documents first: each removal is the largest cut there is.
        let files = GroupSpec::new(DocGroup::Files, "files", SearchSpec::Ddmin);
        let rewrites = self
            .rewrites
            .as_ref()
            .map(|r| GroupSpec::new(DocGroup::Rewrites, r.name(), SearchSpec::Ddmin));
        std::iter::once(files)
            .chain(rewrites)
            .chain(self.merged_groups().into_iter().map(|g| self.set_spec(g)))
            .collect()
    }

    fn size(&self, text: &str) -> usize {
        text_size(&self.languages, self.set, text)
    }

    fn prepare(&self, text: &str, group: Self::Group) -> Self::Prepared {
        self.prepared(text, group, true)
    }

    fn prepare_current(&self, text: &str) -> Self::Prepared {
        self.prepared(text, DocGroup::Files, false)
    }

    fn is_valid(&self, text: &str) -> bool {
        parts(text)
            .into_iter()
            .all(|part| !part.is_text() || self.language_of(part.name).is_valid(&text[part.body]))
    }

    fn tidy_steps(&self, text: &str) -> Vec<(&'static str, String)> {
        if !is_set(text) {
            return self.languages[0].1.tidy_steps(text);
        }
        // Each kind of step applied to every document that has one, in the order kinds first
        // appear.
        let all = parts(text);
        let steps: Vec<Vec<(&'static str, String)>> = all
            .iter()
            .map(|part| match part.is_text() {
                true => self
                    .language_of(part.name)
                    .tidy_steps(&text[part.body.clone()]),
                false => Vec::new(),
            })
            .collect();
        let mut kinds: Vec<&'static str> = Vec::new();
        for (kind, _) in steps.iter().flatten() {
            if !kinds.contains(kind) {
                kinds.push(kind);
            }
        }
        kinds
            .into_iter()
            .map(|kind| {
                let mut joined = String::with_capacity(text.len());
                for (part, steps) in all.iter().zip(&steps) {
                    joined.push_str(&text[part.whole.start..part.body.start]);
                    match steps.iter().find(|(k, _)| *k == kind) {
                        Some((_, tidied)) => joined.push_str(tidied),
                        None => joined.push_str(&text[part.body.clone()]),
                    }
                }
                (kind, joined)
            })
            .collect()
    }

    fn encode<'t>(&self, text: &'t str) -> Result<Encoded<'t>, EncodeError> {
        if !is_set(text) {
            return self.languages[0].1.encode(text);
        }
        let mut files = Vec::new();
        for part in parts(text) {
            let body = &text[part.body.clone()];
            let bytes = match part.kind {
                'l' => latin1_bytes(body),
                'b' => crate::docs::unhex(body),
                _ => match self.language_of(part.name).encode(body)? {
                    Encoded::One(bytes) => bytes.into_owned(),
                    Encoded::Several(_) => {
                        return Err(EncodeError(format!(
                            "{}: a document is one file, not several",
                            part.name
                        )))
                    }
                },
            };
            files.push((part.name.to_owned(), bytes));
        }
        Ok(Encoded::Several(files))
    }
}
