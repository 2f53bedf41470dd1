//! Contacts between cloth particles and colliders: a march of each particle's substep motion
//! against each collider (no tunnelling), projection of the contact inequality, bounded push-out
//! of particles that start inside, and position-level friction. The sphere contact with friction
//! is tested against the formulas written from the papers in `src/reference/contact.rs`.
//!
//! Everything is computed in the collider's local frame, so a moving collider is handled by the
//! same code as a static one: a particle's motion relative to the collider is the local segment
//! p₀ → p with p₀ = its substep start x_prev in the collider's frame at the substep's beginning
//! and p = its current position in the frame at the substep's end (see `store.rs`). The segment
//! is formed from the small world displacement x − x_prev, so it keeps full precision metres away
//! from the collider's origin.
//!
//! # Contact constraint
//! C(x) = d(p) − thickness ≥ 0, ∇C = n(p), with d the shape's signed distance and n its outward
//! normal (docs/design.md, "Collider contacts and friction"). The collider has infinite mass, so
//! with α = 0 XPBD gives Δλ = −C/w and the particle alone moves by Δx = −C·n. Contacts are
//! projected in every iteration, after the cloth's own constraints, so every step ends with its
//! contacts satisfied.
//!
//! # No tunnelling: march the substep segment
//! A distance test at p alone misses a collider the particle crossed within the substep (a 1 cm
//! board passed at 20 m/s moves 8 cm per 240 Hz substep), and pushes a particle that went past
//! the middle of a thin shape out through the far side. So in every iteration each particle's
//! segment p₀ → p is marched against every collider it may reach (`FarTest`, the broad phase). Every shape is convex, so the gap
//! g(t) = d(p₀ + t·(p − p₀)) − thickness is a convex function of t and the tangent line at t_k
//! lies below it: from g(t_k) > 0 with slope g′ = n·(p − p₀) < 0, the Newton step t_k + g/(−g′)
//! never passes the first root (and, since |n| = 1, it is never shorter than the sphere-tracing
//! step g/|p − p₀|); a slope ≥ 0 proves that the gap never falls again: no hit. A particle far
//! from a collider costs one distance evaluation. The march stops at the first point whose gap is
//! below [`SWEEP_TOLERANCE`]; the contact is then linearised there: the half-space
//! n_hit · (p − q_hit) ≥ 0, q_hit the hit point on the thickened surface. The whole thickened
//! shape lies behind this plane (convexity again), so satisfying it keeps the particle out of the
//! shape on the side it came from, whatever its speed, and afterwards its segment no longer
//! enters the shape. A march still short of the surface after [`MAX_SWEEP_STEPS`] (a segment
//! touching the surface tangentially) takes the tangent plane at its current point, conservative
//! for the same reason. A particle that starts on the thickened surface (gap₀ within the rest
//! band below) uses d(p) itself, exact on curved surfaces, unless the nearest surface at p has
//! turned more than [`MAX_SLIDE_TURN`] from the one at p₀ (it went past the middle of a thin
//! shape, or slid around a small one faster than a substep can follow): then the half-space at p₀.
//! The relative motion is exact for translating colliders; for rotating ones the local segment is
//! the chord of the particle's arc (error ≤ r·(1 − cos(θ/2)) for a turn θ per substep at
//! distance r). Only particles collide: a collider narrower than about three edge lengths can
//! pass between them, and the sheet can be punched through (stretched around a few particles
//! carried along) when an impact is faster than one Gauss–Seidel pass can spread.
//!
//! # Particles inside: bounded push-out
//! A particle that starts a substep deeper than b = `max_depenetration_speed` · h inside the
//! thickened shape (spawned inside, or a collider teleported onto it) is pushed towards the
//! nearest surface but may only gain b of gap per substep: its constraint is
//! d(p) − thickness ≥ min(0, gap₀ + b), gap₀ its gap at the substep start, without friction (an
//! overlap is no sliding contact; friction would hold the cloth while the push stretches it). Its
//! speed after the substep is clamped to `max_depenetration_speed`, because the cloth's own
//! constraints, fighting a push-out direction the sheet cannot follow, could otherwise hand it
//! any speed. Without the bound a 10 cm overlap would launch it at 60 m/s at 600 Hz substeps. A
//! particle within b of the surface (the rest band) is treated as on it: pushing it fully out
//! cannot exceed the bound.
//!
//! # Friction (Macklin, Müller, Chentanez & Kim 2014, Unified Particle Physics, §6, eq. 24)
//! After a contact moves a particle by depth d = −C, its slip relative to the collider over the
//! substep, Δx⊥ = tangential part of (p − p₀) (local frame, so the collider's own motion is
//! subtracted and a moving collider carries what lies on it), is cancelled when
//! |Δx⊥| < μ_s·d (static) and otherwise reduced by μ_k·d: Δx = −Δx⊥·min(μ_k·d/|Δx⊥|, 1).
//! With d = g·cos θ·h² for a particle at rest on a slope this is Coulomb's law: it sticks while
//! tan θ < μ_s and slides with acceleration g·(sin θ − μ_k·cos θ).

use super::edge_contact::EdgeContacts;
use super::shape::Shape;
use super::store::{Carry, Collider, ColliderStore, Frame, SubstepWindow};
use crate::parallel::{PARTICLE_CHUNK, chunks_mut_in_parallel};
use crate::constraints::access::floats_of;
use glam::{Quat, Vec3, Vec4};
use rayon::prelude::*;

/// A march stops when the gap to the thickened surface is below this \[m\].
pub const SWEEP_TOLERANCE: f32 = 1e-6;

/// Newton steps before a march settles for the tangent plane at its current point.
pub const MAX_SWEEP_STEPS: u32 = 24;

/// The largest turn of the surface normal \[rad\] (60°) between where a particle starts a substep
/// on the thickened surface and where it ends that the contact follows exactly (d(p) at the end);
/// beyond it the half-space at the start holds the particle. Between two points of a sphere 60°
/// apart the segment dips below the thickened surface by 13 % of its radius (r·(1 − cos 30°)), so
/// a particle carried around a small ball (a 2.5 cm ball passing at 30 m/s, with the strain
/// limit's passes pulling the sheet after it) no longer cuts through it from one substep's end to
/// the next (`tests/collisions.rs`, `fast_cloth_and_fast_sphere_do_not_tunnel`).
pub const MAX_SLIDE_TURN: f32 = std::f32::consts::FRAC_PI_3;

/// A mesh's sphere-tracing march stops when the gap is below this \[m\] (its field is exact to
/// the quantisation of its nodes, a few µm).
pub const MESH_SWEEP_TOLERANCE: f32 = 1e-5;

/// Sphere-tracing steps of a mesh's march before it settles for the tangent plane there.
pub const MAX_MESH_SWEEP_STEPS: u32 = 48;

/// A particle counts as touching a collider (for [`crate::ClothStats::contact_count`]) when its
/// gap d − thickness is at most this fraction of the thickness plus [`SWEEP_TOLERANCE`].
pub const TOUCHING_FRACTION: f32 = 0.01;

/// The per-cloth settings the contact code needs for one substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSettings {
    /// Contact thickness \[m\]: particles are kept this far from every surface.
    pub thickness: f32,
    /// Collision mask: colliders whose layers do not intersect it are ignored.
    pub mask: u32,
    /// Largest gain of gap per substep for a particle that starts inside \[m\] (speed × h).
    pub max_depenetration: f32,
}

