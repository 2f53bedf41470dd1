//! Reading a cloth's masses: from its material and rest areas, or the inverse masses given at
//! creation (docs/design.md, "Materials: masses and compliances").

use super::Cloth;
use crate::error::ClothError;
use crate::out::Out;

impl Cloth {
    /// Total mass \[kg\]: the sum over particles of 1/w, pinned particles included; particles given
    /// inverse mass 0 at creation (infinitely heavy) are not counted. Summed in f64 in particle
    /// order.
    pub fn total_mass(&self) -> f32 {
        super::config::free_mass(&self.config.w_free) as f32
    }

    /// Copy each render vertex's mass \[kg\] into `out` (`vertex_count` entries, render order): its
    /// particle's mass 1/w (copies of a welded vertex read the same value, so the masses of the
    /// render vertices add up to more than [`Self::total_mass`] where vertices were welded);
    /// `f32::INFINITY` for particles given inverse mass 0. Pinning does not change a mass.
    /// Errors: `BufferSizeMismatch` (`out` untouched).
    pub fn read_vertex_masses<'o>(&self, out: impl Into<Out<'o, f32>>) -> Result<(), ClothError> {
        let (map, mut out) = (&self.model.particle_of_vertex, out.into());
        out.check_len(map.len())?;
        out.fill_from(map.iter().map(|&p| {
            let w = self.config.w_free[p as usize];
            if w > 0.0 { 1.0 / w } else { f32::INFINITY }
        }));
        Ok(())
    }
}
