//! Rebuilding the constraint layout after the anchors change (pins, max distance 0, a snapshot's
//! pins, the tether setting), off the caller's thread. The change itself (which particles are
//! anchors, their inverse mass 0) takes effect at once; the layout that goes with it (tethers to
//! the new anchors, the edges ordered outward from them) is built from the inputs of that moment
//! by the world's layout thread (`layout_thread`, low priority, so that it takes the time the steps
//! leave) and put in place at the start of a later step, counted in steps: for a pin change the
//! [`LAYOUT_DELAY_STEPS`]-th step after it (the steps before keep the layout in place, with the
//! new anchors held by their inverse mass 0), for the other changes the next step. That step
//! waits for the build if it is not done (a small cloth builds it at once). Whatever thread
//! builds it and whenever it finishes, the layout is the one an immediate rebuild would give (the
//! same function of the same inputs) and the step that puts it in place is fixed, so the bits do
//! not depend on timing or thread count (docs/design.md, "Pins"). The layout thread is the world's
//! own, joined when it is destroyed: no thread outlives the world.

pub(crate) mod layout_thread;

use super::Cloth;
use super::config::ClothConfig;
use super::model::ClothModel;
use super::scratch::StrainLimitScratch;
use crate::constraints::layout::{ConstraintLayout, LayoutOptions};
use crate::fp_env::DefaultFpEnv;
use glam::Vec3;
use layout_thread::LayoutThread;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

/// Fewest stretch and bending constraints (edges + hinges) of a cloth whose layout is built by the
/// world's layout thread (or by the step that needs it); a smaller cloth's is built during the
/// call (≈0.2 ms at this size: docs/dev/performance-log.md, "2026-12-06 — The frame loop under a
/// game"), still put in place by the same step.
pub const BACKGROUND_MIN_CONSTRAINTS: usize = 1_000;

/// Steps after a pin change whose start puts its layout in place: the steps before keep the layout
/// in place (its new anchors already held by inverse mass 0, not yet tethered), so that the build
/// has three steps' time on the layout thread (50 ms at 60 Hz) and neither the call nor the steps
/// right after wait for it; a layout thread that did not get the time is not waited for either:
/// the due step builds the layout itself.
pub const LAYOUT_DELAY_STEPS: u32 = 4;

/// A layout with what is stored in its order: compliances, the limits derived from them, and the
/// multipliers carried over from the previous layout.
#[derive(Clone, Debug)]
pub(crate) struct Relaid {
    layout: Arc<ConstraintLayout>,
    /// The compliances and limits of the new order (the other fields are not used).
    config: ClothConfig,
    stretch_lambda: Vec<f32>,
    bend_lambda: Vec<f32>,
    tether_lambda: Vec<f32>,
    strain_limit: StrainLimitScratch,
}

/// What a layout is built from, copied when the anchors change.
#[derive(Debug)]
struct Inputs {
    model: Arc<ClothModel>,
    /// The layout in place: its bending order is kept, its multipliers followed.
    previous: Arc<ConstraintLayout>,
    /// Inverse masses \[1/kg\] with the new anchors at 0, and positions \[m\], per particle.
    w: Vec<f32>,
    x: Vec<Vec3>,
    options: LayoutOptions,
    /// Parameters and free inverse masses, for the compliances and limits.
    config: ClothConfig,
    /// The multipliers in `previous`' order.
    stretch_lambda: Vec<f32>,
    bend_lambda: Vec<f32>,
    /// A tearable cloth's limits: the new layout gets their room (`cloth::tear`).
    tear_limits: Option<super::tear::work::TearLimits>,
}

impl Inputs {
    fn build(&self) -> Relaid {
        // The layout's arithmetic in the default mode, whichever thread runs it.
        let _fp = DefaultFpEnv::enter();
        let layout = ConstraintLayout::build_after(Some(&self.previous), &self.model.constraints, &self.w, &self.x, self.options);
        let previous = Previous { layout: &self.previous, stretch_lambda: &self.stretch_lambda, bend_lambda: &self.bend_lambda };
        Relaid::new(&self.model, layout, self.config.clone(), Some(previous), self.w.len(), self.tear_limits.as_ref())
    }
}

