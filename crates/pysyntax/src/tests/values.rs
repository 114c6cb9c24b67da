//! Runtime-value substitution: which expressions are sites, the instrumented text, and the
//! `substitute-value` rewrites.

use crate::*;

/// The texts of the value sites of `source`.
fn site_texts(source: &str) -> Vec<&str> {
    value_sites(source)
        .into_iter()
        .map(|r| &source[r])
        .collect()
}

/// `source` with the one value of `expr` (its first occurrence) substituted, if offered.
fn substituted(source: &str, expr: &str, literal: &str) -> Option<String> {
    let start = source.find(expr)?;
    let values = vec![(start..start + expr.len(), literal.to_owned())];
    let rewrites = value_rewrites(source, &values);
    assert!(rewrites.len() <= 1, "{rewrites:?}");
    let rewrite = rewrites.first()?;
    assert_eq!(rewrite.kind, "substitute-value");
    Some(apply(source, &[rewrite]))
}

#[test]
fn sites_are_reads_calls_subscripts_attributes_binops_and_fstrings() {
    let source = "x = f(a.b[i] + 1)\ny = f\"{n}!\"\n";
    assert_eq!(
        site_texts(source),
        [
            "f(a.b[i] + 1)",
            "f",
            "a.b[i] + 1",
            "a.b[i]",
            "a.b",
            "a",
            "i",
            "f\"{n}!\"",
            "n"
        ]
    );
}

