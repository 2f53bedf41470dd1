//! What a caller passes to create and configure a cloth. Every setting is declared once, in the
//! parameter table (`desc/table.rs`); `ClothParams` with its defaults and range checks is generated
//! from it (`desc/generated.rs`, by build.rs). This file adds what joins fields: the rules between
//! two settings, and the mesh.

mod generated;
// The table reaches the crate through the generated code: build.rs reads all of it, the crate
// only its constants and the tests (`table_tests.rs`) most of the rest.
#[allow(dead_code)]
mod spec;
#[allow(dead_code)]
mod table;
#[cfg(test)]
mod table_tests;

pub use generated::{ClothParams, DEFAULT_MAX_EXTRA_VERTICES, DEFAULT_WELD_TOLERANCE};
pub use table::{MAX_STEP_INTERVAL, MAX_SUBSTEPS};

use super::guard::UnstableRecovery;
use crate::error::{ClothError, check_count, check_range};
use crate::material::Material;

/// Whether self-collision is on in [`ClothParams::default`] (the table's `enable_self_collision`).
/// Off: it costs a spatial hash and pair list per step, which most worn and draped cloth (one
/// layer) does not need; the radius comes from the mesh when turned on
/// ([`ClothParams::self_collision_radius`]).
pub const DEFAULT_SELF_COLLISION: bool = generated::DEFAULT.self_collision;

impl ClothParams {
    /// Reject impossible values, naming the field: any field outside its declared range (each
    /// field's doc and `docs/parameters.md` give it), and wind with both aerodynamic coefficients 0.
    pub fn validate(&self) -> Result<(), ClothError> {
        self.check_declared_ranges()?;
        if self.wind_velocity != [0.0; 3] && self.drag_coefficient == 0.0 && self.lift_coefficient == 0.0 {
            return Err(ClothError::InvalidParameter {
                name: "wind_velocity",
                value: self.wind_velocity.iter().map(|&v| v as f64 * v as f64).sum::<f64>().sqrt(),
                expected: "0 unless drag_coefficient or lift_coefficient > 0 (else the wind would do nothing)",
            });
        }
        Ok(())
    }
}

/// Everything needed to create a cloth from a render mesh.
#[derive(Clone, Copy, Debug)]
pub struct ClothDesc<'a> {
    /// Render vertex positions \[m\], `vertex_count` entries.
    pub positions: &'a [[f32; 3]],
    /// Triangle list, `3·triangle_count` render vertex indices. May be empty (free particles).
    pub indices: &'a [u32],
    /// Extra distance constraints between render vertex pairs (ropes, tassels, strands, or a
    /// particle chain), `[u32; 2] × line_count`. They behave like triangle edges without area: no
    /// bending, and a material-derived compliance of 0 (rigid) since no area backs them; set
    /// `stretch_compliance` to make them elastic. Duplicates of triangle edges are ignored.
    pub lines: &'a [[u32; 2]],
    /// Optional inverse mass per render vertex \[1/kg\], `vertex_count` entries; 0 = fixed in place.
    /// Copies of a welded vertex: the particle takes the first copy's value, or 0 if any copy is 0.
    /// `None`: masses come from the material's areal density (lumped: a third of each adjacent
    /// triangle's mass per corner).
    pub inverse_masses: Option<&'a [f32]>,
    /// Vertices closer than this \[m\] become one particle (engines split vertices at UV seams).
    /// Range and default: [`DEFAULT_WELD_TOLERANCE`].
    pub weld_tolerance: f32,
    /// Render vertices (and particles) reserved for cuts; 0 (the default): the cloth cannot tear.
    /// Range and meaning: [`DEFAULT_MAX_EXTRA_VERTICES`] (see [`crate::cloth::tear`]).
    pub max_extra_vertices: u32,
    /// Settings that can also change later.
    pub params: ClothParams,
}

impl<'a> ClothDesc<'a> {
    /// A descriptor with default parameters for the given mesh.
    pub fn new(positions: &'a [[f32; 3]], indices: &'a [u32]) -> Self {
        ClothDesc {
            positions,
            indices,
            lines: &[],
            inverse_masses: None,
            weld_tolerance: DEFAULT_WELD_TOLERANCE,
            max_extra_vertices: DEFAULT_MAX_EXTRA_VERTICES,
            params: ClothParams::default(),
        }
    }

    /// Check the settings: [`ClothParams::validate`] and the creation settings' declared ranges
    /// (`weld_tolerance`). The mesh is checked when the cloth is created. Errors:
    /// `InvalidParameter` naming the field.
    pub fn validate(&self) -> Result<(), ClothError> {
        self.params.validate()?;
        self.check_declared_ranges()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wind_without_aerodynamic_coefficients_is_rejected_not_ignored() {
        let windy = ClothParams { wind_velocity: [4.0, 0.0, 3.0], ..ClothParams::default() };
        match windy.validate() {
            Err(ClothError::InvalidParameter { name, value, .. }) => {
                assert_eq!(name, "wind_velocity");
                assert_eq!(value, 5.0);
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(ClothParams { drag_coefficient: 1.0, ..windy }.validate(), Ok(()));
        assert_eq!(ClothParams { lift_coefficient: 0.3, ..windy }.validate(), Ok(()));
    }

    /// A rejected count is reported as given: through `f32` (the old check) 4 294 967 295 and
    /// 16 777 217 came out as 4 294 967 296 and 16 777 216. The bounds themselves hold.
    #[test]
    fn rejected_counts_are_reported_exactly() {
        for (value, text) in [(u32::MAX, "4294967295"), (16_777_217, "16777217"), (1001, "1001")] {
            let error = ClothParams { substeps: value, ..ClothParams::default() }.validate().unwrap_err();
            assert!(error.to_string().contains(&format!("`substeps` = {text} is invalid")), "{error}");
            let world = crate::WorldDesc { thread_count: value, ..crate::WorldDesc::default() }.validate().unwrap_err();
            assert!(world.to_string().contains(&format!("`thread_count` = {text} is invalid")), "{world}");
        }
        assert_eq!(ClothParams { substeps: MAX_SUBSTEPS, iterations: 0, ..ClothParams::default() }.validate(), Ok(()));
        let bounds = crate::WorldDesc { substeps: 1, iterations: MAX_SUBSTEPS, thread_count: 256, ..crate::WorldDesc::default() };
        assert_eq!(bounds.validate(), Ok(()));
        assert!(crate::WorldDesc { iterations: 0, ..crate::WorldDesc::default() }.validate().is_err());
        assert!(crate::WorldDesc { thread_count: 257, ..crate::WorldDesc::default() }.validate().is_err());
    }
}