/// The layout a new one replaces, with its multipliers (in its order).
pub(crate) struct Previous<'a> {
    pub layout: &'a ConstraintLayout,
    pub stretch_lambda: &'a [f32],
    pub bend_lambda: &'a [f32],
}

impl Relaid {
    /// `layout` (of `model`'s mesh) with what is stored in its order: the compliances and limits
    /// derived from `config` (a [`ClothConfig::limits_only`] copy), the stretch and bending
    /// multipliers of `previous` followed to their constraints (0 without one), the tethers' at 0
    /// (new tethers), the strain limit's buffers for `particles`, and a tearable cloth's room for
    /// its cuts (`tear_limits`). Every path that replaces a layout goes through here and
    /// [`Cloth::install`].
    pub(crate) fn new(
        model: &ClothModel,
        mut layout: ConstraintLayout,
        mut config: ClothConfig,
        previous: Option<Previous<'_>>,
        particles: usize,
        tear_limits: Option<&super::tear::work::TearLimits>,
    ) -> Relaid {
        config.derive_compliances(model, &layout);
        let (stretch_lambda, bend_lambda) = match previous {
            Some(p) => (
                follow(p.stretch_lambda, &p.layout.edge_creation, &layout.edge_creation),
                follow(p.bend_lambda, &p.layout.hinge_creation, &layout.hinge_creation),
            ),
            None => (vec![0.0; layout.stretch.edges().len()], vec![0.0; layout.bending.hinges().len()]),
        };
        let mut tether_lambda = vec![0.0; layout.tethers.particle().len()];
        let mut strain_limit = StrainLimitScratch::sized(layout.stretch.edges().len(), particles);
        let mut stretch_lambda = stretch_lambda;
        if let Some(l) = tear_limits {
            // The room a cut needs, here, where allocating is fine (not in the step that settles it).
            super::tear::reserve_relaid(&mut layout, &mut stretch_lambda, &mut tether_lambda, &mut strain_limit, &mut config.stretch_compliance, l);
        }
        Relaid { layout: Arc::new(layout), config, stretch_lambda, bend_lambda, tether_lambda, strain_limit }
    }
}

/// A layout being built: by the layout thread, or by whoever needs it first, whichever finishes
/// first (the same layout either way). The layout thread holds only the inputs while it builds
/// (and the pending layout itself just to hand its result over), so the cloth owns this alone.
#[derive(Debug)]
pub(crate) struct PendingLayout {
    inputs: Arc<Inputs>,
    built: OnceLock<Relaid>,
    /// A layout the layout thread built, until the cloth takes it into `built`.
    delivered: Mutex<Option<Relaid>>,
}

impl PendingLayout {
    fn new(inputs: Inputs) -> PendingLayout {
        PendingLayout { inputs: Arc::new(inputs), built: OnceLock::new(), delivered: Mutex::new(None) }
    }

    /// The layout: the layout thread's if it has delivered it, else built now on this thread (a
    /// build under way on the layout thread is not waited for: that thread has a low priority,
    /// and a step must not wait for it to be scheduled).
    pub(crate) fn get(&self) -> &Relaid {
        self.built.get_or_init(|| {
            let delivered = self.delivered.lock().unwrap_or_else(PoisonError::into_inner).take();
            delivered.unwrap_or_else(|| self.inputs.build())
        })
    }
}

/// On the layout thread: build the layout of `pending` from its inputs, holding the pending layout
/// only to read them and to hand the result over, unless it is built or no longer wanted.
fn build_in_background(pending: &Weak<PendingLayout>) {
    let Some(inputs) = pending.upgrade().filter(|p| p.built.get().is_none()).map(|p| Arc::clone(&p.inputs)) else { return };
    let relaid = inputs.build();
    if let Some(p) = pending.upgrade().filter(|p| p.built.get().is_none()) {
        *p.delivered.lock().unwrap_or_else(PoisonError::into_inner) = Some(relaid);
    }
}

