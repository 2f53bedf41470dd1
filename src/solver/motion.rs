//! The per-particle passes of a substep: prediction and velocity update (docs/design.md,
//! "Substep order", steps 2 and 5) on the sweep rows' positions, which hold the positions during
//! the step (see `step_cloth`).
//!
//! [`Motion::predict`] and [`Motion::update_velocity`] are the reference, one particle at a time.
//! The passes run them four particles at a time on the particles' consecutive floats
//! ([`Motion::block`]): each component gets the same IEEE operations in the same order, so the
//! bits are the same, without the shuffles that turning each 12-byte `Vec3` into a register and
//! back cost. Where the CPU has AVX-512F, 16 particles at a time ([`block16`]). The measurements:
//! docs/dev/performance-log.md, "2026-11-30 — The team of threads, positions kept in the sweep
//! rows, the bench's first tables" (4 at a time) and "2026-11-30 — 16-lane AVX-512 kernels and
//! tether ordering" (16 at a time).

use super::Parts;
use crate::constraints::access::{SolverParticle, floats_of};
use crate::parallel::PARTICLE_CHUNK;
use glam::{Vec3, Vec4};
use rayon::prelude::*;

/// The per-particle motion of a substep of length h \[s\].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Motion {
    /// Velocity change over a substep, (gravity + external acceleration)·h \[m/s\].
    pub dv: Vec3,
    /// Substep length \[s\].
    pub h: f32,
    /// Linear damping factor per substep, exp(−damping·h).
    pub velocity_scale: f32,
}

/// Which per-particle pass to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// [`Motion::predict`].
    Predict,
    /// [`Motion::update_velocity`].
    Update,
    /// [`Motion::update_velocity`] of the substep that ended, then [`Motion::predict`] of the
    /// next, per particle: one pass where nothing runs between the two.
    UpdateThenPredict,
}

impl Motion {
    /// Symplectic Euler prediction (docs/design.md, "Substep order", step 2) for a free particle:
    /// x_prev ← x, v += Δv, x += h·v. A particle with zero inverse mass stays where it is (pins are
    /// moved afterwards, `move_pins`).
    #[inline(always)]
    pub fn predict(self, row: &mut SolverParticle, x_prev: &mut Vec3, v: &mut Vec3) {
        let x = row.truncate();
        *x_prev = x;
        if row.w > 0.0 {
            *v += self.dv;
            *row = (x + *v * self.h).extend(row.w);
        }
    }

    /// Velocity update, v = (x − x_prev)/h (docs/design.md, "Substep order", step 5), then linear
    /// damping, for a free particle; a particle with zero inverse mass gets its kinematic velocity
    /// (x − x_prev)/h.
    ///
    /// For free particles it is evaluated as v ← v + (x − x_pred)/h with x_pred = x_prev + h·v,
    /// the prediction recomputed bit for bit: the same value in exact arithmetic, but the
    /// difference only carries the constraint correction. The direct form subtracts two large,
    /// nearly equal positions and turns their rounding into a velocity error of ulp(x)/h every
    /// substep, which a free-falling sheet 20 m down (ulp 2 µm, h = 1/600 s) accumulates into
    /// centimetres.
    #[inline(always)]
    pub fn update_velocity(self, row: &SolverParticle, x_prev: &Vec3, v: &mut Vec3) {
        let (x, inv_h) = (row.truncate(), 1.0 / self.h);
        if row.w > 0.0 {
            let predicted = *x_prev + *v * self.h;
            *v = (*v + (x - predicted) * inv_h) * self.velocity_scale;
        } else {
            *v = (x - *x_prev) * inv_h;
        }
    }

