"""Checks a built minrepro wheel's metadata: usage: check-wheel-metadata.py WHEEL VERSION.

The workspace's version and license, the README as long description, classifiers, the
Python package and the executable in their places. Exits non-zero naming every problem.
"""

import email.parser
import sys
import zipfile


def problems(wheel, version):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = [n for n in names if n.endswith(".dist-info/METADATA")]
        if len(metadata) != 1:
            return [f"expected one METADATA file, found {metadata}"]
        text = archive.read(metadata[0]).decode()
    meta = email.parser.Parser().parsestr(text)
    want = {
        "Name": "minrepro",
        "Version": version,
        "License-Expression": "MIT OR Apache-2.0",
        "Requires-Python": ">=3.8",
    }
    found = [
        f"{key} is {meta[key]!r}, not {value!r}"
        for key, value in want.items()
        if meta[key] != value
    ]
    if not meta["Summary"] or not meta.get_all("Classifier"):
        found.append("no summary or no classifiers")
    content_type = meta["Description-Content-Type"] or ""
    if "markdown" not in content_type or "# minrepro" not in meta.get_payload():
        found.append("the README is not the long description")
    executable = f"minrepro-{version}.data/scripts/minrepro"
    for name in ("minrepro/__init__.py", "minrepro/__main__.py", executable):
        if name not in names:
            found.append(f"{name} is missing")
    return found


if __name__ == "__main__":
    found = problems(*sys.argv[1:])
    if found:
        sys.exit("wheel metadata: " + "; ".join(found))