/// A cloth's pending layout, if any, the steps until it is put in place, and the layout thread of
/// the world the cloth is in, which builds it. A copy of the cloth gets its own copy of the
/// pending layout (built first) due at the same step, so that only the layout thread ever shares
/// it.
#[derive(Default)]
pub(crate) struct PendingSlot {
    pending: Option<Arc<PendingLayout>>,
    /// Steps to begin until the pending layout is put in place (at the start of the last of them).
    steps_left: u32,
    /// The world's layout thread (none once the world is gone, or for a cloth taken out of it).
    pub builder: Weak<LayoutThread>,
}

impl std::fmt::Debug for PendingSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingSlot").field("pending", &self.pending).field("steps_left", &self.steps_left).finish_non_exhaustive()
    }
}

impl Clone for PendingSlot {
    fn clone(&self) -> Self {
        let pending = self.pending.as_ref().map(|p| {
            let built = OnceLock::from(p.get().clone());
            let i = &p.inputs;
            let inputs = Inputs {
                model: i.model.clone(),
                previous: i.previous.clone(),
                w: Vec::new(),
                x: Vec::new(),
                options: i.options,
                config: i.config.clone(),
                stretch_lambda: Vec::new(),
                bend_lambda: Vec::new(),
                tear_limits: None,
            };
            Arc::new(PendingLayout { inputs: Arc::new(inputs), built, delivered: Mutex::new(None) })
        });
        PendingSlot { pending, steps_left: self.steps_left, builder: self.builder.clone() }
    }
}

/// What the cloth's constraints are once the pending layout is in place: the layout in place, or
/// the pending one (waited for).
pub(crate) struct InEffect<'a> {
    pub layout: &'a ConstraintLayout,
    pub config: &'a ClothConfig,
    pub stretch_lambda: &'a [f32],
    pub bend_lambda: &'a [f32],
    pub tether_lambda: &'a [f32],
}

impl Cloth {
    /// Build the layout again for the current anchors, colouring and tether setting (after pins
    /// or settings changed; never during a step), with the multipliers and compliances to match,
    /// to be put in place at the start of the `delay`-th step from now (1: the next step;
    /// [`LAYOUT_DELAY_STEPS`] for a pin change): for a cloth of at least
    /// [`BACKGROUND_MIN_CONSTRAINTS`] by the world's layout thread (or by whoever needs it first),
    /// otherwise now. A change back to the anchors and options of the layout in place cancels the
    /// pending one.
    pub(crate) fn relayout(&mut self, delay: u32) {
        let options = LayoutOptions { coloured: self.config.colouring, tethers: self.config.params.enable_tethers };
        if self.layout.options == options && self.layout.built_for(&self.config.w) {
            self.pending.pending = None; // back to the anchors of the layout in place
            return;
        }
        let inputs = Inputs {
            model: self.model.clone(),
            previous: self.layout.clone(),
            w: self.config.w.clone(),
            x: self.state.x.clone(),
            options,
            config: self.config.limits_only(),
            stretch_lambda: self.scratch.stretch_lambda.clone(),
            bend_lambda: self.scratch.bend_lambda.clone(),
            tear_limits: self.tear_limits(),
        };
        let pending = Arc::new(PendingLayout::new(inputs));
        let constraints = self.model.constraints.edges.len() + self.model.constraints.hinges.len();
        self.pending.pending = Some(pending.clone());
        self.pending.steps_left = delay.max(1);
        // A cloth that has not stepped is being set up (a level load): built now, so that its
        // first step neither waits nor shares the machine with a build.
        let setting_up = self.output.last_substep == 0.0;
        match self.pending.builder.upgrade().filter(|_| constraints >= BACKGROUND_MIN_CONSTRAINTS && !setting_up) {
            // The job holds a weak reference: a layout superseded before the job starts is never
            // built. A panic stays in the job (the step that needs the layout builds it again and
            // reports it there).
            Some(builder) => builder.build(Arc::downgrade(&pending)),
            // No world (a cloth taken out of it), or a small cloth: built now.
            None => drop(pending.get()),
        }
    }

    /// At the start of a step: count it, and put the pending layout in place if this is its step.
    pub(crate) fn layout_for_step(&mut self) {
        if self.pending.pending.is_some() {
            self.pending.steps_left = self.pending.steps_left.saturating_sub(1);
            if self.pending.steps_left == 0 {
                self.settle_layout();
            }
        }
    }