    /// `pass` over particles in one piece: four at a time ([`Self::block`]), the rest one at a
    /// time. `rows`, `x_prev` and `v` have one entry per particle. Compiled a second time with AVX
    /// and run so where the CPU has it: the same operations (the same bits), in three-operand
    /// encodings and with one `blendvps` per select where SSE2 needs and/andnot/or and register
    /// copies (docs/dev/performance-log.md, "2026-11-30 — Kept row offsets, AVX passes, lane-wise
    /// wind, contact blocks").
    pub fn run(self, pass: Pass, rows: &mut [SolverParticle], x_prev: &mut [Vec3], v: &mut [Vec3]) {
        #[cfg(target_arch = "x86_64")]
        if crate::constraints::lanes_avx512::avx512_available() {
            // SAFETY: the CPU has AVX-512F (checked above).
            return unsafe { self.run_avx512(pass, rows, x_prev, v) };
        }
        #[cfg(target_arch = "x86_64")]
        if crate::constraints::lanes_avx::avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.run_avx(pass, rows, x_prev, v) };
        }
        self.run_blocks(pass, rows, x_prev, v);
    }

    /// [`Self::run`] compiled with AVX.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn run_avx(self, pass: Pass, rows: &mut [SolverParticle], x_prev: &mut [Vec3], v: &mut [Vec3]) {
        self.run_blocks(pass, rows, x_prev, v);
    }

    /// [`Self::run`] 16 particles at a time in AVX-512 registers ([`block16`]), the rest (fewer
    /// than 16) as [`Self::run_blocks`] does them.
    ///
    /// # Safety
    /// The CPU must have AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn run_avx512(self, pass: Pass, rows: &mut [SolverParticle], x_prev: &mut [Vec3], v: &mut [Vec3]) {
        let n = rows.len().min(x_prev.len()).min(v.len());
        let whole = n / 16 * 16;
        // SAFETY: the CPU has AVX-512F (this function's contract).
        let constants = unsafe { Block16Constants::new(self) };
        let blocks = rows[..whole].chunks_exact_mut(16).zip(x_prev[..whole].chunks_exact_mut(16)).zip(v[..whole].chunks_exact_mut(16));
        for ((rows, x_prev), v) in blocks {
            let (rows, x_prev, v) = (rows.try_into().unwrap(), x_prev.try_into().unwrap(), v.try_into().unwrap());
            // SAFETY: the CPU has AVX-512F (this function's contract).
            unsafe {
                match pass {
                    Pass::Predict => block16::<false, true>(&constants, rows, x_prev, v),
                    Pass::Update => block16::<true, false>(&constants, rows, x_prev, v),
                    Pass::UpdateThenPredict => block16::<true, true>(&constants, rows, x_prev, v),
                }
            }
        }
        self.run_blocks(pass, &mut rows[whole..], &mut x_prev[whole..], &mut v[whole..]);
    }

    /// [`Self::run`]'s loops.
    #[inline(always)]
    fn run_blocks(self, pass: Pass, rows: &mut [SolverParticle], x_prev: &mut [Vec3], v: &mut [Vec3]) {
        let blocks = rows.chunks_exact_mut(4).zip(x_prev.chunks_exact_mut(4)).zip(v.chunks_exact_mut(4));
        for ((rows, x_prev), v) in blocks {
            let (rows, x_prev, v) = (rows.try_into().unwrap(), x_prev.try_into().unwrap(), v.try_into().unwrap());
            match pass {
                Pass::Predict => self.block::<false, true>(rows, x_prev, v),
                Pass::Update => self.block::<true, false>(rows, x_prev, v),
                Pass::UpdateThenPredict => self.block::<true, true>(rows, x_prev, v),
            }
        }
        let first = rows.len() / 4 * 4;
        for ((row, x_prev), v) in rows[first..].iter_mut().zip(&mut x_prev[first..]).zip(&mut v[first..]) {
            self.particle(pass, row, x_prev, v);
        }
    }

    /// `pass` of one particle through the reference functions.
    #[inline(always)]
    fn particle(self, pass: Pass, row: &mut SolverParticle, x_prev: &mut Vec3, v: &mut Vec3) {
        if pass != Pass::Predict {
            self.update_velocity(row, x_prev, v);
        }
        if pass != Pass::Update {
            self.predict(row, x_prev, v);
        }
    }

    /// [`Self::update_velocity`] (with `UPDATE`) then [`Self::predict`] (with `PREDICT`) of four
    /// particles, as three 4-wide vectors of their consecutive x, y, z floats
    /// (x₀y₀z₀x₁ | y₁z₁x₂y₂ | z₂x₃y₃z₃). Every operation is per component, so a vector holding
    /// parts of two particles does to each what the reference does, and the free/pinned choice is
    /// a per-component select on the owning particle's inverse mass.
    #[inline(always)]
    fn block<const UPDATE: bool, const PREDICT: bool>(self, rows: &mut [SolverParticle; 4], x_prev: &mut [Vec3; 4], v: &mut [Vec3; 4]) {
        let [r0, r1, r2, r3] = *rows;
        let x = [
            Vec4::new(r0.x, r0.y, r0.z, r1.x),
            Vec4::new(r1.y, r1.z, r2.x, r2.y),
            Vec4::new(r2.z, r3.x, r3.y, r3.z),
        ];
        let zero = Vec4::ZERO;
        let free = [
            Vec4::new(r0.w, r0.w, r0.w, r1.w).cmpgt(zero),
            Vec4::new(r1.w, r1.w, r2.w, r2.w).cmpgt(zero),
            Vec4::new(r2.w, r3.w, r3.w, r3.w).cmpgt(zero),
        ];
        let d = self.dv;
        let dv = [Vec4::new(d.x, d.y, d.z, d.x), Vec4::new(d.y, d.z, d.x, d.y), Vec4::new(d.z, d.x, d.y, d.z)];
        let (h, inv_h, scale) = (Vec4::splat(self.h), Vec4::splat(1.0 / self.h), Vec4::splat(self.velocity_scale));
        let mut xp = floats_of(x_prev);
        let mut vel = floats_of(v);
        let mut moved = x;
        for k in 0..3 {
            if UPDATE {
                let predicted = xp[k] + vel[k] * h;
                let free_v = (vel[k] + (x[k] - predicted) * inv_h) * scale;
                let kinematic_v = (x[k] - xp[k]) * inv_h;
                vel[k] = Vec4::select(free[k], free_v, kinematic_v);
            }
            if PREDICT {
                xp[k] = x[k];
                vel[k] = Vec4::select(free[k], vel[k] + dv[k], vel[k]);
                moved[k] = Vec4::select(free[k], x[k] + vel[k] * h, x[k]);
            }
        }
        if PREDICT {
            store_floats(x_prev, xp);
            let [a, b, c] = moved;
            *rows = [
                Vec4::new(a.x, a.y, a.z, r0.w),
                Vec4::new(a.w, b.x, b.y, r1.w),
                Vec4::new(b.z, b.w, c.x, r2.w),
                Vec4::new(c.y, c.z, c.w, r3.w),
            ];
        }
        store_floats(v, vel);
    }
}

