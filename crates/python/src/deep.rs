//! Sources nested deeper than CPython's parser accepts (more than 200 nested brackets, 100
//! indentation levels): `minrepro python` cannot check its candidates as CPython would, so it
//! refuses them — unless a custom `--predicate` judges the candidates, whose tool need not be
//! CPython (a linter, a formatter, another parser). Then the source is reduced by `minrepro
//! file`'s passes instead (tree-sitter's Python grammar, which has no such limit, and the
//! language-independent passes), with a notice saying why; [`beyond_cpython`] decides.

use crate::args::PythonArgs;

/// Why `args`' source is reduced by `minrepro file`'s passes instead of refused: it is nested
/// beyond CPython's limits, a custom `--predicate` judges the candidates, and no option only
/// `minrepro python` has is given (`--err-msg`, `--preload`, script arguments, `--env`,
/// `--cwd`, `--isolated-cwd`, a `{python}` placeholder). `None` otherwise: the source is read
/// (and refused, if too deep) as usual.
pub fn beyond_cpython(args: &PythonArgs) -> Option<String> {
    let predicate = &args.predicate;
    let python_only = args.err_msg.is_some()
        || !args.preload.is_empty()
        || !args.script_args.is_empty()
        || !args.env.is_empty()
        || args.cwd.is_some()
        || args.isolated_cwd
        || predicate
            .predicate_args
            .iter()
            .any(|a| a.contains("{python}"));
    if predicate.predicate.is_none() || python_only {
        return None;
    }
    // --pytest excludes --predicate: a source here is SOURCE.
    let source = args.source.as_ref()?;
    let text = String::from_utf8(std::fs::read(source).ok()?).ok()?;
    let problem = minrepro_pysyntax::beyond_cpython_nesting(&text)?;
    Some(format!(
        "{} is nested beyond what CPython parses (line {}: {}); the --predicate judges its \
         candidates, so it is reduced with minrepro file's passes (tree-sitter's Python \
         grammar and the language-independent passes, which have no such limit)",
        source.display(),
        problem.line,
        problem.message
    ))
}
