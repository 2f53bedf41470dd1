//! The strain limit (`crate::constraints::strain_limit`) at the end of a step, when some edge is
//! longer than the cloth's stretch limit: one anchored pass ([`anchored_pass`]: follow-the-leader
//! outward from the pins and the particles a collider's static friction holds), then up to
//! [`PASSES`] times (up to [`IMPACT_PASSES`] more at a collider impact) Gauss–Seidel rounds over
//! the violated edges ([`rounds`]) followed by the volume (pressure), the tethers and the contacts
//! (self-collision and colliders without friction, inter-cloth with it: `sweeps/inter_cloth.rs`)
//! projected once more, so the limit never leaves a particle beyond its tethers, inside another
//! layer or inside a collider. The velocities take what all of it moved as the last substep's velocity update would
//! have, but only where that slows a particle ([`inelastic_correction`]): the limit removes the
//! motion that stretches the cloth and never adds motion of its own. Once per step rather than per
//! iteration: it bounds the stretch every step ends with (what an engine draws and the next step
//! starts from). docs/design.md, "The strain limit"; measurements in docs/dev/performance-log.md,
//! "2026-12-02 — The strain limit carried from the anchors".

use super::sweeps::{Colliders, Constraint, InterCloth, SelfCollision, Tethers, Volume, enforce_limits};
use super::{Parts, Step, SubstepInfo, from_rows, to_rows};
use crate::cloth::scratch::SolverScratch;
use crate::collision::contact::Friction;
use crate::constraints::team::run_team;
use glam::Vec3;

mod chains;
mod round;

/// Rounds over the violated edges per pass ([`rounds`]); each finds them with one lane-wise pass
/// over every edge, so a calm cloth pays that pass and little else.
pub const MAX_ROUNDS: usize = 8;

/// Further rounds while some edge is over twice the limit's strain, 1 + 2·(s − 1): a snap turn or
/// an impact gets them, a cloth resting against its limit does not.
const SEVERE_ROUNDS: usize = 8;

/// The rounds take an edge as violated only beyond s + this (0.2 percentage points of strain): a
/// large set of edges at their limit re-violates itself by small amounts every round, and those
/// would keep every round busy.
const TOLERANCE: f32 = 0.002;

/// Times the rounds and the re-projected tethers and contacts alternate after the anchored pass
/// (a pass that finds no edge over the limit ends them): the later ones settle what the contacts
/// pushed back out where the cloth wraps a collider's edge.
const PASSES: usize = 3;

/// Further passes at most, in a step in which the cloth touched a collider, while an edge is over
/// the impact limit ([`impact_factor`]): the steps in which a cloth lands on a collider, where the
/// three passes leave edges far beyond the limit (the contacts push back out what the rounds pull
/// in). Not for a cloth that can tear (its `tear_strain` takes what an impact stretches that far).
const IMPACT_PASSES: usize = 9;

/// Sweeps of each level in the anchored pass (to its parents, then within the level).
const LEVEL_SWEEPS: usize = 3;

/// Shorten the edges over the stretch limit (the rows hold the positions), and correct the
/// velocities by what moved.
pub(super) fn limit_strain(parts: &mut Parts, step: &Step) {
    let Some(factor) = step.stretch_limit.filter(|_| step.params.enable_stretch) else { return };
    if over_limit(parts, step, factor) == 0 {
        return;
    }
    remember_positions(parts.scratch);
    // Under pressure the friction-held particles are no anchors: the pass would pull the whole
    // shell towards its contact patch, against the volume it encloses (a ball resting on the
    // ground: edges 35 % long and 10 % of its volume lost, with them; 13 % and 0.02 % without).
    anchored_pass(parts, factor, step.volume.is_none());
    for pass in 0..PASSES {
        if !rounds(parts, step, factor) && pass > 0 {
            break;
        }
        reproject(parts, step);
    }
    // An impact: more passes, until no edge is over the impact limit. A cloth at rest against its
    // limit (a fold over a collider's edge) stays below it and pays nothing. Not for a cloth that
    // can tear: what an impact stretches that far is what its `tear_strain` tears.
    if parts.scratch.contacts.touched_in_step() && !step.tear {
        for _ in 0..IMPACT_PASSES {
            if over_limit(parts, step, impact_factor(factor)) == 0 {
                break;
            }
            rounds(parts, step, factor);
            reproject(parts, step);
        }
    }
    // What moved, c = Δx·exp(−d·h)/h, is the velocity the last update would have added; only its
    // inelastic part is kept: the velocity moving against c (away from the limit) is removed, up
    // to |c|, and none is added. v' = v + t·ĉ with t ∈ [0, −v·ĉ] has |v'| ≤ |v|, so the limit
    // takes energy out and never puts it in (a resting cloth it holds does not jitter).
    correct_velocities(parts, step);
}

