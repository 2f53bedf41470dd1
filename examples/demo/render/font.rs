//! A 3 × 5 pixel font for the time labels of the contact sheet ("t=1.25s").

use super::raster::Canvas;

/// Rows of a glyph, top to bottom, 3 bits each (bit 2 = left column).
fn glyph(c: char) -> [u8; 5] {
    match c {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        '.' => [0, 0, 0, 0, 2],
        's' => [0, 3, 6, 3, 6],
        't' => [2, 7, 2, 2, 3],
        '=' => [0, 7, 0, 7, 0],
        'N' => [5, 7, 7, 5, 5],
        _ => [0; 5],
    }
}

/// Write `text` with its top-left corner at (x, y), each font pixel `scale` × `scale` pixels.
pub fn draw_text(canvas: &mut Canvas, text: &str, x: usize, y: usize, scale: usize, colour: u8) {
    for (k, c) in text.chars().enumerate() {
        let rows = glyph(c);
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..3 {
                if bits & (4 >> col) == 0 {
                    continue;
                }
                for dy in 0..scale {
                    for dx in 0..scale {
                        let (px, py) = (x + (k * 4 + col) * scale + dx, y + row * scale + dy);
                        if px < canvas.width && py < canvas.height {
                            canvas.pixels[py * canvas.width + px] = colour;
                        }
                    }
                }
            }
        }
    }
}
