//! Property test: any set of value substitutions, whatever literals the recorder reports, yields
//! valid Python and keeps every frozen region byte for byte; the instrumented text is valid too.

use minrepro_pysyntax::{
    apply, check_valid, frozen_ranges, instrument, value_rewrites, value_sites, Rewrite,
};
use proptest::prelude::*;

const SAMPLES: &[&str] = &[
    r#"import os
class Tensor:
    def __init__(self, shape):
        self.shape = shape
    def size(self, i):
        return self.shape[i] ** 2 - -self.shape[0]

def plan(m, n, *rest, k=2, **kw):
    tiles = {'m': m // 2, 'n': n, 'k': k * 2}
    return tiles

@decorate(plan(1, 2))
def check(a: Tensor, b) -> None:
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"K shape check failed: {a.shape[1]!r:>{b.shape[0]}} != {b.shape[0]=}")
    del a.shape, b.cache[plan(1, 2)['m']]
    a.count += b.size(0)

p = plan(256, 64, *[1], k=os.sep, **{})
x, *y = [p[key] for key in p if p[key] > len(key)]
print(f'{p}' f"{x}" '{}'.format(y), p['m'].bit_length(), -p['n'] ** 2, f'{x}{y!s}')
assert check(Tensor((p['m'], x)), Tensor(y)), p  # autodd: freeze
"#,
    r#"def gen(n):
    total = 0
    while total < n:
        total += yield total
        print(f"{total + 1}", total.real)
    return (total, n)

async def run(items):
    async with lock() as l:
        return [await i.value for i in items]

match command.split():
    case [Action.GO, where]:
        result = where.upper()
    case _:
        result = lambda q=command: q + where
# autodd: freeze-start
if result(len(command)) == command[1:-1]:
    raise SystemExit(result)
# autodd: end-freeze
value = (lambda: gen(3))().send(None) if command else not command
"#,
];

/// Literals a recorder may report (Python reprs), quotes and backslashes included.
const LITERALS: &[&str] = &[
    "0",
    "128",
    "-3",
    "-0.5",
    "1e+100",
    "True",
    "None",
    "'abc'",
    "\"it's\"",
    "'a\\nb'",
    "'\"'",
    "b'x\\x00'",
    "(1, 2)",
    "(1,)",
    "()",
    "[1, 'a']",
    "{'m': 128, 'n': -1}",
    "{}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn substitutions_stay_valid_and_keep_frozen_code(
        sample in 0..SAMPLES.len(),
        literals in proptest::collection::vec(0..LITERALS.len(), 0..120),
        picks in proptest::collection::vec(any::<bool>(), 0..120),
    ) {
        let source = SAMPLES[sample];
        prop_assert!(check_valid(source).is_ok());
        let frozen: Vec<&str> = frozen_ranges(source).into_iter().map(|r| &source[r]).collect();
        prop_assert!(!frozen.is_empty());
        let sites = value_sites(source);
        prop_assert!(check_valid(&instrument(source, &sites)).is_ok());
        let values: Vec<_> = sites
            .iter()
            .zip(literals.iter().cycle())
            .map(|(range, &l)| (range.clone(), LITERALS[l].to_owned()))
            .collect();
        let all = value_rewrites(source, &values);
        // Rewrites beyond the picks are all chosen.
        let picked = |i: &usize| picks.get(*i).copied().unwrap_or(true);
        let chosen: Vec<&Rewrite> = (0..all.len()).filter(picked).map(|i| &all[i]).collect();
        for selection in chosen.iter().map(|r| vec![*r]).chain([chosen.clone()]) {
            let out = apply(source, &selection);
            prop_assert!(check_valid(&out).is_ok(), "invalid:\n{}", out);
            for f in &frozen {
                prop_assert!(out.contains(f), "lost frozen {:?} in\n{}", f, out);
            }
        }
    }
}

#[test]
fn samples_have_sites_and_substitutions() {
    for source in SAMPLES {
        let sites = value_sites(source);
        assert!(sites.len() > 20, "{}", sites.len());
        let values: Vec<_> = sites.iter().map(|r| (r.clone(), "1".to_owned())).collect();
        assert!(value_rewrites(source, &values).len() > 10);
    }
}
