//! The animated pose (`crate::cloth::animation`): placed for each substep, its kinematic
//! particles moved onto it, and the per-particle constraints relative to it projected
//! (`crate::constraints::animated`): anim drive, max distance, backstop, in that order, so the
//! hard limits have the last word. Each moves only its own particle.

use super::Constraint;
use crate::cloth::animation::Animation;
use crate::constraints::access::SolverParticle;
use crate::constraints::animated::{Limits, backstop_centre, drive};
use crate::solver::{Parts, Step, SubstepInfo};
use glam::{Vec3, Vec3A};

/// The constraints of each particle relative to its animated position.
pub(crate) struct Animated;

impl Constraint for Animated {
    #[cfg(test)]
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
        let (pose, lambda) = (&s.animation.x, &mut s.animation.lambda);
        if !a.drive_compliance.is_empty() {
            // The drive first, in its own pass: each constraint moves only its particle, so the
            // order per particle (drive, then the limits) is all that matters.
            let inverse_h_sq = 1.0 / (step.h * step.h);
            for (((row, &p), &alpha), lambda) in s.rows.iter_mut().zip(pose).zip(&a.drive_compliance).zip(lambda.iter_mut()) {
                if row.w == 0.0 || !alpha.is_finite() {
                    continue;
                }
                let mut x = row.truncate();
                *lambda = drive(&mut x, p.into(), row.w, alpha * inverse_h_sq, if fresh { 0.0 } else { *lambda });
                *row = x.extend(row.w);
            }
        }
        project_limits(&mut s.rows, a, pose, &s.animation.centre);
    }
}

/// Each free particle of `rows`: its max distance from `pose`, then its backstop around
/// `centres` (along the step's end normal where a particle sits at its centre); returns whether
/// any particle moved.
fn project_limits(rows: &mut [SolverParticle], a: &Animation, pose: &[Vec3A], centres: &[Vec3A]) -> bool {
    let limits = Limits { pose, max_distance: &a.max_distance, centres, radius: &a.backstop_radius, normals: &a.normal_target };
    limits.project(rows)
}

/// The animated pose at the end of `substep` and the backstop centres on it, and the kinematic
/// particles (max distance 0) placed on the pose as pins are. The pose: a skinned one carried by
/// each vertex's dominant joint (`crate::cloth::skin`), else lerped from the step's start to its
/// end (in the reference frame when one moves), exactly the end pose at the last substep. The
/// backstop normal in between is the lerp of the start and end normals (or the dominant joint's
/// turn of them), not renormalised: its centre lies up to (b + r)·(1 − cos(θ/2)) nearer the pose
/// than a unit normal's would (θ the normal's turn in the step), none at the step's end.
pub(crate) fn place_pose(parts: &mut Parts, substep: u32, substeps: u32) {
    let (a, s) = (&mut parts.state.animation, &mut *parts.scratch);
    let (pose, centres) = (&mut s.animation.x, &mut s.animation.centre);
    let last = substep + 1 >= substeps;
    let t = (substep + 1) as f32 / substeps as f32;
    let backstops = !a.backstop_radius.is_empty();
    match a.skin.as_deref_mut().filter(|_| a.pose.skinned() && !last) {
        Some(skin) => {
            skin.frames_at(t);
            skin.place(t, pose, backstops.then_some((&mut centres[..], &a.backstop_distance[..], &a.backstop_radius[..])));
        }
        None => match a.frame.filter(|f| f.start != f.target && !last) {
            // A pose given in a moving reference frame is interpolated in that frame and carried
            // by the frame interpolated (lerp, slerp), so a turning character's pose turns along
            // the arc, as its free particles are carried, not along the chord.
            Some(f) => {
                let (p, q) = (f.start.0.lerp(f.target.0, t), f.start.1.slerp(f.target.1, t).normalize());
                let (qs, qt) = (f.start.1.conjugate(), f.target.1.conjugate());
                for i in 0..pose.len() {
                    let (from, to) = (qs * (a.start[i] - f.start.0), qt * (a.target[i] - f.target.0));
                    pose[i] = (q * from.lerp(to, t) + p).into();
                    if backstops {
                        let n: Vec3 = q * (qs * a.normal_start[i]).lerp(qt * a.normal_target[i], t);
                        centres[i] = backstop_centre(pose[i], n.into(), a.backstop_distance[i], a.backstop_radius[i]);
                    }
                }
            }
            None => {
                for (i, p) in pose.iter_mut().enumerate() {
                    *p = a.position(i, substep, substeps).into();
                }
                if backstops {
                    let normals = a.normal_start.iter().zip(&a.normal_target);
                    let offsets = a.backstop_distance.iter().zip(&a.backstop_radius);
                    for ((c, &p), ((&n0, &n1), (&b, &r))) in centres.iter_mut().zip(pose.iter()).zip(normals.zip(offsets)) {
                        let n = if last { n1 } else { n0.lerp(n1, t) };
                        *c = backstop_centre(p, n.into(), b, r);
                    }
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
    let s = &mut *parts.scratch;
    project_limits(&mut s.rows, &parts.state.animation, &s.animation.x, &s.animation.centre)
}