/// Where the segment p₀ → p₀ + `segment` first reaches the thickened surface (local frame).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SweptHit {
    /// Fraction of the segment, in [0, 1).
    pub time: f32,
    /// Hit point on the thickened surface relative to p₀ \[m\] (small numbers: full precision
    /// even far from the collider's origin).
    pub offset: Vec3,
    /// Outward unit normal there.
    pub normal: Vec3,
}

/// What a march of one particle's substep motion against one collider found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Sweep {
    /// The segment stays outside the thickened shape.
    Clear,
    /// p₀ is deeper inside than the rest band: bounded push-out handles it.
    Deep,
    /// First contact.
    Hit(SweptHit),
}

/// [`sweep_from`] with the start looked up (the tests' entry).
#[inline(always)]
#[cfg(test)]
pub(crate) fn sweep(shape: &Shape, p0: Vec3, segment: Vec3, thickness: f32, rest_band: f32) -> Sweep {
    sweep_from(shape, p0, shape.distance(p0), segment, thickness, rest_band)
}

/// March p₀ → p₀ + `segment` against `shape` thickened by `thickness` (module docs), given
/// `start`, the shape's distance and normal at p₀ (`Shape::distance`). Inlined into the contact
/// pass, so that it is compiled with AVX there.
#[inline(always)]
fn sweep_from(shape: &Shape, p0: Vec3, start: (f32, Vec3), segment: Vec3, thickness: f32, rest_band: f32) -> Sweep {
    if !shape.is_convex() {
        return sweep_traced(shape, p0, start, segment, thickness, rest_band);
    }
    let (d0, n0) = start;
    let gap0 = d0 - thickness;
    if gap0 < -rest_band {
        return Sweep::Deep;
    }
    let hit = |time: f32, gap: f32, normal: Vec3| {
        Sweep::Hit(SweptHit { time, offset: segment * time - normal * gap, normal })
    };
    if gap0 <= SWEEP_TOLERANCE {
        return hit(0.0, gap0, n0);
    }
    let (mut time, mut gap, mut normal) = (0.0f32, gap0, n0);
    for _ in 0..MAX_SWEEP_STEPS {
        let slope = normal.dot(segment);
        if slope >= 0.0 {
            return Sweep::Clear; // convex gap, not decreasing: it stays > 0 for the rest of the segment
        }
        time += gap / -slope;
        if time >= 1.0 {
            return Sweep::Clear;
        }
        let (d, n) = shape.distance(p0 + segment * time);
        (gap, normal) = (d - thickness, n);
        if gap <= SWEEP_TOLERANCE {
            break;
        }
    }
    hit(time, gap, normal)
}

/// [`sweep_from`] for a shape that is not convex (a mesh): sphere tracing (Hart 1996, Sphere
/// tracing, §2), advancing by gap/‖segment‖, the distance bound, which never passes the first
/// contact; the tangent plane's shortcuts of the convex march do not hold. The rest as [`sweep_from`].
#[inline(never)]
fn sweep_traced(shape: &Shape, p0: Vec3, (d0, n0): (f32, Vec3), segment: Vec3, thickness: f32, rest_band: f32) -> Sweep {
    let gap0 = d0 - thickness;
    if gap0 < -rest_band {
        return Sweep::Deep;
    }
    let hit = |time: f32, gap: f32, normal: Vec3| {
        Sweep::Hit(SweptHit { time, offset: segment * time - normal * gap, normal })
    };
    if gap0 <= MESH_SWEEP_TOLERANCE {
        return hit(0.0, gap0, n0);
    }
    let length = segment.length();
    if !(length > 0.0) {
        return Sweep::Clear;
    }
    let (mut time, mut gap, mut normal) = (0.0f32, gap0, n0);
    for _ in 0..MAX_MESH_SWEEP_STEPS {
        time += gap / length;
        if time >= 1.0 {
            return Sweep::Clear;
        }
        let (d, n) = shape.distance(p0 + segment * time);
        (gap, normal) = (d - thickness, n);
        if gap <= MESH_SWEEP_TOLERANCE {
            break;
        }
    }
    hit(time, gap, normal)
}

/// Macklin et al. 2014, §6, eq. 24 with an infinitely heavy collider: cancel (static) or reduce
/// by μ_k·depth (kinetic) the tangential part of `slip`, the particle's motion relative to the
/// collider over the substep (collider-local). Returns the slip that remains.
#[inline]
pub(super) fn apply_friction(slip: Vec3, normal: Vec3, depth: f32, (mu_s, mu_k): (f32, f32)) -> Vec3 {
    let tangential = slip - normal * normal.dot(slip);
    let length = tangential.length();
    if length < mu_s * depth {
        slip - tangential
    } else if length > 0.0 {
        slip - tangential * (mu_k * depth / length).min(1.0)
    } else {
        slip
    }
}

/// Whether a contact sweep applies friction: every contact sweep (colliders, their thin-edge
/// contacts, self-collision, inter-cloth) takes it as an argument, so none can miss it. Which
/// sweep passes which is stated once, at `solver::SubstepInfo::friction`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Friction {
    On,
    Off,
}

impl Friction {
    /// The coefficients (μ_s, μ_k) a sweep applies: `mu` when on, none when off.
    #[inline]
    pub(crate) fn coefficients(self, mu: (f32, f32)) -> (f32, f32) {
        match self {
            Friction::On => mu,
            Friction::Off => (0.0, 0.0),
        }
    }
}

/// Whether [`apply_friction`] cancels all of `slip`'s tangential part (static friction, μ_s > 0).
#[inline]
fn holds(slip: Vec3, normal: Vec3, depth: f32, mu_s: f32) -> bool {
    (slip - normal * normal.dot(slip)).length() < mu_s * depth
}

/// A particle's motion since the substep began relative to a collider, in the collider's frame
/// at the substep's end: p − p₀ with p = `end`.to_local(x), p₀ = `begin`.to_local(x_prev) = `p_prev`.
/// Formed from the small world displacement x − x_prev (plus the collider's own motion, when it
/// moves) rather than by subtracting two large local positions, so that a particle metres away
/// from the collider's origin keeps micrometre precision in its contact depth and slip.
#[inline]
fn relative_motion(begin: &Frame, end: &Frame, x: Vec3, x_prev: Vec3, p_prev: Vec3) -> Vec3 {
    let own = end.rotation.conjugate() * (x - x_prev);
    if begin == end { own } else { own + (end.to_local(x_prev) - p_prev) }
}

/// Per-particle contact state of the current substep (allocated with the cloth, so stepping
/// allocates nothing).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactScratch {
    /// Per particle, [`DEEP`] and [`HELD`] bits of the current substep's contacts.
    flags: Vec<u8>,
    /// Bounds of each block of [`CONTACT_BLOCK`] particles, taken at the start of each contact
    /// sweep ([`BlockBound`]).
    blocks: Vec<BlockBound>,
    /// The step's candidate edges of thin round colliders (`super::edge_contact`).
    pub edges: EdgeContacts,
}

