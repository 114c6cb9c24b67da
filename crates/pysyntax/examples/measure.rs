//! Rough per-candidate cost of `check_valid` + `token_count`, and of the same through
//! [`Prepared`](minrepro_pysyntax::Prepared) for single-site candidates (not a test):
//! `cargo run --release -p minrepro-pysyntax --example measure -- FILE [REPEAT]`.

use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: measure FILE [REPEAT]");
    let repeat: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(1);
    let source = std::fs::read_to_string(&path)
        .expect("readable file")
        .repeat(repeat);
    println!("{} lines, {} bytes", source.lines().count(), source.len());
    let runs = 50;
    let start = Instant::now();
    for _ in 0..runs {
        assert!(minrepro_pysyntax::check_valid(&source).is_ok());
    }
    let check = start.elapsed() / runs;
    let start = Instant::now();
    for _ in 0..runs {
        assert!(ruff_python_parser::parse_module(&source).is_ok());
    }
    println!("(parse alone {:?})", start.elapsed() / runs);
    let start = Instant::now();
    for _ in 0..runs {
        let _ = minrepro_pysyntax::check_valid("");
    }
    println!(
        "(check_valid of an empty source {:?})",
        start.elapsed() / runs
    );
    let start = Instant::now();
    let mut tokens = 0;
    for _ in 0..runs {
        tokens = minrepro_pysyntax::token_count(&source);
    }
    let count = start.elapsed() / runs;
    println!("check_valid {check:?}, token_count {count:?} ({tokens} tokens)");
    for group in minrepro_pysyntax::Group::ALL {
        let start = Instant::now();
        let n = minrepro_pysyntax::rewrites(&source, group).len();
        println!("rewrites({}) {:?}: {n}", group.name(), start.elapsed());
    }
    // One site at a time, as ddmin's finest granularity proposes them: the full path (apply,
    // check_valid, token_count) against the prepared one.
    let start = Instant::now();
    let prepared =
        minrepro_pysyntax::Prepared::new(&source, minrepro_pysyntax::Group::FastRemovals, 11);
    println!("Prepared::new(fast-removals) {:?}", start.elapsed());
    let sites = prepared.sites();
    let picks: Vec<&minrepro_pysyntax::Rewrite> = (0..100)
        .map(|i| &sites[i * 7919 % sites.len().max(1)])
        .collect();
    let start = Instant::now();
    let mut valid = 0;
    for &site in &picks {
        let text = minrepro_pysyntax::apply(&source, &[site]);
        if minrepro_pysyntax::check_valid(&text).is_ok() {
            valid += 1;
            let _ = minrepro_pysyntax::token_count(&text);
        }
    }
    let full = start.elapsed() / picks.len() as u32;
    let start = Instant::now();
    for &site in &picks {
        let edited = prepared.apply(&[site]);
        let _ = prepared.check(&edited);
    }
    let fast = start.elapsed() / picks.len() as u32;
    println!(
        "single-site candidate ({valid} of {} valid): full {full:?}, prepared {fast:?}",
        picks.len()
    );
}
