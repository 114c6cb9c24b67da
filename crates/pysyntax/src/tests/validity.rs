//! `check_valid` against CPython 3.11 `compile()` (spawns `python3`; skipped without it).

use crate::*;

/// Decodes a hex string (test data).
fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap_or(0))
        .collect()
}

#[test]
fn agrees_with_cpython_compile() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/validity_cases.py");
    let Ok(output) = std::process::Command::new("python3")
        .arg("-S")
        .arg(script)
        .output()
    else {
        eprintln!("python3 not available; skipping");
        return;
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut disagreements = Vec::new();
    let mut count = 0;
    for line in stdout.lines() {
        let mut parts = line.split(' ');
        let (Some(ok), Some(lineno), Some(hex)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        count += 1;
        let source = String::from_utf8(unhex(hex)).unwrap_or_default();
        let ours = check_valid(&source);
        if (ok == "1") != ours.is_ok() {
            disagreements.push(format!(
                "{source:?}: cpython {ok} ({lineno}), ours {ours:?}"
            ));
        } else if let (Err(problem), Ok(line)) = (&ours, lineno.parse::<usize>()) {
            // Parse errors at the end of a block may be reported one line apart; the block-depth
            // error names the construct that overflows, CPython a statement inside it.
            let nested = problem.message.contains("statically nested");
            if line > 0 && problem.line.abs_diff(line) > 1 && !nested {
                disagreements.push(format!("{source:?}: line {line} vs ours {problem}"));
            }
        }
    }
    assert!(count > 100, "python3 printed {count} cases: {stdout}");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn agrees_with_cpython_on_mutants_of_a_stdlib_module() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/");
    // PYSYNTAX_MUTANT_FILE / PYSYNTAX_MUTANTS cross-check another file / more mutants; by
    // default the installed Python's own `dataclasses.py`.
    let path = std::env::var("PYSYNTAX_MUTANT_FILE").ok().or_else(|| {
        let output = std::process::Command::new("python3")
            .args([
                "-S",
                "-c",
                "import dataclasses; print(dataclasses.__file__)",
            ])
            .output()
            .ok()?;
        Some(String::from_utf8_lossy(&output.stdout).trim().to_string())
    });
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        eprintln!("python3 not available; skipping");
        return;
    };
    let count = std::env::var("PYSYNTAX_MUTANTS").unwrap_or_else(|_| "300".into());
    let output = std::process::Command::new("python3")
        .args(["-S", &format!("{dir}mutants.py"), &path, &count])
        .output();
    let Ok(output) = output else {
        eprintln!("python3 not available; skipping");
        return;
    };
    let original = std::fs::read_to_string(&path).unwrap_or_default();
    if check_valid(&original).is_err() {
        eprintln!("{path} is not Python 3.11 (newer python3?); skipping");
        return;
    }
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut disagreements = Vec::new();
    let mut count = 0;
    for row in stdout.lines() {
        let fields: Vec<&str> = row.split(' ').collect();
        let [ok, kind, a, b] = fields[..] else {
            continue;
        };
        let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<i64>()) else {
            continue;
        };
        let mut mutant: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        if kind == "del" {
            mutant.drain(a..(b as usize).min(mutant.len()));
        } else if b > 0 {
            mutant[a] = format!("{}{}", " ".repeat(b as usize), mutant[a]);
        } else {
            let k = (-b) as usize;
            let line = &mutant[a];
            if line
                .get(..k.min(line.len()))
                .is_some_and(|p| p.trim().is_empty())
            {
                mutant[a] = line.get(k..).unwrap_or("").to_string();
            }
        }
        let text = mutant.concat();
        count += 1;
        if (ok == "1") != check_valid(&text).is_ok() {
            disagreements.push(format!(
                "{kind} {a} {b}: cpython {ok}, ours {:?}",
                check_valid(&text)
            ));
        }
    }
    assert!(count >= 100, "{stdout}");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn python_version_can_be_chosen() {
    let type_alias = "type X = int\n";
    assert!(check_valid(type_alias).is_err());
    assert!(check_valid_for(type_alias, 12).is_ok());
    let matching = "match x:\n    case 1:\n        pass\n";
    assert!(check_valid(matching).is_ok());
    assert!(check_valid_for(matching, 9).is_err());
}

#[test]
fn reports_the_line_of_semantic_errors() {
    let cases = [
        ("x = 1\nreturn x\n", 2),
        ("x = 1\nbreak\n", 2),
        ("def f(a, a):\n    pass\n", 1),
        ("x = 1\n\nawait x\n", 3),
        ("def f(a=1, b):\n    pass\n", 1),
        ("if x:\npass\n", 2),
        ("if x:\n    a\n   b\n", 3),
    ];
    for (source, line) in cases {
        let problem = check_valid(source).expect_err(source);
        assert_eq!(problem.line, line, "{source:?}: {problem}");
    }
}