    /// Put the pending layout in place now, built first if it is not (at its step, and before
    /// anything that changes what it was built from or is stored in its order). Allocates nothing
    /// once it is built.
    pub(crate) fn settle_layout(&mut self) {
        let Some(mut pending) = self.pending.pending.take() else { return };
        pending.get();
        // Built. The layout thread holds the pending layout only for the moment it takes its
        // inputs or hands its result over: wait for that moment to pass.
        let relaid = loop {
            match Arc::try_unwrap(pending) {
                Ok(p) => break p.built.into_inner().expect("built above"),
                Err(shared) => {
                    pending = shared;
                    std::thread::yield_now();
                }
            }
        };
        self.install(relaid);
    }

    /// Make `relaid` the cloth's layout, with its compliances, limits, multipliers and strain
    /// limit buffers; a ramp in progress blends the compliances and limits as before (in the new
    /// order).
    pub(crate) fn install(&mut self, relaid: Relaid) {
        let Relaid { layout, config, stretch_lambda, bend_lambda, tether_lambda, strain_limit } = relaid;
        self.layout = layout;
        let c = &mut self.config;
        (c.stretch_compliance, c.bend_compliance) = (config.stretch_compliance, config.bend_compliance);
        (c.compliance_strain, c.tether_factor, c.stretch_limit) = (config.compliance_strain, config.tether_factor, config.stretch_limit);
        c.apply_ramp(&self.layout);
        let s = &mut self.scratch;
        (s.stretch_lambda, s.bend_lambda, s.tether_lambda, s.strain_limit) = (stretch_lambda, bend_lambda, tether_lambda, strain_limit);
    }

    /// The constraints, compliances and multipliers as they are once the pending layout is in
    /// place (the layout in place when none is pending).
    pub(crate) fn in_effect(&self) -> InEffect<'_> {
        match &self.pending.pending {
            Some(p) => {
                let r = p.get();
                InEffect { layout: &r.layout, config: &r.config, stretch_lambda: &r.stretch_lambda, bend_lambda: &r.bend_lambda, tether_lambda: &r.tether_lambda }
            }
            None => {
                let s = &self.scratch;
                InEffect { layout: &self.layout, config: &self.config, stretch_lambda: &s.stretch_lambda, bend_lambda: &s.bend_lambda, tether_lambda: &s.tether_lambda }
            }
        }
    }

    /// Whether a layout is pending (built or not), for tests.
    #[cfg(test)]
    pub(crate) fn layout_pending(&self) -> bool {
        self.pending.pending.is_some()
    }
}

/// `values` (one per constraint stored in creation order `old`) stored in creation order `new`.
pub(crate) fn follow(values: &[f32], old: &[u32], new: &[u32]) -> Vec<f32> {
    let mut by_creation = vec![0.0; values.len()];
    for (&c, &v) in old.iter().zip(values) {
        by_creation[c as usize] = v;
    }
    new.iter().map(|&c| by_creation[c as usize]).collect()
}

#[cfg(test)]
mod tests {
    use super::BACKGROUND_MIN_CONSTRAINTS;
    use crate::cloth::{Cloth, ClothDesc};
    use crate::constraints::layout::{ConstraintLayout, LayoutOptions};
    use crate::{World, WorldDesc};

    /// A 48 × 48 grid (above [`BACKGROUND_MIN_CONSTRAINTS`]: its layouts are built by the layout
    /// thread) with tethers, taken out of a world of two threads (kept, so that its layout thread
    /// lives).
    fn cloth() -> (World, Cloth) {
        let (positions, indices) = crate::test_util::grid(48, 0.05, 0.0);
        let mut desc = ClothDesc::new(&positions, &indices);
        desc.params.enable_tethers = true;
        let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
        let handle = world.add_cloth(&desc).unwrap();
        let cloth = world.remove_cloth(handle).unwrap();
        let constraints = cloth.model.constraints.edges.len() + cloth.model.constraints.hinges.len();
        assert!(constraints >= BACKGROUND_MIN_CONSTRAINTS, "{constraints}");
        (world, cloth)
    }

