//! The lane-wise tether sweep (sequential and parallel) against the reference path (one group
//! at a time, one tether at a time): the same bits of positions and λ.

use super::super::sweep::Sweep;
use super::super::SubstepCoefficients;
use super::super::access::pack_solver_particles;
use super::super::team::{ColourCut, SharedSlice, TeamWork};
use super::super::access::SharedPositions;
use super::super::test_grid::{grid, noise};
use super::super::lanes::LANES;
use super::{STRAIGHT_TOLERANCE, TETHERS_PER_PARTICLE, TetherConstraints};
use glam::{Vec3, Vec4};

const PINS: [u32; 3] = [0, NX as u32 - 1, ((NY - 1) * NX) as u32];
const NX: usize = 29;
const NY: usize = 23;

/// Rest positions, inverse masses and tethers of a 29 × 23 grid cloth pinned at three
/// corners, with the groups made of mixed sizes: every fifth particle keeps one tether, every
/// seventh gets a third one (to the pin it is not tied to), and every third bound is shortened
/// by 3 % so that more tethers are violated and need several rounds.
fn pinned_cloth() -> (Vec<Vec3>, Vec<f32>, TetherConstraints) {
    let cloth = grid(NX, NY, &PINS, true);
    let (x, w, built) = (cloth.x.clone(), cloth.w.clone(), cloth.layout.tethers.clone());
    let (mut particle, mut anchor, mut geodesic_distance) = (Vec::new(), Vec::new(), Vec::new());
    let mut push = |p: u32, a: u32, d: f32| {
        particle.push(p);
        anchor.push(a);
        let shorter = if geodesic_distance.len() % 3 == 0 { 0.97 } else { 1.0 };
        geodesic_distance.push(d * shorter);
    };
    let (built_particle, built_anchor) = (built.particle(), built.anchor());
    let mut c = 0;
    while c < built_particle.len() {
        let p = built_particle[c];
        let group: Vec<usize> = (c..built_particle.len()).take_while(|&k| built_particle[k] == p).collect();
        c += group.len();
        let keep = if p % 5 == 0 { 1 } else { group.len() };
        for &k in &group[..keep] {
            push(p, built_anchor[k], built.geodesic_distance()[k]);
        }
        if p % 7 == 0 {
            let other = PINS.iter().find(|a| !group.iter().any(|&k| built_anchor[k] == **a)).unwrap();
            push(p, *other, x[p as usize].distance(x[*other as usize]) * 1.02);
        }
    }
    // SAFETY: the built layout's groups (one run per particle, anchored at pins, which have no
    // tethers) pushed whole, some with a tether fewer or one more to a pin.
    let t = unsafe { TetherConstraints::new(particle, anchor, geodesic_distance) };
    (x, w, t)
}

/// Sizes of the particle groups, in storage order.
fn group_sizes(t: &TetherConstraints) -> Vec<usize> {
    t.particle().chunk_by(|a, b| a == b).map(<[u32]>::len).collect()
}

