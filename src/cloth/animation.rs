//! The animated pose a cloth is driven from (docs/design.md, "Character cloth"): per particle an
//! animated position and normal reached by the end of the next step (from the engine, or skinned
//! by the library, `super::skin`), and the per-vertex constraints relative to it: max distance,
//! backstop and anim drive. Until a pose is given the constraints are stored but inactive.

use super::Cloth;
use super::skin::Skin;
use crate::error::ClothError;
use crate::out::Out;
use crate::material::MAX_COMPLIANCE;
use glam::{Quat, Vec3};

/// The animated pose and the constraints relative to it (per particle; module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Animation {
    /// Where the pose comes from (none, positions, the skin) and whether the cloth was put on it.
    pub pose: PoseState,
    /// Pose at the start of the next step and the pose it reaches at its end \[m\]; unit normals
    /// likewise. The rest pose (the mesh as created) until a pose is given.
    pub start: Vec<Vec3>,
    pub target: Vec<Vec3>,
    pub normal_start: Vec<Vec3>,
    pub normal_target: Vec<Vec3>,
    /// Max distance d \[m\] per particle (∞ = none); empty: no max distances.
    pub max_distance: Vec<f32>,
    /// Backstop distance b \[m\] and radius r \[m\] per particle (r = 0: none); empty: none.
    pub backstop_distance: Vec<f32>,
    pub backstop_radius: Vec<f32>,
    /// Anim drive compliance α \[m/N\] per particle (∞ = none); empty: no drive.
    pub drive_compliance: Vec<f32>,
    /// Particles kinematic on the pose (max distance 0 while posed), sorted.
    pub kinematic: Vec<u32>,
    /// The skin binding and joint matrices, when the library skins the pose.
    pub skin: Option<Box<Skin>>,
    /// The reference frame of local-space inertia, once given.
    pub frame: Option<ReferenceFrame>,
}

/// Where the animated pose comes from, and whether the cloth has been put on it (once, when it
/// first had a pose and a per-particle constraint: [`Cloth::put_on_when_worn`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum PoseState {
    /// No pose given: the rest pose, and the per-particle constraints do not act.
    #[default]
    Rest,
    /// Positions given (`set_animated_pose`), or the last skinned pose after the skin was bound
    /// again or removed: the pose lerps from `start` to `target`; particles of max distance 0 are
    /// kinematic.
    Given {
        /// Put on the pose.
        worn: bool,
    },
    /// Joint matrices given for the bound skin since it was bound or positions were last given:
    /// the skin places the pose (`Skin`); as `Given` otherwise. The skin is `Some`.
    Skinned {
        /// Put on the pose.
        worn: bool,
    },
}

impl PoseState {
    /// A pose has been given: the per-particle constraints act.
    #[inline]
    pub fn posed(self) -> bool {
        self != PoseState::Rest
    }

    /// The skin places the pose.
    #[inline]
    pub fn skinned(self) -> bool {
        matches!(self, PoseState::Skinned { .. })
    }

    /// The cloth has been put on its pose.
    pub fn worn(self) -> bool {
        matches!(self, PoseState::Given { worn: true } | PoseState::Skinned { worn: true })
    }

    /// The state after a pose from positions (`skinned` false) or from the skin.
    fn given(self, skinned: bool) -> PoseState {
        let worn = self.worn();
        if skinned { PoseState::Skinned { worn } } else { PoseState::Given { worn } }
    }

    /// Put on its pose (`Rest`, which has none, stays).
    fn put_on(self) -> PoseState {
        match self {
            PoseState::Rest => PoseState::Rest,
            PoseState::Given { .. } => PoseState::Given { worn: true },
            PoseState::Skinned { .. } => PoseState::Skinned { worn: true },
        }
    }

    /// Not placed by the skin any more (it was bound again or removed): the pose it placed last is
    /// the given one.
    pub fn unskinned(self) -> PoseState {
        match self {
            PoseState::Skinned { worn } => PoseState::Given { worn },
            other => other,
        }
    }
}