#[test]
fn targets_builtin_callees_annotations_decorators_patterns_and_debug_fields_are_not_sites() {
    let source = "\
@deco(k)
def g(p: T = d) -> R:
    del q[j]
    a.b = c
    v: A = w
    super().m()
    print(f\"{z=}\")
    match s:
        case P.Q:
            pass
";
    assert_eq!(
        site_texts(source),
        [
            "d",
            "q",
            "j",
            "a",
            "c",
            "w",
            "super().m()",
            "super()",
            "print(f\"{z=}\")",
            "f\"{z=}\"",
            "s"
        ]
    );
}

#[test]
fn frozen_code_has_no_sites() {
    let source = "x = f(a)\ny = g(b)  # autodd: freeze\n";
    assert_eq!(site_texts(source), ["f(a)", "f", "a"]);
    let values = vec![(
        source.find("g(b)").unwrap()..source.find("  #").unwrap(),
        "1".to_owned(),
    )];
    assert!(value_rewrites(source, &values).is_empty());
}

#[test]
fn instrumenting_wraps_every_site_and_stays_valid() {
    let source = "class C:\n    def m(self):\n        return f\"{self.n * 2!r:>{w}}\"\n";
    let sites = value_sites(source);
    let instrumented = instrument(source, &sites);
    assert!(check_valid(&instrumented).is_ok(), "{instrumented}");
    assert_eq!(instrumented.lines().count(), source.lines().count());
    assert_eq!(instrumented.matches(RECORD_BEGIN).count(), sites.len());
    assert!(instrumented.contains(
        "_minrepro_end(1,_minrepro_begin(1),_minrepro_end(2,_minrepro_begin(2),\
         _minrepro_end(3,_minrepro_begin(3),self).n) * 2)"
    ));
}

#[test]
fn an_expression_becomes_its_literal() {
    let source = "raise E(f\"{a.shape[1]} != {b}\")\n";
    assert_eq!(
        substituted(source, "a.shape[1]", "128").unwrap(),
        "raise E(f\"{128} != {b}\")\n"
    );
    assert_eq!(
        substituted(source, "f\"{a.shape[1]} != {b}\"", "'128 != 64'").unwrap(),
        "raise E('128 != 64')\n"
    );
}

#[test]
fn numbers_get_parentheses_where_they_would_bind_differently() {
    let pow = "y = f(a) ** 2\n";
    assert_eq!(substituted(pow, "f(a)", "-3").unwrap(), "y = (-3) ** 2\n");
    let attribute = "y = f(a).real\n";
    assert_eq!(
        substituted(attribute, "f(a)", "5").unwrap(),
        "y = (5).real\n"
    );
    let exponent = "y = 2 ** f(a)\n";
    assert_eq!(
        substituted(exponent, "f(a)", "-3").unwrap(),
        "y = 2 ** -3\n"
    );
}

#[test]
fn literals_with_more_tokens_than_the_expression_are_not_offered() {
    assert_eq!(substituted("y = x\n", "x", "(1, 2)"), None);
    assert_eq!(substituted("y = x\n", "x", "-1"), None);
    assert_eq!(
        substituted("y = f(a, b)\n", "f(a, b)", "(1, 2)").unwrap(),
        "y = (1, 2)\n"
    );
}

#[test]
fn containers_too_large_for_the_expression_are_offered_emptied() {
    let dict = "{'basic': {'rate': 1.0}, 'gold': {'rate': 0.8}}";
    assert_eq!(
        substituted("y = self.tiers[k]\n", "self.tiers", dict).unwrap(),
        "y = {}[k]\n"
    );
    assert_eq!(
        substituted("y = a.b\n", "a.b", "[1, 2, 3]").unwrap(),
        "y = []\n"
    );
    // One token is too small for an empty pair.
    assert_eq!(substituted("y = x\n", "x", "[1, 2]"), None);
}

#[test]
fn values_of_ranges_that_are_not_sites_are_ignored() {
    let source = "x = f(a)\n";
    let values = vec![(0..1, "1".to_owned()), (4..5, "2".to_owned())];
    assert!(value_rewrites(source, &values).is_empty());
    assert!(value_rewrites("x = (", &values).is_empty());
}

#[test]
fn a_rebuilding_call_may_be_larger_than_the_only_read_of_a_name() {
    // The loop variable is read once, as a callee: its value's constructor may replace it.
    let source = "for layer in model.layers:\n    layer()\n";
    let callee = source.rfind("layer").unwrap();
    let values = vec![(callee..callee + 5, "Linear()".to_owned())];
    let rewrites = value_rewrites(source, &values);
    assert_eq!(
        apply(source, &rewrites.iter().collect::<Vec<_>>()),
        "for layer in model.layers:\n    Linear()()\n"
    );
    // An attribute of a name read once, too.
    let source = "grid = Grid()\nnp.broadcast_to(grid.values, (5, 4))\n";
    assert_eq!(
        substituted(source, "grid.values", "np.zeros((3, 4))").unwrap(),
        "grid = Grid()\nnp.broadcast_to(np.zeros((3, 4)), (5, 4))\n"
    );
}

#[test]
fn a_rebuilding_call_larger_than_the_read_needs_the_names_bindings_to_become_dead() {
    // Read twice: the other read keeps what builds it.
    let twice = "grid = Grid()\nf(grid.values, grid.rows)\n";
    assert_eq!(substituted(twice, "grid.values", "np.zeros((3, 4))"), None);
    // A method's receiver stays: the method still receives it.
    let receiver = "class G:\n    def f(self):\n        return g(self.values)\n";
    assert_eq!(
        substituted(receiver, "self.values", "np.zeros((3, 4))"),
        None
    );
    // A binding in frozen code stays.
    let frozen = "e = Encoder(indent=2)  # autodd: freeze\ne.encode()\n";
    assert_eq!(substituted(frozen, "e", "Encoder()"), None);
    // Not larger: offered wherever the value was recorded.
    let call = "y = f(np.arange(12).reshape(-1, 4))\nz = y\n";
    assert_eq!(
        substituted(call, "np.arange(12).reshape(-1, 4)", "np.zeros((3, 4))").unwrap(),
        "y = f(np.zeros((3, 4)))\nz = y\n"
    );
}

#[test]
fn a_callee_is_replaced_by_a_rebuilding_call_only() {
    let source = "handler = pick()\nhandler(1)\n";
    let at = source.rfind("handler").unwrap();
    for (value, offered) in [("Handler()", true), ("1", false), ("'h'", false)] {
        let values = vec![(at..at + 7, value.to_owned())];
        assert_eq!(
            !value_rewrites(source, &values).is_empty(),
            offered,
            "{value}"
        );
    }
}
