"""Writes the bench's generated_large case: a C file of about 5,600 lines (420 small functions
calling each other, a table and a main), deterministic. One function divides by a constant
zero, which gcc -Wall reports as a division by zero in that function; a few others have an
unused variable (another warning the predicate must not mistake for it).

Usage: python3 gen_large.py OUT.c"""

import sys

FUNCTIONS = 420
TARGET = 311


def function(k):
    lines = [f"/* Step {k} of the pipeline: mixes its input with step {k // 2}. */"]
    lines.append(f"static long fn_{k}(long x, const struct state *s)")
    lines.append("{")
    lines.append(f"    long acc = x * {k % 7 + 1} + s->seed;")
    if k % 37 == 5:
        lines.append("    int unused_counter;")
    lines.append(f"    for (int i = 0; i < {k % 5 + 1}; i++)")
    lines.append(f"        acc += (acc >> {k % 3 + 1}) ^ table[(i + {k}) % TABLE];")
    if k > 0:
        lines.append(f"    acc -= fn_{k // 2}(acc & 0xff, s);")
    if k == TARGET:
        lines.append("    acc /= (s->seed - s->seed) * 0;")
    lines.append(f"    if (acc > {1000 + k})")
    lines.append(f"        acc %= {97 + k};")
    lines.append("    return acc;")
    lines.append("}")
    lines.append("")
    return lines


def main(out):
    lines = [
        "/* Generated: a long chain of small mixing functions. */",
        "#include <stdio.h>",
        "",
        "#define TABLE 64",
        "",
        "struct state {",
        "    long seed;",
        "    int rounds;",
        "};",
        "",
        "static const long table[TABLE] = {",
    ]
    lines += [f"    {(i * 2654435761) % 1000},"for i in range(64)]
    lines += ["};", ""]
    for k in range(FUNCTIONS):
        lines += function(k)
    lines += ["int main(void)", "{", "    struct state s = {42, 3};", "    long total = 0;"]
    lines += [f"    total += fn_{k}(total, &s);" for k in range(0, FUNCTIONS, 3)]
    lines += ['    printf("%ld\\n", total);', "    return 0;", "}"]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