    /// Every stored array of two layouts, bit for bit.
    fn assert_same(a: &ConstraintLayout, b: &ConstraintLayout) {
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
        assert_eq!(a.stretch.edges(), b.stretch.edges());
        assert_eq!(bits(a.stretch.rest_length()), bits(b.stretch.rest_length()));
        assert_eq!(a.stretch.colour_start(), b.stretch.colour_start());
        assert_eq!(a.bending.hinges(), b.bending.hinges());
        assert_eq!(bits(a.bending.rest_angle()), bits(b.bending.rest_angle()));
        assert_eq!(a.bending.colour_start(), b.bending.colour_start());
        assert_eq!((&a.edge_creation, &a.hinge_creation), (&b.edge_creation, &b.hinge_creation));
        assert_eq!((&a.particle_edge_start, &a.particle_edges), (&b.particle_edge_start, &b.particle_edges));
        let (s, t) = (&a.tethers, &b.tethers);
        assert_eq!((s.particle(), s.anchor(), s.full_groups_end()), (t.particle(), t.anchor(), t.full_groups_end()));
        assert_eq!(bits(s.geodesic_distance()), bits(t.geodesic_distance()));
        assert_eq!(a.options, b.options);
    }

    /// After pin changes (pinning, superseding a pending layout, releasing), the layout put in
    /// place and the values stored in its order equal a layout built from nothing for the same
    /// anchors and pose (no bending order kept, no earlier layout), with the multipliers carried
    /// over by creation index, as a rebuild on the spot gives them.
    #[test]
    fn a_pending_layout_equals_one_built_from_scratch() {
        let (_world, mut cloth) = cloth();
        let lambda: Vec<f32> = (0..cloth.scratch.stretch_lambda.len()).map(|k| k as f32 * 1e-3).collect();
        cloth.scratch.stretch_lambda.copy_from_slice(&lambda);
        let before = cloth.layout.clone();
        cloth.set_pinned(&[0, 47, 2000], None).unwrap();
        cloth.unpin(&[2000]).unwrap(); // supersedes the first pending layout
        cloth.set_pinned(&[1200], Some(&[[1.0, 0.5, 0.25]])).unwrap();
        assert!(cloth.pending.pending.is_some(), "a large cloth's layout is pending");
        assert!(cloth.layout.tethers.particle().is_empty(), "the layout in place is the old one until the step");
        // What the views show already (they wait for the pending layout).
        let viewed = cloth.tether_constraints().particle.to_vec();
        cloth.settle_layout();
        assert!(cloth.pending.pending.is_none());
        assert_eq!(viewed, cloth.layout.tethers.particle());
        assert_eq!(cloth.pinned_particles(), [0, 47, 1200]);

        let options = LayoutOptions { coloured: cloth.config.colouring, tethers: true };
        let scratch = ConstraintLayout::build(&cloth.model.constraints, &cloth.config.w, &cloth.state.x, options);
        assert_same(&cloth.layout, &scratch);
        let mut eager = cloth.config.clone();
        eager.derive_compliances(&cloth.model, &scratch);
        assert_eq!(cloth.config.stretch_compliance, eager.stretch_compliance);
        assert_eq!(cloth.config.bend_compliance, eager.bend_compliance);
        assert_eq!(cloth.config.tether_factor.to_bits(), eager.tether_factor.to_bits());
        for (k, &c) in cloth.layout.edge_creation.iter().enumerate() {
            let old = before.edge_creation.iter().position(|&e| e == c).unwrap();
            assert_eq!(cloth.scratch.stretch_lambda[k].to_bits(), lambda[old].to_bits());
        }
        assert_eq!(cloth.scratch.tether_lambda, vec![0.0; cloth.layout.tethers.particle().len()]);
    }

    /// A copy of a cloth with a pending layout gets the same layout, and the original keeps it.
    #[test]
    fn a_copy_of_a_cloth_with_a_pending_layout_settles_to_the_same_layout() {
        let (_world, mut cloth) = cloth();
        cloth.set_pinned(&[0, 47], None).unwrap();
        let mut copy = cloth.clone();
        copy.settle_layout();
        cloth.settle_layout();
        assert_same(&cloth.layout, &copy.layout);
        assert!(!cloth.layout.tethers.particle().is_empty());
    }

