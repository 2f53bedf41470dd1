//! [`World::debug_lines`]: the lines of `crate::debug_lines` for every cloth and collider.

use super::World;
use crate::debug_lines::{DEBUG_ALL, DEBUG_COLLIDERS, Sink, cloth_lines, collider_lines};
use crate::error::ClothError;
use crate::out::Out;

impl World {
    /// Write the debug lines `flags` asks for ([`crate::debug_lines`]: `DEBUG_EDGES`,
    /// `DEBUG_COLLIDERS`, …, or'ed) into `lines` (each `[x0, y0, z0, x1, y1, z1]` \[m\]) and
    /// `colors` (RGBA8, [`crate::debug_lines::rgba`]), and return how many there are in all: the
    /// first `min(total, lines.len())` are written, the rest only counted (so a second call with
    /// buffers of the returned size gets them all). Allocates nothing; the order is that of the
    /// module docs, the same from call to call.
    ///
    /// Errors: `BufferSizeMismatch` (`colors` not as long as `lines`), `InvalidParameter`
    /// (`flags` with a bit above [`crate::debug_lines::DEBUG_ALL`]); nothing written on error.
    pub fn debug_lines<'o>(
        &self,
        flags: u32,
        lines: impl Into<Out<'o, [f32; 6]>>,
        colors: impl Into<Out<'o, u32>>,
    ) -> Result<usize, ClothError> {
        let (lines, colors) = (lines.into(), colors.into());
        colors.check_len(lines.len())?;
        if flags & !DEBUG_ALL != 0 {
            let expected = "XPBD_DEBUG_* bits (1..=64, or'ed)";
            return Err(ClothError::InvalidParameter { name: "flags", value: flags as f64, expected });
        }
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let mut sink = Sink::new(lines, colors);
        for (_, cloth) in self.cloths.iter() {
            cloth_lines(cloth, flags, &self.colliders, &mut sink);
        }
        if flags & DEBUG_COLLIDERS != 0 {
            for (_, collider) in self.colliders.iter() {
                collider_lines(collider, &mut sink);
            }
        }
        Ok(sink.count())
    }
}