/// Started the substep deeper than the rest band inside some collider: speed-limited.
const DEEP: u8 = 1;
/// Held in place by a collider's static friction (the tangential slip cancelled) in the current
/// substep: the strain limit treats it as an anchor (`solver/strain_limit.rs`).
const HELD: u8 = 2;
/// Moved by a contact (of a particle or one of its edges) in any substep of the current step.
const TOUCHED: u8 = 4;

/// Particles per block of the contacts' block test ([`FarTest::block_clear`]); divides
/// [`PARTICLE_CHUNK`], so that a split pass's chunks hold whole blocks.
const CONTACT_BLOCK: usize = 64;
const _: () = assert!(PARTICLE_CHUNK.is_multiple_of(CONTACT_BLOCK));

/// Where a block of particles starts and how far it moves in a substep, for skipping a collider
/// for the whole block at once.
#[derive(Clone, Copy, Debug, Default)]
struct BlockBound {
    /// Corners of the box around the block's substep starts x_prev \[m\].
    lo: Vec3,
    hi: Vec3,
    /// A bound on the block's ‖x − x_prev‖ \[m\]: the length of the per-axis largest |x − x_prev|.
    travel: f32,
    /// False once a contact moved one of the block's particles after the bound was taken (its
    /// travel no longer bounds the block's motion).
    valid: bool,
}

impl BlockBound {
    /// The bound of particles `x`, `x_prev` (at most [`CONTACT_BLOCK`], at least one): four
    /// particles at a time on their consecutive floats (each component meets only its own axis's
    /// extremes, sorted out at the end), the rest one at a time.
    #[inline(always)]
    fn of(x: &[Vec3], x_prev: &[Vec3]) -> BlockBound {
        let (mut lo, mut hi) = ([Vec4::INFINITY; 3], [Vec4::NEG_INFINITY; 3]);
        // min/max drop NaN; a sum keeps it (and turns ±∞ into ∞ or NaN).
        let (mut reach, mut sum) = ([Vec4::ZERO; 3], [Vec4::ZERO; 3]);
        let (x4, p4) = (x.chunks_exact(4), x_prev.chunks_exact(4));
        let (x_rest, p_rest) = (x4.remainder(), p4.remainder());
        for (x, p) in x4.zip(p4) {
            let (x, p) = (floats_of(x.try_into().expect("4")), floats_of(p.try_into().expect("4")));
            for k in 0..3 {
                (lo[k], hi[k]) = (lo[k].min(p[k]), hi[k].max(p[k]));
                reach[k] = reach[k].max((x[k] - p[k]).abs());
                sum[k] += x[k] + p[k];
            }
        }
        // Lane l of vector k holds axis (4k + l) mod 3.
        let axis = |v: [Vec4; 3], f: fn(f32, f32) -> f32| {
            let [a, b, c] = v;
            Vec3::new(f(f(a.x, a.w), f(b.z, c.y)), f(f(a.y, b.x), f(b.w, c.z)), f(f(a.z, b.y), f(c.x, c.w)))
        };
        let (mut lo, mut hi) = (axis(lo, f32::min), axis(hi, f32::max));
        let (mut reach, mut finite) = (axis(reach, f32::max), sum.iter().all(|s| s.is_finite()));
        for (&x, &p) in x_rest.iter().zip(p_rest) {
            (lo, hi, reach) = (lo.min(p), hi.max(p), reach.max((x - p).abs()));
            finite &= (x + p).is_finite();
        }
        // A non-finite particle gets NaN from the sweep, whatever its distance: never skip its
        // block.
        let valid = finite && lo.is_finite() && hi.is_finite() && reach.is_finite();
        BlockBound { lo, hi, travel: reach.length(), valid }
    }

    /// [`BlockBound::of`] of each block of [`CONTACT_BLOCK`] particles into `blocks`.
    fn of_blocks(x: &[Vec3], x_prev: &[Vec3], blocks: &mut [BlockBound]) {
        #[cfg(target_arch = "x86_64")]
        if crate::constraints::lanes_avx::avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { Self::of_blocks_avx(x, x_prev, blocks) };
        }
        Self::of_blocks_in(x, x_prev, blocks);
    }

    /// [`Self::of_blocks`] compiled with AVX.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn of_blocks_avx(x: &[Vec3], x_prev: &[Vec3], blocks: &mut [BlockBound]) {
        Self::of_blocks_in(x, x_prev, blocks);
    }

    #[inline(always)]
    fn of_blocks_in(x: &[Vec3], x_prev: &[Vec3], blocks: &mut [BlockBound]) {
        for ((block, x), x_prev) in blocks.iter_mut().zip(x.chunks(CONTACT_BLOCK)).zip(x_prev.chunks(CONTACT_BLOCK)) {
            *block = BlockBound::of(x, x_prev);
        }
    }
}

impl ContactScratch {
    pub fn new(particle_count: usize) -> Self {
        ContactScratch { flags: vec![0; particle_count], blocks: vec![BlockBound::default(); particle_count.div_ceil(CONTACT_BLOCK)], edges: EdgeContacts::default() }
    }

    /// Forget the last step's contacts (call once per step, before the substeps).
    pub fn begin_step(&mut self) {
        self.flags.fill(0);
    }

    /// Room for `particle_count` particles, so that [`Self::grow`] up to it allocates nothing.
    pub fn reserve(&mut self, particle_count: usize) {
        self.flags.reserve(particle_count.saturating_sub(self.flags.len()));
        self.blocks.reserve(particle_count.div_ceil(CONTACT_BLOCK).saturating_sub(self.blocks.len()));
    }

    /// Only the first `particle_count` particles' state (a snapshot of fewer particles restored).
    pub fn truncate(&mut self, particle_count: usize) {
        self.flags.truncate(particle_count);
        self.blocks.truncate(particle_count.div_ceil(CONTACT_BLOCK));
    }

    /// The state of particles added by a cut (`cloth::tear`): each takes that of its `parents`
    /// entry (the particle it was split from), so a particle held by friction stays held.
    pub fn grow(&mut self, parents: &[u32]) {
        for &p in parents {
            self.flags.push(self.flags[p as usize]);
        }
        self.blocks.resize(self.flags.len().div_ceil(CONTACT_BLOCK), BlockBound::default());
    }

    /// Whether some contact moved a particle in this step ([`Self::begin_step`]).
    pub fn touched_in_step(&self) -> bool {
        self.flags.iter().any(|&f| f & TOUCHED != 0)
    }

    /// Forget the last substep's state (call once per substep, before the iterations); what the
    /// step touched is kept.
    pub fn begin_substep(&mut self) {
        for f in &mut self.flags {
            *f &= TOUCHED;
        }
    }

