//! Deep nesting, odd bytes, line endings, token counting.

use super::*;
use crate::*;
use Group::*;

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = [
        format!("x = {}{}\n", "[".repeat(20_000), "]".repeat(20_000)),
        format!("x = {}1\n", "not ".repeat(100_000)),
        format!("x = {}1\n", "-".repeat(100_000)),
        format!("x = {}\n", vec!["1"; 100_000].join("+")),
        format!("x = y{}\n", ".a".repeat(100_000)),
        (0..150)
            .map(|i| format!("{}if x:\n", "    ".repeat(i)))
            .collect::<String>()
            + &"    ".repeat(150)
            + "pass\n",
    ];
    for source in &deep {
        assert!(check_valid(source).is_err(), "{}", &source[..40]);
        let _ = token_count(source);
        let _ = freeze_regions(source);
        for group in Group::ALL {
            assert!(rewrites(source, group).is_empty());
        }
    }
    // deep but within CPython's limits
    let ok = format!("x = {}1{}\n", "(".repeat(150), ")".repeat(150));
    assert_eq!(check_valid(&ok), Ok(()));
    let ok = format!("x = {}\n", vec!["1"; 1500].join("+"));
    assert_eq!(check_valid(&ok), Ok(()));
    assert!(!rewrites(&ok, Simplifications).is_empty());
}

#[test]
fn odd_bytes_do_not_panic() {
    for source in [
        "\u{feff}x = 1\n",
        "x = 1\0\n",
        "\0",
        "if x:\r\n    a = 1\r\n    b = 2\r\n",
        "if x:\r    a = 1\r",
        "if x:\n\ta = [1,\n\t 2]\n",
        "x = '''\n\0'''\n",
        "\u{feff}",
        "",
        "\\\n",
        "x = f'{a!r:{b}}' + 'é'\n",
    ] {
        let _ = check_valid(source);
        let _ = token_count(source);
        let _ = freeze_regions(source);
        for group in Group::ALL {
            let all = rewrites(source, group);
            let refs: Vec<&Rewrite> = all.iter().collect();
            let _ = apply(source, &refs);
            for r in &all {
                let _ = check_valid(&apply(source, &[r]));
            }
        }
    }
    // CRLF is kept
    let s = "if x:\r\n    a = 1\r\n    b = 2\r\n";
    assert_rewrite(s, FastRemovals, "if-to-body", "a = 1\r\nb = 2\r\n");
    assert_rewrite(
        s,
        FastRemovals,
        "remove-statement",
        "if x:\r\n    b = 2\r\n",
    );
}

#[test]
fn token_count_ignores_comments_and_layout() {
    let a = "x = f(1, 2)\n";
    let b = "# c\n\nx = f(1,   # c\n      2)\n\n";
    assert_eq!(token_count(a), token_count(b));
    assert!(token_count("x = 1\ny = 2\n") > token_count("x = 1\n"));
}

#[test]
fn nesting_just_below_the_operator_limit_does_not_overflow() {
    let n = 19_990;
    let sources = [
        format!("x = {}1\n", "-".repeat(n)),
        format!("x = {}1\n", "not ".repeat(n)),
        format!("x = {}1\n", "lambda:".repeat(n)),
        format!("x = {}1\n", "1 if 1 else ".repeat(n / 2)),
        format!("x = y{}\n", ".a".repeat(n)),
        format!("x = y{}\n", "[0]".repeat(n)),
        format!("x = y{}\n", "(0)".repeat(n)),
        format!("x = {}\n", vec!["2"; n].join("**")),
        format!("async def f():\n    return {}x\n", "await ".repeat(n)),
    ];
    for source in &sources {
        let _ = check_valid(source);
        let _ = freeze_regions(source);
    }
    // Listing rewrites copies operand text (quadratic in nesting): exercise it less deep.
    for source in &sources[..3] {
        let source = source.replacen(&"-".repeat(n), &"-".repeat(3000), 1);
        for group in Group::ALL {
            let all = rewrites(&source, group);
            if let Some(r) = all.first() {
                let _ = apply(&source, &[r]);
            }
        }
    }
}

#[test]
fn shallow_sources_are_checked_safely_on_a_small_stack() {
    // The deepest source still handled on the caller's thread, on a 1 MiB stack in a debug build.
    let mut source = String::new();
    for level in 0..40 {
        source.push_str(&format!("{}if x:\n", "    ".repeat(level)));
    }
    let expr = format!(
        "{}{}1{}",
        "not ".repeat(150),
        "(".repeat(100),
        ")".repeat(100)
    );
    let minus = "-".repeat(140);
    source.push_str(&format!("{}y = {expr} + {minus}1\n", "    ".repeat(40)));
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            assert_eq!(check_valid(&source), Ok(()));
            for group in Group::ALL {
                for r in rewrites(&source, group) {
                    let _ = check_valid(&apply(&source, &[&r]));
                }
            }
        })
        .expect("thread");
    assert!(handle.join().is_ok());
}
