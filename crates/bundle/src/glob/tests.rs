use super::*;
use std::io::Write;
use std::process::{Command, Stdio};

/// Pattern, name, and what Python 3.11's `fnmatch.fnmatchcase(name, pattern)` answered here.
const TABLE: &[(&str, &str, bool)] = &[
    (".text*", ".text", true),
    (".text*", ".text.hot", true),
    (".text*", "x.text", false),
    ("*/x", "a/b/x", true),
    ("*/x", "x", false),
    ("*x", "a/x", true),
    ("a?c", "a/c", true),
    ("[!a]*", "a", false),
    ("[!a]*", "b", true),
    ("[!a]*", "", false),
    ("\\*", "\\x", true),
    ("\\*", "*", false),
    ("\\*", "\\", true),
    ("a\\*b", "a*b", false),
    ("a\\*b", "a\\xb", true),
    ("[]]", "]", true),
    ("[]]", "a", false),
    ("[]a]", "a", true),
    ("[!]]", "]", false),
    ("[!]]", "x", true),
    ("", "", true),
    ("", ".text", false),
    ("[a-", "[a-", true),
    ("[a-", "a", false),
    ("[", "[", true),
    ("[!", "[!", true),
    ("[]", "[]", true),
    ("[^a]", "^", true),
    ("[^a]", "b", false),
    ("[a-]", "-", true),
    ("[a-]", "b", false),
    ("[-a]", "-", true),
    ("[z-a]", "m", false),
    ("[z-a]x", "x", false),
    ("[!z-a]", "m", true),
    ("[a-c-e]", "-", true),
    ("[a-c-e]", "d", false),
    ("[\\]", "\\", true),
    ("[\\-a]", "]", true),
    ("{a,b}", "a", false),
    ("{a,b}", "{a,b}", true),
    ("**/x", "x", false),
    ("**/x", "/x", true),
    ("a**", "a/b/c", true),
    ("[[:alpha:]]", "a", false),
    ("[[:alpha:]]", ":", false),
    ("[[:alpha:]]", "[]", true),
    ("*", "\n", true),
    ("?", "\n", true),
    (".note.*", ".note", false),
    (".note.*", ".note.x", true),
    ("[!--a]", "b", true),
    ("[&]", "&", true),
    ("[!]", "!", false),
    ("[!]x]", "!", true),
    ("[!]x]", "]", false),
];

#[test]
fn edge_cases_match_python_fnmatchcase() {
    for &(pattern, name, expected) in TABLE {
        assert_eq!(
            fnmatch(pattern, name),
            expected,
            "pattern {pattern:?} name {name:?} (globset pattern {:?})",
            translate(pattern)
        );
    }
}

#[test]
fn classes_that_globset_would_misread_are_rewritten() {
    // Members globset reads specially are moved, never dropped (members as Python found them).
    for (pattern, members) in [
        ("[^!]", "!^"),
        ("[-!]", "!-"),
        ("[]!-]", "!-]"),
        ("[^-_]", "^_"),
        ("[:[]", ":["),
        ("[^!-#]", "!\"#^"),
    ] {
        for c in "!^-]\"#:[_a\\".chars() {
            let expected = members.contains(c);
            assert_eq!(
                fnmatch(pattern, &c.to_string()),
                expected,
                "{pattern} vs {c:?}"
            );
        }
    }
}

/// A small deterministic generator (xorshift), so the comparison below is the same every run.
struct Rng(u64);

impl Rng {
    fn pick(&mut self, from: &[char]) -> char {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        from[(self.0 % from.len() as u64) as usize]
    }

    fn word(&mut self, from: &[char], max: usize) -> String {
        let len = self.pick(&['0', '1', '2', '3', '4', '5', '6'][..=max]) as usize - '0' as usize;
        (0..len).map(|_| self.pick(from)).collect()
    }
}

/// Thousands of random patterns over the characters that matter, checked against the real
/// `python3` fnmatch in one run of it.
#[test]
fn random_patterns_agree_with_python3() {
    let pattern_chars: Vec<char> = "ab-]![^*?\\/.{},:".chars().collect();
    let name_chars: Vec<char> = "ab-]![^*\\/.{".chars().collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let patterns: Vec<String> = (0..3000).map(|_| rng.word(&pattern_chars, 6)).collect();
    let names: Vec<String> = (0..120).map(|_| rng.word(&name_chars, 4)).collect();
    let script = "import sys, json, fnmatch\n\
                  d = json.load(sys.stdin)\n\
                  print(''.join('1' if fnmatch.fnmatchcase(n, p) else '0' \
                  for p in d['p'] for n in d['n']))";
    let mut child = Command::new("python3")
        .args(["-S", "-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let input = serde_json::json!({"p": patterns, "n": names}).to_string();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let expected: Vec<bool> = output
        .stdout
        .iter()
        .filter(|b| !b.is_ascii_whitespace())
        .map(|&b| b == b'1')
        .collect();
    assert_eq!(expected.len(), patterns.len() * names.len());
    let mut answers = expected.iter();
    let mut mismatches = Vec::new();
    for pattern in &patterns {
        let set = compile([pattern.as_str()]).unwrap();
        for name in &names {
            if set.is_match(name) != *answers.next().unwrap() {
                mismatches.push((pattern.clone(), name.clone(), translate(pattern)));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatches, first: {:?}",
        mismatches.len(),
        &mismatches[..mismatches.len().min(10)]
    );
    // The generator must exercise both answers and the interesting constructs.
    assert!(expected.iter().filter(|&&m| m).count() > 1000);
    assert!(patterns
        .iter()
        .any(|p| p.starts_with("[!") && p.ends_with(']')));
}

#[test]
fn several_patterns_make_one_set() {
    let set = compile([".debug_*", ".comment", "[z-a]"]).unwrap();
    assert!(set.is_match(".debug_info"));
    assert!(set.is_match(".comment"));
    assert!(!set.is_match(".text"));
    assert!(!compile(std::iter::empty()).unwrap().is_match(""));
}