/// The edges longer than `factor` times their rest length into `candidates` (in storage order,
/// split over the pool's threads when the step is), and how many.
fn over_limit(parts: &mut Parts, step: &Step, factor: f32) -> usize {
    let (stretch, s) = (&parts.layout.stretch, &mut *parts.scratch);
    let l = &mut s.strain_limit;
    l.candidates.clear();
    let split = step.parallel.then_some(&mut l.second_half);
    // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`, at
    // the top of the step).
    unsafe { stretch.over_limit(&mut s.rows, factor, &mut l.candidates, split) };
    l.candidates.len()
}

/// Up to [`MAX_ROUNDS`] Gauss–Seidel rounds (and [`SEVERE_ROUNDS`] more while an edge is over
/// twice the limit's strain), each over the edges a lane-wise pass finds over the limit (by more
/// than [`TOLERANCE`]), in storage order (outward from the anchors); whether any edge was over it.
fn rounds(parts: &mut Parts, step: &Step, factor: f32) -> bool {
    let severe = severe_factor(factor);
    for round in 0..MAX_ROUNDS + SEVERE_ROUNDS {
        if over_limit(parts, step, factor + TOLERANCE) == 0 {
            return round > 0;
        }
        let (stretch, s) = (&parts.layout.stretch, &mut *parts.scratch);
        let (l, rows) = (&s.strain_limit, &mut s.rows);
        // Every edge over the severe limit is over this one, so the candidates hold them all.
        if round >= MAX_ROUNDS && !l.candidates.iter().any(|&e| stretch.is_over(&rows[..], e as usize, severe)) {
            return true;
        }
        // An edge that the round's earlier projections brought within the tolerance is left
        // alone, as the scan would have left it.
        let work = round::RoundWork { stretch, candidates: &l.candidates, factor, tolerance: TOLERANCE };
        if step.parallel && !stretch.colour_start().is_empty() {
            // SAFETY: the layout's indices were checked for these rows (`ConstraintLayout::rows_ready`)
            // and a colour's edges share no particle (`ConstraintLayout::build`); the cut gives no
            // particle bounds, so no part is started before every earlier colour has ended.
            unsafe { run_team(&work, rows) };
        } else {
            work.project_candidates(&mut rows[..], 0, l.candidates.len());
        }
    }
    true
}

/// 1 + 2·(s − 1) for stretch limit s: an edge over it is far beyond the limit (an impact, a snap
/// turn, a chain the rounds cannot carry), not resting against it.
fn severe_factor(factor: f32) -> f32 {
    1.0 + 2.0 * (factor - 1.0)
}

/// 1 + 8·(s − 1) for stretch limit s (20 % strain at the default 1.025): beyond it an edge is
/// being torn apart by an impact, far past anything a cloth resting against its limit holds (the
/// demo's draped cow and tablecloth rest below 8 %).
fn impact_factor(factor: f32) -> f32 {
    1.0 + 8.0 * (factor - 1.0)
}

/// The volume, tethers and contacts of the last substep once more.
fn reproject(parts: &mut Parts, step: &Step) {
    // The volume (pressure), tethers and contacts of the last substep once more, continuing its
    // multipliers and contact sets (`fresh` = false): they outrank the limit. Friction off
    // (`SubstepInfo::friction` says which sweeps honour it).
    let last = SubstepInfo { friction: Friction::Off, ..SubstepInfo::new(step, step.substeps - 1) };
    if Volume.active(step) {
        Volume.solve(parts, step, &last, false);
    }
    if Tethers.active(step) {
        Tethers.solve(parts, step, &last, false);
    }
    let contacts: [&dyn Constraint; 3] = [&SelfCollision, &InterCloth, &Colliders];
    if contacts.iter().any(|c| c.active(step)) {
        from_rows(&parts.scratch.rows, &mut parts.state.x, step.parallel);
        for c in contacts.into_iter().filter(|c| c.active(step)) {
            c.solve(parts, step, &last, false);
        }
        to_rows(&mut parts.scratch.rows, &parts.state.x, &parts.config.w, step.parallel);
    }
}