/// The engine's reference frame (the character's root): its pose at the start of the next step
/// and the pose it reaches by the end, each (position \[m\], unit rotation local → world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ReferenceFrame {
    pub start: (Vec3, Quat),
    pub target: (Vec3, Quat),
}

impl Animation {
    /// Any per-particle constraint is set (they act only while `posed`).
    pub fn constrains(&self) -> bool {
        !self.max_distance.is_empty() || !self.backstop_radius.is_empty() || !self.drive_compliance.is_empty()
    }

    /// The pose at the end of substep `substep` (0-based) of `substeps`: lerp(start, target, s) with
    /// s = (i + 1)/n, exactly the target at the last substep, with the same operations as a pin's
    /// target (`Pins::position`), so a particle of max distance 0 moves as a pinned one would.
    #[inline]
    pub fn position(&self, i: usize, substep: u32, substeps: u32) -> Vec3 {
        if substep + 1 >= substeps {
            self.target[i]
        } else {
            let s = (substep + 1) as f32 / substeps as f32;
            self.start[i] + (self.target[i] - self.start[i]) * s
        }
    }

    /// After a step: the pose reached becomes the next start.
    pub fn finish_step(&mut self) {
        self.start.copy_from_slice(&self.target);
        self.normal_start.copy_from_slice(&self.normal_target);
        if let Some(skin) = &mut self.skin {
            skin.finish_step();
        }
    }

    /// How far the pose may pull a particle of `x` (the positions the next step starts from, m) in
    /// the next step, for the explosion guard's bound: the largest move of a pose point from the
    /// step's start to its end (tethers anchored on kinematic particles drag that far), and for
    /// every particle that follows the pose (a finite max distance, kinematic at 0, a finite anim
    /// drive or a backstop) its distance to the pose point it is pulled to, as a pin's move is
    /// counted from the particle. 0 before a pose.
    pub fn largest_pull(&self, x: &[Vec3]) -> f32 {
        if !self.pose.posed() {
            return 0.0;
        }
        let follows = |i: usize| {
            self.max_distance.get(i).is_some_and(|d| d.is_finite())
                || self.drive_compliance.get(i).is_some_and(|c| c.is_finite())
                || self.backstop_radius.get(i).is_some_and(|&r| r > 0.0)
        };
        let points = self.start.iter().zip(&self.target).zip(x).enumerate();
        let pull = |(i, ((s, t), x)): (usize, ((&Vec3, &Vec3), &Vec3))| match follows(i) {
            true => s.distance(*t).max(x.distance(*t)),
            false => s.distance(*t),
        };
        points.map(pull).fold(0.0, f32::max)
    }

    /// Move the pose by the rigid transform x ← q·x + t (a teleport of the cloth).
    pub fn teleport(&mut self, q: Quat, t: Vec3) {
        for x in self.start.iter_mut().chain(self.target.iter_mut()) {
            *x = q * *x + t;
        }
        for n in self.normal_start.iter_mut().chain(self.normal_target.iter_mut()) {
            *n = q * *n;
        }
        if let Some(skin) = &mut self.skin {
            skin.teleport(q, t);
        }
        if let Some(frame) = &mut self.frame {
            for (p, r) in [&mut frame.start, &mut frame.target] {
                (*p, *r) = (q * *p + t, (q * *r).normalize());
            }
        }
    }

    /// The largest distance \[m\] the frame's carry moves a particle of `x` in the next step
    /// (translation plus rotation angle × distance from the frame), for the explosion guard.
    pub fn largest_carry(&self, x: &[Vec3]) -> f32 {
        let Some(f) = self.frame else { return 0.0 };
        let angle = (f.target.1 * f.start.1.conjugate()).normalize().to_axis_angle().1.abs();
        let reach = x.iter().map(|p| p.distance(f.start.0)).fold(0.0f32, f32::max);
        f.start.0.distance(f.target.0) + angle.min(std::f32::consts::PI) * reach
    }
}

