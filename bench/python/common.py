"""Shared helpers of the Python benchmark: paths, the case list, running a program, and the
measurements every run records (tokens, bytes, lines, validity, reproduction, exception type,
frozen code).

Standard library only.
"""

import ast
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

PY_DIR = Path(__file__).resolve().parent          # bench/python
BENCH_DIR = PY_DIR.parent                         # bench
REPO_DIR = BENCH_DIR.parent
OUT_DIR = BENCH_DIR / "out"                       # git-ignored
LIBS_DIR = OUT_DIR / "libs"  # third-party packages cases require (pip --target), on PYTHONPATH
CASES_DIR = PY_DIR / "cases"
GENERATED_DIR = OUT_DIR / "cases"
REFERENCES_DIR = PY_DIR / "references"            # hand-written minimal reproducers
SUPPORT_DIR = PY_DIR / "support"                  # stand-in tilelang.autodd.__freeze__
BIN_DIR = OUT_DIR / "bin"                         # `python3` -> the real interpreter

# Tokens that are not counted: layout-only and comment tokens.
UNCOUNTED_TOKENS = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}


def real_python():
    """The interpreter running the harness, resolved past shims (pyenv) and venvs."""
    base = getattr(sys, "_base_executable", None) or sys.executable
    return os.path.realpath(base)


def ensure_bin_dir():
    """Create bench/out/bin/python3 -> the real interpreter; return the directory.

    Every tool's candidates are run as `python3` with this directory first on PATH, so no tool
    pays for a pyenv shim and all run the same interpreter."""
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    link = BIN_DIR / "python3"
    target = real_python()
    if not link.is_symlink() or os.readlink(link) != target:
        if link.exists() or link.is_symlink():
            link.unlink()
        link.symlink_to(target)
    return BIN_DIR


def candidate_env(extra=None):
    """Environment for running a case or a candidate: the benchmark's python3 first on PATH and
    the stand-in `tilelang` package on PYTHONPATH."""
    env = dict(os.environ)
    env["PATH"] = str(ensure_bin_dir()) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(SUPPORT_DIR) + (os.pathsep + str(LIBS_DIR) if LIBS_DIR.exists() else "")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("PYTHONHOME", None)
    if extra:
        env.update(extra)
    return env


def load_cases(selected=None):
    """The cases of cases.json (all, or those named in `selected`), each with `path` set.

    Generated cases are (re)written into bench/out/cases/ by their generator first."""
    data = json.loads((PY_DIR / "cases.json").read_text(encoding="utf-8"))
    cases = []
    required = sorted({r for c in data["cases"] if not selected or c["name"] in selected
                       for r in c.get("requires", [])})
    missing = [r for r in required if not (LIBS_DIR / r.split("=")[0]).exists()]
    if missing:
        # The benchmark's interpreter has no third-party packages: cases that call a library
        # get it from LIBS_DIR, installed once (pip's own client, into the git-ignored out dir).
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--target", str(LIBS_DIR)]
                       + missing, check=True)
    for case in data["cases"]:
        if selected and case["name"] not in selected:
            continue
        case = dict(case)
        if case.get("generator"):
            path = GENERATED_DIR / case["file"]
            subprocess.run([sys.executable, str(PY_DIR / case["generator"]), str(path)], check=True)
        else:
            path = CASES_DIR / case["file"]
        case["path"] = path
        cases.append(case)
    if selected:
        unknown = set(selected) - {c["name"] for c in cases}
        if unknown:
            raise SystemExit("unknown case(s): %s" % ", ".join(sorted(unknown)))
    return cases


def reference_path(case):
    """The hand-written minimal reproducer of `case`: references/FILE (same file name as the
    case, so tracebacks name the same file)."""
    return REFERENCES_DIR / case["file"]


def reference_tokens(case_name):
    """Tokens of the hand-written reference of the case named `case_name` (None when it has
    none). Reads cases.json without running generators."""
    data = json.loads((PY_DIR / "cases.json").read_text(encoding="utf-8"))
    for case in data["cases"]:
        if case["name"] == case_name:
            path = reference_path(case)
            return count_tokens(path.read_text(encoding="utf-8")) if path.exists() else None
    return None