/// One pass outward from the anchors (pinned and kinematic particles, those a collider's static
/// friction holds, grabbed ones): level by level in hop distance from the nearest anchor, each particle is
/// moved alone to within the limit of its neighbours one level nearer (follow-the-leader, Müller
/// et al. 2012, "Fast Simulation of Inextensible Hair and Fur", §3), then the edges within the
/// level are limited both ways, or, where they form a tree and no anchor is held by friction,
/// followed from the tree's centre (`chains`). A chain hanging from an anchor is within its limit
/// after one pass, where Gauss–Seidel rounds carry a correction a few edges a round.
fn anchored_pass(parts: &mut Parts, factor: f32, held_anchors: bool) {
    let (layout, s) = (parts.layout, &mut *parts.scratch);
    let l = &mut s.strain_limit;
    l.next_anchors.fill(0);
    let mut held = false;
    for (i, row) in s.rows.iter().enumerate() {
        let held_here = held_anchors && row.w != 0.0 && s.contacts.held(i);
        held |= held_here;
        if row.w == 0.0 || held_here {
            l.next_anchors[i / 64] |= 1 << (i % 64);
        }
    }
    // A grabbed particle is where the user holds it: the cloth follows it, as it follows a pin.
    for &i in &parts.state.grabs.particles {
        l.next_anchors[i as usize / 64] |= 1 << (i % 64);
    }
    if !l.ordered || l.next_anchors != l.anchors {
        l.ordered = true;
        l.anchors.clone_from(&l.next_anchors);
        // Around a contact patch a level is a ring, and its open arcs followed from their centres
        // pull against the patch: the demo tablecloth's landing peaked at 26.2 % with chains
        // there, 20.0 % without. So chains only where no anchor is held by friction.
        order_from_anchors(layout, l, !held);
    }
    let rest = layout.stretch.rest_length();
    // Levels before the first that holds an end of an edge over the limit (`candidates`, found
    // before the pass) move nothing: every edge a level looks at has its farther end there.
    let reached = |p: u32| l.level[p as usize] != u32::MAX;
    let first = l.candidates.iter().map(|&e| layout.stretch.edges()[e as usize]).filter(|&[i, j]| reached(i) && reached(j));
    let Some(first) = first.map(|[i, j]| l.level[i as usize].max(l.level[j as usize])).min() else { return };
    for k in (first.max(1) as usize - 1)..l.level_start.len().saturating_sub(1) {
        let (begin, end) = (l.level_start[k] as usize, l.level_start[k + 1] as usize);
        let parents = &l.parents[l.parent_start[begin] as usize..l.parent_start[end] as usize];
        let siblings = &l.siblings[l.sibling_start[k] as usize..l.sibling_start[k + 1] as usize];
        for _ in 0..LEVEL_SWEEPS {
            let mut moved = false;
            for &(p, q, e) in parents {
                moved |= follow(&mut s.rows, p as usize, q as usize, factor * rest[e as usize]);
            }
            if !l.level_groups.is_empty() {
                for g in l.level_groups[k] as usize..l.level_groups[k + 1] as usize {
                    let group = &l.chain[l.group_start[g] as usize..l.group_start[g + 1] as usize];
                    moved |= chains::follow_group(&mut s.rows, group, rest, factor, &mut l.group_before);
                }
            }
            for &e in siblings {
                moved |= layout.stretch.limit_edge(&mut s.rows[..], e as usize, factor);
            }
            // A sweep that moved nothing leaves the next one nothing to do.
            if !moved {
                break;
            }
        }
    }
}

/// Move particle `p` of `rows` alone to within `limit` \[m\] of particle `q`; whether it moved.
#[inline]
fn follow(rows: &mut [crate::constraints::access::SolverParticle], p: usize, q: usize, limit: f32) -> bool {
    let (xp, xq) = (rows[p].truncate(), rows[q].truncate());
    let d = xp - xq;
    let len = d.length();
    let far = len > limit && len.is_finite();
    if far {
        rows[p] = (xq + d * (limit / len)).extend(rows[p].w);
    }
    far
}

