//! `minrepro completions` and `minrepro man`: the bash completion is loaded into a real bash and
//! asked to complete, the manual pages are rendered by a real formatter (`man -l`, else groff).

use std::path::Path;
use std::process::{Command, Output};

use crate::support::{assert_fails, binary_command, names};

fn minrepro(args: &[&str]) -> Output {
    let output = binary_command().args(args).output().expect("minrepro runs");
    assert!(
        output.status.success(),
        "minrepro {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Loads `minrepro completions bash` into a fresh non-interactive bash and returns the
/// candidates its completion function offers for `words` with the cursor on the last word.
fn bash_complete(words: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("minrepro.bash");
    std::fs::write(&script, minrepro(&["completions", "bash"]).stdout).unwrap();
    let current = words.len() - 1;
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    // Called as bash's `complete -F` calls it: $1 the command, $2 the word being completed,
    // $3 the word before it, with COMP_WORDS/COMP_CWORD/COMP_LINE set.
    let driver = format!(
        "source '{script}'\n\
         complete -p minrepro >/dev/null || exit 3\n\
         COMP_WORDS=({words})\n\
         COMP_CWORD={current}\n\
         COMP_LINE='{line}'\n\
         COMP_POINT=${{#COMP_LINE}}\n\
         _minrepro minrepro '{cur}' '{prev}'\n\
         [ ${{#COMPREPLY[@]}} -eq 0 ] || printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script = script.display(),
        words = quoted.join(" "),
        line = words.join(" "),
        cur = words[current],
        prev = words[current - 1],
    );
    let output = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &driver])
        .output()
        .expect("bash runs");
    assert!(
        output.status.success(),
        "bash completion failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_a_subcommand_flag() {
    assert_eq!(
        bash_complete(&["minrepro", "bundle", "--bun"]),
        ["--bundle"]
    );
    // The same prefix means nothing to `minrepro python`, whose flags differ.
    assert!(bash_complete(&["minrepro", "python", "--bun"]).is_empty());
    assert_eq!(
        bash_complete(&["minrepro", "python", "--err"]),
        ["--err-msg"]
    );
}

#[test]
fn bash_completes_subcommands_and_shells() {
    let subcommands = bash_complete(&["minrepro", ""]);
    for name in ["bundle", "python", "file", "completions", "man"] {
        assert!(subcommands.iter().any(|s| s == name), "{subcommands:?}");
    }
    assert_eq!(bash_complete(&["minrepro", "py"]), ["python"]);
    let mut shells = bash_complete(&["minrepro", "completions", ""]);
    shells.retain(|s| !s.starts_with('-'));
    for shell in ["bash", "zsh", "fish"] {
        assert!(shells.iter().any(|s| s == shell), "{shells:?}");
    }
}

#[test]
fn zsh_and_fish_scripts_name_the_flags() {
    let zsh = String::from_utf8(minrepro(&["completions", "zsh"]).stdout).unwrap();
    assert!(zsh.starts_with("#compdef minrepro"), "{zsh:.60}");
    assert!(zsh.contains("--err-msg") && zsh.contains("--allow-remove-section"));
    let fish = String::from_utf8(minrepro(&["completions", "fish"]).stdout).unwrap();
    assert!(fish.contains("complete -c minrepro") && fish.contains("-l err-msg"));
}

/// Renders a roff page to plain text with `man -l` (or groff when man is missing).
fn render(page: &Path) -> String {
    let output = if Command::new("man").arg("--version").output().is_ok() {
        Command::new("man")
            .args(["-l", "-P", "cat"])
            .arg(page)
            .env("MANWIDTH", "100")
            .output()
            .unwrap()
    } else {
        Command::new("groff")
            .args(["-man", "-Tutf8"])
            .arg(page)
            .output()
            .expect("neither man nor groff is installed (scripts/test installs man-db)")
    };
    assert!(output.status.success(), "{page:?} does not render");
    // Formatters embolden with backspaces when not writing to a terminal.
    let text = String::from_utf8_lossy(&output.stdout);
    let mut plain = String::new();
    for c in text.chars() {
        if c == '\u{8}' {
            plain.pop();
        } else {
            plain.push(c);
        }
    }
    plain
}

#[test]
fn man_pages_render_with_every_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("minrepro.1");
    std::fs::write(&page, minrepro(&["man"]).stdout).unwrap();
    let text = render(&page);
    assert!(text.contains("SUBCOMMANDS"), "{text}");
    for name in ["bundle", "python", "file", "completions", "man"] {
        assert!(text.contains(&format!("minrepro-{name}(1)")), "{text}");
    }

    let python = dir.path().join("python.1");
    std::fs::write(&python, minrepro(&["man", "python"]).stdout).unwrap();
    let text = render(&python);
    for flag in ["--err-msg", "--backend", "--timeout-factor", "--preload"] {
        assert!(text.contains(flag), "{flag} missing: {text}");
    }

    let all = dir.path().join("all");
    std::fs::create_dir(&all).unwrap();
    minrepro(&["man", "--dir", all.to_str().unwrap()]);
    assert_eq!(
        names(&all),
        [
            "minrepro-bundle.1",
            "minrepro-completions.1",
            "minrepro-file.1",
            "minrepro-man.1",
            "minrepro-python.1",
            "minrepro.1"
        ]
    );
    assert!(render(&all.join("minrepro-bundle.1")).contains("--allow-remove-section"));
}

#[test]
fn man_refuses_an_unknown_subcommand() {
    let output = binary_command().args(["man", "nope"]).output().unwrap();
    assert_fails(&output, 1, "no subcommand \"nope\"");
}

/// `--help` names every placeholder a front end's predicate arguments may use, and `bundle`
/// takes `-o` for `--output` as `python` does.
#[test]
fn help_lists_the_placeholders_and_bundle_takes_dash_o() {
    let text = |args: &[&str]| String::from_utf8(minrepro(args).stdout).unwrap();
    let bundle = text(&["bundle", "--help"]);
    for placeholder in ["{bundle}", "{metadata}", "{input}", "{workspace}", "{slot}"] {
        assert!(bundle.contains(placeholder), "{placeholder}: {bundle}");
    }
    assert!(bundle.contains("-o, --output <PATH>"), "{bundle}");
    let python = text(&["python", "--help"]);
    for placeholder in ["{file}", "{workspace}", "{python}", "{slot}"] {
        assert!(python.contains(placeholder), "{placeholder}: {python}");
    }
    // -o parses: the run gets as far as its own check of the predicate flag.
    let output = binary_command()
        .args([
            "bundle",
            "--code-object",
            "/dev/null",
            "-o",
            "/nonexistent/out",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--predicate"), "{stderr}");
}
