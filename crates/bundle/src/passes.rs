//! The reduction passes, outside in: code objects, top-level metadata lists, each retained case's
//! `arguments`, and (when enabled) removable ELF sections of each object. All are `engine::Ddmin`.

use std::io::Write;
use std::sync::Arc;

use minrepro_engine::{Ddmin, Pass, Proposal, Search};
use serde_json::{json, Value};

use crate::case::{BundleCase, CodeObject, Metadata};
use crate::elf_tools::{ElfTools, ToolError};
use crate::sections::SectionPolicy;

/// Splits `list` into (kept, removed) by sorted positions.
pub fn split_removed<T: Clone>(list: &[T], removed: &[usize]) -> (Vec<T>, Vec<T>) {
    let mut kept = Vec::with_capacity(list.len());
    let mut gone = Vec::with_capacity(removed.len());
    for (index, item) in list.iter().enumerate() {
        if removed.binary_search(&index).is_ok() {
            gone.push(item.clone());
        } else {
            kept.push(item.clone());
        }
    }
    (kept, gone)
}

/// ddmin over the code objects.
pub struct ObjectPass {
    /// Objects that must remain (1 unless `--allow-empty-bundle`).
    pub min_objects: usize,
}

impl Pass<BundleCase> for ObjectPass {
    fn name(&self) -> String {
        "objects".into()
    }

    fn search(&self, _current: &BundleCase) -> Box<dyn Search<BundleCase> + '_> {
        Box::new(Ddmin::new(
            self.min_objects,
            |case: &BundleCase| case.objects.len(),
            |case: &BundleCase, removed: &[usize]| {
                let (kept, gone) = split_removed(&case.objects, removed);
                let mut change = removal(removed);
                if gone.len() <= LISTED {
                    let ids: Vec<&str> = gone.iter().map(|o| o.id.as_str()).collect();
                    change.insert("removed_objects".into(), json!(ids));
                }
                let mut next = case.clone();
                next.objects = kept;
                Some(Proposal {
                    case: next,
                    change: Value::Object(change),
                })
            },
        ))
    }
}

/// Removals of at most this many items list them in the change record; longer ones (a
/// complement at high granularity removes nearly everything, thousands of times per pass) give
/// index ranges and a count only, so the log stays linear in the number of candidates.
pub const LISTED: usize = 16;

/// Sorted positions as half-open `[start, end)` ranges.
pub fn ranges(removed: &[usize]) -> Vec<[usize; 2]> {
    let mut out: Vec<[usize; 2]> = Vec::new();
    for &index in removed {
        match out.last_mut() {
            Some(last) if last[1] == index => last[1] += 1,
            _ => out.push([index, index + 1]),
        }
    }
    out
}

/// The common part of a change record: which positions (of the list before the change) went.
fn removal(removed: &[usize]) -> serde_json::Map<String, Value> {
    let mut change = serde_json::Map::new();
    change.insert("removed_ranges".into(), json!(ranges(removed)));
    change.insert("removed_count".into(), json!(removed.len()));
    change
}

/// The change record of a metadata list removal.
fn list_change(list: String, removed: &[usize], gone: &[Arc<Value>]) -> Value {
    let mut change = serde_json::Map::new();
    change.insert("list".into(), json!(list));
    change.extend(removal(removed));
    if removed.len() <= LISTED {
        let items: Vec<Value> = gone.iter().map(|item| Value::clone(item)).collect();
        change.insert("removed".into(), Value::Array(items));
    }
    Value::Object(change)
}

fn list_len(metadata: &Value, key: &str) -> usize {
    metadata
        .get(key)
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// ddmin over one top-level metadata list (`kernels`, `cases`, `arguments`, `selected_tests`).
pub struct MetadataListPass {
    /// The list's key.
    pub key: &'static str,
}

impl Pass<BundleCase> for MetadataListPass {
    fn name(&self) -> String {
        format!("metadata.{}", self.key)
    }

    fn search(&self, _current: &BundleCase) -> Box<dyn Search<BundleCase> + '_> {
        let key = self.key;
        Box::new(Ddmin::new(
            0,
            move |case: &BundleCase| case.metadata.list(key).map_or(0, <[_]>::len),
            move |case: &BundleCase, removed: &[usize]| {
                let (kept, gone) = split_removed(case.metadata.list(key)?, removed);
                let change = list_change(key.to_owned(), removed, &gone);
                let mut next = case.clone();
                next.metadata = Arc::new(case.metadata.with_list(key, kept)?);
                Some(Proposal { case: next, change })
            },
        ))
    }
}

/// Runs one inner ddmin per item (case or object), in order; the item count is fixed per pass.
struct PerItem {
    count: usize,
    next: usize,
    make: Box<dyn Fn(usize) -> Ddmin<BundleCase> + Send + Sync>,
    inner: Option<Ddmin<BundleCase>>,
}

impl Search<BundleCase> for PerItem {
    fn next_batch(&mut self, current: &BundleCase) -> Option<Vec<Proposal<BundleCase>>> {
        loop {
            if self.inner.is_none() {
                if self.next >= self.count {
                    return None;
                }
                self.inner = Some((self.make)(self.next));
                self.next += 1;
            }
            match self.inner.as_mut().and_then(|s| s.next_batch(current)) {
                Some(batch) => return Some(batch),
                None => self.inner = None,
            }
        }
    }

