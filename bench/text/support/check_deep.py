"""The tools under test of the deep-nesting cases: each first checks that its input is valid (so an
empty or broken candidate is not interesting), then runs a real recursive parser or visitor that
fails past some nesting depth. Standard library only (sqlite3, json, tomllib: Python >= 3.11).

    python3 -S check_deep.py json|toml|sql|calls FILE

json, toml: the standard library's parser under the default recursion limit (1,000) fails with
`RecursionError`; the same parser with a raised limit, on a thread with a large stack, is the
validity check. sql: SQLite's own parser overflows its stack ("parser stack overflow") on deeply
nested parentheses; validity is an iterative check of a small SELECT grammar. calls: a linter's
recursive visitor of nested calls fails past ~300 levels (ruff's visitors are recursive too); its
validity check is an iterative parse of a small Python subset (CPython's own parser refuses more
than 200 nested parentheses, so it cannot be the check)."""

import io
import sys
import threading
import tokenize

DEFAULT_LIMIT = sys.getrecursionlimit()


def valid_under_raised_limit(parse, text):
    """Whether `parse(text)` succeeds with recursion limited only by a 1 GiB thread stack."""
    outcome = []

    def run():
        try:
            parse(text)
            outcome.append(True)
        except Exception as error:  # noqa: BLE001 - any failure means invalid
            outcome.append(error)

    sys.setrecursionlimit(10**6)
    threading.stack_size(1 << 30)
    worker = threading.Thread(target=run)
    worker.start()
    worker.join()
    sys.setrecursionlimit(DEFAULT_LIMIT)
    return outcome == [True]


def library(parse, text):
    if not valid_under_raised_limit(parse, text):
        print("invalid input")
        return 2
    parse(text)  # the crash, when deep enough: a traceback ending in RecursionError
    print("parsed")
    return 0


SQL_KEYWORDS = {"select", "from", "where", "and", "or", "not"}
SQL_OPERATORS = {"+", "-", "*", "/", "=", "<", ">", "<=", ">=", "<>", "and", "or"}


def sql_tokens(text):
    i, out = 0, []
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
        elif c.isalnum() or c == "_":
            j = i
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            out.append(text[i:j].lower())
            i = j
        elif text[i:i + 2] in ("<=", ">=", "<>"):
            out.append(text[i:i + 2])
            i += 2
        elif c in "+-*/=<>(),;":
            out.append(c)
            i += 1
        else:
            raise ValueError(f"unexpected {c!r}")
    return out


def sql_valid(text):
    """`SELECT expr, ... FROM name [WHERE expr] ;`, expressions checked without recursion."""
    tokens = sql_tokens(text)
    if tokens[:1] != ["select"] or tokens[-1:] != [";"]:
        return False
    at, depth, operand = 1, 0, True  # operand: an operand is expected next
    while at < len(tokens):
        t = tokens[at]
        at += 1
        if operand:
            if t == "(":
                depth += 1
            elif t in ("-", "not"):
                pass
            elif t.isalnum() or "_" in t:
                if t in SQL_KEYWORDS:
                    return False
                operand = False
            else:
                return False
        elif t == ")" and depth > 0:
            depth -= 1
        elif t in SQL_OPERATORS:
            operand = True
        elif depth == 0 and t == ",":
            operand = True
        elif depth == 0 and t in ("from", "where", ";"):
            if t == "from":
                if at >= len(tokens) or not tokens[at].isidentifier() or tokens[at] in SQL_KEYWORDS:
                    return False
                at += 1
                if at < len(tokens) and tokens[at] == "where":
                    at += 1
                    operand = True
                    continue
                return tokens[at:] == [";"]
            return t == ";" and at == len(tokens)
        else:
            return False
    return False


def sql(text):
    import sqlite3

    if not sql_valid(text):
        print("invalid query")
        return 2
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (a, b, c)")
    db.execute(text.strip().rstrip(";")).fetchall()  # sqlite3.OperationalError when too deep
    print("ran")
    return 0


def calls_valid(tokens):
    """Lines `NAME = EXPR`, `def NAME(NAME, ...): return EXPR`, `print(EXPR)`; EXPR made of
    numbers, strings, names, calls `NAME(EXPR, ...)`, parentheses and binary operators, checked
    with an explicit stack."""
    lines, line = [], []
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if line:
                lines.append(line)
            line = []
        elif tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING):
            if tok.type in (tokenize.INDENT, tokenize.DEDENT):
                return False
            line.append(tok)
    if not lines:
        return False
    for line in lines:
        s = [t.string for t in line]
        if s[:1] == ["def"]:
            close = s.index(")") if ")" in s else -1
            params = s[3:close]
            if (len(s) < 7 or not s[1].isidentifier() or s[2] != "(" or close < 0
                    or s[close + 1:close + 3] != [":", "return"]
                    or any(p != "," and not p.isidentifier() for p in params)):
                return False
            expr = line[close + 3:]
        elif len(s) > 2 and s[0].isidentifier() and s[1] == "=":
            expr = line[2:]
        else:
            expr = line
        if not expression_valid(expr):
            return False
    return True


def expression_valid(tokens):
    s = [t.string for t in tokens]
    stack, operand, i = [], True, 0
    while i < len(s):
        t, kind = s[i], tokens[i].type
        if operand:
            if kind in (tokenize.NUMBER, tokenize.STRING):
                operand = False
            elif kind == tokenize.NAME and t not in ("def", "return"):
                operand = False
                if s[i + 1:i + 2] == ["("]:  # a call
                    i += 1
                    if s[i + 1:i + 2] == [")"]:
                        i += 1
                    else:
                        stack.append("call")
                        operand = True
            elif t == "(":
                stack.append("paren")
            elif t != "-":
                return False
        elif t == ")" and stack:
            stack.pop()
        elif t == "," and stack and stack[-1] == "call":
            operand = True
        elif t in ("+", "-", "*", "/", "%"):
            operand = True
        else:
            return False
        i += 1
    return not stack and not operand


def visit(tokens, at):
    """The linter's visitor: one call level per Python frame. Returns the index after the
    expression starting at `at`."""
    while at < len(tokens):
        t = tokens[at].string
        if t == "(":
            at = visit(tokens, at + 1)
        elif t == ")":
            return at + 1
        else:
            at += 1
    return at


def calls(text):
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        print("invalid input")
        return 2
    if not calls_valid(tokens):
        print("invalid input")
        return 2
    sys.setrecursionlimit(320)
    visit(tokens, 0)  # RecursionError past ~300 nested calls
    print("linted")
    return 0


def main():
    mode, path = sys.argv[1], sys.argv[2]
    try:
        text = open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError):
        print("unreadable")
        return 2
    if mode == "json":
        import json

        return library(json.loads, text)
    if mode == "toml":
        import tomllib

        return library(tomllib.loads, text)
    if mode == "sql":
        return sql(text)
    if mode == "calls":
        return calls(text)
    raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    sys.exit(main())
