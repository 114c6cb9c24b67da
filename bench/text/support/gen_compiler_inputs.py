"""Writes the bench's large compiler inputs (issue 35), deterministic, never hand-picked:

- `csmith SEED OUT.c`: a csmith 2.3.0 program (`--seed SEED --max-funcs 16 --no-safe-math`)
  made standalone: its `#include "csmith.h"` (a header Debian's package does not ship) becomes a
  short prelude of the standard headers and the four runtime functions the program calls. The
  size must land in 100-300 KB, else the script fails (say which seed in the error).
- `tu NAME OUT.cpp`: a preprocessed C++ translation unit (`g++ -E -P` of a small file that
  includes <map>, <vector>, <string>, <algorithm>, <memory> and a few more, plus a use that
  fails to compile with one specific error). The size must land in 0.5-2 MB.
- `depth SEED OUT.cpp`: a C++ program of about 2,000 tokens where templates and a class
  hierarchy carry the error: a chain of class templates in namespaces, each deriving from the
  one before, with members, methods and unrelated classes around them; the failure comes out
  only after the whole chain is instantiated. SEED picks the failure (0: a member no class of
  the chain has, 1: an abstract class instantiated because a pure virtual method of the root is
  never overridden, 2: an ambiguous member of a diamond) and the distractors.

Usage: python3 gen_compiler_inputs.py KIND ARG OUT"""

import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CSMITH_PRELUDE = """\
#include <stdint.h>
#include <stdio.h>
#include <string.h>
static uint32_t crc32_context = 0xFFFFFFFFUL;
static void platform_main_begin(void) {}
static void crc32_gentab(void) {}
static void transparent_crc(uint64_t value, char *name, int print)
{
    crc32_context ^= (uint32_t)value;
    if (print)
        printf("%s %u\\n", name, (unsigned)crc32_context);
}
static void platform_main_end(uint32_t crc, int flag)
{
    printf("checksum = %X\\n", crc);
    (void)flag;
}
"""


def csmith(seed, out):
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.c"
        subprocess.run(["csmith", "--seed", str(seed), "--max-funcs", "16", "--no-safe-math",
                        "-o", str(raw)], check=True)
        text = raw.read_text()
    text = text.replace('#include "csmith.h"\n', CSMITH_PRELUDE, 1)
    # The options line names the temporary file: keep the output the same in every directory.
    text = re.sub(r"-o \S+", "", text, count=1)
    size = len(text.encode())
    if not 100_000 <= size <= 300_000:
        sys.exit(f"csmith seed {seed}: {size} bytes, outside 100-300 KB: pick another seed")
    Path(out).write_text(text)


HEADERS = ["map", "vector", "string", "algorithm", "memory"]

# name -> (standard, extra headers, the failing code). Each fails with the error its test looks
# for; everything else in the unit is the library's.
UNITS = {
    # std::map keyed by a struct without operator<: the comparison fails deep in std::less.
    "map_key": ("c++17", ["functional"], """
struct Point { int x, y; };
int count_points(const std::vector<Point> &points)
{
    std::map<Point, int> seen;
    for (const Point &p : points)
        seen[p] += 1;
    return static_cast<int>(seen.size());
}
"""),
    # A vector of unique_ptr copied: the copy constructor of unique_ptr is deleted.
    "unique_copy": ("c++20", ["list", "set"], """
struct Widget { std::string name; int size = 0; };
std::vector<std::unique_ptr<Widget>> snapshot(const std::vector<std::unique_ptr<Widget>> &all)
{
    std::vector<std::unique_ptr<Widget>> copy = all;
    std::sort(copy.begin(), copy.end(),
              [](const auto &a, const auto &b) { return a->size < b->size; });
    return copy;
}
"""),
    # std::sort on a std::list: its iterators are not random access (no operator-).
    "sort_list": ("c++14", ["list", "numeric"], """
#include <list>
int median(std::list<int> values)
{
    std::sort(values.begin(), values.end());
    auto it = values.begin();
    std::advance(it, values.size() / 2);
    return *it;
}
"""),
}


def unit(name, out):
    standard, extra, code = UNITS[name]
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "unit.cpp"
        includes = "".join(f"#include <{h}>\n" for h in HEADERS + extra)
        src.write_text(includes + code)
        text = subprocess.run(["g++", f"-std={standard}", "-E", "-P", str(src)], check=True,
                              capture_output=True, text=True).stdout
    size = len(text.encode())
    if not 500_000 <= size <= 2_000_000:
        sys.exit(f"unit {name}: {size} bytes, outside 0.5-2 MB")
    Path(out).write_text(text)


