//! Property test: applying any listed rewrite (or any subset of a group's rewrites) to sample
//! programs never panics, yields text `check_valid` accepts or rejects cleanly, and keeps every
//! frozen region's text (modulo re-indentation).

use minrepro_pysyntax::{
    apply, check_source, check_valid, frozen_ranges, rewrites, Group, Rewrite, SourceProblem,
};
use proptest::prelude::*;

const SAMPLES: &[&str] = &[
    r#""""Module docstring."""
from __future__ import annotations

import os
from helpers import __freeze__


def compute(a, b=2, *rest, scale=1, **extra):
    """Doc."""
    total = a * b + sum(rest)  # sum
    if total > 10:
        total = total // 2
    elif total < 0:
        total = -total
    else:
        pass
    for i, (x, y) in enumerate([(1, 2), (3, 4)]):
        total += x * y - i
    return total * scale


class Box(Base, metaclass=Meta):
    size: int = 16

    @property
    def area(self):
        return self.size ** 2


with open(os.devnull) as handle:
    data = handle.read()
    text = """
  keep
    this"""

result = __freeze__(compute(3, 4, 5))  # the target
print(result, {1: 2, **{}}, {7, 8}, data[0:2])
"#,
    "import sys\n\
try:\n    value = int(sys.argv[1])\nexcept (IndexError, ValueError):\n    value = 64\nfinally:\n    print('done')\n\
while value > 1:\n    value = value - 1 if value % 2 else value // 2\n    if value == 7: break\n\
# autodd: freeze-start\n\
assert value == 1, value\n\
# autodd: end-freeze\n\
lam = lambda p, q=3: p + q\n\
print(lam(value), [n for n in range(8) if n % 3])\n",
    "class Shape:\n    def __init__(self, w, h):\n        self.w = w\n        self.h = h\n\
    def area(self, scale):\n        return self.w * self.h * scale\n\
class Limits:\n    MAX = 10\n\
def describe(shape, label):\n    text = '%s: %d' % (label, shape.area(2))\n    return text\n\
def check(value):\n    total = value + 1  # autodd: freeze\n    if total > Limits.MAX:\n        raise ValueError(total)\n    return total\n\
def twice(v):\n    return v + v\n\
for s in [Shape(2, 3)]:\n    msg = describe(s, 'box')\n    print(check(len(msg)), twice(3))\n",
    "def outer():\n    count = 0\n    def inner(step):\n        nonlocal count\n        count += step\n        return count\n    with __freeze__:\n        inner(5)\n    return inner(2)  # autodd: freeze\n\n\
async def run(items):\n    async with lock() as l:\n        for item in items:\n            await item\n    return [await i for i in items]\n\n\
x = outer(); y = x + 1; z = (x, y)\n",
];

/// Each line of `text` without its indentation.
fn unindent(text: &str) -> String {
    text.lines()
        .map(str::trim_start)
        .collect::<Vec<_>>()
        .join("\n")
}

fn check(source: &str, out: &str, frozen: &[String]) -> Result<(), TestCaseError> {
    let _ = check_valid(out);
    let flat = unindent(out);
    for f in frozen {
        prop_assert!(flat.contains(f.as_str()), "lost frozen {:?} in\n{}", f, out);
    }
    prop_assert!(check_valid(source).is_ok());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn single_and_combined_rewrites_are_safe(
        sample in 0..SAMPLES.len(),
        group in 0..Group::ALL.len(),
        picks in proptest::collection::vec(any::<bool>(), 0..200),
    ) {
        let source = SAMPLES[sample];
        let frozen: Vec<String> = frozen_ranges(source)
            .into_iter()
            .map(|r| unindent(&source[r]))
            .collect();
        prop_assert!(!frozen.is_empty());
        let all = rewrites(source, Group::ALL[group]);
        for rewrite in &all {
            let out = apply(source, &[rewrite]);
            check(source, &out, &frozen)?;
        }
        let chosen: Vec<&Rewrite> = all
            .iter()
            .zip(picks.iter().chain(std::iter::repeat(&true)))
            .filter(|(_, &p)| p)
            .map(|(r, _)| r)
            .collect();
        let out = apply(source, &chosen);
        check(source, &out, &frozen)?;
    }
}

#[test]
fn samples_are_valid_and_most_single_rewrites_stay_valid() {
    for source in SAMPLES {
        assert_eq!(check_valid(source), Ok(()), "{source}");
        let mut valid = 0;
        let mut total = 0;
        for group in Group::ALL {
            for r in rewrites(source, group) {
                assert!(
                    minrepro_pysyntax::KINDS.contains(&(r.kind, group)),
                    "{} not in KINDS",
                    r.kind
                );
                total += 1;
                valid += usize::from(check_valid(&apply(source, &[&r])).is_ok());
            }
        }
        assert!(total > 20 && valid * 2 > total, "{valid} of {total} valid");
    }
}

