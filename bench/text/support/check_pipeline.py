"""Checks a CI pipeline document written in a small YAML subset (nested mappings by indentation,
`- item` lists of scalars or mappings, `#` comments). Used by the bench's yaml_pipeline case:
every stage's `needs` must be produced by an earlier stage; the first violation raises."""

import sys


def scalar(text):
    text = text.strip()
    if text.startswith(("'", '"')) and text.endswith(text[0]) and len(text) >= 2:
        return text[1:-1]
    if text.lstrip("-").isdigit():
        return int(text)
    return {"true": True, "false": False, "null": None, "": None}.get(text, text)


def parse(lines, start, indent):
    """The node whose lines start at `start` with indentation `indent`; returns (node, next)."""
    node = None
    i = start
    while i < len(lines):
        width, text = lines[i]
        if width < indent:
            break
        if width > indent:
            raise SyntaxError(f"line {i + 1}: unexpected indentation")
        if text.startswith("- "):
            node = [] if node is None else node
            if not isinstance(node, list):
                raise SyntaxError(f"line {i + 1}: list item in a mapping")
            body = text[2:]
            if ":" in body and not body.startswith(("'", '"')):
                # A mapping item: its first key sits on the dash line.
                lines[i] = (width + 2, body)
                item, i = parse(lines, i, width + 2)
                node.append(item)
                continue
            node.append(scalar(body))
            i += 1
            continue
        key, sep, rest = text.partition(":")
        if not sep:
            raise SyntaxError(f"line {i + 1}: expected 'key: value'")
        node = {} if node is None else node
        if not isinstance(node, dict):
            raise SyntaxError(f"line {i + 1}: mapping key in a list")
        if rest.strip():
            node[key.strip()] = scalar(rest)
            i += 1
        elif i + 1 < len(lines) and lines[i + 1][0] > width:
            node[key.strip()], i = parse(lines, i + 1, lines[i + 1][0])
        else:
            node[key.strip()] = None
            i += 1
    return node, i


def load(path):
    lines = []
    with open(path) as f:
        for raw in f:
            text = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
            if text.strip():
                lines.append((len(text) - len(text.lstrip(" ")), text.strip()))
    node, _ = parse(lines, 0, lines[0][0] if lines else 0)
    return node


def main(path):
    doc = load(path)
    produced = set(doc.get("inputs") or [])
    for stage in doc["stages"]:
        for need in stage.get("needs") or []:
            if need not in produced:
                raise LookupError(
                    f"stage {stage['name']} needs {need!r}, produced by no earlier stage"
                )
        produced.update(stage.get("produces") or [])
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
