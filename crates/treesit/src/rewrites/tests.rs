//! The rewrites on small C programs: what each site gives, that it parses cleanly, and where no
//! site is offered.

use minrepro_text::splice;

use super::{rewrite_sites, INLINE, SCALARIZE};
use crate::{by_name, LoadedGrammar};

/// Every rewrite of `text` (C) of `kind`, applied alone, each checked to parse cleanly.
pub(super) fn rewritten(text: &str, kind: &str) -> Vec<String> {
    rewritten_in("c", text, kind)
}

/// The rewrite sites of `text` in `grammar` of `kind`.
pub(super) fn sites_of(grammar: &str, text: &str, kind: &str) -> Vec<minrepro_text::Site> {
    let syntax = LoadedGrammar::new(by_name(grammar).unwrap()).unwrap();
    let tree = syntax.parse(text).unwrap();
    let mut sites = rewrite_sites(&tree, text);
    sites.retain(|s| s.kind == kind);
    sites
}

/// Every rewrite of `text` in `grammar` of `kind`, applied alone, each checked to parse cleanly.
pub(super) fn rewritten_in(grammar: &str, text: &str, kind: &str) -> Vec<String> {
    applied(grammar, text, kind, kind)
}

/// [`rewritten_in`], a rewrite that does not parse cleanly failing with `label` (a table row's
/// name, so that the row that failed is the one named).
fn applied(grammar: &str, text: &str, kind: &str, label: &str) -> Vec<String> {
    let syntax = LoadedGrammar::new(by_name(grammar).unwrap()).unwrap();
    let tree = syntax.parse(text).unwrap();
    rewrite_sites(&tree, text)
        .iter()
        .filter(|s| s.kind == kind)
        .map(|site| {
            let out = splice(text, &[site]);
            assert_eq!(syntax.errors(&out), 0, "{label}: {out}");
            out
        })
        .collect()
}