    /// One Gauss–Seidel sweep over all (collider in `settings.mask`, free particle) pairs, the
    /// colliders moving as `window` says: march the particle's motion since the substep began
    /// (x_prev → x, relative to the collider) and project the contact it finds, then friction.
    /// `carry` is the rigid motion the reference frame gave the particles at the substep's start
    /// (x_prev included): the march starts from where they were before it, so a collider moving
    /// with the frame sees them where they were relative to it, and a world collider sees the whole
    /// motion.
    ///
    /// - First hit inside the motion: the half-space at the hit point (the particle stays on the
    ///   side it came from, whatever its speed).
    /// - Started on the thickened surface (within the rest band): d − thickness ≥ 0 at the
    ///   current position, unless the nearest surface there turned more than [`MAX_SLIDE_TURN`]
    ///   (module docs): then the half-space at the start.
    /// - Started deep inside: d − thickness ≥ min(0, gap₀ + b), no friction, speed-limited.
    ///
    /// With `parallel`, each collider's pass is split into chunks of particles on the current
    /// rayon pool: a particle's projections read and write only its own state, and it still meets
    /// the colliders in store order, so the bits do not change.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        x: &mut [Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        colliders: &ColliderStore,
        window: SubstepWindow,
        carry: Option<Carry>,
        settings: &ContactSettings,
        friction: Friction,
        parallel: bool,
    ) {
        let (c, b) = (PARTICLE_CHUNK, PARTICLE_CHUNK / CONTACT_BLOCK);
        // The block bounds cost less than the single tests they save only when several colliders
        // are active: with one they seldom pay, with the demo's seven they do
        // (docs/dev/performance-log.md, "2026-11-30 — Kept row offsets, AVX passes, lane-wise
        // wind, contact blocks").
        let use_blocks = colliders.iter().filter(|(_, c)| c.active_layers() & settings.mask != 0).count() >= 2;
        if use_blocks {
            if parallel {
                (x.par_chunks(c), x_prev.par_chunks(c), self.blocks.par_chunks_mut(b))
                    .into_par_iter()
                    .for_each(|(x, x_prev, blocks)| BlockBound::of_blocks(x, x_prev, blocks));
            } else {
                BlockBound::of_blocks(x, x_prev, &mut self.blocks);
            }
        }
        for (_, collider) in colliders.iter() {
            if collider.active_layers() & settings.mask == 0 {
                continue;
            }
            let (begin, end) = collider.substep_frames(window);
            let begin = carry.map_or(begin, |c| c.moved(begin));
            let far = FarTest::new(&collider.shape, &begin, &end, settings.thickness);
            let pass = ContactPass { collider, begin, end, far, settings, friction };
            if parallel {
                (x.par_chunks_mut(c), x_prev.par_chunks(c), w.par_chunks(c), self.flags.par_chunks_mut(c), self.blocks.par_chunks_mut(b))
                    .into_par_iter()
                    .for_each(|(x, x_prev, w, flags, blocks)| pass.run(x, x_prev, w, flags, use_blocks.then_some(blocks)));
            } else {
                pass.run(x, x_prev, w, &mut self.flags, use_blocks.then_some(&mut self.blocks[..]));
            }
        }
    }

    /// The edges' contacts with thin round colliders (`super::edge_contact`), after
    /// [`Self::solve`], with the same frames and friction: `edges` are the cloth's particle pairs,
    /// `longest_edge` \[m\] the longest rest length among them. Serial, in the candidates' order.
    #[allow(clippy::too_many_arguments)]
    pub fn solve_edges(
        &mut self,
        x: &mut [Vec3],
        x_prev: &[Vec3],
        w: &[f32],
        colliders: &ColliderStore,
        window: SubstepWindow,
        carry: Option<Carry>,
        settings: &ContactSettings,
        friction: Friction,
        edges: &[[u32; 2]],
        longest_edge: f32,
    ) {
        if !self.edges.any() {
            return;
        }
        for (k, (_, collider)) in colliders.iter().enumerate() {
            if collider.active_layers() & settings.mask == 0 {
                continue;
            }
            let (begin, end) = collider.substep_frames(window);
            let begin = carry.map_or(begin, |c| c.moved(begin));
            let mu = friction.coefficients(collider.friction());
            self.edges.solve_collider(k, &collider.shape, &begin, &end, x, x_prev, w, edges, settings.thickness, longest_edge, mu, (&mut self.flags, TOUCHED));
        }
    }

    /// Whether particle `i` was held by a collider's static friction in the current substep.
    pub fn held(&self, i: usize) -> bool {
        self.flags[i] & HELD != 0
    }

    /// After the velocity update: a particle that started the substep deep inside a collider
    /// leaves no faster than `max_speed` \[m/s\] (its push-out is bounded per substep, but its
    /// neighbours' constraints, fighting a push-out direction the cloth cannot follow, could
    /// otherwise hand it any speed).
    ///
    /// With `parallel`, in chunks on the current rayon pool (each particle on its own).
    pub fn limit_depenetration_speed(&self, v: &mut [Vec3], max_speed: f32, parallel: bool) {
        chunks_mut_in_parallel(v, parallel, |first, v| {
            for (v, _) in v.iter_mut().zip(&self.flags[first..]).filter(|(_, flags)| **flags & DEEP != 0) {
                *v = v.clamp_length_max(max_speed);
            }
        });
    }
}

/// One collider's contact pass of the current substep: the collider, its frames at the substep's
/// start and end, and its broad-phase bounds (computed once per collider and substep, shared by
/// the pass's chunks).
struct ContactPass<'a> {
    collider: &'a Collider,
    begin: Frame,
    end: Frame,
    far: FarTest,
    settings: &'a ContactSettings,
    friction: Friction,
}

impl ContactPass<'_> {
    /// The collider's contacts with particles `x` (a run of the cloth's particles, with their
    /// `x_prev`, `w`, deep flags and, when the blocks are in use, their [`BlockBound`]s; see
    /// [`ContactScratch::solve`]). Compiled a second time with AVX and run so where the CPU has it:
    /// the same operations (the same bits) in three-operand encodings.
    fn run(&self, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], flags: &mut [u8], blocks: Option<&mut [BlockBound]>) {
        #[cfg(target_arch = "x86_64")]
        if crate::constraints::lanes_avx::avx_available() {
            // SAFETY: the CPU has AVX (checked above).
            return unsafe { self.run_avx(x, x_prev, w, flags, blocks) };
        }
        self.run_on(x, x_prev, w, flags, blocks);
    }

    /// [`Self::run`] compiled with AVX.
    ///
    /// # Safety
    /// The CPU must have AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn run_avx(&self, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], flags: &mut [u8], blocks: Option<&mut [BlockBound]>) {
        self.run_on(x, x_prev, w, flags, blocks);
    }

    /// [`Self::run`]'s loops: particle by particle, or block by block, skipping the blocks the
    /// collider cannot reach ([`FarTest::block_clear`]); a block a contact moved is no longer
    /// bounded for the later colliders.
    #[inline(always)]
    fn run_on(&self, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], flags: &mut [u8], blocks: Option<&mut [BlockBound]>) {
        let Some(blocks) = blocks else {
            for i in 0..x.len() {
                self.project(i, x, x_prev, w, flags);
            }
            return;
        };
        for (b, block) in blocks.iter_mut().enumerate() {
            if block.valid && self.far.block_clear(block) {
                continue;
            }
            let first = b * CONTACT_BLOCK;
            for i in first..x.len().min(first + CONTACT_BLOCK) {
                if self.project(i, x, x_prev, w, flags) {
                    block.valid = false;
                }
            }
        }
    }

    /// Particle `i`'s contact with the collider, if any (see [`ContactScratch::solve`]); whether
    /// it moved the particle.
    #[inline(always)]
    fn project(&self, i: usize, x: &mut [Vec3], x_prev: &[Vec3], w: &[f32], flags: &mut [u8]) -> bool {
        let (thickness, band) = (self.settings.thickness, self.settings.max_depenetration);
        let (shape, begin, end, far) = (&self.collider.shape, &self.begin, &self.end, &self.far);
        if w[i] == 0.0 {
            return false;
        }
        let motion = far.motion(x[i], x_prev[i]);
        if far.surely_clear(motion) {
            return false;
        }
        let p_prev = begin.to_local(x_prev[i]);
        // A mesh's lower bound is its distance: looked up once, for this test and the sweep.
        let start = (!shape.is_convex()).then(|| shape.distance(p_prev));
        if far.locally_clear(start.map_or_else(|| shape.distance_lower_bound(p_prev), |(d, _)| d), motion) {
            return false;
        }
        let start = start.unwrap_or_else(|| shape.distance(p_prev));
        let moved = relative_motion(begin, end, x[i], x_prev[i], p_prev);
        let mut friction = self.friction.coefficients(self.collider.friction());
        let (c, normal) = match sweep_from(shape, p_prev, start, moved, thickness, band) {
            Sweep::Clear => return false,
            Sweep::Hit(hit) if hit.time > 0.0 => (hit.normal.dot(moved - hit.offset), hit.normal),
            Sweep::Hit(hit) => {
                let (d, normal) = shape.distance(p_prev + moved);
                if normal.dot(hit.normal) > MAX_SLIDE_TURN.cos() {
                    (d - thickness, normal)
                } else {
                    (hit.normal.dot(moved - hit.offset), hit.normal)
                }
            }
            Sweep::Deep => {
                flags[i] |= DEEP;
                let (d, normal) = shape.distance(p_prev + moved);
                let gap0 = start.0 - thickness;
                // Being pushed out of an overlap is no sliding contact: no friction, so the cloth
                // can slide over the shape instead of being held and stretched.
                friction = (0.0, 0.0);
                (d - thickness - (gap0 + band).min(0.0), normal)
            }
        };
        if c >= 0.0 {
            return false;
        }
        flags[i] |= TOUCHED;
        let slip = apply_friction(moved - normal * c, normal, -c, friction);
        if holds(moved - normal * c, normal, -c, friction.0) {
            flags[i] |= HELD;
        }
        x[i] += end.rotation * (slip - moved);
        true
    }
}

