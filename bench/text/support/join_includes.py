"""Writes a multi-file case as one input: the includer with each `#include "NAME"` of a file of
the case replaced by that file's text (once, recursively), the reference a multi-file reduction
is measured against (bench/text's c_project_joined).

Usage: python3 join_includes.py CASE INCLUDER OUT (CASE: a directory of bench/text/cases)"""

import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


def joined(case, name, seen):
    lines = []
    for line in (case / name).read_text().splitlines(keepends=True):
        m = INCLUDE.match(line)
        if m and (case / m.group(1)).is_file() and m.group(1) not in seen:
            seen.add(m.group(1))
            lines.append(joined(case, m.group(1), seen))
        else:
            lines.append(line)
    return "".join(lines)


def main():
    cases = Path(__file__).resolve().parent.parent / "cases"
    case, includer, out = cases / sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.write_text(joined(case, includer, {includer}))


if __name__ == "__main__":
    main()
