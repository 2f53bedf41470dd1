//! Physical material description and the formulas that turn it into masses and compliances.
//!
//! All quantities are SI. The formulas are lumped (per mesh element) approximations; they are
//! chosen so that a parameter means the same thing at any mesh resolution, time step and substep
//! count, as far as a mass–spring/hinge discretisation allows.

use crate::error::{ClothError, check_range};

/// A thin isotropic sheet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material {
    /// Mass per unit area [kg/m²]. Cotton shirting ≈ 0.1–0.2, denim ≈ 0.4.
    pub areal_density: f32,
    /// Young's modulus of the fabric [Pa]. Drives the derived stretch and bending compliances.
    pub youngs_modulus: f32,
    /// Poisson ratio ν [-], in `[0, 0.5)`. Only enters the flexural rigidity D (edge springs cannot
    /// represent ν independently; see [`edge_stretch_compliance`]).
    pub poisson_ratio: f32,
    /// Physical fabric thickness t [m] (not the collision thickness).
    pub thickness: f32,
}

impl Default for Material {
    /// A light cotton: 0.15 kg/m², E = 5 MPa, ν = 0.3, t = 0.5 mm.
    fn default() -> Self {
        Material { areal_density: 0.15, youngs_modulus: 5.0e6, poisson_ratio: 0.3, thickness: 5.0e-4 }
    }
}

impl Material {
    /// Reject impossible values (non-finite, non-positive density/modulus/thickness, ν outside
    /// `[0, 0.5)`), naming the field.
    pub fn validate(&self) -> Result<(), ClothError> {
        check_range("areal_density", self.areal_density, f32::MIN_POSITIVE, 1.0e6, "kg/m² > 0")?;
        check_range("youngs_modulus", self.youngs_modulus, f32::MIN_POSITIVE, 1.0e15, "Pa > 0")?;
        check_range("poisson_ratio", self.poisson_ratio, 0.0, 0.499, "0 <= nu < 0.5")?;
        check_range("thickness", self.thickness, f32::MIN_POSITIVE, 1.0, "m > 0")?;
        Ok(())
    }

    /// Flexural rigidity D = E·t³ / (12·(1 − ν²)) [N·m] (Kirchhoff–Love plate theory).
    pub fn flexural_rigidity(&self) -> f32 {
        let t = self.thickness as f64;
        let nu = self.poisson_ratio as f64;
        (self.youngs_modulus as f64 * t * t * t / (12.0 * (1.0 - nu * nu))) as f32
    }
}

/// Stretch compliance α [m/N] of one edge of rest length `rest_length` [m] whose adjacent
/// triangles have total rest area `adjacent_area` [m²].
///
/// Edge stiffness k = E·t·ΣA / L² (Van Gelder 1998, "Approximate simulation of elastic membranes
/// by triangulated spring meshes", eq. for the 2-D case; exact for ν = 1/3), α = 1/k. Because k is
/// proportional to the area an edge represents over its squared length, the sheet's stiffness
/// does not change with mesh resolution.
pub fn edge_stretch_compliance(material: &Material, rest_length: f32, adjacent_area: f32) -> f32 {
    let k = material.youngs_modulus as f64 * material.thickness as f64 * adjacent_area as f64
        / (rest_length as f64 * rest_length as f64);
    if k > 0.0 { (1.0 / k) as f32 } else { 0.0 }
}

/// Bending compliance α [rad/(N·m)] of one hinge (interior edge) with rest edge length `edge_length`
/// [m] and adjacent rest triangle areas summing to `adjacent_area` [m²].
///
/// Discrete Shells (Grinspun et al. 2003, eq. 3): E_B = k_B·(θ − θ̄)²·‖ē‖/h̄_e with
/// h̄_e = (A₁ + A₂)/(3‖ē‖); with k_B = D/2 (flexural rigidity, D = E·t³/(12(1 − ν²))) this is the
/// XPBD energy ½·(θ − θ̄)²/α with α = (A₁ + A₂) / (3·D·‖ē‖²).
pub fn hinge_bend_compliance(material: &Material, edge_length: f32, adjacent_area: f32) -> f32 {
    let k = 3.0 * material.flexural_rigidity() as f64 * edge_length as f64 * edge_length as f64
        / adjacent_area as f64;
    if k > 0.0 { (1.0 / k) as f32 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flexural_rigidity_matches_plate_formula() {
        let m = Material { areal_density: 1.0, youngs_modulus: 1.2e7, poisson_ratio: 0.0, thickness: 1e-3 };
        // D = 1.2e7 · 1e-9 / 12 = 1e-3 N·m
        assert!((m.flexural_rigidity() - 1e-3).abs() < 1e-9);
    }

    #[test]
    fn stretch_compliance_is_resolution_independent() {
        // A square sheet of side 1 m split into n×n quads: each axis edge has length 1/n and
        // adjacent area 1/n² (two half-quads), so k = E·t for every n.
        let m = Material::default();
        for n in [4.0f32, 32.0, 128.0] {
            let alpha = edge_stretch_compliance(&m, 1.0 / n, 1.0 / (n * n));
            let k = 1.0 / alpha;
            assert!((k / (m.youngs_modulus * m.thickness) - 1.0).abs() < 1e-4);
        }
    }

    #[test]
    fn invalid_material_names_the_field() {
        let m = Material { poisson_ratio: 0.7, ..Material::default() };
        match m.validate() {
            Err(ClothError::InvalidParameter { name, .. }) => assert_eq!(name, "poisson_ratio"),
            other => panic!("unexpected {other:?}"),
        }
    }
}
