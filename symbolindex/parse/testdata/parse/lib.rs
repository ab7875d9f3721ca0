use std::collections::HashMap;
use std::fmt;

/// A point in 2D.
/// Coordinates are integers.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    pub x: i64,
    pub y: i64,
}

/// Shapes we know.
pub enum Shape {
    Circle { r: f64 },
    Square(f64),
}

/// Things with an area.
pub trait Area {
    fn area(&self) -> f64;
}

impl Point {
    /// Creates a point.
    pub fn new(x: i64, y: i64) -> Self {
        fn helper() {}
        Point { x, y }
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub type Registry = HashMap<String, Point>;
pub const ORIGIN: Point = Point { x: 0, y: 0 };
static mut COUNTER: u32 = 0;

mod tests {
    fn check() {}
}
