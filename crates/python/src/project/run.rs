//! A project's reduction around the single-file one: its language (a `DocSet` of Python
//! documents with the inlining rewrite), where its output goes (one file, or a directory), and
//! what the run says about it.

use std::path::Path;
use std::sync::Arc;

use minrepro_driver::{publish_directory, write_atomically, RunError};
use minrepro_text::{split_docs, Doc, DocSet};

use super::standalone::{inline_all, Standalone};
use super::Project;
use crate::language::Python;

/// The set's language: every document in `base`'s Python, the function the failure must stay
/// in (`keep`: document name, qualified name) kept in its document, the entry never removed,
/// the modules' inlining into the entry as the set's rewrite.
pub fn language(
    project: &Project,
    base: &Python,
    keep: Option<&(String, String)>,
) -> DocSet<Python> {
    let languages = project
        .docs
        .iter()
        .map(|doc| {
            let mut python = base.clone();
            python.keep_function = keep
                .filter(|(name, _)| *name == doc.name)
                .map(|(_, f)| f.clone());
            // Values are recorded by running the entry alone: that finds the project's modules
            // only once they are inlined into it (before, its imports fail and record nothing),
            // and a module's own text is no program to run.
            if doc.name != project.entry() {
                python.values = None;
            }
            (doc.name.clone(), python)
        })
        .collect();
    let standalone = Standalone {
        search: project.search.clone(),
        minor: base.minor,
    };
    DocSet::new(languages, true)
        .keeping_first()
        .with_rewrites(Arc::new(standalone))
}

/// Writes the set's text `text` (entry named `entry`) at `output`: one file, or a directory of
/// its files under their root-relative names, replacing what an earlier acceptance wrote.
pub fn publish(output: &Path, text: &str, entry: &str) -> Result<(), String> {
    let docs = split_docs(text, entry);
    let cannot = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", output.display());
    // Whatever is at `output` was written by this run (an existing directory is refused
    // before the run starts, an existing file without --force).
    let remove_dir = || match std::fs::symlink_metadata(output) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(output),
        _ => Ok(()),
    };
    if let [one] = docs.as_slice() {
        remove_dir().map_err(|e| cannot(&e))?;
        return write_atomically(output, &one.content.bytes()).map_err(|e| cannot(&e));
    }
    match std::fs::symlink_metadata(output) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(output),
        Ok(_) => std::fs::remove_file(output),
        Err(_) => Ok(()),
    }
    .map_err(|e| cannot(&e))?;
    publish_directory(output, |dir| write_tree(dir, &docs)).map_err(|e| cannot(&e))
}

/// Writes every document of `docs` below `dir`.
fn write_tree(dir: &Path, docs: &[Doc]) -> std::io::Result<()> {
    for doc in docs {
        let path = dir.join(&doc.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, doc.content.bytes())?;
    }
    Ok(())
}

/// The documents of a set's text.
pub fn documents(text: &str, entry: &str) -> Vec<minrepro_driver::Document> {
    split_docs(text, entry)
        .into_iter()
        .map(|doc| minrepro_driver::Document {
            text: doc.content.text().unwrap_or_default().to_owned(),
            name: doc.name,
        })
        .collect()
}

/// The success line of a project's run: `reduced` is the output's text (a set's), `before` the
/// original's; `run_with` the interpreter's command words before the file; `failed_check` runs
/// a single file's text and says which check of the failure it fails.
pub fn success_line(
    output: &Path,
    project: &Project,
    reduced: Option<&str>,
    run_with: &dyn Fn(&str) -> String,
    failed_check: &dyn Fn(&str) -> Option<String>,
) -> String {
    let tokens = |docs: &[Doc]| -> usize {
        docs.iter()
            .map(|d| minrepro_pysyntax::token_count(d.content.text().unwrap_or_default()))
            .sum()
    };
    let before = format!(
        "was {} in {} files",
        tokens(&project.docs),
        project.docs.len()
    );
    let docs = reduced.map_or_else(|| project.docs.clone(), |t| split_docs(t, project.entry()));
    let shown = output.display();
    if docs.len() == 1 {
        return format!(
            "minrepro python: wrote {shown}, one standalone file ({} tokens, {before}); run it with: {}",
            tokens(&docs),
            run_with(&output.to_string_lossy())
        );
    }
    let why = match inline_all(&docs, &project.search) {
        Err(why) => why,
        Ok(single) => {
            let check = single.content.text().and_then(failed_check);
            let check = check.map(|c| format!(" ({c})")).unwrap_or_default();
            format!("the modules inlined into one file did not reproduce the failure{check}")
        }
    };
    let entry = output.join(project.entry());
    format!(
        "minrepro python: wrote the directory {shown} ({} tokens in {} files, {before}); not one \
         file: {why}; run it with: {}",
        tokens(&docs),
        docs.len(),
        run_with(&entry.to_string_lossy())
    )
}

/// Refuses `--env PYTHONPATH=...` entries inside the root: modules found there are not reduced
/// (yet), and candidates would import them from the original tree.
pub fn check_env_path(env: &[(String, String)], root: &Path) -> Result<(), RunError> {
    for (name, value) in env.iter().filter(|(n, _)| n == "PYTHONPATH") {
        if super::outside_root(value, root) != *value {
            return Err(RunError::Usage(format!(
                "--env {name}={value} names a directory inside the project root {}: a project's \
                 modules are found below the source's directory only (for now); give --root a \
                 directory that does not hold it, or leave it out",
                root.display()
            )));
        }
    }
    Ok(())
}
