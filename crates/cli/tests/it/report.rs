//! `--report FILE.html` end to end: written by each front end, after Ctrl-C too, and rendered by
//! a real headless Chromium (Debian's `chromium`): the page loads without console or network
//! errors, its DOM holds both plots, the counters, the passes and the diff, and the screenshot
//! shows the plot's line (pixels of its colour, decoded from the PNG by python3's zlib).
//! Without Chromium the rendering is skipped, unless MINREPRO_REQUIRE_CHROMIUM=1 (CI).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use minrepro_testkit::temp_file;

use crate::support::bundle::{gamma_predicate, three_object_bundle};
use crate::support::python::{python, run_python_in};
use crate::support::{
    assert_success, binary_command, interrupt_once_smaller, run_in, script, stderr, Area,
};

/// The Chromium executable, or `None` (the rendering is skipped) unless CI requires it.
fn chromium() -> Option<&'static str> {
    let found = ["chromium", "chromium-browser"].into_iter().find(|name| {
        Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("MINREPRO_REQUIRE_CHROMIUM").is_none(),
            "MINREPRO_REQUIRE_CHROMIUM is set but chromium does not run"
        );
        eprintln!("chromium is not installed; skipping the rendering");
    }
    found
}

/// Runs headless Chromium on `page` with `mode` (`--dump-dom` or `--screenshot=PNG`); returns
/// stdout, after checking that it logged no console message and no failed request.
fn render(chromium: &str, page: &Path, mode: &str) -> String {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--window-size=1000,1200",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(mode)
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed: {log}");
    for error in [":CONSOLE(", "net::ERR_", "Uncaught"] {
        assert!(
            !log.contains(error),
            "{error} while loading the page: {log}"
        );
    }
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Decodes the PNG at `path` with python3 (zlib, the five row filters) and returns the share of
/// pixels that are not white and the number of pixels of the plot line's colour (#1f6feb).
fn pixels(path: &Path) -> (f64, usize) {
    const DECODE: &str = r#"
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat = 8, b''
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR':
        width, height, depth, color = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        idat += body
    pos += 12 + length
assert depth == 8 and color in (2, 6), (depth, color)
bpp = 3 if color == 2 else 4
raw = zlib.decompress(idat)
stride = width * bpp
rows, prev, at = [], bytearray(stride), 0
for _ in range(height):
    kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
    at += 1 + stride
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if kind == 1: line[i] = (line[i] + a) & 255
        elif kind == 2: line[i] = (line[i] + b) & 255
        elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
inked = blue = 0
for line in rows:
    for x in range(width):
        r, g, b = line[x * bpp:x * bpp + 3]
        if (r, g, b) != (255, 255, 255):
            inked += 1
        if abs(r - 31) < 40 and abs(g - 111) < 40 and abs(b - 235) < 40:
            blue += 1
print(inked / (width * height), blue)
"#;
    let out = Command::new(python())
        .args(["-c", DECODE])
        .arg(path)
        .output()
        .unwrap();
    assert_success(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    let (share, blue) = text.trim().split_once(' ').unwrap();
    (share.parse().unwrap(), blue.parse().unwrap())
}

/// Renders `page` and checks what every report must show; returns the DOM.
fn check_rendered(page: &Path) -> Option<String> {
    let chromium = chromium()?;
    let dom = render(chromium, page, "--dump-dom");
    for id in ["size-over-runs", "size-over-time"] {
        let svg = dom
            .split(&format!("<svg id=\"{id}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("no plot {id}: {dom}"));
        let points = svg
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert!(points.split(' ').count() >= 3, "{id}: {points}");
    }
    assert!(dom.contains("<table class=\"passes\">") && dom.contains("<table class=\"diff\">"));
    let png = page.with_extension("png");
    render(chromium, page, &format!("--screenshot={}", png.display()));
    let (inked, blue) = pixels(&png);
    assert!(inked > 0.02, "the screenshot is nearly blank: {inked}");
    assert!(
        blue > 200,
        "the plot's line is not on the screenshot: {blue} pixels"
    );
    Some(dom)
}

/// `minrepro file ./test.sh ring.c -o small.c --report REPORT EXTRA` in `dir`.
fn reduce_ring(dir: &Path, report: &str, extra: &[&str]) -> std::process::Output {
    let args = [
        "file",
        "./test.sh",
        "ring.c",
        "-o",
        "small.c",
        "--report",
        report,
    ];
    run_in(dir, &[&args[..], extra].concat())
}

fn ring(dir: &Path) -> PathBuf {
    let examples = crate::support::repo_root().join("examples/file");
    for name in ["ring.c", "test.sh"] {
        fs::copy(examples.join(name), dir.join(name)).unwrap();
    }
    dir.join("report.html")
}

#[test]
fn a_file_reduction_report_renders_with_its_plots_and_diff() {
    let dir = tempfile::tempdir().unwrap();
    let page = ring(dir.path());
    let out = reduce_ring(
        dir.path(),
        "report.html",
        &["-q", "--stats-json", "stats.json"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let html = fs::read_to_string(&page).unwrap();
    for external in ["<script", " src=", " href=", "<link", "@import", "url("] {
        assert!(!html.contains(external), "{external} in the report");
    }
    // The page states the sizes the run's own counters state.
    let stats: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.path().join("stats.json")).unwrap()).unwrap();
    let complete = format!(
        "Complete: {} -&gt; {} tokens.",
        stats["size_before"], stats["size_after"]
    );
    assert!(html.contains(&complete), "{complete} not in {html}");
    assert!(stats["size_after"].as_u64().unwrap() < 560 / 10, "reduced");
    assert!(html.contains("--report report.html"), "the command line");
    // The removed function is on the original's side only, the kept error line on both.
    assert!(html.contains(
        "<tr class=\"removed\"><td class=\"line old\">static void ring_init(struct ring *ring)</td>"
    ));
    if let Some(dom) = check_rendered(&page) {
        assert!(dom.contains("syntax") && dom.contains("timed out"), "{dom}");
    }
}

#[test]
fn an_interrupted_reduction_still_writes_its_report() {
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..40)
        .map(|i| format!("line {i} filler\n"))
        .collect::<String>()
        + "the needle line\n";
    fs::write(dir.path().join("big.txt"), &text).unwrap();
    script(
        dir.path(),
        "slow.sh",
        "#!/bin/sh\nsleep 0.2; grep -q needle big.txt\n",
    );
    let out = dir.path().join("out.txt");
    let args = [
        "file",
        "./slow.sh",
        "big.txt",
        "-q",
        "-o",
        "out.txt",
        "--report",
        "r.html",
    ];
    interrupt_once_smaller(dir.path(), &args, &out, text.len());
    let page = dir.path().join("r.html");
    let html = fs::read_to_string(&page).unwrap();
    assert!(html.contains("Interrupted at "), "{html}");
    assert!(html.contains("the needle line"));
    check_rendered(&page);
}

#[test]
fn a_bundle_report_lists_the_kept_objects() {
    let area = Area::new();
    let bundle = three_object_bundle(&area.input());
    let predicate = gamma_predicate(&area.input());
    let page = area.out("report.html");
    let out = binary_command()
        .arg("bundle")
        .arg("--bundle")
        .arg(&bundle)
        .arg("--output")
        .arg(area.out("reduced"))
        .arg("--predicate")
        .arg(&predicate)
        .arg("--predicate-arg={bundle}")
        .arg("--report")
        .arg(&page)
        .arg("-q")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let html = fs::read_to_string(&page).unwrap();
    let kept = html
        .split("<h2>Kept code objects (1)</h2>")
        .nth(1)
        .expect("kept objects");
    assert!(
        kept.split("</pre>").next().unwrap().contains("gamma"),
        "{kept}"
    );
    assert!(html.contains("<h3>metadata.json</h3>"));
    check_rendered(&page);
}

#[test]
fn a_python_reduction_writes_its_report() {
    let (dir, _) = temp_file(
        "prog.py",
        "import math\n\ndef area(r):\n    return math.pi * r * r\n\nprint(area(2))\nraise ValueError('radius check failed: 2')\n",
    );
    let extra = ["--report", "r.html", "-q"];
    let out = run_python_in(
        dir.path(),
        "prog.py",
        "radius check failed",
        "small.py",
        &extra,
    );
    assert_success(&out);
    let html = fs::read_to_string(dir.path().join("r.html")).unwrap();
    assert!(html.contains("minrepro python report") && html.contains("Complete: "));
    assert!(html.contains("<tr class=\"removed\"><td class=\"line old\">import math</td>"));
}

#[test]
fn a_report_path_that_is_an_input_or_the_output_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    ring(dir.path());
    for report in ["ring.c", "small.c"] {
        let out = reduce_ring(dir.path(), report, &[]);
        assert_eq!(out.status.code(), Some(2), "{report}: {}", stderr(&out));
        assert!(stderr(&out).contains("would overwrite"), "{}", stderr(&out));
    }
    let original = fs::read(crate::support::repo_root().join("examples/file/ring.c")).unwrap();
    assert_eq!(fs::read(dir.path().join("ring.c")).unwrap(), original);
    assert!(!dir.path().join("small.c").exists());
}