/// Where float `f` of the 48 consecutive x, y, z floats of 16 particles comes from in their rows
/// (4 floats each: x, y, z, w), for `_mm512_permutex2var_ps` of rows `16·k/4 ..` (two registers
/// of four rows): packed register `k` (floats 16k .. 16k + 15) holds particles ⌊16k/3⌋ to
/// ⌊(16k + 15)/3⌋, all within rows 4k .. 4k + 7. With `w`, the particle's w instead of the
/// component (for its free/pinned mask).
#[cfg(target_arch = "x86_64")]
const fn packed_from_rows(k: usize, w: bool) -> [i32; 16] {
    let mut index = [0; 16];
    let mut f = 0;
    while f < 16 {
        let (particle, component) = ((16 * k + f) / 3, (16 * k + f) % 3);
        index[f] = (4 * particle + if w { 3 } else { component } - 16 * k) as i32;
        f += 1;
    }
    index
}

/// The inverse of [`packed_from_rows`]: where float `j` of row register `q` (rows 4q .. 4q + 3)
/// comes from in the packed registers `first_packed(q)` and the next one; the w slots (taken
/// from the old rows) point anywhere.
#[cfg(target_arch = "x86_64")]
const fn rows_from_packed(q: usize) -> [i32; 16] {
    let mut index = [0; 16];
    let mut j = 0;
    while j < 16 {
        let (particle, component) = (4 * q + j / 4, j % 4);
        if component < 3 {
            index[j] = (3 * particle + component - 16 * first_packed(q)) as i32;
        }
        j += 1;
    }
    index
}

