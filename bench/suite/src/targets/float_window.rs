//! A bug in a small window of the float plane: `1 < x < 2` and `10 < y < 11`.

pub fn check(x: f64, y: f64) -> Result<(), String> {
    if 1.0 < x && x < 2.0 && 10.0 < y && y < 11.0 {
        Err(format!("window hit at ({x}, {y})"))
    } else {
        Ok(())
    }
}