/// One expectation of a table of rewrites: its name (what it shows, said when it fails), the
/// grammar, the text, the rewrite's kind and every rewrite of that kind, in order.
pub(super) type Row<'a> = (&'a str, &'a str, &'a str, &'a str, &'a [&'a str]);

/// Checks every row: its text's rewrites of its kind, each applied alone, are exactly its
/// expected texts, and each parses cleanly. The rewrites' tests share this one check, so that
/// a case is data and a failure names its row.
pub(super) fn check(rows: &[Row<'_>]) {
    for &(name, grammar, text, kind, expected) in rows {
        assert_eq!(applied(grammar, text, kind, name), expected, "{name}");
    }
}

#[test]
fn a_function_is_inlined_into_its_calls() {
    check(&[
        (
            "a function called once is inlined and its definition goes",
            "c",
            "long fee(long amount) {\n    long f = amount / 100;\n    return f > 0 ? f : 1;\n}\nint main(void) {\n    long x = 5;\n    x -= fee(p.amount + 1);\n    return x;\n}\n",
            INLINE,
            &["int main(void) {\n    long x = 5;\n    long f = (p.amount + 1) / 100;\n    x -= (f > 0 ? f : 1);\n    return x;\n}\n"],
        ),
        (
            "a void call in an unbraced branch gets braces and an assigned parameter a local",
            "c",
            "void bump(int *p, int n) { n = n * 2; *p += n; }\nvoid g(int *q, int c) {\n  if (c) bump(q, c + 1);\n}\n",
            INLINE,
            &["void g(int *q, int c) {\n  if (c) {\nint n = c + 1;\nn = n * 2; *q += n;\n}\n}\n"],
        ),
        (
            "a call of an empty function as a branch becomes an empty statement",
            "c",
            "void nop(int a) { }\nint main(void) { if (1) nop(2); return 0; }\n",
            INLINE,
            &["int main(void) { if (1) ; return 0; }\n"],
        ),
        (
            "a pure function is inlined into every call at once",
            "c",
            "int sq(int v) { return v * v; }\nint main(void) { int a = sq(2); return sq(a) + sq(a + 1); }\n",
            INLINE,
            &["int main(void) { int a = (2 * 2); return (a * a) + ((a + 1) * (a + 1)); }\n"],
        ),
    ]);
}

#[test]
fn no_inlining_where_it_would_change_the_program_beyond_a_reduction() {
    let none = |text: &str| assert!(rewritten(text, INLINE).is_empty(), "{text}");
    // Two returns; a use that is not a call; a loop condition (runs more than once).
    none("int f(int a) { if (a) return 1; return 2; }\nint main(void) { return f(3); }\n");
    none("int f(int a) { return a; }\nint (*p)(int) = f;\nint main(void) { return f(3); }\n");
    none("int f(int a) { return a; }\nint main(void) { int i = 0; while (f(i)) i++; return i; }\n");
    // The callee's local `t` would capture the caller's; a body with locals called twice.
    none("int f(int a) { int t = a; return t; }\nint main(void) { int t = 1; return f(t); }\n");
    none("int f(int a) { int t = a; return t; }\nint main(void) { f(1); return f(2); }\n");
    // A recursive function, and an argument with side effects used twice is copied instead.
    none("int f(int a) { return a ? f(a - 1) : 0; }\nint main(void) { return f(3); }\n");
    let copied = rewritten(
        "int d(int v) { return v + v; }\nint main(void) { int i = 0; return d(i++); }\n",
        INLINE,
    );
    assert_eq!(
        copied,
        ["int main(void) { int i = 0; int v = i++;\nreturn (v + v); }\n"]
    );
}

#[test]
fn an_array_of_structs_whose_uses_all_name_a_field_becomes_one_scalar_per_field() {
    let text = "struct account { char name[16]; long balance; int kind; };\nstatic struct account accounts[8];\nint main(void) {\n  accounts[2].balance += 5;\n  accounts[1].kind = accounts[0].balance > 0;\n  return accounts[2].balance;\n}\n";
    let expected = "struct account { char name[16]; long balance; int kind; };\nstatic long accounts_balance;\nstatic int accounts_kind;\nint main(void) {\n  accounts_balance += 5;\n  accounts_kind = accounts_balance > 0;\n  return accounts_balance;\n}\n";
    let element = "struct account { char name[16]; long balance; int kind; };\nstatic struct account accounts_0;\nint main(void) {\n  accounts_0.balance += 5;\n  accounts_0.kind = accounts_0.balance > 0;\n  return accounts_0.balance;\n}\n";
    assert_eq!(rewritten(text, SCALARIZE), [expected, element]);
    // A field declared as an array keeps its declarator; an array of scalars gets `_0`.
    let names = "struct s { char name[4]; };\nstruct s v;\nint a[3];\nint main(void) { a[1] = v.name[0]; return a[2]; }\n";
    let both = rewritten(names, SCALARIZE);
    assert_eq!(both.len(), 2);
    assert!(both[0].contains("char v_name[4];\n") && both[0].contains("= v_name[0];"));
    assert!(both[1].contains("int a_0;\n") && both[1].contains("{ a_0 = v.name[0]; return a_0; }"));
    // An element used whole (its address taken) or of an unknown struct: only the element.
    let whole = "struct s { int x; };\nstruct s a[2];\nstruct t b[2];\nint main(void) { struct s *p = &a[0]; b[0].y = 1; return a[1].x; }\n";
    let elements = rewritten(whole, SCALARIZE);
    assert_eq!(elements.len(), 2);
    assert!(
        elements[0].contains("struct s a_0;\n")
            && elements[0].contains("= &a_0; b[0].y = 1; return a_0.x; }")
    );
    assert!(elements[1].contains("struct t b_0;\n") && elements[1].contains("b_0.y = 1;"));
    // A struct of one field used whole as a value stands for its field, not where its
    // address is taken.
    let one = "struct d { long g; };\nstruct d p;\nint main(void) { p.g = 3; printf(\"%ld\", p); return 0; }\n";
    let expected = "struct d { long g; };\nlong p_g;\nint main(void) { p_g = 3; printf(\"%ld\", p_g); return 0; }\n";
    assert_eq!(rewritten(one, SCALARIZE), [expected]);
    let addressed =
        "struct d { long g; };\nstruct d p;\nint main(void) { p.g = 3; return (&p)->g; }\n";
    assert!(rewritten(addressed, SCALARIZE).is_empty());
    // The array itself used (passed whole), a struct used whole, an initialised array: none.
    let used = "struct s { int x; };\nstruct s a[2];\nstruct s v;\nint c[2] = {1, 2};\nint f(struct s *p);\nint main(void) { f(a); f(&v); return c[0] + v.x; }\n";
    assert!(rewritten(used, SCALARIZE).is_empty());
}

#[test]
fn the_rewrites_are_a_group_of_the_c_like_grammars_only() {
    use minrepro_text::Language;
    let names = |grammar: &str| {
        let language =
            crate::SyntaxAware::new(by_name(grammar).unwrap(), crate::tests::Words).unwrap();
        let groups = language.groups();
        groups.iter().map(|spec| spec.name).collect::<Vec<_>>()
    };
    for grammar in ["c", "cpp", "cuda"] {
        assert_eq!(
            names(grammar)[..4],
            ["syntax-coarse", "syntax-depth", "syntax", "syntax-outer"]
        );
    }
    assert!(!names("rust").contains(&"syntax-rewrites"));
    assert!(!names("rust").contains(&"syntax-coarse"));
}