/// Both storage orders: groups mixed in particle order (`full_groups_end` 0: every group one at
/// a time) and full groups first (`put_full_groups_first`, as `build` stores them: those
/// lane-wise). The order of the groups changes no position bit.
#[test]
fn lane_wise_tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep() {
    let (rest, w, mixed) = pinned_cloth();
    let mut arranged = mixed.clone();
    arranged.put_full_groups_first();
    assert_eq!(mixed.full_groups_end(), 0);
    let pairs = group_sizes(&mixed).iter().filter(|&&s| s == TETHERS_PER_PARTICLE).count();
    assert_eq!(arranged.full_groups_end(), pairs * TETHERS_PER_PARTICLE);
    assert!(group_sizes(&arranged)[pairs..].iter().all(|&s| s != TETHERS_PER_PARTICLE));
    let x_mixed = tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &mixed);
    let x_arranged = tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &arranged);
    assert_eq!(x_mixed, x_arranged);
    // Straight groups first (as a cloth stores them): in the pose the pins were set at, the
    // groups on a straight line to an anchor (the edges between the pins, the diagonals)
    // form a prefix of the full groups, and the order changes no bit.
    let mut straight_first = arranged.clone();
    straight_first.put_straight_groups_first(&rest);
    let is_straight = |t: &TetherConstraints, g: usize| {
        (0..TETHERS_PER_PARTICLE).any(|s| {
            let c = TETHERS_PER_PARTICLE * g + s;
            let d = rest[t.particle()[c] as usize].distance(rest[t.anchor()[c] as usize]);
            d >= (1.0 - STRAIGHT_TOLERANCE) * t.geodesic_distance()[c]
        })
    };
    let flags: Vec<bool> = (0..pairs).map(|g| is_straight(&straight_first, g)).collect();
    let straight = flags.iter().filter(|&&f| f).count();
    // (This grid's quads all split one way, so whole rows, columns and diagonals are
    // straight, and every third bound is 3 % short: more than half the groups.)
    assert!(straight >= NX && straight < pairs, "{straight} straight groups of {pairs}");
    assert!(flags[..straight].iter().all(|&f| f), "straight groups not first");
    assert_eq!(straight_first.full_groups_end(), arranged.full_groups_end());
    assert_eq!(group_sizes(&straight_first), {
        let mut sizes = group_sizes(&arranged);
        sizes[..pairs].sort();
        sizes
    });
    let x_straight_first = tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &straight_first);
    assert_eq!(x_straight_first, x_arranged);
    // The rest of the pairs after the 8-lane batches, a partial batch: 3 in `arranged`, 7 in
    // this one.
    assert_eq!(pairs % 8, 3, "{pairs} pairs");
    let mut fewer = arranged.clone();
    let drop = 4;
    // SAFETY: whole groups dropped, the others as they were.
    unsafe {
        fewer.edit(|t| {
            for v in [t.particle, t.anchor] {
                v.drain(..drop * TETHERS_PER_PARTICLE);
            }
            t.geodesic_distance.drain(..drop * TETHERS_PER_PARTICLE);
            *t.full_groups_end -= drop * TETHERS_PER_PARTICLE;
        })
    };
    assert_eq!((pairs - drop) % 8, 7);
    tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(&rest, &w, &fewer);
}

/// An edit marks the row offsets stale, so the next preparation derives them from the edited
/// tethers; arrays left out of step (a distance short, full groups that are not groups of exactly
/// [`TETHERS_PER_PARTICLE`] tethers of one particle) are refused.
#[test]
fn edits_keep_the_row_offsets_and_the_arrays_in_step() {
    // SAFETY (every construction and edit below): one run per particle, anchored at 0 and 1,
    // which have no tethers.
    let mut t = unsafe { TetherConstraints::new(vec![2, 2, 3], vec![0, 1, 0], vec![1.0, 2.0, 3.0]) };
    t.put_full_groups_first();
    assert_eq!(t.full_groups_end(), 2);
    assert!(t.prepare_rows(4));
    // The lone tether first, tied to the other anchor: no full groups first any more.
    unsafe {
        t.edit(|a| {
            (*a.particle, *a.anchor, *a.geodesic_distance) = (vec![3, 2, 2], vec![1, 0, 1], vec![3.0, 1.0, 2.0]);
            *a.full_groups_end = 0;
        })
    };
    assert!(t.prepare_rows(4));
    let bytes = crate::constraints::access::ROW_BYTES as u32;
    assert_eq!(t.row_offsets().as_slice(), [[3 * bytes, bytes], [2 * bytes, 0], [2 * bytes, bytes]]);
    let short = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| unsafe { t.edit(|a| a.geodesic_distance.pop()) }));
    assert!(short.is_err(), "a tether without a distance");
    let refused = |particle: Vec<u32>, end: usize| {
        let anchor = (0..particle.len() as u32).map(|c| c % 2).collect();
        let distance = vec![1.0; particle.len()];
        let edit = || unsafe { TetherConstraints::new(particle, anchor, distance).edit(|a| *a.full_groups_end = end) };
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(edit)).is_err()
    };
    assert!(!refused(vec![2, 2, 3], 2));
    assert!(refused(vec![2, 3, 3], 2), "a full group of two particles");
    assert!(refused(vec![2, 2, 2], 2), "a full group that goes on");
    assert!(refused(vec![2, 2, 3], 3), "full groups that end inside a group");
    assert!(refused(vec![2, 2], 4), "full groups beyond the tethers");
}