    /// Pinning pinned vertices again (new targets) and releasing unpinned ones keep the layout: the
    /// anchors are the same.
    #[test]
    fn calls_that_keep_the_anchors_keep_the_layout() {
        let (_world, mut cloth) = cloth();
        cloth.set_pinned(&[0, 47], None).unwrap();
        cloth.settle_layout();
        let layout = cloth.layout.clone();
        cloth.set_pinned(&[47], Some(&[[0.5, 0.5, 0.5]])).unwrap();
        cloth.unpin(&[100, 200]).unwrap();
        assert!(cloth.pending.pending.is_none());
        assert!(std::sync::Arc::ptr_eq(&layout, &cloth.layout));
        cloth.unpin(&[47]).unwrap();
        assert!(cloth.pending.pending.is_some(), "a released pin changes the anchors");
    }

    /// A settings change that derives nothing new (wind) leaves the layout pending; one that
    /// changes the compliances (the material) puts it in place first, and derives them in its order.
    #[test]
    fn settings_wait_for_a_pending_layout_only_where_they_are_stored_in_its_order() {
        let (_world, mut cloth) = cloth();
        cloth.set_pinned(&[0, 47], None).unwrap();
        let wind = crate::ClothParams { wind_velocity: [2.0, 0.0, 0.0], drag_coefficient: 1.0, ..cloth.config.params };
        cloth.set_params(wind).unwrap();
        assert!(cloth.pending.pending.is_some());
        let mut heavier = wind;
        heavier.material.areal_density *= 2.0;
        heavier.stretch_compliance = None;
        cloth.set_params(heavier).unwrap();
        assert!(cloth.pending.pending.is_none());
        let mut expected = cloth.config.clone();
        expected.derive(&cloth.model, &cloth.layout);
        assert_eq!(cloth.config.stretch_compliance, expected.stretch_compliance);
        assert_eq!(cloth.config.w_free, expected.w_free);
    }

    /// Without a layout thread (a cloth taken out of its world) a pin change builds its layout at
    /// once, and it is still put in place by the step it is due at.
    #[test]
    fn without_a_layout_thread_the_layout_is_built_at_once() {
        let (_world, mut cloth) = cloth();
        cloth.pending.builder = std::sync::Weak::new();
        cloth.set_pinned(&[0, 47], None).unwrap();
        assert!(cloth.pending.pending.as_ref().is_some_and(|p| p.built.get().is_some()), "built in the call");
        assert!(cloth.layout.tethers.particle().is_empty(), "not in place before its step");
    }

    /// A pin change's layout is put in place at the start of the `LAYOUT_DELAY_STEPS`-th step
    /// after it (the steps before keep the layout in place), another change's at the next step;
    /// a pin change back to the anchors of the layout in place cancels the pending one.
    #[test]
    fn a_pin_change_is_put_in_place_by_its_step_and_undone_by_a_change_back() {
        let (_world, mut cloth) = cloth();
        // As after a step: a cloth that has not stepped puts a pin change in place at its first.
        cloth.output.last_substep = 1.0 / 600.0;
        let before = cloth.layout.clone();
        cloth.set_pinned(&[0, 47], None).unwrap();
        for k in 1..super::LAYOUT_DELAY_STEPS {
            cloth.layout_for_step();
            assert!(std::sync::Arc::ptr_eq(&before, &cloth.layout) && cloth.layout_pending(), "step {k} keeps the layout");
        }
        cloth.layout_for_step();
        assert!(!cloth.layout_pending() && !cloth.layout.tethers.particle().is_empty(), "the due step puts it in place");
        let pinned = cloth.layout.clone();
        cloth.set_pinned(&[100], None).unwrap();
        cloth.unpin(&[100]).unwrap();
        assert!(!cloth.layout_pending(), "back to the anchors in place: nothing pending");
        cloth.layout_for_step();
        assert!(std::sync::Arc::ptr_eq(&pinned, &cloth.layout));
        let no_tethers = crate::ClothParams { enable_tethers: false, ..cloth.config.params };
        cloth.set_params(no_tethers).unwrap();
        cloth.layout_for_step();
        assert!(!cloth.layout_pending() && cloth.layout.tethers.particle().is_empty(), "a setting's layout at the next step");
    }
}