/// One value per particle from `values` in render order (`f32 × vertex_count`), each accepted by
/// `valid`; welded copies of a vertex must agree. Errors: `BufferSizeMismatch`,
/// `InvalidParameter` named `name` (a value `valid` rejects, or copies that differ).
fn per_particle(cloth: &Cloth, values: &[f32], name: &'static str, expected: &'static str, valid: impl Fn(f32) -> bool) -> Result<Vec<f32>, ClothError> {
    let map = &cloth.model.particle_of_vertex;
    if values.len() != map.len() {
        return Err(ClothError::BufferSizeMismatch { expected: map.len(), got: values.len() });
    }
    let mut out = vec![f32::NAN; cloth.model.particle_count()];
    for (&value, &p) in values.iter().zip(map) {
        if !valid(value) {
            return Err(ClothError::InvalidParameter { name, value: value as f64, expected });
        }
        let slot = &mut out[p as usize];
        if !slot.is_nan() && slot.to_bits() != value.to_bits() {
            let expected = "the same value for every welded copy of a vertex";
            return Err(ClothError::InvalidParameter { name, value: value as f64, expected });
        }
        *slot = value;
    }
    Ok(out)
}

impl Cloth {
    /// The animated pose the cloth is driven from, reached by the end of the next step and
    /// interpolated over its substeps (linearly, like pin targets): `positions` \[m\] in render
    /// order (`[f32; 3] × vertex_count`) and optional unit `normals` (`[f32; 3] × vertex_count`,
    /// normalised here; `None`: the area-weighted normals of the animated positions, as the cloth's
    /// own). The first pose is taken as the start too (no interpolation from the rest pose), and
    /// a cloth with max distances, backstops or an anim drive is put on it: every particle not
    /// pinned at its animated position, at rest, as by a teleport (so is a posed cloth when the
    /// first of them is set; docs/design.md, "Character cloth"). Welded
    /// copies share a particle: the last copy's values win. Replaces a skin's pose until the next
    /// [`Cloth::set_joint_matrices`]. Costs O(vertices), no rebuild (unless the pose switches on
    /// kinematic vertices of max distance 0 for the first time: tethers are rebuilt as for pins).
    ///
    /// Errors: `BufferSizeMismatch` (either length), `NonFiniteTarget` (a position NaN, infinite or
    /// beyond ±1e5 m, or a normal not finite; `position` is the vertex); state unchanged on error.
    pub fn set_animated_pose(&mut self, positions: &[[f32; 3]], normals: Option<&[[f32; 3]]>) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let model = std::sync::Arc::clone(&self.model);
        let map = &model.particle_of_vertex;
        for buffer in std::iter::once(positions).chain(normals) {
            if buffer.len() != map.len() {
                return Err(ClothError::BufferSizeMismatch { expected: map.len(), got: buffer.len() });
            }
        }
        if let Some(k) = positions.iter().position(|p| !crate::mesh::is_valid_point(p)) {
            return Err(ClothError::NonFiniteTarget { position: k as u32 });
        }
        if let Some(k) = normals.and_then(|n| n.iter().position(|p| !p.iter().all(|c| c.is_finite()))) {
            return Err(ClothError::NonFiniteTarget { position: k as u32 });
        }
        self.prepare_animation();
        let a = &mut self.state.animation;
        let mut moved = !a.pose.posed();
        for (p, &i) in positions.iter().zip(map) {
            let p = Vec3::from_array(*p);
            moved |= a.target[i as usize] != p;
            a.target[i as usize] = p;
        }
        if moved {
            self.wake(); // a pose that moves; the same pose every frame lets the cloth sleep
        }
        let a = &mut self.state.animation;
        match normals {
            Some(normals) => {
                for (n, &i) in normals.iter().zip(map) {
                    a.normal_target[i as usize] = Vec3::from_array(*n).normalize_or_zero();
                }
            }
            None => area_weighted_normals(&a.target, &model.triangles, &mut a.normal_target),
        }
        self.pose_given(false);
        Ok(())
    }

    /// Per-vertex max distance d \[m\] (`f32 × vertex_count`, render order, each ≥ 0, ∞ allowed for
    /// none; welded copies must agree), or `None` to clear: after every step each particle lies
    /// within d of its animated position (a hard inequality ‖x − a‖ ≤ d, projected in every
    /// iteration and once more at the end of the step, after the strain limit and the contacts).
    /// d = 0 makes the particle kinematic on the pose (inverse mass 0, moved like a pin, anchoring
    /// tethers like one). Changing values costs O(vertices); changing which vertices have d = 0
    /// rebuilds the tethers and constraint order as pinning does.
    ///
    /// Errors: `BufferSizeMismatch`, `InvalidParameter` (`max_distances`: NaN or negative, or
    /// welded copies that differ); state unchanged on error.
    pub fn set_max_distances(&mut self, distances: Option<&[f32]>) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let values = match distances {
            Some(d) => per_particle(self, d, "max_distances", "a distance >= 0 m (infinity: none)", |d| d >= 0.0)?,
            None => Vec::new(),
        };
        self.prepare_animation();
        self.wake();
        self.state.animation.max_distance = values;
        self.refresh_kinematic();
        self.put_on_when_worn();
        Ok(())
    }

    /// Per-vertex backstop (render order, `f32 × vertex_count` each; welded copies must agree), or
    /// `None` to clear: distance b \[m\] (finite, within ±1e5) and radius r \[m\] (0 ≤ r ≤ 1e5; 0 =
    /// none). The particle stays outside the sphere of radius r centred at a − (b + r)·n behind
    /// its animated position a and normal n, so it never passes behind the body surface. Hard,
    /// projected in every iteration and once more at the end of the step. O(vertices).
    ///
    /// Errors: `BufferSizeMismatch`, `InvalidParameter` (`backstop_distances`,
    /// `backstop_radii`); state unchanged on error.
    pub fn set_backstops(&mut self, backstops: Option<(&[f32], &[f32])>) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let m = crate::mesh::MAX_COORDINATE;
        let (distance, radius) = match backstops {
            Some((b, r)) => (
                per_particle(self, b, "backstop_distances", "a finite distance within +-1e5 m", |b| b.abs() <= m)?,
                per_particle(self, r, "backstop_radii", "a radius 0 <= r <= 1e5 m", |r| (0.0..=m).contains(&r))?,
            ),
            None => (Vec::new(), Vec::new()),
        };
        self.prepare_animation();
        self.wake();
        let a = &mut self.state.animation;
        (a.backstop_distance, a.backstop_radius) = (distance, radius);
        self.put_on_when_worn();
        Ok(())
    }

    /// Per-vertex anim drive compliance α \[m/N\] (`f32 × vertex_count`, render order, 0 ≤ α ≤ 1e20
    /// or ∞ for none; welded copies must agree), or `None` to clear: a soft attachment
    /// C = ‖x − a‖ projected with the XPBD update (Macklin et al. 2016, eq. 18) in every iteration,
    /// so a stiffness that means the same at any Δt and substep count (a particle of mass m under
    /// gravity g hangs α·m·g below its pose). O(vertices).
    ///
    /// Errors: `BufferSizeMismatch`, `InvalidParameter` (`anim_drive_compliances`); state
    /// unchanged on error.
    pub fn set_anim_drive(&mut self, compliances: Option<&[f32]>) -> Result<(), ClothError> {
        // Residual statistics read neither the pose nor these values: nothing to settle (the
        // kinematic set's relayout settles them itself); the default floating-point mode only.
        let _fp = crate::fp_env::DefaultFpEnv::enter();
        let values = match compliances {
            Some(c) => per_particle(self, c, "anim_drive_compliances", "a compliance 0 <= alpha <= 1e20 m/N (infinity: none)", |c| {
                (0.0..=MAX_COMPLIANCE).contains(&c) || c == f32::INFINITY
            })?,
            None => Vec::new(),
        };
        self.prepare_animation();
        self.wake();
        self.state.animation.drive_compliance = values;
        self.put_on_when_worn();
        Ok(())
    }

    /// The animated pose the next step reaches, in render order (`[f32; 3] × vertex_count`, m):
    /// the last pose given or skinned, the mesh as created before any. Errors: `BufferSizeMismatch`.
    pub fn read_animated_positions<'o>(&self, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        match self.state.animation.target.is_empty() {
            true => self.gather(&self.model.rest, out.into()),
            false => self.gather(&self.state.animation.target, out.into()),
        }
    }

    /// The animated pose's unit normals, as [`Cloth::read_animated_positions`] (the rest mesh's
    /// area-weighted normals before any pose). Errors: `BufferSizeMismatch`.
    pub fn read_animated_normals<'o>(&self, out: impl Into<Out<'o, [f32; 3]>>) -> Result<(), ClothError> {
        let out = out.into();
        if self.state.animation.normal_target.is_empty() {
            let mut normals = vec![Vec3::ZERO; self.model.particle_count()];
            area_weighted_normals(&self.model.rest, &self.model.triangles, &mut normals);
            return self.gather(&normals, out);
        }
        self.gather(&self.state.animation.normal_target, out)
    }

    /// The reference frame of local-space inertia (the character's root) reached by the end of the
    /// next step: `position` \[m\] (each component finite within ±1e5) and `rotation` local → world
    /// (unit quaternion `[x, y, z, w]`, length 1 ± 1e-3, renormalised); the first call is the start
    /// too. With `linear_inertia` / `angular_inertia` below 1 the free particles are carried,
    /// each substep, by that share of the frame's motion over it (docs/design.md, "Character
    /// cloth"). Errors: `InvalidParameter` (`position`, `rotation`); unchanged on error.
    pub fn set_reference_frame(&mut self, position: [f32; 3], rotation: [f32; 4]) -> Result<(), ClothError> {
        let m = crate::mesh::MAX_COORDINATE;
        for c in position {
            crate::error::check_range("position", c, -m, m, "finite m within +-1e5 per component")?;
        }
        let q = crate::error::check_unit_quaternion("rotation", rotation)?;
        let pose = (Vec3::from_array(position), q);
        let a = &mut self.state.animation;
        let moved = match &mut a.frame {
            Some(frame) => std::mem::replace(&mut frame.target, pose) != pose,
            None => {
                a.frame = Some(ReferenceFrame { start: pose, target: pose });
                false
            }
        };
        if moved {
            self.wake(); // a frame that moves carries the cloth
        }
        Ok(())
    }

    /// The pose buffers and the solver's, sized (the rest pose) the first time anything of the
    /// animation is set, so no step allocates.
    pub(crate) fn prepare_animation(&mut self) {
        let n = self.model.particle_count();
        let a = &mut self.state.animation;
        if a.start.len() != n {
            a.start = self.model.rest.clone();
            a.target = self.model.rest.clone();
            a.normal_target = vec![Vec3::ZERO; n];
            area_weighted_normals(&self.model.rest, &self.model.triangles, &mut a.normal_target);
            a.normal_start = a.normal_target.clone();
        }
        self.scratch.animation.fit(n);
    }

    /// A pose was written into `target`, by the skin (`skinned`) or from positions: the first one
    /// is the start too; kinematic particles follow; a cloth worn for the first time is put on it
    /// ([`Cloth::put_on_when_worn`]).
    pub(crate) fn pose_given(&mut self, skinned: bool) {
        let a = &mut self.state.animation;
        let first = !a.pose.posed();
        a.pose = a.pose.given(skinned);
        if first {
            self.drive.from_set = false;
            let a = &mut self.state.animation;
            a.start.copy_from_slice(&a.target);
            a.normal_start.copy_from_slice(&a.normal_target);
            self.put_on_when_worn();
            self.refresh_kinematic();
        }
    }

    /// The first time the cloth has both a pose and a per-vertex constraint relative to it (max
    /// distance, backstop or anim drive, whichever comes last): every particle that is not
    /// pinned is put at its animated position, all at rest (velocities 0, the substep's previous
    /// positions on them), then as after a teleport ([`Cloth::moved_externally`]). An engine may create a worn cloth from bind-pose data at the origin and spawn the
    /// character anywhere; the cloth starts on the character instead of being dragged there in
    /// one step. Pinned particles stay at their pins (the caller placed them); a pose without
    /// constraints acts on nothing and moves nothing.
    pub(crate) fn put_on_when_worn(&mut self) {
        let a = &mut self.state.animation;
        if a.pose.worn() || !a.pose.posed() || !a.constrains() {
            return;
        }
        a.pose = a.pose.put_on();
        self.settle_stats();
        let p = &mut self.state;
        let mut pinned = vec![false; p.x.len()];
        for &i in &p.pins.particles {
            pinned[i as usize] = true;
        }
        for ((x, &a), pinned) in p.x.iter_mut().zip(&p.animation.target).zip(pinned) {
            if !pinned {
                *x = a;
            }
        }
        p.v.fill(Vec3::ZERO);
        // The particles are on the pose given last: the next step starts its pose there.
        let a = &mut p.animation;
        a.start.copy_from_slice(&a.target);
        a.normal_start.copy_from_slice(&a.normal_target);
        if let Some(skin) = a.skin.as_deref_mut().filter(|_| a.pose.skinned()) {
            skin.finish_step();
        }
        self.scratch.x_prev.copy_from_slice(&p.x);
        self.moved_externally();
    }

    /// The kinematic particles (max distance 0 while posed, not pinned); when they change, the
    /// inverse masses and the layout (tethers anchor on them) follow.
    fn refresh_kinematic(&mut self) {
        let a = &self.state.animation;
        let kinematic: Vec<u32> = match a.pose.posed() {
            true => (0..a.max_distance.len() as u32).filter(|&p| a.max_distance[p as usize] == 0.0).collect(),
            false => Vec::new(),
        };
        if kinematic != a.kinematic {
            self.settle_stats();
            self.state.animation.kinematic = kinematic;
            self.refresh_inverse_masses();
            self.relayout(1);
        }
    }
}