/// Positions after the sweeps of `tethers`, checked across the paths.
fn tether_sweeps_give_the_bits_of_the_one_group_at_a_time_sweep(rest: &[Vec3], w: &[f32], tethers: &TetherConstraints) -> Vec<[u32; 3]> {
    let sizes = group_sizes(tethers);
    let pairs = sizes.iter().filter(|&&s| s == TETHERS_PER_PARTICLE).count();
    assert!([LANES, 8, 16].iter().all(|n| pairs % n != 0), "no remainder of pairs after the 4-, 8- or 16-lane batches");
    assert!([1, 2, 3].iter().all(|s| sizes.contains(s)), "group sizes {sizes:?}");
    assert!(tethers.particle().len() > 1024, "too few tethers to split over two threads");
    let mut noise = noise();
    // Crumpled, and pulled away from the pins (so that most tethers are violated); the pins stay.
    let mut crumpled: Vec<Vec3> = (rest.iter().zip(w))
        .map(|(p, &wp)| if wp == 0.0 { *p } else { *p * 1.05 + Vec3::new(noise(), noise(), noise()) * 0.08 })
        .collect();
    // Tethers the kernels must treat like the scalar path, in pairs (batched lane-wise, unlike
    // the groups of every fifth and seventh particle): a NaN particle's (violated, so
    // projected: NaN stays in that particle and its λ) and a particle on its anchor (‖d‖ = 0:
    // not projected).
    const NAN_PARTICLE: usize = 101;
    crumpled[NAN_PARTICLE].y = f32::NAN;
    crumpled[202] = rest[PINS[0] as usize];
    let mut x0 = vec![Vec4::ZERO; crumpled.len()];
    pack_solver_particles(&crumpled, w, &mut x0);
    let k = SubstepCoefficients::new(1.0 / 600.0, 0.0);
    let slack = 1.0;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut result = Vec::new();
    for compliance in [0.0, 1e-4] {
        // One sweep of `t` (multipliers `lambda`) after checking its indices; split over the pool
        // as the solver's team sweeps it (`TetherTeam`).
        let solve = |(t, lambda): &mut Swept, x: &mut [Vec4], parallel: bool, fresh: bool| {
            assert!(t.prepare_rows(x.len()));
            if parallel {
                let team = TetherTeam { t, lambda: SharedSlice::new(lambda), w, slack, compliance, k: &k, fresh };
                // SAFETY: as below; the tethers' one colour has no particle bounds.
                unsafe { crate::constraints::team::run_team(&team, x) }
            } else {
                // SAFETY: indices checked above.
                unsafe { t.solve_in_bounds(lambda, x, w, slack, compliance, &k, fresh) }
            }
        };
        // The reference path, one tether at a time (the multipliers as they are).
        let scalar_sweep = |(t, lambda): &mut Swept, x: &mut [Vec4], fresh: bool| {
            t.kernel(w, slack, compliance, &k, fresh).project_range(0, lambda, x);
        };
        // Every path but `from_zero` starts from stale multipliers, which its first (`fresh`)
        // sweep must take as 0.
        let n = tethers.particle().len();
        let stale: Swept = (tethers.clone(), vec![7.0; n]);
        let (mut scalar, mut lanes, mut parallel, mut from_zero) = (stale.clone(), stale.clone(), stale.clone(), (tethers.clone(), vec![0.0; n]));
        let (mut x_scalar, mut x_lanes, mut x_parallel, mut x_from_zero) = (x0.clone(), x0.clone(), x0.clone(), x0.clone());
        // The 4- and 8-lane kernels alone, where the CPU would run wider ones.
        let (mut lanes4, mut x_lanes4) = (stale.clone(), x0.clone());
        let (mut lanes8, mut x_lanes8) = (stale.clone(), x0.clone());
        for sweep in 0..3 {
            let fresh = sweep == 0;
            scalar_sweep(&mut scalar, &mut x_scalar, fresh);
            scalar_sweep(&mut from_zero, &mut x_from_zero, false);
            solve(&mut lanes, &mut x_lanes, false, fresh);
            #[cfg(target_arch = "x86_64")]
            super::super::lanes_avx::tests::sse_only(|| solve(&mut lanes4, &mut x_lanes4, false, fresh));
            #[cfg(target_arch = "x86_64")]
            super::super::lanes_avx::tests::avx_only(|| solve(&mut lanes8, &mut x_lanes8, false, fresh));
            #[cfg(not(target_arch = "x86_64"))]
            solve(&mut lanes4, &mut x_lanes4, false, fresh);
            #[cfg(not(target_arch = "x86_64"))]
            solve(&mut lanes8, &mut x_lanes8, false, fresh);
            pool.install(|| solve(&mut parallel, &mut x_parallel, true, fresh));
        }
        // Bits, with every NaN as one pattern: the NaN particle's coordinates and λ come out
        // NaN on every path, but which NaN (sign, payload) depends on the operand order LLVM
        // picked for each width. Every other particle and multiplier is compared bit for bit.
        let canonical = |v: f32| if v.is_nan() { f32::NAN.to_bits() } else { v.to_bits() };
        let lambda_bits = |(_, lambda): &Swept| lambda.iter().map(|&l| canonical(l)).collect::<Vec<_>>();
        let bits = |x: &[Vec4]| x.iter().map(|p| [p.x, p.y, p.z].map(canonical)).collect::<Vec<_>>();
        let violated = scalar.1.iter().filter(|&&l| l != 0.0).count();
        assert!(violated > tethers.particle().len() / 4, "only {violated} tethers projected");
        assert_ne!(bits(&x_scalar), bits(&x0), "the sweeps moved nothing");
        let non_finite: Vec<usize> = (0..x_scalar.len()).filter(|&i| !x_scalar[i].is_finite()).collect();
        assert_eq!(non_finite, [NAN_PARTICLE], "the NaN stays in its particle");
        assert_eq!(bits(&x_scalar), bits(&x_from_zero), "compliance {compliance}: stale λ after a fresh sweep");
        assert_eq!(lambda_bits(&scalar), lambda_bits(&from_zero), "compliance {compliance}: stale λ after a fresh sweep");
        assert_eq!(bits(&x_lanes), bits(&x_scalar), "compliance {compliance}");
        assert_eq!(lambda_bits(&lanes), lambda_bits(&scalar), "compliance {compliance}");
        assert_eq!(bits(&x_lanes4), bits(&x_scalar), "compliance {compliance}, 4 lanes");
        assert_eq!(lambda_bits(&lanes4), lambda_bits(&scalar), "compliance {compliance}, 4 lanes");
        assert_eq!(bits(&x_lanes8), bits(&x_scalar), "compliance {compliance}, at most 8 lanes");
        assert_eq!(lambda_bits(&lanes8), lambda_bits(&scalar), "compliance {compliance}, at most 8 lanes");
        assert_eq!(bits(&x_parallel), bits(&x_scalar), "compliance {compliance}, two threads");
        assert_eq!(lambda_bits(&parallel), lambda_bits(&scalar), "compliance {compliance}, two threads");
        result.extend(bits(&x_scalar));
    }
    result
}