/// The contacts' broad phase: tests, cheaper than the sweep, that are true only where [`sweep_from`]
/// would return [`Sweep::Clear`], so skipping those particles changes no bit. The sweep's march
/// advances by at least gap/‖segment‖ per step, so it is clear when the particle starts farther
/// from the thickened shape than the length of its local segment. That length is bounded in
/// world terms: ‖moved‖ ≤ ‖x − x_prev‖ + ‖R₁ − R₀‖·‖x_prev − c₀‖ + ‖c₁ − c₀‖ (`relative_motion`;
/// ‖R₁ − R₀‖ = 2·sin(θ/2) for the rotation θ between the substep's start and end frames,
/// [`rotation_distance`]). The start's distance is bounded twice:
/// - [`FarTest::surely_clear`], before any transform: the shape lies inside a ball of radius R
///   around its origin, so distance ≥ ‖x_prev − c₀‖ − R;
/// - [`FarTest::locally_clear`], from the start's local position (which the sweep needs anyway):
///   [`Shape::distance_lower_bound`]. A ball is a loose fit for a flat or long shape (a table
///   top), so this bound skips many pairs the ball keeps (docs/dev/performance-log.md, "2026-11-30
///   — The team of threads, positions kept in the sweep rows, the bench's first tables"). It is
///   the only test for a plane.
///
/// The factor and margins cover f32 rounding with a wide berth; the unit test checks the claim.
struct FarTest {
    /// Bounding radius + thickness \[m\]; None: an unbounded shape.
    reach: Option<f32>,
    thickness: f32,
    begin: Vec3,
    /// ‖c₁ − c₀‖ \[m\].
    shift: f32,
    /// ‖R₁ − R₀‖.
    turn: f32,
    /// A plane's normal in the world at the substep's start (its local +y); None for other shapes.
    plane_normal: Option<Vec3>,
}

impl FarTest {
    fn new(shape: &Shape, begin: &Frame, end: &Frame, thickness: f32) -> FarTest {
        FarTest {
            reach: shape.bounding_radius().map(|r| r + thickness),
            plane_normal: matches!(shape, Shape::Plane).then(|| begin.rotation * Vec3::Y),
            thickness,
            begin: begin.position,
            shift: (end.position - begin.position).length(),
            turn: rotation_distance(begin.rotation, end.rotation),
        }
    }

    /// What both tests need of a particle moving from `x_prev` to `x`, computed once.
    #[inline]
    fn motion(&self, x: Vec3, x_prev: Vec3) -> FarMotion {
        let start = (x_prev - self.begin).length();
        let segment = (x - x_prev).length() + self.turn * start + self.shift;
        let margin = 1e-4 + 1e-4 * (start + self.reach.unwrap_or(0.0)) + SWEEP_TOLERANCE;
        FarMotion { start, needed: segment * 1.001 + margin }
    }

    /// Clear by the bounding ball for every particle of a block at once: [`Self::surely_clear`]
    /// with the block's nearest start (the distance from the collider's origin to the box around
    /// its starts), its farthest (for the terms that grow with the distance) and its travel bound,
    /// with twice the factor and margins so that it holds for each particle's own f32 test (the
    /// unit test checks it against the sweep). True for a block far from the collider, which is
    /// then skipped with one test instead of one per particle.
    ///
    /// For a plane (no bounding ball), the same with [`Self::locally_clear`]'s bound instead: the
    /// lowest height of the block's box above the plane (n·(centre − c₀) minus the box's extent
    /// along n), computed in the world rather than in the plane's frame; the margins cover the
    /// difference in rounding.
    #[inline]
    fn block_clear(&self, block: &BlockBound) -> bool {
        let farthest = (self.begin - block.lo).abs().max((block.hi - self.begin).abs()).length();
        let segment = block.travel + self.turn * farthest + self.shift;
        let (gap, reach) = match (self.reach, self.plane_normal) {
            (Some(reach), _) => ((self.begin.clamp(block.lo, block.hi) - self.begin).length() - reach, reach),
            (None, Some(n)) => {
                let (centre, half) = ((block.lo + block.hi) * 0.5, (block.hi - block.lo) * 0.5);
                (n.dot(centre - self.begin) - n.abs().dot(half) - self.thickness, 0.0)
            }
            (None, None) => return false,
        };
        let margin = 2e-4 + 2e-4 * (farthest + reach) + 2.0 * SWEEP_TOLERANCE;
        gap > segment * 1.002 + margin
    }

    /// Clear by the bounding ball (world frame, no transform).
    #[inline]
    fn surely_clear(&self, m: FarMotion) -> bool {
        self.reach.is_some_and(|reach| m.start - reach > m.needed)
    }

    /// Clear by `lower_bound`, the shape's distance bound at the start's local position
    /// ([`Shape::distance_lower_bound`]).
    #[inline]
    fn locally_clear(&self, lower_bound: f32, m: FarMotion) -> bool {
        lower_bound - self.thickness > m.needed
    }
}

/// A particle's substep motion as the broad phase sees it ([`FarTest::motion`]).
#[derive(Clone, Copy)]
struct FarMotion {
    /// The start's distance from the collider's origin at the substep's start \[m\].
    start: f32,
    /// The bound on the local segment's length, rounding factor and margin folded in \[m\]: the
    /// sweep is clear when the start's gap to the thickened shape exceeds it.
    needed: f32,
}