def count_tokens(text):
    """Python tokens of `text` (tokenize), without COMMENT, NL, ENCODING and ENDMARKER.
    NEWLINE, INDENT and DEDENT count. None when the text does not tokenize."""
    try:
        return sum(1 for t in tokenize.generate_tokens(io.StringIO(text).readline)
                   if t.type not in UNCOUNTED_TOKENS)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def sizes(text):
    """Tokens, bytes and lines of a program text."""
    return {
        "tokens": count_tokens(text),
        "bytes": len(text.encode("utf-8")),
        "lines": len(text.splitlines()),
    }


def is_valid_python(text):
    """True when CPython compiles `text` (syntax and compile-time checks)."""
    try:
        compile(text, "<candidate>", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*)(:|$)")


def exception_type(stderr):
    """Type name of the uncaught exception at the end of a traceback in `stderr` (the last
    `Traceback (most recent call last):` section), or None when there is none."""
    index = stderr.rfind("Traceback (most recent call last):")
    if index < 0:
        return None
    for line in reversed(stderr[index:].splitlines()):
        if line and not line[0].isspace():
            match = _EXC_LINE.match(line)
            if match and match.group(1) != "Traceback":
                return match.group(1).rsplit(".", 1)[-1]
    return None


_FRAME_LINE = re.compile(r'^  File "(.*)", line (\d+), in (.+)$')


def _qualified_name(source, line, name):
    """minrepro's rule (crates/pysyntax/src/origin.rs, docs/python-fidelity.md): the chain of
    the `def`s and `class`es whose lines (decorators included) hold `line`, cut after the
    innermost one named like the frame; a lambda or comprehension (`<lambda>`, `<genexpr>`, ...)
    is qualified by the definitions around it. None when no definition named `name` holds it."""
    if name == "<module>":
        return name
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    chain = []
    body = tree.body
    while True:
        inner = None
        for node in body:
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) \
                if hasattr(node, "lineno") else None
            if first is not None and first <= line <= node.end_lineno:
                inner = node
                break
        if inner is None:
            break
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            chain.append((inner.name, not isinstance(inner, ast.ClassDef)))
        body = [child for child in ast.iter_child_nodes(inner) if isinstance(child, ast.stmt)]
    anonymous = name.startswith("<")
    if anonymous:
        keep = len(chain)
    else:
        named = [i for i, (n, _) in enumerate(chain) if n == name]
        if not named:
            return None
        keep = named[-1] + 1
    parts = []
    for i, (n, _) in enumerate(chain[:keep]):
        if i > 0 and chain[i - 1][1]:
            parts.append("<locals>")
        parts.append(n)
    if anonymous:
        if keep and chain[keep - 1][1]:
            parts.append("<locals>")
        parts.append(name)
    return ".".join(parts)


def failure_origin(stderr, text, file_name):
    """Where a run's final traceback is raised, as minrepro's origin guard names it: (file,
    qualified name) of its innermost frame, the file `"<program>"` for the program itself (run
    by run_program as {workspace}/FILE_NAME, its source `text`), else the library file's path.
    None when the output ends without a traceback."""
    index = stderr.rfind("Traceback (most recent call last):")
    if index < 0:
        return None
    frames = [m.groups() for m in map(_FRAME_LINE.match, stderr[index:].splitlines()) if m]
    if not frames:
        return None
    path, line, name = frames[-1]
    if path == "{workspace}/" + file_name:
        return ("<program>", _qualified_name(text, int(line), name))
    try:
        source = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return (path, name)
    return (path, _qualified_name(source, int(line), name))


def run_program(text, file_name, timeout=30.0):
    """Run `text` as `python3 FILE_NAME` in a fresh temporary directory (the benchmark's
    interpreter and environment); return dict(stdout, stderr, returncode, timed_out), the
    temporary directory's path replaced by `{workspace}` in the output."""
    with tempfile.TemporaryDirectory(prefix="bench-run-") as tmp:
        path = Path(tmp) / file_name
        path.write_text(text, encoding="utf-8")
        try:
            proc = subprocess.run(["python3", str(path)], cwd=tmp, env=candidate_env(),
                                  capture_output=True, timeout=timeout)
            return {
                "stdout": proc.stdout.decode("utf-8", "replace").replace(tmp, "{workspace}"),
                "stderr": proc.stderr.decode("utf-8", "replace").replace(tmp, "{workspace}"),
                "returncode": proc.returncode,
                "timed_out": False,
            }
        except subprocess.TimeoutExpired:
            return {"stdout": "", "stderr": "", "returncode": None, "timed_out": True}


