"""Counts a text's tokens the way `minrepro file` does (crates/file/src/lex.rs): words, numbers,
quoted strings closed on their line, comments in the syntax of the file's extension, and single
punctuation characters count; whitespace does not. Every tool's result is measured with this one
counter. Standard library only."""

import os
import re

C_LIKE = {"c", "h", "cc", "cpp", "cxx", "hpp", "hh", "hxx", "cu", "cuh", "hip", "cl", "m",
          "mm", "rs", "go", "java", "js", "ts", "kt", "swift", "scala", "cs", "mlir", "td",
          "glsl", "hlsl", "metal", "proto", "dart", "zig"}
HASH = {"py", "pyi", "yaml", "yml", "sh", "bash", "zsh", "toml", "cmake", "pl", "rb", "r",
        "conf", "cfg", "mk", "tcl", "awk", "sed", "dockerfile"}
SEMICOLON = {"ll", "s", "asm", "lisp", "el", "clj", "scm", "ini"}


def comment_syntax(path):
    """(line-comment opener or None, whether /* */ comments exist) for a file name."""
    ext = os.path.splitext(path)[1][1:].lower()
    if ext in C_LIKE:
        return "//", True
    if ext in HASH or os.path.basename(path) in ("Makefile", "makefile", "CMakeLists.txt"):
        return "#", False
    if ext in SEMICOLON:
        return ";", False
    return None, False


def count_tokens(text, path):
    """Number of non-whitespace tokens of `text`, lexed as a file named `path`."""
    line, block = comment_syntax(path)
    parts = []
    if block:
        parts.append(r"/\*.*?(?:\*/|\Z)")
    if line == "#":
        parts.append(r"(?<![\w${])#[^\n]*")
    elif line:
        parts.append(re.escape(line) + r"[^\n]*")
    parts += [
        r"[A-Za-z_$][A-Za-z0-9_$]*",
        r"[0-9][A-Za-z0-9_.]*",
        r"\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\\n])*`",
        r"\s+",
        r".",
    ]
    pattern = re.compile("|".join(f"(?:{p})" for p in parts), re.S)
    return sum(1 for m in pattern.finditer(text) if not m.group().isspace())


def measure(paths):
    """Totals over files: tokens, bytes, lines (binary files: bytes only)."""
    tokens = size = lines = 0
    for path in paths:
        data = open(path, "rb").read()
        size += len(data)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        tokens += count_tokens(text, path)
        lines += text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    return {"tokens": tokens, "bytes": size, "lines": lines}
