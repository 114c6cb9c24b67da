use std::collections::BTreeMap;
use std::fmt::Debug;

pub trait Shape: Debug {
    fn area(&self) -> f64;
    fn perimeter(&self) -> f64;
    fn name(&self) -> &'static str;
}

#[derive(Debug, Clone, Copy)]
pub struct Circle {
    pub r: f64,
}

#[derive(Debug, Clone, Copy)]
pub struct Rect {
    pub w: f64,
    pub h: f64,
}

#[derive(Debug)]
pub struct Label {
    pub text: String,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r
    }
    fn perimeter(&self) -> f64 {
        2.0 * std::f64::consts::PI * self.r
    }
    fn name(&self) -> &'static str {
        "circle"
    }
}

impl Shape for Rect {
    fn area(&self) -> f64 {
        self.w * self.h
    }
    fn perimeter(&self) -> f64 {
        2.0 * (self.w + self.h)
    }
    fn name(&self) -> &'static str {
        "rect"
    }
}

pub fn largest<'a>(shapes: &'a [Box<dyn Shape>]) -> Option<&'a dyn Shape> {
    let mut best: Option<&dyn Shape> = None;
    for s in shapes {
        match best {
            Some(b) if b.area() >= s.area() => {}
            _ => best = Some(s.as_ref()),
        }
    }
    best
}

pub fn by_name(shapes: &[Box<dyn Shape>]) -> BTreeMap<&'static str, usize> {
    let mut counts = BTreeMap::new();
    for s in shapes {
        *counts.entry(s.name()).or_insert(0) += 1;
    }
    counts
}

pub fn total_area<T: Shape>(items: &[T]) -> f64 {
    items.iter().map(|s| s.area()).sum()
}

pub fn scale_all(rects: &mut [Rect], k: f64) {
    for r in rects.iter_mut() {
        r.w *= k;
        r.h *= k;
    }
}

pub fn summary() -> String {
    let mut rects = vec![Rect { w: 1.0, h: 2.0 }, Rect { w: 3.0, h: 4.0 }];
    scale_all(&mut rects, 2.0);
    let circles = [Circle { r: 1.0 }, Circle { r: 0.5 }];
    let labels = vec![Label { text: "a".into() }, Label { text: "b".into() }];
    let shapes: Vec<Box<dyn Shape>> = vec![Box::new(rects[0]), Box::new(circles[1])];
    let big = largest(&shapes).map(|s| s.name()).unwrap_or("none");
    format!(
        "{} {:.2} {:.2} {:.2} {:?}",
        big,
        total_area(&rects),
        total_area(&circles),
        total_area(&labels),
        by_name(&shapes)
    )
}