#[test]
#[ignore = "exploration aid: prints rewrites whose result is invalid"]
fn print_invalid_single_rewrites() {
    for source in SAMPLES {
        for group in Group::ALL {
            for r in rewrites(source, group) {
                if let Err(e) = check_valid(&apply(source, &[&r])) {
                    eprintln!(
                        "{} {:?} -> {:?}: {e}",
                        r.kind,
                        &source[r.range.clone()],
                        r.replacement
                    );
                }
            }
        }
    }
}

/// The exploration aids' input: the text of `$PYSYNTAX_FILE` and the directory `$PYSYNTAX_DIR`
/// (`None` when either is unset).
fn exploration_input() -> Option<(String, String)> {
    let file = std::env::var("PYSYNTAX_FILE").ok()?;
    let dir = std::env::var("PYSYNTAX_DIR").ok()?;
    Some((std::fs::read_to_string(file).unwrap_or_default(), dir))
}

#[test]
#[ignore = "exploration aid: writes every single-rewrite result of FILE to DIR with our verdict"]
fn dump_single_rewrites() {
    let Some((source, dir)) = exploration_input() else {
        return;
    };
    let mut n = 0;
    for group in Group::ALL {
        for r in rewrites(&source, group) {
            let out = apply(&source, &[&r]);
            let ok = u8::from(check_valid(&out).is_ok());
            let _ = std::fs::write(format!("{dir}/{n:05}_{ok}_{}.py", r.kind), out);
            n += 1;
        }
    }
}

#[test]
#[ignore = "exploration aid: writes random combined selections of FILE's rewrites to DIR"]
fn dump_combined_rewrites() {
    let Some((source, dir)) = exploration_input() else {
        return;
    };
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut n = 0;
    for group in Group::ALL {
        let all = rewrites(&source, group);
        for percent in [2, 5, 20, 50] {
            for _ in 0..15 {
                let chosen: Vec<&Rewrite> = all.iter().filter(|_| next() % 100 < percent).collect();
                let out = apply(&source, &chosen);
                let ok = u8::from(check_valid(&out).is_ok());
                let _ = std::fs::write(
                    format!("{dir}/{n:05}_{ok}_{}-{percent}.py", group.name()),
                    out,
                );
                n += 1;
            }
        }
    }
}

/// What [`check_source`] must answer: the validity check's problem first, then the freeze
/// annotations'.
fn two_parses(source: &str) -> Result<(), SourceProblem> {
    minrepro_pysyntax::check_valid_for(source, 11).map_err(SourceProblem::Invalid)?;
    minrepro_pysyntax::freeze_regions(source).map_err(SourceProblem::Freeze)
}

#[test]
fn one_parse_checks_the_source_and_its_freeze_annotations() {
    for source in [
        "x = 1\n",
        "x = (\n",
        "# autodd: freeze-start\nx = 1\n",
        "x = 1  # autodd: freeze\n",
        "return 1\n",
    ]
    .iter()
    .chain(SAMPLES)
    {
        assert_eq!(check_source(source, 11), two_parses(source), "{source}");
    }
    assert!(matches!(
        check_source("# autodd: freeze-start\nx = 1\n", 11),
        Err(SourceProblem::Freeze(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Arbitrary Python-ish text (and cuts of the samples) never makes anything panic.
    #[test]
    fn arbitrary_text_never_panics(
        text in "[ \t\r\nA-Za-z0-9_:;,.()\\[\\]{}'\"#=+*/@\\\\-]{0,120}",
        sample in 0..SAMPLES.len(),
        cut in 0usize..2000,
        len in 0usize..200,
    ) {
        let source = SAMPLES[sample];
        let mut start = cut.min(source.len());
        while !source.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = (start + len).min(source.len());
        while !source.is_char_boundary(end) {
            end -= 1;
        }
        let edited = format!("{}{}{}", &source[..start], text, &source[end..]);
        for candidate in [text.as_str(), edited.as_str()] {
            let _ = check_valid(candidate);
            let _ = minrepro_pysyntax::token_count(candidate);
            let _ = minrepro_pysyntax::freeze_regions(candidate);
            prop_assert_eq!(check_source(candidate, 11), two_parses(candidate));
            for group in Group::ALL {
                let all = rewrites(candidate, group);
                let refs: Vec<&Rewrite> = all.iter().collect();
                let _ = apply(candidate, &refs);
            }
        }
    }
}