/// ‖R₁ − R₀‖ = 2·sin(θ/2) for the rotation θ from `q0` to `q1`: twice the length of the vector
/// part of q₀⁻¹q₁ (q₀* q₁ for unit quaternions), which keeps its precision for small turns.
/// The equal 2·√(1 − (q₀·q₁)²) does not: for a turn of 3e-4 rad per substep (0.02 rad/s at
/// 60 Hz) q₀·q₁ rounds to 1 in f32 and the bound to 0, and the broad phase then skipped particles
/// 10 m from the axis that the turning surface reached (a particle above a plane turning at
/// 0.02 rad/s ended 1 mm inside the thickness; a unit test holds that scene). The vector part of
/// q₀*q₀ is exactly zero, and a small turn's has the relative precision of f32.
#[inline]
fn rotation_distance(q0: Quat, q1: Quat) -> f32 {
    2.0 * (q0.conjugate() * q1).xyz().length()
}

/// Contacts at the end of a step (colliders at their target poses): the number of
/// (free particle, collider) pairs touching (gap ≤ [`TOUCHING_FRACTION`]·thickness + tolerance)
/// and the largest penetration max(0, thickness − d) \[m\].
pub(crate) fn contact_summary(
    x: &[Vec3],
    w: &[f32],
    colliders: &ColliderStore,
    settings: &ContactSettings,
    edges: Option<(&EdgeContacts, &[[u32; 2]], f32)>,
) -> (u32, f32) {
    let touching = TOUCHING_FRACTION * settings.thickness + SWEEP_TOLERANCE;
    let (mut count, mut max_penetration) = (0u32, 0.0f32);
    for (_, collider) in colliders.iter() {
        if collider.active_layers() & settings.mask == 0 {
            continue;
        }
        let end = collider.frame_at(1.0);
        // Beyond the bounding ball a particle is neither touching nor penetrating (max(0, ·)
        // ignores its negative penetration): the same count and maximum without the transform.
        let reach = collider.shape.bounding_radius().map(|r| r + settings.thickness + touching);
        for i in 0..x.len() {
            if w[i] == 0.0 {
                continue;
            }
            if let Some(reach) = reach {
                let from_origin = (x[i] - end.position).length();
                if from_origin > reach + 1e-4 + 1e-4 * (from_origin + reach) {
                    continue;
                }
            }
            let gap = collider.shape.distance(end.to_local(x[i])).0 - settings.thickness;
            count += (gap <= touching) as u32;
            max_penetration = max_penetration.max(-gap);
        }
    }
    if let Some((contacts, edges, longest_edge)) = edges {
        let (n, deepest) = contacts.summary(x, edges, colliders, settings.thickness, longest_edge, touching);
        count += n;
        max_penetration = max_penetration.max(deepest);
    }
    (count, max_penetration)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::uniform;

    /// The contact pass compiled with AVX (what runs on this machine) gives the bits of the SSE2
    /// compilation: particles around a sphere, capsule, box and plane that move and turn, over
    /// four substeps, some starting deep inside, some hitting, some clear; contacts must happen
    /// (particles moved, some deep) for the comparison to mean anything.
    #[test]
    fn contacts_compiled_with_avx_give_the_bits_of_the_sse2_compilation() {
        use crate::collision::{ColliderDesc, Pose};
        let mut store = ColliderStore::default();
        let descs = [
            ColliderDesc::sphere(0.3),
            ColliderDesc::capsule(0.1, 0.4),
            ColliderDesc { radius: 0.02, ..ColliderDesc::cuboid([0.4, 0.05, 0.3]) },
            ColliderDesc::plane(),
        ];
        for (k, desc) in descs.into_iter().enumerate() {
            let at = [k as f32 * 0.9 - 1.35, 0.0, 0.0];
            let handle = store.add(&ColliderDesc { pose: Pose::at(at), static_friction: 0.4, kinetic_friction: 0.3, ..desc }).unwrap();
            let turned = glam::Quat::from_axis_angle(Vec3::new(0.3, 1.0, 0.2).normalize(), 0.2).to_array();
            store.set_pose(handle, &Pose { position: [at[0] + 0.05, -0.02, 0.01], rotation: turned }).unwrap();
        }
        let mut next = uniform(0x9e37_79b9);
        let n = 3000;
        let x_prev: Vec<Vec3> = (0..n).map(|_| Vec3::new(next() * 1.9, next() * 0.5, next() * 0.5)).collect();
        let x0: Vec<Vec3> = x_prev.iter().map(|&p| p + Vec3::new(next(), next(), next()) * 0.05).collect();
        let w: Vec<f32> = (0..n).map(|i| if i % 17 == 0 { 0.0 } else { 1.0 }).collect();
        let settings = ContactSettings { thickness: 0.01, mask: u32::MAX, max_depenetration: 0.01 };
        let run = || {
            let (mut x, mut scratch) = (x0.clone(), ContactScratch::new(n));
            let mut deep = 0;
            for substep in 0..4 {
                scratch.begin_substep();
                scratch.solve(&mut x, &x_prev, &w, &store, SubstepWindow::new(substep, 4), None, &settings, Friction::On, false);
                deep += scratch.flags.iter().filter(|&&f| f & DEEP != 0).count();
            }
            (x.iter().flat_map(|p| p.to_array().map(f32::to_bits)).collect::<Vec<u32>>(), deep)
        };
        let (with_avx, deep) = run();
        #[cfg(target_arch = "x86_64")]
        {
            let (sse2, _) = crate::constraints::lanes_avx::tests::sse_only(run);
            assert!(with_avx == sse2, "the two compilations differ");
        }
        let moved = x0.iter().flat_map(|p| p.to_array().map(f32::to_bits)).zip(&with_avx).filter(|(a, b)| a != *b).count();
        assert!(moved > 300 && deep > 50, "{moved} coordinates moved, {deep} deep starts: too few contacts to compare");
    }

    /// The four collider shapes the broad-phase tests use.
    const TEST_SHAPES: [Shape; 4] = [
        Shape::Sphere { radius: 0.3 },
        Shape::Capsule { radius: 0.1, half_height: 0.4 },
        Shape::Box { half_extents: Vec3::new(0.4, 0.05, 0.3), rounding: 0.02 },
        Shape::Plane,
    ];

    /// A collider's frames over a substep for case `k`: somewhere within 5 m, turned at random,
    /// every other case moving up to 5 cm and two cases in three turning up to 0.2 rad.
    fn substep_frames(k: usize, next: &mut impl FnMut() -> f32) -> (Frame, Frame) {
        use glam::Quat;
        let centre = Vec3::new(next(), next(), next()) * 5.0;
        let axis = Vec3::new(next(), next(), next()).try_normalize().unwrap_or(Vec3::Y);
        let begin = Frame { position: centre, rotation: Quat::from_axis_angle(axis, next() * 3.0) };
        let end = Frame {
            position: centre + Vec3::new(next(), next(), next()) * 0.05 * (k % 2) as f32,
            rotation: begin.rotation * Quat::from_axis_angle(axis, next() * 0.2 * !k.is_multiple_of(3) as u8 as f32),
        };
        (begin, end)
    }

    const THIN_BOARD: Shape = Shape::Box { half_extents: Vec3::new(0.5, 0.005, 0.5), rounding: 0.0 };

    /// The broad phase skips only what the sweep would find clear: random particles, substep
    /// motions and moving, turning colliders of every shape, many of them near the surface;
    /// every "clear" of either test is checked against the sweep itself, and the test fails
    /// unless each outcome occurs often (so that it cannot pass by never culling).
    #[test]
    fn broad_phase_skips_only_particles_the_sweep_finds_clear() {
        let mut next = uniform(0x1234_5678);
        let (mut culled, mut culled_locally, mut kept) = (0, 0, 0);
        for k in 0..80_000 {
            let shape = &TEST_SHAPES[k % TEST_SHAPES.len()];
            let r = shape.bounding_radius().unwrap_or(0.3);
            let (begin, end) = substep_frames(k, &mut next);
            let centre = begin.position;
            // Starting between 0.5 r and 2.5 r from the collider's origin, moving up to 5 cm.
            let dir = Vec3::new(next(), next(), next()).try_normalize().unwrap_or(Vec3::X);
            let x_prev = centre + dir * r * (1.5 + next());
            let x = x_prev + Vec3::new(next(), next(), next()) * 0.05;
            let thickness = 0.01;
            let far = FarTest::new(shape, &begin, &end, thickness);
            let p_prev = begin.to_local(x_prev);
            let moved = relative_motion(&begin, &end, x, x_prev, p_prev);
            let motion = far.motion(x, x_prev);
            if far.surely_clear(motion) {
                culled += 1;
                assert_eq!(sweep(shape, p_prev, moved, thickness, 1e-3), Sweep::Clear, "case {k}");
            } else if far.locally_clear(shape.distance_lower_bound(p_prev), motion) {
                culled_locally += 1;
                assert_eq!(sweep(shape, p_prev, moved, thickness, 1e-3), Sweep::Clear, "case {k} (local)");
            } else {
                kept += 1;
            }
        }
        assert!(culled > 10_000 && culled_locally > 5_000 && kept > 10_000, "culled {culled} + {culled_locally}, kept {kept}");
    }

    /// The block test skips only blocks whose every particle the sweep finds clear, and the single
    /// tests would skip: random blocks of up to 64 particles (scattered over 2 cm to 60 cm) around
    /// moving, turning colliders of every shape, many of them near the surface (for planes, on
    /// either side, some 20 m out along it); every particle of a skipped block is swept.
    /// Fails unless both outcomes occur often. Also: a block with a NaN is never skipped.
    #[test]
    fn block_test_skips_only_blocks_the_sweep_finds_clear() {
        let mut next = uniform(0x0bad_cafe);
        let (mut skipped, mut kept, mut planes_skipped) = (0, 0, 0);
        for k in 0..4000 {
            let shape = &TEST_SHAPES[k % TEST_SHAPES.len()];
            let r = shape.bounding_radius().unwrap_or(0.0);
            let (begin, end) = substep_frames(k, &mut next);
            let centre = begin.position;
            let spread = 0.02 + 0.3 * (next() + 1.0);
            let dir = Vec3::new(next(), next(), next()).try_normalize().unwrap_or(Vec3::X);
            // Planes: blocks on either side, mostly within a metre of it, some far out along it.
            let dir = if r == 0.0 { (begin.rotation * Vec3::Y * next() + dir * 0.3 * next()) * 2.0 } else { dir };
            let along = if r == 0.0 { Vec3::new(next(), 0.0, next()) * 20.0 * (k % 5 == 0) as u8 as f32 } else { Vec3::ZERO };
            let middle = centre + along + dir * (r + spread + 0.5 * next().abs());
            // Whole blocks and a last block's remainders (the bound takes four particles at a time).
            let count = CONTACT_BLOCK - k % 7;
            let x_prev: Vec<Vec3> = (0..count).map(|_| middle + Vec3::new(next(), next(), next()) * spread).collect();
            let x: Vec<Vec3> = x_prev.iter().map(|&p| p + Vec3::new(next(), next(), next()) * 0.05).collect();
            let thickness = 0.01;
            let far = FarTest::new(shape, &begin, &end, thickness);
            let block = BlockBound::of(&x, &x_prev);
            assert!(block.valid);
            if far.block_clear(&block) {
                skipped += 1;
                planes_skipped += (r == 0.0) as u32;
                for (&x, &x_prev) in x.iter().zip(&x_prev) {
                    let p_prev = begin.to_local(x_prev);
                    let moved = relative_motion(&begin, &end, x, x_prev, p_prev);
                    assert_eq!(sweep(shape, p_prev, moved, thickness, 1e-3), Sweep::Clear, "case {k}");
                    // What the single tests would have done: skip it too.
                    let motion = far.motion(x, x_prev);
                    let single = if r == 0.0 { far.locally_clear(shape.distance_lower_bound(p_prev), motion) } else { far.surely_clear(motion) };
                    assert!(single, "case {k}: a particle the single test keeps");
                }
            } else {
                kept += 1;
            }
        }
        assert!(skipped > 500 && kept > 500 && planes_skipped > 100, "skipped {skipped} ({planes_skipped} by planes), kept {kept}");
        for (bad, at, count) in [(f32::NAN, 5, 64), (f32::INFINITY, 5, 64), (f32::NAN, 62, 63), (f32::NEG_INFINITY, 61, 62)] {
            let mut x_prev = vec![Vec3::splat(100.0); count];
            x_prev[at].y = bad;
            assert!(!BlockBound::of(&vec![Vec3::splat(100.0); count], &x_prev).valid, "{bad} in x_prev[{at}]");
            assert!(!BlockBound::of(&x_prev, &vec![Vec3::splat(100.0); count]).valid, "{bad} in x[{at}]");
        }
    }

    /// The broad phase on slowly turning long shapes, with particles far out along them and near
    /// their surface, where the bound on the turn matters most: turns of 1e-5 to 1e-3 rad per
    /// substep, particles up to 12 m from the turning axis and 1–30 mm above the surface. Every
    /// skipped particle is checked against the sweep.
    #[test]
    fn broad_phase_skips_only_clear_particles_of_slowly_turning_long_shapes() {
        use glam::Quat;
        let shapes = [
            Shape::Plane,
            Shape::Box { half_extents: Vec3::new(10.5, 0.05, 1.0), rounding: 0.01 },
            Shape::Capsule { radius: 0.05, half_height: 10.5 },
        ];
        let mut next = uniform(0x5eed_1234);
        let (mut culled, mut kept) = (0, 0);
        let thickness = 0.005;
        for k in 0..30_000 {
            let shape = &shapes[k % shapes.len()];
            let axis = Vec3::new(next(), next(), next()).try_normalize().unwrap_or(Vec3::Y);
            let begin = Frame {
                position: Vec3::new(next(), next(), next()),
                rotation: Quat::from_axis_angle(Vec3::new(next(), next(), next()).normalize_or(Vec3::X), next() * 3.0),
            };
            let turn = 10f32.powf(-4.0 + next());
            let end = Frame { position: begin.position, rotation: begin.rotation * Quat::from_axis_angle(axis, turn) };
            let above = thickness * (1.2 + 5.0 * next().abs());
            let local = match *shape {
                Shape::Plane => Vec3::new(12.0 * next(), above, 12.0 * next()),
                Shape::Box { .. } => Vec3::new(10.4 * next(), 0.05 + above, 0.9 * next()),
                _ => Vec3::new(0.05 + above, 10.4 * next(), 0.0),
            };
            let x_prev = begin.position + begin.rotation * local;
            let x = x_prev + Vec3::new(next(), next(), next()) * 1e-3;
            let far = FarTest::new(shape, &begin, &end, thickness);
            let p_prev = begin.to_local(x_prev);
            let moved = relative_motion(&begin, &end, x, x_prev, p_prev);
            let motion = far.motion(x, x_prev);
            if far.surely_clear(motion) || far.locally_clear(shape.distance_lower_bound(p_prev), motion) {
                culled += 1;
                assert_eq!(sweep(shape, p_prev, moved, thickness, 1e-3), Sweep::Clear, "case {k}: {shape:?}, turn {turn}");
            } else {
                kept += 1;
            }
        }
        assert!(culled > 3_000 && kept > 3_000, "culled {culled}, kept {kept}");
    }

    /// ‖R₁ − R₀‖ from the quaternions keeps its precision down to tiny turns (where the formula
    /// through q₀·q₁ gave 0), up to a half turn, for any axis and starting orientation.
    #[test]
    fn rotation_distance_is_twice_the_sine_of_half_the_turn() {
        use glam::Quat;
        let mut next = uniform(0x0bad_5eed);
        for turn in [1e-6f32, 3.3e-5, 3.3e-4, 1e-2, 0.5, 2.0, 3.1] {
            for _ in 0..50 {
                let axis = Vec3::new(next(), next(), next()).try_normalize().unwrap_or(Vec3::Y);
                let start = Quat::from_axis_angle(Vec3::new(next(), next(), next()).normalize_or(Vec3::X), next() * 3.0);
                let end = start * Quat::from_axis_angle(axis, turn);
                let expected = 2.0 * (turn as f64 / 2.0).sin();
                let got = rotation_distance(start, end) as f64;
                assert!((got - expected).abs() <= 1e-3 * expected + 3e-7, "turn {turn}: {got} vs {expected}");
                let (mat0, mat1) = (glam::Mat3::from_quat(start), glam::Mat3::from_quat(end));
                let moved = (mat1 - mat0) * axis.any_orthonormal_vector();
                assert!(moved.length() as f64 <= got * 1.001 + 1e-6, "turn {turn}: a unit vector moved {}", moved.length());
            }
        }
    }

    /// A particle resting on the thickened surface of a 2.5 cm ball whose substep motion ends 30°
    /// around it is put exactly on the surface there; one that ends 80° around (carried faster
    /// than a substep can follow) is held by the tangent plane at its start, so its segment stays
    /// outside the ball.
    #[test]
    fn a_particle_sliding_around_a_small_ball_is_followed_only_within_the_largest_turn() {
        use crate::collision::ColliderDesc;
        let (radius, thickness) = (0.025, 0.005);
        let mut store = ColliderStore::default();
        store.add(&ColliderDesc::sphere(radius)).unwrap();
        let shell = radius + thickness;
        let start = Vec3::new(0.0, -shell, 0.0);
        let around = |degrees: f32| {
            let a = degrees.to_radians();
            Vec3::new(0.0, -a.cos(), -a.sin()) * (shell - 0.002)
        };
        let settings = ContactSettings { thickness, mask: u32::MAX, max_depenetration: 1e-3 };
        for (degrees, followed) in [(30.0, true), (80.0, false)] {
            let mut x = vec![around(degrees)];
            let mut scratch = ContactScratch::new(1);
            scratch.begin_substep();
            scratch.solve(&mut x, &[start], &[1.0], &store, SubstepWindow::new(0, 1), None, &settings, Friction::Off, false);
            let end = x[0];
            // The closest approach of the segment start → end to the ball's centre.
            let t = (-start.dot(end - start) / (end - start).length_squared()).clamp(0.0, 1.0);
            let closest = (start + (end - start) * t).length();
            if followed {
                assert!((end.length() - shell).abs() < 1e-6, "{degrees}°: ends at {} m from the centre", end.length());
                assert!((end.normalize() - around(degrees).normalize()).length() < 1e-5, "{degrees}°: moved along the normal");
            } else {
                assert!(end.y >= start.y - 1e-6, "{degrees}°: below the start's tangent plane: {end}");
            }
            assert!(closest >= radius, "{degrees}°: the segment passes {closest} m from the centre");
        }
    }

    #[test]
    fn segment_through_a_thin_board_hits_its_near_face() {
        // 8 cm downwards through a 1 cm board, thickness 5 mm: first contact 10 mm above the
        // board's centre, i.e. at (0.05 − 0.01)/0.08 = half the segment.
        let Sweep::Hit(hit) = sweep(&THIN_BOARD, Vec3::new(0.1, 0.05, 0.0), Vec3::new(0.0, -0.08, 0.0), 0.005, 1e-3)
        else {
            panic!("no hit");
        };
        assert!((hit.time - 0.5).abs() < 1e-4, "{hit:?}");
        assert!((hit.offset - Vec3::new(0.0, -0.04, 0.0)).length() < 1e-5);
        assert_eq!(hit.normal, Vec3::Y);
        // The end point alone would be pushed out of the far face.
        assert_eq!(THIN_BOARD.distance(Vec3::new(0.1, -0.003, 0.0)).1, -Vec3::Y);
    }

    #[test]
    fn segment_passing_beside_a_sphere_has_no_hit() {
        let ball = Shape::Sphere { radius: 0.1 };
        let miss = |y: f32| sweep(&ball, Vec3::new(-1.0, y, 0.0), Vec3::new(2.0, 0.0, 0.0), 0.01, 1e-3);
        assert_eq!(miss(0.2), Sweep::Clear);
        // 0.1 mm clear of the thickened sphere (radius 0.11 m) while passing its top.
        assert_eq!(miss(0.1101), Sweep::Clear);
        // Moving away from it.
        assert_eq!(sweep(&ball, Vec3::new(0.0, 0.2, 0.0), Vec3::new(0.0, 0.1, 0.0), 0.01, 1e-3), Sweep::Clear);
        // A head-on segment finds the pole.
        let Sweep::Hit(hit) = sweep(&ball, Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, -2.0, 0.0), 0.01, 1e-3) else {
            panic!("no hit");
        };
        // Deep inside: left to the bounded push-out.
        assert_eq!(sweep(&ball, Vec3::ZERO, Vec3::X, 0.01, 1e-3), Sweep::Deep);
        assert!((hit.offset - Vec3::new(0.0, -0.89, 0.0)).length() < 2e-6, "{hit:?}");
        assert!((hit.time - 0.445).abs() < 1e-5);
    }

    #[test]
    fn friction_sticks_below_static_limit_and_slides_by_kinetic_amount() {
        // Slip 0.3 mm along the surface, depth 1 mm: sticks with μ_s = 0.5.
        let slip = Vec3::new(3e-4, 0.0, 0.0);
        assert_eq!(apply_friction(slip, Vec3::Y, 1e-3, (0.5, 0.4)), Vec3::ZERO);
        // μ_s = 0.2: slides, slip reduced by μ_k·d = 0.1 mm.
        let rest = apply_friction(slip, Vec3::Y, 1e-3, (0.2, 0.1));
        assert!((rest.x - 2e-4).abs() < 1e-9, "{rest}");
    }
}
