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