/// The first of the two packed registers that hold the x, y, z of rows 4q .. 4q + 3.
#[cfg(target_arch = "x86_64")]
const fn first_packed(q: usize) -> usize {
    [0, 0, 1, 1][q]
}

/// [`Motion::block`] for 16 particles: their x, y, z as three 16-float registers of consecutive
/// floats (as `x_prev` and `v` are stored, one unaligned load each; the rows' are permuted out of
/// their four registers), so every float gets the reference's operations in its order, and the
/// rows' w (free or pinned) as a per-float mask. Rows are written back with their w as it was.
/// Far fewer instructions per particle than the 4-particle blocks (docs/dev/performance-log.md,
/// "2026-11-30 — 16-lane AVX-512 kernels and tether ordering").
///
/// # Safety
/// The CPU must have AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn block16<const UPDATE: bool, const PREDICT: bool>(
    constants: &Block16Constants,
    rows: &mut [SolverParticle; 16],
    x_prev: &mut [Vec3; 16],
    v: &mut [Vec3; 16],
) {
    use std::arch::x86_64::*;
    // `SolverParticle` is 4 f32 (16 bytes) and `Vec3` 3 f32 (12 bytes), without padding: the
    // arrays are 64 and 48 consecutive floats.
    const _: () = assert!(size_of::<SolverParticle>() == 16 && size_of::<Vec3>() == 12);
    let (row_ptr, prev_ptr, v_ptr) = (rows.as_mut_ptr().cast::<f32>(), x_prev.as_mut_ptr().cast::<f32>(), v.as_mut_ptr().cast::<f32>());
    let Block16Constants { dv, h, inv_h, scale } = *constants;
    // Loops rather than closures over the registers: a closure is compiled on its own, maybe
    // without AVX-512, and its intrinsics would become calls.
    // SAFETY: every load and store below is within the three arrays (64, 48 and 48 floats) or
    // the constant index arrays (16 each).
    unsafe {
        let zero = _mm512_setzero_ps();
        let mut r = [zero; 4];
        for (q, r) in r.iter_mut().enumerate() {
            *r = _mm512_loadu_ps(row_ptr.add(16 * q));
        }
        let (mut x, mut xp, mut vel) = ([zero; 3], [zero; 3], [zero; 3]);
        let mut free: [__mmask16; 3] = [0; 3];
        for k in 0..3 {
            let (xyz_index, w_index) = (PACKED_FROM_ROWS[k], PACKED_W_FROM_ROWS[k]);
            x[k] = _mm512_permutex2var_ps(r[k], _mm512_loadu_si512(xyz_index.as_ptr().cast()), r[k + 1]);
            let w = _mm512_permutex2var_ps(r[k], _mm512_loadu_si512(w_index.as_ptr().cast()), r[k + 1]);
            free[k] = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(w, zero);
            xp[k] = _mm512_loadu_ps(prev_ptr.add(16 * k));
            vel[k] = _mm512_loadu_ps(v_ptr.add(16 * k));
        }
        let mut moved = x;
        for k in 0..3 {
            if UPDATE {
                let predicted = _mm512_add_ps(xp[k], _mm512_mul_ps(vel[k], h));
                let free_v = _mm512_mul_ps(_mm512_add_ps(vel[k], _mm512_mul_ps(_mm512_sub_ps(x[k], predicted), inv_h)), scale);
                let kinematic_v = _mm512_mul_ps(_mm512_sub_ps(x[k], xp[k]), inv_h);
                vel[k] = _mm512_mask_blend_ps(free[k], kinematic_v, free_v);
            }
            if PREDICT {
                xp[k] = x[k];
                vel[k] = _mm512_mask_blend_ps(free[k], vel[k], _mm512_add_ps(vel[k], dv[k]));
                moved[k] = _mm512_mask_blend_ps(free[k], x[k], _mm512_add_ps(x[k], _mm512_mul_ps(vel[k], h)));
            }
        }
        if PREDICT {
            for (k, &xp) in xp.iter().enumerate() {
                _mm512_storeu_ps(prev_ptr.add(16 * k), xp);
            }
            for q in 0..4 {
                let p = first_packed(q);
                let index = _mm512_loadu_si512(ROWS_FROM_PACKED[q].as_ptr().cast());
                let xyz = _mm512_permutex2var_ps(moved[p], index, moved[p + 1]);
                // w as it was (every fourth float).
                _mm512_storeu_ps(row_ptr.add(16 * q), _mm512_mask_blend_ps(0x8888, xyz, r[q]));
            }
        }
        for (k, &vel) in vel.iter().enumerate() {
            _mm512_storeu_ps(v_ptr.add(16 * k), vel);
        }
    }
}

