//! Debug lines for the node's ImmediateMesh: the core's lines (`World::debug_lines`) in buffers
//! that grow only when a world has more lines than they hold, and their RGBA8 colours as the
//! floats of a Godot `Color`.

use xpbd_cloth::World;

/// The lines of the last [`DebugLines::read`]: endpoints \[m\] (world space) and colours.
#[derive(Clone, Debug, Default)]
pub struct DebugLines {
    lines: Vec<[f32; 6]>,
    colors: Vec<u32>,
    count: usize,
}

impl DebugLines {
    /// Read the lines `flags` (the core's `DEBUG_*` bits) asks for; the buffers grow to the full
    /// count when they are too small (a frame with as many lines as the last allocates nothing).
    /// Errors: the core's (`flags` with unknown bits).
    pub fn read(&mut self, world: &World, flags: u32) -> Result<usize, xpbd_cloth::ClothError> {
        let total = world.debug_lines(flags, &mut self.lines, &mut self.colors)?;
        if total > self.lines.len() {
            self.lines.resize(total, [0.0; 6]);
            self.colors.resize(total, 0);
            world.debug_lines(flags, &mut self.lines, &mut self.colors)?;
        }
        self.count = total;
        Ok(total)
    }

    /// Line `k`: its two endpoints \[m\] and its colour as `[r, g, b, a]` in 0..1.
    pub fn line(&self, k: usize) -> ([f32; 3], [f32; 3], [f32; 4]) {
        let l = self.lines[k];
        ([l[0], l[1], l[2]], [l[3], l[4], l[5]], color(self.colors[k]))
    }

    /// Lines read.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the last read found no line.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

/// An RGBA8 colour of the core (red in the low byte) as `[r, g, b, a]` floats in 0..1.
pub fn color(rgba: u32) -> [f32; 4] {
    rgba.to_le_bytes().map(|c| c as f32 / 255.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_cloth::debug_lines::{DEBUG_EDGES, DEBUG_PINS, rgba};
    use xpbd_cloth::{ClothDesc, WorldDesc};

    #[test]
    fn colours_unpack_red_first() {
        assert_eq!(color(rgba(255, 0, 51, 255)), [1.0, 0.0, 0.2, 1.0]);
        assert_eq!(color(0), [0.0; 4]);
    }

    /// A 4 × 4 quad grid: 16 vertices, 9 quads, 24 + 9 = 33 edges; two pins add 6 lines. The
    /// buffers grow once, then hold.
    #[test]
    fn lines_are_read_whole_growing_the_buffers_once() {
        let positions: Vec<[f32; 3]> = (0..16).map(|k| [(k % 4) as f32, 0.0, (k / 4) as f32]).collect();
        let mut indices = Vec::new();
        for r in 0..3u32 {
            for c in 0..3u32 {
                let a = r * 4 + c;
                indices.extend([a, a + 4, a + 1, a + 1, a + 4, a + 5]);
            }
        }
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
        let mut lines = DebugLines::default();
        assert_eq!(lines.read(&world, DEBUG_EDGES).unwrap(), 33);
        assert_eq!(lines.len(), 33);
        let (a, b, c) = lines.line(0);
        assert_eq!(c, [0.0, 1.0, 0.0, 1.0], "at rest: green");
        assert!((0..3).map(|k| (a[k] - b[k]).abs()).sum::<f32>() > 0.9, "an edge of the unit grid");
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, 3], None).unwrap();
        assert_eq!(lines.read(&world, DEBUG_EDGES | DEBUG_PINS).unwrap(), 39);
        let capacity = lines.lines.capacity();
        lines.read(&world, DEBUG_EDGES).unwrap();
        assert_eq!((lines.len(), lines.lines.capacity()), (33, capacity), "fewer lines: no new buffer");
        assert!(lines.read(&world, 1 << 12).is_err());
    }
}