/// Tethers and their multipliers.
type Swept = (TetherConstraints, Vec<f32>);

/// The tethers' sweep as a team's work, as the solver assembles it: one colour of all groups, cut
/// by [`TetherConstraints::cut`], ranges projected by [`TetherConstraints::project_range`].
struct TetherTeam<'a> {
    t: &'a TetherConstraints,
    lambda: SharedSlice<'a, f32>,
    w: &'a [f32],
    slack: f32,
    compliance: f32,
    k: &'a SubstepCoefficients,
    fresh: bool,
}

impl TeamWork for TetherTeam<'_> {
    fn colours(&self) -> usize {
        1
    }

    fn cut(&self, _: usize, parts: usize, cut: &mut ColourCut) {
        self.t.cut(parts, cut);
    }

    unsafe fn project(&self, x: &mut SharedPositions<'_>, _: usize, begin: usize, end: usize) {
        // SAFETY: each range is claimed once (the team's contract).
        let lambda = unsafe { self.lambda.range(begin, end) };
        self.t.project_range(self.w, self.slack, self.compliance, self.k, self.fresh, begin, lambda, x);
    }
}

/// The K-nearest-anchors search without skipped pushes or fixed-size labels: every relaxation is
/// pushed, labels are vectors. `(particle, anchor, distance)` per tether, particle order.
fn nearest_anchors_plainly(particle_count: usize, links: &[[u32; 2]], length: &[f32], w: &[f32]) -> Vec<(u32, u32, f32)> {
    use std::cmp::Reverse;
    let graph = crate::mesh::adjacency::Adjacency::new(particle_count, links, |k| length[k]);
    let mut labels: Vec<Vec<(u32, f64)>> = vec![Vec::new(); particle_count];
    let mut heap = std::collections::BinaryHeap::new();
    for (p, &wp) in w.iter().enumerate() {
        if wp == 0.0 {
            heap.push(Reverse((0u64, p as u32, p as u32)));
        }
    }
    while let Some(Reverse((d_bits, p, anchor))) = heap.pop() {
        let l = &mut labels[p as usize];
        if l.len() >= TETHERS_PER_PARTICLE || l.iter().any(|&(a, _)| a == anchor) {
            continue;
        }
        let d = f64::from_bits(d_bits);
        l.push((anchor, d));
        for &(q, len) in graph.links_of(p as usize) {
            let lq = &labels[q as usize];
            if lq.len() < TETHERS_PER_PARTICLE && !lq.iter().any(|&(a, _)| a == anchor) {
                heap.push(Reverse(((d + len as f64).to_bits(), q, anchor)));
            }
        }
    }
    let free = labels.iter().enumerate().filter(|&(p, _)| w[p] > 0.0);
    free.flat_map(|(p, l)| l.iter().map(move |&(a, d)| (p as u32, a, d as f32))).collect()
}