/// The values of a [`Motion`] that every [`block16`] of a pass uses, in registers: made once per
/// pass rather than once per 16 particles.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Block16Constants {
    /// Δv \[m/s\] laid out as the packed registers' floats: float f of register k is component
    /// (16k + f) mod 3.
    dv: [std::arch::x86_64::__m512; 3],
    /// h \[s\], 1/h \[1/s\] and the damping factor, in every lane.
    h: std::arch::x86_64::__m512,
    inv_h: std::arch::x86_64::__m512,
    scale: std::arch::x86_64::__m512,
}

#[cfg(target_arch = "x86_64")]
impl Block16Constants {
    /// # Safety
    /// The CPU must have AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn new(motion: Motion) -> Self {
        use std::arch::x86_64::*;
        let d = motion.dv.to_array();
        let mut dv = [_mm512_setzero_ps(); 3];
        for (k, dv) in dv.iter_mut().enumerate() {
            let mut pattern = [0.0f32; 16];
            for (f, value) in pattern.iter_mut().enumerate() {
                *value = d[(16 * k + f) % 3];
            }
            // SAFETY: the load reads the 16 floats of `pattern`.
            *dv = unsafe { _mm512_loadu_ps(pattern.as_ptr()) };
        }
        let (h, inv_h, scale) = (_mm512_set1_ps(motion.h), _mm512_set1_ps(1.0 / motion.h), _mm512_set1_ps(motion.velocity_scale));
        Block16Constants { dv, h, inv_h, scale }
    }
}

/// [`packed_from_rows`] of each packed register, for the x, y, z and for the w.
#[cfg(target_arch = "x86_64")]
const PACKED_FROM_ROWS: [[i32; 16]; 3] = [packed_from_rows(0, false), packed_from_rows(1, false), packed_from_rows(2, false)];
#[cfg(target_arch = "x86_64")]
const PACKED_W_FROM_ROWS: [[i32; 16]; 3] = [packed_from_rows(0, true), packed_from_rows(1, true), packed_from_rows(2, true)];
/// [`rows_from_packed`] of each row register.
#[cfg(target_arch = "x86_64")]
const ROWS_FROM_PACKED: [[i32; 16]; 4] = [rows_from_packed(0), rows_from_packed(1), rows_from_packed(2), rows_from_packed(3)];

/// [`floats_of`] backwards.
#[inline(always)]
fn store_floats(v: &mut [Vec3; 4], [a, b, c]: [Vec4; 3]) {
    *v = [Vec3::new(a.x, a.y, a.z), Vec3::new(a.w, b.x, b.y), Vec3::new(b.z, b.w, c.x), Vec3::new(c.y, c.z, c.w)];
}

