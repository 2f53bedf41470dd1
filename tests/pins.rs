//! Pin changes on a cloth large enough that its constraint layout is rebuilt by the world's layout
//! thread (`xpbd_cloth::cloth::BACKGROUND_MIN_CONSTRAINTS`): pins set up before the first step give
//! the bits of the same pins set at creation; a change after steps takes effect at once and its
//! layout at the start of the `LAYOUT_DELAY_STEPS`-th step after it, with the same bits whichever
//! thread builds the layout and whenever it finishes, in worlds of any thread count; bad input
//! changes nothing (docs/design.md, "Pins").

mod common;

use common::vertical_sheet;
use xpbd_cloth::cloth::BACKGROUND_MIN_CONSTRAINTS;
use xpbd_cloth::{ClothDesc, ClothError, ClothHandle, ClothParams, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;
/// Vertices per side of the sheet.
const N: usize = 48;
/// The two top corners.
const CORNERS: [u32; 2] = [0, N as u32 - 1];

/// A vertical 48 × 48 sheet of 1 m (light and stiff, tethers on) in a world of `threads` threads.
fn sheet(threads: u32, inverse_masses: Option<&[f32]>) -> (World, ClothHandle) {
    let (positions, indices) = vertical_sheet(N, 1.0);
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
    let desc = ClothDesc { params: common::light_stiff_params(), inverse_masses, ..ClothDesc::new(&positions, &indices) };
    let cloth = world.add_cloth(&desc).unwrap();
    let info = world.cloth(cloth).unwrap().info();
    assert!((info.edge_count + info.hinge_count) as usize >= BACKGROUND_MIN_CONSTRAINTS, "the layout is built in the background");
    (world, cloth)
}

/// The state hash after each of `steps` steps.
fn hashes(world: &mut World, cloth: ClothHandle, steps: usize) -> Vec<u64> {
    (0..steps).map(|_| {
        world.step(DT).unwrap();
        world.cloth(cloth).unwrap().state_hash()
    }).collect()
}

/// Pinned from the start as a creation-time anchor (inverse mass 0 given in the descriptor, the
/// other inverse masses as the material gives them) and pinned after creation through
/// `set_pinned`, also by way of a superseded pin set: the same bits every step. The light stiff
/// cloth's stretch compliance is 0, so its tether factor does not depend on which particles count
/// towards its mass.
#[test]
fn pinning_after_creation_gives_the_bits_of_a_cloth_created_with_those_anchors() {
    let (probe, c) = sheet(1, None);
    let mut w = probe.cloth(c).unwrap().particle_inverse_masses().to_vec();
    assert_eq!(probe.cloth(c).unwrap().particle_map(), (0..(N * N) as u32).collect::<Vec<u32>>(), "no welding: vertex = particle");
    CORNERS.iter().for_each(|&v| w[v as usize] = 0.0);
    let (mut created, c0) = sheet(1, Some(&w));

    let (mut pinned, c1) = sheet(2, None);
    pinned.cloth_mut(c1).unwrap().set_pinned(&CORNERS, None).unwrap();

    let (mut detour, c2) = sheet(2, None);
    let cloth = detour.cloth_mut(c2).unwrap();
    cloth.set_pinned(&[0, 700, N as u32 - 1, 1500], None).unwrap();
    cloth.unpin(&[1500, 700]).unwrap();
    assert_eq!(cloth.pinned_particles(), CORNERS);

    let reference = hashes(&mut created, c0, 40);
    assert_eq!(hashes(&mut pinned, c1, 40), reference);
    assert_eq!(hashes(&mut detour, c2, 40), reference);
    let y = created.cloth(c0).unwrap().particle_positions()[N * N - 1].y;
    assert!(y < -0.9, "the sheet hangs from its corners: bottom corner at y = {y}");
}

/// A pin added and one released mid-swing: the new pin holds its vertex from the next step on;
/// the steps give the same bits in worlds of 1, 2 and
/// all threads, whether the steps start at once (the due one waits for the layout thread or builds
/// the layout itself) or after a view has waited for it, and an instance made before the step
/// steps like its source; a wind change between the pin change and the step is taken too.
#[test]
fn a_pin_change_mid_swing_gives_the_same_bits_however_its_layout_is_built() {
    let run = |threads: u32, wait_in_view: bool, instance: bool| {
        let (mut world, cloth) = sheet(threads, None);
        world.cloth_mut(cloth).unwrap().set_pinned(&CORNERS, None).unwrap();
        let mut out = hashes(&mut world, cloth, 15);
        let c = world.cloth_mut(cloth).unwrap();
        c.set_pinned(&[(N * N - 1) as u32], Some(&[[1.2, -0.6, 0.3]])).unwrap();
        c.unpin(&[0]).unwrap();
        // A setting that needs no layout (wind), changed while the layout is pending.
        let params = ClothParams { wind_velocity: [3.0, 0.0, 1.0], drag_coefficient: 1.0, ..*c.params() };
        c.set_params(params).unwrap();
        if wait_in_view {
            assert!(!c.tether_constraints().particle.is_empty());
        }
        let copy = instance.then(|| world.add_instance(cloth).unwrap());
        let corner = (N * N - 1) as u32;
        out.extend(hashes(&mut world, cloth, 1));
        let c = world.cloth(cloth).unwrap();
        assert_eq!(c.particle_positions()[corner as usize].to_array(), [1.2, -0.6, 0.3], "held from the next step");
        out.extend(hashes(&mut world, cloth, 24));
        assert!(world.cloth(cloth).unwrap().tether_constraints().anchor.contains(&corner), "tethers to the new pin");
        if let Some(copy) = copy {
            assert_eq!(world.cloth(copy).unwrap().state_hash(), world.cloth(cloth).unwrap().state_hash());
        }
        out
    };
    let reference = run(1, false, false);
    assert_eq!(run(2, false, false), reference);
    assert_eq!(run(2, true, false), reference);
    assert_eq!(run(0, false, false), reference);
    assert_eq!(run(2, false, true), reference);
    assert_ne!(reference[14], reference[15], "the cloth moves");
}

/// Pinning then releasing a vertex before the next step leaves the steps as they were without it.
#[test]
fn a_pin_and_unpin_round_trip_changes_nothing() {
    let (mut plain, c0) = sheet(1, None);
    plain.cloth_mut(c0).unwrap().set_pinned(&CORNERS, None).unwrap();
    let mut reference = hashes(&mut plain, c0, 10);
    let (mut round_trip, c1) = sheet(2, None);
    round_trip.cloth_mut(c1).unwrap().set_pinned(&CORNERS, None).unwrap();
    let mut out = hashes(&mut round_trip, c1, 10);
    let cloth = round_trip.cloth_mut(c1).unwrap();
    cloth.set_pinned(&[1000], Some(&[[0.3, 0.2, 0.1]])).unwrap();
    cloth.unpin(&[1000]).unwrap();
    reference.extend(hashes(&mut plain, c0, 10));
    out.extend(hashes(&mut round_trip, c1, 10));
    assert_eq!(out, reference);
}

/// Rejected pin calls (a vertex out of range, a non-finite target, a target count that does not
/// match) leave the pins and the steps after them as they were.
#[test]
fn rejected_pin_changes_leave_the_cloth_unchanged() {
    let (mut plain, c0) = sheet(1, None);
    plain.cloth_mut(c0).unwrap().set_pinned(&CORNERS, None).unwrap();
    let (mut tried, c1) = sheet(2, None);
    tried.cloth_mut(c1).unwrap().set_pinned(&CORNERS, None).unwrap();
    assert_eq!(hashes(&mut tried, c1, 5), hashes(&mut plain, c0, 5));
    let cloth = tried.cloth_mut(c1).unwrap();
    let beyond = (N * N) as u32;
    assert!(matches!(cloth.set_pinned(&[10, beyond], None), Err(ClothError::VertexOutOfRange { position: 1, .. })));
    assert!(matches!(cloth.set_pinned(&[10], Some(&[[f32::NAN, 0.0, 0.0]])), Err(ClothError::NonFiniteTarget { position: 0 })));
    assert!(matches!(cloth.set_pinned(&[10, 11], Some(&[[0.0; 3]])), Err(ClothError::BufferSizeMismatch { .. })));
    assert!(matches!(cloth.unpin(&[0, beyond]), Err(ClothError::VertexOutOfRange { .. })));
    assert_eq!(cloth.pinned_particles(), CORNERS);
    assert_eq!(hashes(&mut tried, c1, 10), hashes(&mut plain, c0, 10));
}

/// The case: one vertex of the 14 k-vertex tablecloth on its table, pinned after creation
/// in a world of two threads (its layout built by a pool job), against the tablecloth created with
/// that vertex at inverse mass 0: the same bits every step.
#[test]
fn pinning_one_vertex_of_the_tablecloth_gives_the_bits_of_creating_it_pinned() {
    let scene = common::tablecloth_on_its_table().unwrap();
    let tablecloth = |threads: u32, inverse_masses: Option<&[f32]>| {
        let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
        let desc = ClothDesc { params: common::light_stiff_params(), inverse_masses, ..ClothDesc::new(&scene.positions, &scene.indices) };
        let cloth = world.add_cloth(&desc).unwrap();
        world.add_collider(&scene.table).unwrap();
        (world, cloth)
    };
    let vertex = 5000u32;
    let (mut pinned, c1) = tablecloth(2, None);
    let cloth = pinned.cloth(c1).unwrap();
    // Per render vertex its particle's inverse mass, 0 at the pinned vertex's particle.
    let p = cloth.particle_map()[vertex as usize];
    let w: Vec<f32> = cloth.particle_map().iter().map(|&q| if q == p { 0.0 } else { cloth.particle_inverse_masses()[q as usize] }).collect();
    let (mut created, c0) = tablecloth(1, Some(&w));
    pinned.cloth_mut(c1).unwrap().set_pinned(&[vertex], None).unwrap();
    assert_eq!(hashes(&mut pinned, c1, 6), hashes(&mut created, c0, 6));
    assert!(!created.cloth(c0).unwrap().tether_constraints().particle.is_empty());
}

/// Anchors survive a settings change: pinned vertices and vertices kinematic on the animated pose
/// (max distance 0) keep inverse mass 0 after `set_params`, the others get the new material's.
#[test]
fn set_params_keeps_pins_and_kinematic_vertices_at_inverse_mass_zero() {
    let (positions, _) = vertical_sheet(N, 1.0);
    let (mut world, c) = sheet(1, None);
    let cloth = world.cloth_mut(c).unwrap();
    cloth.set_pinned(&[0], None).unwrap();
    let mut d = vec![f32::INFINITY; N * N];
    d[N - 1] = 0.0;
    cloth.set_max_distances(Some(&d)).unwrap();
    cloth.set_animated_pose(&positions, None).unwrap();
    let w = |cloth: &xpbd_cloth::Cloth| [0, N - 1, 1000].map(|p| cloth.particle_inverse_masses()[p]);
    assert_eq!(w(cloth)[..2], [0.0, 0.0]);
    let mut params = *cloth.params();
    params.material.areal_density *= 2.0;
    let free = w(cloth)[2];
    cloth.set_params(params).unwrap();
    assert_eq!(w(cloth), [0.0, 0.0, free / 2.0]);
}