/// `build`'s tethers equal the plain search's, bit for bit, on a grid with uneven link lengths and
/// few or many anchors (many: a particle sees more anchors than it remembers pushes from).
#[test]
fn the_tether_search_finds_the_labels_of_the_plain_search() {
    let (nx, ny) = (31, 27);
    let n = nx * ny;
    let mut links = Vec::new();
    for j in 0..ny {
        for i in 0..nx {
            let p = (j * nx + i) as u32;
            if i + 1 < nx {
                links.push([p, p + 1]);
            }
            if j + 1 < ny {
                links.push([p, p + nx as u32]);
                if i + 1 < nx {
                    links.push([p, p + nx as u32 + 1]);
                }
            }
        }
    }
    let mut u = crate::test_util::uniform(77);
    // Lengths on a coarse grid of values, so that equal distances (ties) occur.
    let length: Vec<f32> = links.iter().map(|_| 0.05 + ((u() + 1.0) * 2.0).floor() * 0.025).collect();
    for every in [n, 97, 11, 3] {
        let w: Vec<f32> = (0..n).map(|p| if p % every == 5 % every { 0.0 } else { 1.0 }).collect();
        let built = TetherConstraints::build(n, &links, &length, &w);
        let mut found: Vec<(u32, u32, f32)> = (0..built.particle().len()).map(|c| (built.particle()[c], built.anchor()[c], built.geodesic_distance()[c])).collect();
        let mut plain = nearest_anchors_plainly(n, &links, &length, &w);
        let key = |t: &(u32, u32, f32)| (t.0, t.2.to_bits(), t.1);
        found.sort_by_key(key);
        plain.sort_by_key(key);
        assert!(!plain.is_empty());
        let bits = |v: &[(u32, u32, f32)]| v.iter().map(|&(p, a, d)| (p, a, d.to_bits())).collect::<Vec<_>>();
        assert_eq!(bits(&found), bits(&plain), "anchors every {every}");
    }
}
