//! One 256-colour palette for every picture of a scene.
//!
//! Every surface is a base colour times a Lambert factor, so a pixel is fully described by its
//! material and a quantised shade level: the canvas stores palette indices directly, and the PNG
//! (indexed) and the GIF need no colour quantisation. 42 levels per material keep gradients smooth.

/// Shade levels per material.
pub const LEVELS: u8 = 42;
/// Fraction of a material's colour it keeps with no direct light [-].
const AMBIENT: f32 = 0.3;
/// Text colour (after the material ramps).
pub const INK: u8 = 6 * LEVELS;
/// Paper white, for the gaps of the contact sheet.
pub const PAPER: u8 = INK + 1;

/// What a pixel shows. The sky ramp is indexed by height in the picture, the others by light.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Material {
    Sky = 0,
    ClothFront = 1,
    ClothBack = 2,
    Collider = 3,
    GroundLight = 4,
    GroundDark = 5,
}

/// Palette index of `material` at shade `s` in [0, 1] (0 = ambient only, 1 = fully lit).
#[inline]
pub fn index(material: Material, s: f32) -> u8 {
    let level = (s.clamp(0.0, 1.0) * (LEVELS - 1) as f32 + 0.5) as u8;
    material as u8 * LEVELS + level
}

/// The palette as 256 RGB triples, `u8 × 768`, for a scene whose cloth is `cloth` (sRGB).
pub fn palette(cloth: [u8; 3]) -> Vec<u8> {
    let back = cloth.map(|c| (c as f32 * 0.55 + 40.0) as u8);
    let bases: [[u8; 3]; 6] = [[0; 3], cloth, back, [150, 140, 128], [206, 206, 200], [168, 170, 168]];
    let mut rgb = vec![0u8; 768];
    for (m, base) in bases.iter().enumerate() {
        for level in 0..LEVELS {
            let s = level as f32 / (LEVELS - 1) as f32;
            let colour = if m == Material::Sky as usize {
                // Top of the picture to the horizon: blue-grey to pale.
                lerp([118, 142, 170], [226, 232, 236], s)
            } else {
                base.map(|c| c as f32 * (AMBIENT + (1.0 - AMBIENT) * s))
            };
            let i = (m * LEVELS as usize + level as usize) * 3;
            rgb[i..i + 3].copy_from_slice(&colour.map(|c| c.round().clamp(0.0, 255.0) as u8));
        }
    }
    rgb[INK as usize * 3..INK as usize * 3 + 3].copy_from_slice(&[24, 24, 28]);
    rgb[PAPER as usize * 3..PAPER as usize * 3 + 3].copy_from_slice(&[255, 255, 255]);
    rgb
}

fn lerp(a: [u8; 3], b: [u8; 3], s: f32) -> [f32; 3] {
    [0, 1, 2].map(|k| a[k] as f32 + (b[k] as f32 - a[k] as f32) * s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shade_levels_stay_inside_their_material_and_brighten() {
        let p = palette([200, 100, 50]);
        for m in [Material::ClothFront, Material::Collider, Material::GroundDark] {
            let (dark, lit) = (index(m, -1.0), index(m, 2.0));
            assert_eq!(dark, m as u8 * LEVELS);
            assert_eq!(lit, m as u8 * LEVELS + LEVELS - 1);
            let brightness = |i: u8| p[i as usize * 3..i as usize * 3 + 3].iter().map(|&c| c as u32).sum::<u32>();
            assert!(brightness(lit) > brightness(dark));
        }
        assert_eq!(&p[index(Material::ClothFront, 1.0) as usize * 3..][..3], &[200, 100, 50]);
        assert!(PAPER as usize * 3 + 2 < p.len());
    }
}
