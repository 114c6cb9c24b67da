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
                let ids: Vec<&str> = gone.iter().map(|o| o.id.as_str()).collect();
                let change = json!({"removed_objects": ids});
                let mut next = case.clone();
                next.objects = kept;
                Some(Proposal { case: next, change })
            },
        ))
    }
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
            move |case: &BundleCase| list_len(&case.metadata, key),
            move |case: &BundleCase, removed: &[usize]| {
                let mut metadata = case.metadata.value().clone();
                let list = metadata.get_mut(key)?.as_array_mut()?;
                let (kept, gone) = split_removed(list, removed);
                *list = kept;
                let change = json!({"list": key, "removed_indices": removed, "removed": gone});
                let mut next = case.clone();
                next.metadata = Arc::new(Metadata::new(metadata));
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

fn case_arguments(metadata: &Value, index: usize) -> usize {
    metadata
        .get("cases")
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
            count: list_len(&current.metadata, "cases"),
            next: 0,
            inner: None,
            make: Box::new(|index| {
                Ddmin::new(
                    0,
                    move |case: &BundleCase| case_arguments(&case.metadata, index),
                    move |case: &BundleCase, removed: &[usize]| {
                        let mut metadata = case.metadata.value().clone();
                        let list = metadata
                            .get_mut("cases")?
                            .get_mut(index)?
                            .get_mut("arguments")?
                            .as_array_mut()?;
                        let (kept, gone) = split_removed(list, removed);
                        *list = kept;
                        let change = json!({
                            "list": format!("cases[{index}].arguments"),
                            "removed_indices": removed,
                            "removed": gone,
                        });
                        let mut next = case.clone();
                        next.metadata = Arc::new(Metadata::new(metadata));
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