    fn feedback(&mut self, accepted: Option<usize>) {
        if let Some(inner) = self.inner.as_mut() {
            inner.feedback(accepted);
        }
    }
}

fn case_arguments(metadata: &Metadata, index: usize) -> usize {
    metadata
        .list("cases")
        .and_then(|c| c.get(index))
        .map_or(0, |c| list_len(c, "arguments"))
}

/// ddmin over each retained case's `arguments` list.
pub struct CaseArgumentsPass;

impl Pass<BundleCase> for CaseArgumentsPass {
    fn name(&self) -> String {
        "metadata.cases[].arguments".into()
    }

    fn search(&self, current: &BundleCase) -> Box<dyn Search<BundleCase> + '_> {
        Box::new(PerItem {
            count: current.metadata.list("cases").map_or(0, <[_]>::len),
            next: 0,
            inner: None,
            make: Box::new(|index| {
                Ddmin::new(
                    0,
                    move |case: &BundleCase| case_arguments(&case.metadata, index),
                    move |case: &BundleCase, removed: &[usize]| {
                        let cases = case.metadata.list("cases")?;
                        let mut item = Value::clone(cases.get(index)?);
                        let list = item.get_mut("arguments")?.as_array_mut()?;
                        let (kept, gone) = split_removed(list, removed);
                        *list = kept;
                        let gone: Vec<Arc<Value>> = gone.into_iter().map(Arc::new).collect();
                        let change =
                            list_change(format!("cases[{index}].arguments"), removed, &gone);
                        let mut all = cases.to_vec();
                        all[index] = Arc::new(item);
                        let mut next = case.clone();
                        next.metadata = Arc::new(case.metadata.with_list("cases", all)?);
                        Some(Proposal { case: next, change })
                    },
                )
            }),
        })
    }
}

/// ddmin over each object's removable sections (only built when a removal glob is given).
pub struct SectionPass {
    /// The ELF tools.
    pub tools: Arc<ElfTools>,
    /// What may be removed.
    pub policy: Arc<SectionPolicy>,
    /// Whether to keep quiet about rejected tool results (they are always logged).
    pub quiet: bool,
}

fn removable(policy: &SectionPolicy, object: &CodeObject) -> Vec<String> {
    object
        .sections
        .as_ref()
        .map_or_else(Vec::new, |l| policy.removable(&l.sections))
}

impl Pass<BundleCase> for SectionPass {
    fn name(&self) -> String {
        "sections".into()
    }

    fn search(&self, current: &BundleCase) -> Box<dyn Search<BundleCase> + '_> {
        let (tools, policy, quiet) = (self.tools.clone(), self.policy.clone(), self.quiet);
        Box::new(PerItem {
            count: current.objects.len(),
            next: 0,
            inner: None,
            make: Box::new(move |index| {
                let (tools, policy, length_policy) =
                    (tools.clone(), policy.clone(), policy.clone());
                Ddmin::new(
                    0,
                    move |case: &BundleCase| {
                        case.objects
                            .get(index)
                            .map_or(0, |o| removable(&length_policy, o).len())
                    },
                    move |case: &BundleCase, removed: &[usize]| {
                        build_section_removal(&tools, &policy, case, index, removed, quiet)
                    },
                )
            }),
        })
    }
}

fn build_section_removal(
    tools: &ElfTools,
    policy: &SectionPolicy,
    case: &BundleCase,
    index: usize,
    removed: &[usize],
    quiet: bool,
) -> Option<Proposal<BundleCase>> {
    let object = case.objects.get(index)?;
    let listing = object.sections.as_ref()?;
    let names: Vec<String> = removed
        .iter()
        .filter_map(|&i| removable(policy, object).get(i).cloned())
        .collect();
    let mut next = case.clone();
    match tools.remove_sections(&object.bytes, listing, &names) {
        Ok((bytes, after)) => {
            let mut replaced = CodeObject::new(object.id.clone(), object.name.clone(), bytes);
            replaced.sections = Some(Arc::new(after));
            next.objects[index] = replaced;
            let change = json!({"object": object.id, "removed_sections": names});
            Some(Proposal { case: next, change })
        }
        Err(ToolError::Interrupted) => None,
        Err(ToolError::Failed(message)) => {
            if !quiet {
                let _ = writeln!(
                    std::io::stderr(),
                    "minrepro bundle: warning: rejected removing {names:?} from {:?}: {message}",
                    object.id
                );
            }
            let change = json!({
                "object": object.id,
                "removed_sections": names,
                "tool_error": message,
            });
            next.tool_error = Some(Arc::from(message.as_str()));
            Some(Proposal { case: next, change })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removals_become_ranges() {
        assert_eq!(ranges(&[]), Vec::<[usize; 2]>::new());
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), [[0, 3], [5, 6], [7, 9]]);
        let long: Vec<usize> = (0..LISTED + 1).collect();
        let change = list_change("kernels".into(), &long, &[]);
        assert_eq!(change["removed_ranges"], json!([[0, LISTED + 1]]));
        assert_eq!(change["removed_count"], json!(LISTED + 1));
        assert!(change.get("removed").is_none());
        let short = list_change("kernels".into(), &[3], &[Arc::new(json!("k"))]);
        assert_eq!(short["removed"], json!(["k"]));
    }
}