/// Area-weighted unit normals per particle of the pose `x` \[m\] (as the cloth's own normals:
/// the sum of the adjacent triangles' unnormalised normals, normalised; zero without triangles).
pub(crate) fn area_weighted_normals(x: &[Vec3], triangles: &[[u32; 3]], out: &mut [Vec3]) {
    out.fill(Vec3::ZERO);
    for t in triangles {
        let [a, b, c] = t.map(|i| x[i as usize]);
        let n = (b - a).cross(c - a);
        for &i in t {
            out[i as usize] += n;
        }
    }
    for n in out.iter_mut() {
        *n = n.normalize_or_zero();
    }
}

#[cfg(test)]
mod tests {
    use super::PoseState;

    /// Being worn carries across positions and the skin; a skin bound again or removed leaves
    /// the pose it placed last as the given one; the rest pose is neither posed, skinned nor worn.
    #[test]
    fn pose_states_carry_worn_across_their_sources() {
        let rest = PoseState::Rest;
        assert!(!rest.posed() && !rest.skinned() && !rest.worn());
        assert_eq!((rest.put_on(), rest.unskinned()), (rest, rest));
        let skinned = rest.given(true);
        assert_eq!(skinned, PoseState::Skinned { worn: false });
        let worn = skinned.put_on();
        assert!(worn.posed() && worn.skinned() && worn.worn());
        assert_eq!(worn.given(false), PoseState::Given { worn: true });
        assert_eq!(worn.unskinned(), PoseState::Given { worn: true });
        assert_eq!(PoseState::Given { worn: false }.unskinned(), PoseState::Given { worn: false });
        assert_eq!(PoseState::Given { worn: true }.given(true), PoseState::Skinned { worn: true });
    }
}
