//! The reduction passes, outside in: code objects, top-level metadata lists, each retained case's
//! `arguments`, and (when enabled) removable ELF sections of each object. All are `engine::Ddmin`.
//! Each proposal's change record is the original reducer's `transformation` for that edit
//! (`remove_ids`; `path` + `remove_value_digests`; `object_id` + `remove_sections` +
//! `delta_remove_sections`), so the log has its schema.

use std::io::Write;
use std::sync::Arc;

use minrepro_engine::{Ddmin, Pass, Proposal, Search, Sequence};
use serde_json::{json, Value};

use crate::canonical;
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
                let change = json!({"remove_ids": ids});
                let mut next = case.clone();
                next.objects = kept;
                Some(Proposal { case: next, change })
            },
        ))
    }
}

/// The change record of a metadata list removal: the list's path (`kernels`,
/// `cases.0.arguments`) and the SHA-256 of each removed item's canonical JSON.
fn list_change(path: String, gone: &[Arc<Value>]) -> Value {
    let digests: Vec<String> = gone
        .iter()
        .map(|item| canonical::sha256_hex(item))
        .collect();
    json!({"path": path, "remove_value_digests": digests})
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
                let change = list_change(key.to_owned(), &gone);
                let mut next = case.clone();
                next.metadata = Arc::new(case.metadata.with_list(key, kept)?);
                Some(Proposal { case: next, change })
            },
        ))
    }
}

/// One inner ddmin per item (case or object), in order; the item count is fixed per pass.
fn per_item<'a, F>(count: usize, make: F) -> Box<dyn Search<BundleCase> + 'a>
where
    F: Fn(usize, &BundleCase) -> Ddmin<BundleCase> + Send + Sync + 'a,
{
    Box::new(Sequence::new(Arc::new(
        move |index, current: &BundleCase| {
            (index < count).then(|| Box::new(make(index, current)) as Box<dyn Search<BundleCase>>)
        },
    )))
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
        per_item(
            current.metadata.list("cases").map_or(0, <[_]>::len),
            |index, _| {
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
                        let change = list_change(format!("cases.{index}.arguments"), &gone);
                        let mut all = cases.to_vec();
                        all[index] = Arc::new(item);
                        let mut next = case.clone();
                        next.metadata = Arc::new(case.metadata.with_list("cases", all)?);
                        Some(Proposal { case: next, change })
                    },
                )
            },
        )
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
    /// Most proposals built at once: each runs llvm-objcopy and llvm-readobj, and those built
    /// after the accepted one are wasted (1 under `-j 1`; see [`section_batch`]).
    pub max_batch: usize,
}

/// How many section proposals to build at once for `jobs` executors: one when nothing runs
/// in parallel, else enough for every executor and as many again for the next decisions.
pub fn section_batch(jobs: usize) -> usize {
    if jobs <= 1 {
        1
    } else {
        2 * jobs
    }
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
        let max_batch = self.max_batch;
        per_item(current.objects.len(), move |index, base: &BundleCase| {
            let (tools, policy, length_policy) = (tools.clone(), policy.clone(), policy.clone());
            // What was removable when this object's turn came: the log records every
            // removal relative to it, as the original does.
            let base_removable: Arc<Vec<String>> = Arc::new(
                base.objects
                    .get(index)
                    .map_or_else(Vec::new, |o| removable(&policy, o)),
            );
            Ddmin::new(
                0,
                move |case: &BundleCase| {
                    case.objects
                        .get(index)
                        .map_or(0, |o| removable(&length_policy, o).len())
                },
                move |case: &BundleCase, removed: &[usize]| {
                    let step = SectionStep {
                        tools: &tools,
                        policy: &policy,
                        base_removable: &base_removable,
                        quiet,
                    };
                    step.build(case, index, removed)
                },
            )
            .with_max_batch(max_batch)
        })
    }
}

/// What building one section-removal proposal needs.
struct SectionStep<'a> {
    tools: &'a ElfTools,
    policy: &'a SectionPolicy,
    base_removable: &'a [String],
    quiet: bool,
}

impl SectionStep<'_> {
    fn build(
        &self,
        case: &BundleCase,
        index: usize,
        removed: &[usize],
    ) -> Option<Proposal<BundleCase>> {
        let object = case.objects.get(index)?;
        let listing = object.sections.as_ref()?;
        let current = removable(self.policy, object);
        let names: Vec<String> = removed
            .iter()
            .filter_map(|&i| current.get(i).cloned())
            .collect();
        let mut all: Vec<String> = self
            .base_removable
            .iter()
            .filter(|name| !current.contains(name) || names.contains(name))
            .cloned()
            .collect();
        all.sort();
        let mut delta = names.clone();
        delta.sort();
        let mut change = json!({
            "object_id": object.id,
            "remove_sections": all,
            "delta_remove_sections": delta,
        });
        let mut next = case.clone();
        match self.tools.remove_sections(&object.bytes, listing, &names) {
            Ok((bytes, after)) => {
                let mut replaced = object.with_bytes(bytes);
                replaced.sections = Some(Arc::new(after));
                next.objects[index] = replaced;
                Some(Proposal { case: next, change })
            }
            Err(ToolError::Interrupted) => None,
            Err(error) => {
                let message = error.to_string();
                if !self.quiet {
                    let _ = writeln!(
                        std::io::stderr(),
                        "minrepro bundle: warning: rejected removing {names:?} from {:?}: {message}",
                        object.id
                    );
                }
                // The log records a tool error against the unchanged candidate's digest.
                change[TOOL_ERROR] = json!({"error": message, "digest": case.content_digest()});
                next.tool_error = Some(Arc::from(message.as_str()));
                Some(Proposal { case: next, change })
            }
        }
    }
}

/// Key of the change record's tool-error note (not part of the logged transformation).
pub const TOOL_ERROR: &str = "tool_error";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_changes_name_the_path_and_digest_removed_items() {
        let change = list_change(
            "kernels".into(),
            &[Arc::new(json!("k")), Arc::new(json!({"b": 1, "a": [2.0]}))],
        );
        assert_eq!(change["path"], "kernels");
        // sha256 of '"k"' and of '{"a":[2.0],"b":1}', as Python's hashlib prints them.
        assert_eq!(
            change["remove_value_digests"],
            json!([
                canonical::hex(&<sha2::Sha256 as sha2::Digest>::digest(b"\"k\"")),
                canonical::hex(&<sha2::Sha256 as sha2::Digest>::digest(
                    b"{\"a\":[2.0],\"b\":1}"
                )),
            ])
        );
    }
}
