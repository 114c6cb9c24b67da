#!/usr/bin/env python3
"""Stand-in for `minrepro` used only to test the harness before `minrepro python` exists:
accepts the `minrepro python` flags the harness passes, runs the predicate once on the
unchanged source (so it is counted like a real run) and writes the source to OUTPUT.

Usage: stub_minrepro.py python SOURCE --err-msg MSG -o OUTPUT [--timeout S] [-j N]
       [--predicate EXE --predicate-arg ARG...]
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    if sys.argv[1:3] == ["python", "--help"]:
        print(__doc__)
        return 0
    parser = argparse.ArgumentParser()
    parser.add_argument("front")
    parser.add_argument("source")
    parser.add_argument("--err-msg")
    parser.add_argument("-o", "--output")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("-j", "--jobs", type=int, default=1)
    parser.add_argument("--backend")
    parser.add_argument("--predicate")
    parser.add_argument("--predicate-arg", action="append", default=[])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, os.path.basename(args.source))
        shutil.copy(args.source, path)
        python = shutil.which("python3")
        argv = [args.predicate] + [a.replace("{file}", path).replace("{python}", python)
                                   for a in args.predicate_arg]
        proc = subprocess.run(argv, cwd=tmp, capture_output=True, text=True, timeout=args.timeout)
        if args.err_msg not in proc.stdout + proc.stderr:
            print("stub minrepro: the original is not interesting", file=sys.stderr)
            return 1
    shutil.copy(args.source, args.output)
    print("stub minrepro: wrote %s unchanged" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