/// Hop levels from `l.anchors` over the edges (breadth first, in storage order) into `l.level`,
/// `l.order` and `l.level_start`, and each level's edges to the level before, (particle, parent,
/// edge) in the level's order, and its edges within the level (once each), so the pass walks two
/// flat lists per level; with `chains`, each level's trees ([`chains::level_chains`]). One walk
/// over the edges: when a level is the frontier, every neighbour of its particles one level
/// nearer or on the same level already has its level.
fn order_from_anchors(layout: &crate::constraints::layout::ConstraintLayout, l: &mut crate::cloth::scratch::StrainLimitScratch, chains: bool) {
    l.level.fill(u32::MAX);
    l.order.clear();
    l.level_start.clear();
    l.parents.clear();
    l.parent_start.clear();
    l.siblings.clear();
    l.sibling_start.clear();
    for i in 0..l.level.len() {
        if l.anchors[i / 64] & (1 << (i % 64)) != 0 {
            l.level[i] = 0;
            l.order.push(i as u32);
        }
    }
    // The anchors head the list while it grows; they are dropped from it at the end.
    let anchors = l.order.len();
    let (mut frontier_start, mut level) = (0, 0);
    while frontier_start < l.order.len() {
        let frontier_end = l.order.len();
        level += 1;
        l.level_start.push(frontier_end as u32);
        if level > 1 {
            l.sibling_start.push(l.siblings.len() as u32);
        }
        for f in frontier_start..frontier_end {
            let p = l.order[f] as usize;
            let own = l.level[p];
            if own > 0 {
                l.parent_start.push(l.parents.len() as u32);
            }
            for (e, q) in layout.edges_at(p) {
                let theirs = l.level[q];
                if theirs == u32::MAX {
                    l.level[q] = level;
                    l.order.push(q as u32);
                } else if own > 0 && theirs < own {
                    l.parents.push((p as u32, q as u32, e as u32));
                } else if own > 0 && theirs == own && q > p {
                    l.siblings.push(e as u32);
                }
            }
        }
        frontier_start = frontier_end;
    }
    l.order.drain(..anchors);
    for s in &mut l.level_start {
        *s -= anchors as u32;
    }
    l.parent_start.push(l.parents.len() as u32);
    l.sibling_start.push(l.siblings.len() as u32);
    if chains {
        chains::level_chains(layout, l);
    } else {
        l.chain.clear();
        l.level_groups.clear();
        l.group_start.clear();
    }
}

/// The animated pose's hard limits (max distance, backstop) at the step's end, after the strain
/// limit and its contacts, with the same inelastic velocity correction.
pub(super) fn limit_animation(parts: &mut Parts, step: &Step) {
    if !(step.animate && step.animation_constraints) {
        return;
    }
    remember_positions(parts.scratch);
    if !enforce_limits(parts) {
        return;
    }
    correct_velocities(parts, step);
}

/// The positions the rows hold now, into `strain_limit.before`: what moves them from here on
/// becomes velocity ([`correct_velocities`]).
fn remember_positions(s: &mut SolverScratch) {
    for (before, row) in s.strain_limit.before.iter_mut().zip(&s.rows) {
        *before = row.truncate();
    }
}

/// Each particle's velocity takes the inelastic part of what moved it since `strain_limit.before`
/// (the rows hold the positions), as the last substep's velocity update would have.
fn correct_velocities(parts: &mut Parts, step: &Step) {
    let scale = step.motion.velocity_scale / step.h;
    let s = &*parts.scratch;
    for ((v, before), row) in parts.state.v.iter_mut().zip(&s.strain_limit.before).zip(&s.rows) {
        *v += inelastic_correction(*v, (row.truncate() - *before) * scale);
    }
}

/// The part of velocity change `c` \[m/s\] that only cancels velocity `v` \[m/s\] moving against
/// it: t·ĉ with t = min(|c|, max(0, −v·ĉ)).
fn inelastic_correction(v: Vec3, c: Vec3) -> Vec3 {
    let length = c.length();
    if !(length > 0.0) {
        return Vec3::ZERO;
    }
    let n = c / length;
    n * length.min((-v.dot(n)).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::inelastic_correction;
    use glam::Vec3;

    /// Random velocities and corrections: the corrected speed never exceeds the speed before,
    /// the change is along the correction and never longer than it, and a velocity moving
    /// straight against the correction loses exactly the correction (or all of itself).
    #[test]
    fn the_velocity_correction_never_adds_energy() {
        let mut u = crate::test_util::uniform(5);
        for _ in 0..10_000 {
            let (v, c) = (Vec3::new(u(), u(), u()) * 3.0, Vec3::new(u(), u(), u()));
            let dv = inelastic_correction(v, c);
            assert!((v + dv).length() <= v.length() * (1.0 + 1e-6), "{v} + {dv}");
            assert!(dv.length() <= c.length() * (1.0 + 1e-6));
            assert!(dv.cross(c).length() <= 1e-5 * (1.0 + c.length() * dv.length()));
        }
        let c = Vec3::new(0.0, 0.5, 0.0);
        assert_eq!(inelastic_correction(Vec3::new(1.0, -2.0, 0.0), c), c);
        assert_eq!(inelastic_correction(Vec3::new(1.0, -0.2, 0.0), c), Vec3::new(0.0, 0.2, 0.0));
        assert_eq!(inelastic_correction(Vec3::new(1.0, 0.3, 0.0), c), Vec3::ZERO);
        assert_eq!(inelastic_correction(Vec3::ONE, Vec3::ZERO), Vec3::ZERO);
    }
}