/// `pass` of `motion` over every particle of the cloth of `parts`. With `parallel`, in chunks on
/// the current rayon pool (each particle on its own: the same bits).
pub(super) fn move_particles(parts: &mut Parts, motion: Motion, pass: Pass, parallel: bool) {
    let (rows, x_prev, v) = (&mut parts.scratch.rows, &mut parts.scratch.x_prev, &mut parts.state.v);
    if parallel {
        let c = PARTICLE_CHUNK;
        (rows.par_chunks_mut(c), x_prev.par_chunks_mut(c), v.par_chunks_mut(c))
            .into_par_iter()
            .for_each(|(rows, x_prev, v)| motion.run(pass, rows, x_prev, v));
    } else {
        motion.run(pass, rows, x_prev, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Particles with awkward values: free and pinned (w = 0) mixed, large and tiny coordinates,
    /// a negative zero, for every count from 0 to 13 (blocks plus every remainder).
    fn particles(n: usize, seed: u32) -> (Vec<SolverParticle>, Vec<Vec3>, Vec<Vec3>) {
        let mut next = crate::test_util::uniform(seed);
        let mut rows = Vec::new();
        let (mut x_prev, mut v) = (Vec::new(), Vec::new());
        for i in 0..n {
            let scale = [1.0, 1e3, 1e-3, 70.0][i % 4];
            let w = if i % 3 == 1 { 0.0 } else { 0.5 + next().abs() };
            let x = Vec3::new(next(), next(), next()) * scale;
            rows.push(x.extend(w));
            x_prev.push(x + Vec3::new(next(), next(), -0.0) * 1e-2);
            v.push(Vec3::new(next(), next(), next()) * 3.0);
        }
        (rows, x_prev, v)
    }

    fn bits(rows: &[SolverParticle], x_prev: &[Vec3], v: &[Vec3]) -> Vec<u32> {
        let floats = rows.iter().flat_map(|r| r.to_array()).chain(x_prev.iter().chain(v).flat_map(|q| q.to_array()));
        floats.map(f32::to_bits).collect()
    }

    /// Both compilations of the blocks (with AVX where the CPU has it, and the SSE2 one) against
    /// the reference functions, bit for bit.
    #[test]
    fn blocks_of_four_give_the_bits_of_one_particle_at_a_time() {
        check_blocks_against_the_reference();
        #[cfg(target_arch = "x86_64")]
        {
            crate::constraints::lanes_avx::tests::avx_only(check_blocks_against_the_reference);
            crate::constraints::lanes_avx::tests::sse_only(check_blocks_against_the_reference);
        }
    }

    fn check_blocks_against_the_reference() {
        let motion = Motion { dv: Vec3::new(0.001, -0.0163, 0.0004), h: 1.0 / 600.0, velocity_scale: 0.9995 };
        for pass in [Pass::Predict, Pass::Update, Pass::UpdateThenPredict] {
            // Every count up to 40: 16-particle blocks (AVX-512), then 4-particle blocks, then
            // one at a time, each rest of each length.
            for n in 0..41 {
                let (mut rows, mut x_prev, mut v) = particles(n, n as u32 + 7);
                let (mut rows_1, mut x_prev_1, mut v_1) = (rows.clone(), x_prev.clone(), v.clone());
                motion.run(pass, &mut rows, &mut x_prev, &mut v);
                for ((row, x_prev), v) in rows_1.iter_mut().zip(&mut x_prev_1).zip(&mut v_1) {
                    motion.particle(pass, row, x_prev, v);
                }
                assert_eq!(bits(&rows, &x_prev, &v), bits(&rows_1, &x_prev_1, &v_1), "{pass:?}, {n} particles");
                // The pass did something: every free particle moved or changed speed.
                let (rows_0, x_prev_0, v_0) = particles(n, n as u32 + 7);
                assert!(n == 0 || bits(&rows, &x_prev, &v) != bits(&rows_0, &x_prev_0, &v_0), "{pass:?}, {n}");
            }
        }
    }
}