def reproduces(run, err_msg):
    """AutoDD's criterion: MSG occurs in stdout or stderr (and the run did not time out)."""
    return not run["timed_out"] and (err_msg in run["stdout"] or err_msg in run["stderr"])


_FREEZE_LINE = "# autodd: freeze"


def _is_freeze_name(node):
    return isinstance(node, ast.Name) and node.id == "__freeze__"


def frozen_items(text):
    """What a reduction must keep verbatim: a list of ("line", stripped code) items -- lines
    marked `# autodd: freeze` (without the comment), lines between `# autodd: freeze-start` and
    `# autodd: end-freeze`, the body lines of `with __freeze__:` blocks -- and ("expr", source)
    items for `__freeze__(...)` calls."""
    items = []
    lines = text.splitlines()
    inside = False
    for line in lines:
        stripped = line.strip()
        if stripped == "# autodd: freeze-start":
            inside = True
        elif stripped == "# autodd: end-freeze":
            inside = False
        elif inside:
            if stripped and not stripped.startswith("#"):
                items.append(("line", stripped))
        elif _FREEZE_LINE in line and not stripped.startswith("#") \
                and line[line.index(_FREEZE_LINE):].strip() == _FREEZE_LINE:
            items.append(("line", line[:line.index(_FREEZE_LINE)].strip()))
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return items
    for node in ast.walk(tree):
        if isinstance(node, ast.With) and len(node.items) == 1 \
                and _is_freeze_name(node.items[0].context_expr) and node.items[0].optional_vars is None:
            for number in range(node.body[0].lineno, node.body[-1].end_lineno + 1):
                stripped = lines[number - 1].strip()
                if stripped and not stripped.startswith("#"):
                    items.append(("line", stripped))
        elif isinstance(node, ast.Call) and _is_freeze_name(node.func):
            items.append(("expr", ast.get_source_segment(text, node)))
    return items


def frozen_kept(original, result):
    """(kept, total): how many frozen items of `original` appear verbatim in `result` (a line
    item must equal a stripped line of the result, a trailing `# autodd: freeze` ignored; an
    expression item must occur in it)."""
    items = frozen_items(original)
    result_lines = set()
    for line in result.splitlines():
        # A tool that keeps comments keeps the marker too: `x = f()  # autodd: freeze`.
        if line.rstrip().endswith(_FREEZE_LINE):
            line = line.rstrip()[:-len(_FREEZE_LINE)]
        result_lines.add(line.strip())
    kept = 0
    for kind, code in items:
        if (kind == "line" and code in result_lines) or (kind == "expr" and code in result):
            kept += 1
    return kept, len(items)


def evaluate_result(original, result, case, timeout=30.0):
    """All measurements of a reduction result `result` of case `case` (whose original text is
    `original`)."""
    run = run_program(result, case["path"].name, timeout)
    orig_run = run_program(original, case["path"].name, timeout)
    kept, total = frozen_kept(original, result)
    measured = sizes(result)
    original_sizes = sizes(original)
    reference = reference_tokens(case["name"])
    return {
        "original": original_sizes,
        "final": measured,
        "reference_tokens": reference,
        "reference_ratio": (measured["tokens"] / reference
                            if measured["tokens"] is not None and reference else None),
        "token_ratio": (measured["tokens"] / original_sizes["tokens"]
                        if measured["tokens"] is not None and original_sizes["tokens"] else None),
        "valid_python": is_valid_python(result),
        "reproduces": reproduces(run, case["err_msg"]),
        "original_exception": exception_type(orig_run["stderr"]),
        "final_exception": exception_type(run["stderr"]),
        "same_exception": exception_type(run["stderr"]) == exception_type(orig_run["stderr"]),
        "original_origin": failure_origin(orig_run["stderr"], original, case["path"].name),
        "final_origin": failure_origin(run["stderr"], result, case["path"].name),
        "same_origin": failure_origin(run["stderr"], result, case["path"].name)
        == failure_origin(orig_run["stderr"], original, case["path"].name),
        "frozen_kept": kept,
        "frozen_total": total,
        "frozen_ok": kept == total,
    }