def depth(seed, out):
    rng = random.Random(seed)
    failure = seed % 3
    lines = ["// Generated (bench/text/support/gen_compiler_inputs.py depth "
             f"{seed}): templates and a class hierarchy carry the error.",
             "#include <cstddef>", ""]
    levels = 8
    # Unrelated helpers: what a reduction must take away.
    for k in range(rng.randint(5, 7)):
        lines += [f"namespace util{k} {{",
                  f"template <typename T, int N = {rng.randint(2, 9)}>",
                  f"struct Box{k} {{",
                  "    T items[N];",
                  f"    int used = {rng.randint(0, 3)};",
                  "    T get(int i) const { return items[i % N]; }",
                  "    void put(const T &v) { items[used++ % N] = v; }",
                  "    static int capacity() { return N; }",
                  "};",
                  f"inline int mix{k}(int a, int b) {{ return a * {rng.randint(2, 31)} ^ b; }}",
                  "}", ""]
    # An unrelated hierarchy of its own, used by the noise.
    lines += ["namespace shapes {", "struct Shape {", "    virtual ~Shape() {}",
              "    virtual int area() const = 0;", "    int scale = 1;", "};"]
    for k in range(rng.randint(3, 5)):
        lines += [f"struct Shape{k} : Shape {{", f"    int side = {rng.randint(1, 9)};",
                  f"    int area() const override {{ return side * side * {k + 1} * scale; }}",
                  f"    int grow(int by) {{ side += by; return side; }}", "};"]
    lines += ["}", ""]
    # The root of the hierarchy.
    lines += ["namespace core {", "struct Root {", "    virtual ~Root() {}",
              "    virtual int weight() const = 0;" if failure == 1 else
              "    virtual int weight() const { return 1; }",
              "    int id = 0;",
              "    int tag() const { return id * 3; }", "};", ""]
    if failure == 2:
        lines += ["struct Left : Root { int weight() const override { return 2; } };",
                  "struct Right : Root { int weight() const override { return 3; } };",
                  "struct Joined : Left, Right {};", ""]
    base = "Joined" if failure == 2 else "Root"
    # The chain: Layer<k, T> derives from Layer<k-1, T>; level 0 from the root.
    lines += ["template <int K, typename T>", "struct Layer;", "",
              "template <typename T>", f"struct Layer<0, T> : {base} {{",
              "    T value{};",
              "    T first() const { return value; }", "};", ""]
    for k in range(1, levels + 1):
        extra = rng.randint(1, 3)
        lines += ["template <typename T>", f"struct Layer<{k}, T> : Layer<{k - 1}, T> {{",
                  *[f"    T field{k}_{j}{{}};" for j in range(extra)],
                  f"    T step{k}(T x) const {{ return x + this->field{k}_0 * {k}; }}",
                  *([f"    int weight() const override {{ return {k}; }}"]
                    if failure != 1 and k % 2 == 0 else []),
                  f"    int depth() const {{ return {k}; }}",
                  "};", ""]
    lines += ["}", ""]
    # Templates that walk the chain; the last one uses what fails.
    lines += ["namespace walk {", "template <int K, typename T>",
              "struct Walker {",
              "    static T run(const core::Layer<K, T> &layer, T x)",
              "    {",
              "        return Walker<K - 1, T>::run(layer, layer.first() + x);",
              "    }", "};", "",
              "template <typename T>", "struct Walker<0, T> {",
              "    static T run(const core::Layer<0, T> &layer, T x)", "    {"]
    if failure == 0:
        lines.append("        return x + layer.finish();")
    elif failure == 2:
        lines.append("        return x + layer.id;")
    else:
        lines.append("        return x + layer.first();")
    lines += ["    }", "};", "", "template <typename T>",
              f"T total(const core::Layer<{levels}, T> &top)",
              "{", f"    return Walker<{levels}, T>::run(top, T{{}});", "}", "}", ""]
    # Distracting uses of the helpers, then main.
    lines += ["static int noise(int n)", "{", "    int acc = 0;"]
    for k in range(rng.randint(3, 6)):
        lines.append(f"    acc += util{k % 3}::mix{k % 3}(n, acc + {rng.randint(1, 99)});")
    lines += [f"    shapes::Shape{k} s{k};" for k in range(3)]
    lines += [f"    acc += s{k}.grow(n) + s{k}.area();" for k in range(3)]
    lines += ["    return acc;", "}", "", "int main()", "{"]
    if failure == 1:
        lines.append(f"    core::Layer<{levels}, int> *top = new core::Layer<{levels}, int>();")
        lines.append("    int sum = walk::total(*top);")
    else:
        lines.append(f"    core::Layer<{levels}, int> top;")
        lines.append("    int sum = walk::total(top);")
    lines += ["    util0::Box0<int> box;", "    box.put(sum);",
              "    return noise(box.get(0)) + top" + ("->" if failure == 1 else ".") +
              "depth();", "}", ""]
    Path(out).write_text("\n".join(lines))


def main():
    kind, arg, out = sys.argv[1:4]
    if kind == "csmith":
        csmith(int(arg), out)
    elif kind == "tu":
        unit(arg, out)
    elif kind == "depth":
        depth(int(arg), out)
    else:
        sys.exit(f"unknown kind {kind!r}: csmith, tu or depth")


if __name__ == "__main__":
    main()
