//! Helpers shared by the unit tests.

/// Pseudo-random numbers in [−1, 1) from a fixed linear congruential sequence seeded with
/// `state` (multiplier 1 664 525, increment 1 013 904 223; the top 24 bits, so every value is
/// exact in f32).
pub(crate) fn uniform(mut state: u32) -> impl FnMut() -> f32 {
    move || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    }
}

/// An `n × n` grid of `spacing` m in the x–z plane at height `y` [m]: positions and triangle
/// indices (two triangles per quad).
pub(crate) fn grid(n: usize, spacing: f32, y: f32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let positions = (0..n * n).map(|k| [(k % n) as f32 * spacing, y, (k / n) as f32 * spacing]).collect();
    let mut indices = Vec::new();
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = (j * n + i) as u32;
            indices.extend_from_slice(&[a, a + n as u32, a + 1, a + 1, a + n as u32, a + n as u32 + 1]);
        }
    }
    (positions, indices)
}
