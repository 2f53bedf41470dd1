//! The animated pose (`crate::cloth::animation`): placed for each substep, its kinematic
//! particles moved onto it, and the per-particle constraints relative to it projected
//! (`crate::constraints::animated`): anim drive, max distance, backstop, in that order, so the
//! hard limits have the last word within the sweep.

use super::Constraint;
use crate::constraints::animated::{backstop, drive, max_distance};
use crate::solver::{Parts, Step, SubstepInfo};

/// The constraints of each particle relative to its animated position.
pub(crate) struct Animated;

impl Constraint for Animated {
    fn name(&self) -> &'static str {
        "animated"
    }

    fn active(&self, step: &Step) -> bool {
        step.animate && step.animation_constraints
    }

    fn on_rows(&self) -> bool {
        true
    }

    fn solve(&self, parts: &mut Parts, step: &Step, _: &SubstepInfo, fresh: bool) {
        let (a, s) = (&parts.state.animation, &mut *parts.scratch);
        let (pose, normal, lambda) = (&s.animation.x, &s.animation.n, &mut s.animation.lambda);
        let inverse_h_sq = 1.0 / (step.h * step.h);
        for (i, row) in s.rows.iter_mut().enumerate() {
            let w = row.w;
            if w == 0.0 {
                continue;
            }
            let mut x = row.truncate();
            if let Some(&alpha) = a.drive_compliance.get(i).filter(|c| c.is_finite()) {
                let l = if fresh { 0.0 } else { lambda[i] };
                lambda[i] = drive(&mut x, pose[i], w, alpha * inverse_h_sq, l);
            }
            if let Some(&d) = a.max_distance.get(i) {
                max_distance(&mut x, pose[i], d);
            }
            if let Some(&r) = a.backstop_radius.get(i).filter(|&&r| r > 0.0) {
                backstop(&mut x, pose[i], normal[i], a.backstop_distance[i], r);
            }
            *row = x.extend(w);
        }
    }
}

/// The animated pose at the end of `substep` (interpolated, or skinned with the joints
/// interpolated), and the kinematic particles (max distance 0) placed on it as pins are.
pub(crate) fn place_pose(parts: &mut Parts, substep: u32, substeps: u32) {
    let (a, s, rest) = (&mut parts.state.animation, &mut *parts.scratch, &parts.model.rest);
    let (pose, normal) = (&mut s.animation.x, &mut s.animation.n);
    match a.skin.as_deref_mut().filter(|skin| skin.posed) {
        Some(skin) if substep + 1 < substeps => {
            skin.matrices_at((substep + 1) as f32 / substeps as f32);
            if a.backstop_radius.is_empty() {
                // Only the backstop reads the normals.
                for (i, &r) in rest.iter().enumerate() {
                    pose[i] = skin.skin_position(i, r);
                }
            } else {
                for (i, &r) in rest.iter().enumerate() {
                    (pose[i], normal[i]) = skin.skin(i, r);
                }
            }
        }
        _ => match a.frame.filter(|f| f.start != f.target && substep + 1 < substeps) {
            // A pose given in a moving reference frame is interpolated in that frame and carried
            // by the frame interpolated (lerp, slerp), so a turning character's pose turns along
            // the arc, as its free particles are carried, not along the chord.
            Some(f) => {
                let s = (substep + 1) as f32 / substeps as f32;
                let (p, q) = (f.start.0.lerp(f.target.0, s), f.start.1.slerp(f.target.1, s).normalize());
                let (qs, qt) = (f.start.1.conjugate(), f.target.1.conjugate());
                for i in 0..pose.len() {
                    let (from, to) = (qs * (a.start[i] - f.start.0), qt * (a.target[i] - f.target.0));
                    pose[i] = q * from.lerp(to, s) + p;
                    normal[i] = (q * (qs * a.normal_start[i]).lerp(qt * a.normal_target[i], s)).normalize_or_zero();
                }
            }
            None => {
                for i in 0..pose.len() {
                    pose[i] = a.position(i, substep, substeps);
                    normal[i] = a.normal(i, substep, substeps);
                }
            }
        },
    }
    for &p in &a.kinematic {
        let row = &mut s.rows[p as usize];
        *row = pose[p as usize].extend(row.w);
    }
}

/// After the strain limit: the max distances and backstops of the step's end pose once more
/// (the strain limit and the contacts may have moved a particle out of them); returns whether any
/// particle moved. The caller turns what moved into velocity as the strain limit does.
pub(crate) fn enforce_limits(parts: &mut Parts) -> bool {
    let (a, s) = (&parts.state.animation, &mut *parts.scratch);
    let (pose, normal) = (&s.animation.x, &s.animation.n);
    let mut moved = false;
    for (i, row) in s.rows.iter_mut().enumerate() {
        if row.w == 0.0 {
            continue;
        }
        let mut x = row.truncate();
        let mut changed = a.max_distance.get(i).is_some_and(|&d| max_distance(&mut x, pose[i], d));
        if let Some(&r) = a.backstop_radius.get(i).filter(|&&r| r > 0.0) {
            changed |= backstop(&mut x, pose[i], normal[i], a.backstop_distance[i], r);
        }
        if changed {
            moved = true;
            *row = x.extend(row.w);
        }
    }
    moved
}
