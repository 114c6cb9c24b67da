//! The size plots as inline SVG: a step line of the current size over a horizontal quantity
//! (predicate runs, seconds), with the axes' ranges written at their ends. No script, no
//! external resource: the page renders anywhere.

use std::fmt::Write;

use crate::escape;

const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 220.0;
/// Room for the axes' labels.
const LEFT: f64 = 70.0;
const BOTTOM: f64 = 30.0;
const TOP: f64 = 10.0;
const RIGHT: f64 = 20.0;

/// An SVG plot of `points` (x, size), sizes held until the next point, to `x_end`.
pub fn step_plot(id: &str, points: &[(f64, u64)], x_end: f64, x_label: &str, unit: &str) -> String {
    let x_max = points.iter().map(|p| p.0).fold(x_end, f64::max).max(1e-9);
    let y_max = points.iter().map(|p| p.1).max().unwrap_or(1).max(1) as f64;
    let x = |v: f64| LEFT + v / x_max * (WIDTH - LEFT - RIGHT);
    let y = |v: u64| TOP + (1.0 - v as f64 / y_max) * (HEIGHT - TOP - BOTTOM);
    let mut line = String::new();
    let mut last = None;
    for &(px, size) in points {
        if let Some(previous) = last {
            let _ = write!(line, "{:.1},{:.1} ", x(px), y(previous));
        }
        let _ = write!(line, "{:.1},{:.1} ", x(px), y(size));
        last = Some(size);
    }
    if let Some(size) = last {
        let _ = write!(line, "{:.1},{:.1}", x(x_max), y(size));
    }
    let axis_y = HEIGHT - BOTTOM;
    format!(
        "<svg id=\"{id}\" class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" aria-label=\"size over {label}\">\
<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{axis_y}\" stroke=\"#555\"/>\
<line x1=\"{LEFT}\" y1=\"{axis_y}\" x2=\"{right}\" y2=\"{axis_y}\" stroke=\"#555\"/>\
<text x=\"{tick}\" y=\"{top_text}\" text-anchor=\"end\">{y_max} {unit}</text>\
<text x=\"{tick}\" y=\"{axis_y}\" text-anchor=\"end\">0</text>\
<text x=\"{LEFT}\" y=\"{label_y}\">0</text>\
<text x=\"{right}\" y=\"{label_y}\" text-anchor=\"end\">{x_text} {label}</text>\
<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\" points=\"{line}\"/></svg>",
        right = WIDTH - RIGHT,
        tick = LEFT - 6.0,
        top_text = TOP + 10.0,
        label_y = HEIGHT - 8.0,
        x_text = trim_number(x_max),
        label = escape(x_label),
        unit = escape(unit),
    )
}

/// `12`, `3.5`: a number without trailing zeros.
fn trim_number(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map(str::to_owned).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_steps_down_at_every_point_and_runs_to_the_end() {
        let svg = step_plot(
            "p",
            &[(0.0, 100), (5.0, 50)],
            10.0,
            "predicate runs",
            "tokens",
        );
        assert!(svg.starts_with("<svg id=\"p\""), "{svg}");
        assert!(
            svg.contains("100 tokens") && svg.contains("10 predicate runs"),
            "{svg}"
        );
        let points = svg.split("points=\"").nth(1).unwrap();
        // start, the step at x=5 (held, then down), the end at x=10
        assert_eq!(points.split(' ').count(), 4, "{points}");
    }
}
