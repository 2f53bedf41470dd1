//! Level of detail (`step_interval`, issue 46): a cloth at interval N steps once every N world
//! steps over N fixed steps of time, the world spreads such cloths evenly over its steps, the
//! reads show the world's own time (nothing drawn late, nothing jumping when N changes), and the
//! result is the same for any thread count.

mod common;

use common::{grid, vertical_sheet};
use xpbd_cloth::{ClothDesc, ClothHandle, ClothParams, SharedWorld, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// A flag of n × n vertices, 1 m square in the x–y plane, hoisted on its x = 0 column at
/// `at` [m], in wind along +x (drag and lift on: a flag needs air to fly).
fn add_flag(world: &mut World, n: usize, at: [f32; 3], step_interval: u32) -> ClothHandle {
    let (p, i) = grid(n, n, 1.0, 1.0, |u, v| [at[0] + u, at[1] - v, at[2]]);
    let mut desc = ClothDesc::new(&p, &i);
    desc.params = ClothParams {
        drag_coefficient: 1.0,
        lift_coefficient: 0.3,
        wind_velocity: [6.0, 0.0, 0.0],
        step_interval,
        ..ClothParams::default()
    };
    let c = world.add_cloth(&desc).unwrap();
    let hoist: Vec<u32> = (0..n as u32).map(|r| r * n as u32).collect();
    world.cloth_mut(c).unwrap().set_pinned(&hoist, None).unwrap();
    c
}

/// Gusty wind at time `t` [s]: +x at 6 m/s with a slow sideways swirl (deterministic).
fn gust(t: f32) -> [f32; 3] {
    [6.0 + 1.5 * (1.3 * t).sin(), 0.5 * (2.1 * t).sin(), 1.2 * (0.9 * t).cos()]
}

fn set_wind(world: &mut World, cloth: ClothHandle, t: f32) {
    let c = world.cloth_mut(cloth).unwrap();
    c.set_params(ClothParams { wind_velocity: gust(t), ..*c.params() }).unwrap();
}

fn set_interval(world: &mut World, cloth: ClothHandle, n: u32) {
    let c = world.cloth_mut(cloth).unwrap();
    c.set_params(ClothParams { step_interval: n, ..*c.params() }).unwrap();
}

fn read(world: &World, cloth: ClothHandle) -> Vec<Vec3> {
    let c = world.cloth(cloth).unwrap();
    let mut out = vec![[0.0; 3]; c.vertex_count() as usize];
    c.read_positions(&mut out).unwrap();
    out.into_iter().map(Vec3::from_array).collect()
}

#[test]
fn sixty_four_flags_at_interval_four_step_a_quarter_of_them_in_every_world_step() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let flags: Vec<ClothHandle> = (0..64).map(|k| add_flag(&mut world, 8, [0.0, 0.0, 2.0 * k as f32], 4)).collect();
    let hashes = |w: &World| flags.iter().map(|&f| w.cloth(f).unwrap().state_hash()).collect::<Vec<u64>>();
    let mut before = hashes(&world);
    let mut stepped_by = vec![0u32; flags.len()];
    for step in 0..48 {
        world.step(DT).unwrap();
        let after = hashes(&world);
        let stepped: Vec<usize> = (0..flags.len()).filter(|&k| after[k] != before[k]).collect();
        if step == 0 {
            assert_eq!(stepped.len(), 64, "all step in their first world step");
        }
        // From 1 to 4 the step length doubles at most per step (1, 2, then aligned to its slot):
        // from the eighth world step on, each flag steps in every fourth.
        if step >= 8 {
            assert_eq!(stepped.len(), 16, "world step {step}: a quarter of the flags step");
            stepped.iter().for_each(|&k| stepped_by[k] += 1);
        }
        before = after;
    }
    assert!(stepped_by.iter().all(|&s| s == 10), "{stepped_by:?}");
}

/// The mean distance its vertices move from frame k − 1 to frame k (m), for the frames of
/// `frames`: how far the flag moves in each frame.
fn moves(frames: &[Vec<Vec3>]) -> Vec<f32> {
    frames.windows(2).map(|w| w[0].iter().zip(&w[1]).map(|(a, b)| a.distance(*b)).sum::<f32>() / w[0].len() as f32).collect()
}

/// How much farther the flag moves in frame k than the average of frames k − 1 and k + 1 (m).
fn excess(m: &[f32], k: usize) -> f32 {
    m[k] - 0.5 * (m[k - 1] + m[k + 1])
}

#[test]
fn a_flag_in_wind_switching_interval_one_to_four_and_back_moves_less_than_1_mm_more_than_its_neighbouring_frames() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let flag = add_flag(&mut world, 32, [0.0, 2.0, 0.0], 1);
    let (up, down, end) = (150usize, 211usize, 280usize);
    let mut frames = vec![read(&world, flag)];
    for step in 0..end {
        set_wind(&mut world, flag, step as f32 * DT);
        if step == up {
            set_interval(&mut world, flag, 4);
        }
        if step == down {
            set_interval(&mut world, flag, 1);
        }
        world.step(DT).unwrap();
        frames.push(read(&world, flag));
    }
    let m = moves(&frames);
    // m[s] is the frame drawn after world step s. The switch up takes effect in its world step
    // (a step of 2, then of 4: the step length at most doubles); the switch down at the flag's
    // next due step, within 4 world steps (then a step of 2, then of 1).
    let worst = |from: usize| (from..from + 8).map(|s| excess(&m, s)).fold(f32::MIN, f32::max);
    let (at_up, at_down) = (worst(up), worst(down));
    let natural = (20..up - 5).map(|s| excess(&m, s)).fold(f32::MIN, f32::max);
    let mean = m[20..up].iter().sum::<f32>() / (up - 20) as f32;
    println!(
        "the flag moves {:.2} mm per frame; most in excess of its neighbouring frames: {:.3} mm (1 -> 4), {:.3} mm (4 -> 1), {:.3} mm at interval 1",
        mean * 1e3,
        at_up * 1e3,
        at_down * 1e3,
        natural * 1e3
    );
    assert!(mean > 5e-3, "the flag flies: {mean} m per frame");
    assert!(at_up < 1e-3, "switch 1 -> 4: the flag moves {at_up} m more than in its neighbouring frames");
    assert!(at_down < 1e-3, "switch 4 -> 1: the flag moves {at_down} m more than in its neighbouring frames");
}

/// A curtain (24 × 24, 0.5 m) whose top row hangs on a rail moving along x at 1 m/s, physics at
/// 50 Hz drawn at 60 Hz through the interpolated reads. Returns per drawn frame the mean
/// position of the curtain and the position of its first top corner, with the rail's x at the
/// time drawn.
fn curtain_on_a_moving_rail(step_interval: u32) -> Vec<(Vec3, Vec3, f32)> {
    const FIXED: f32 = 1.0 / 50.0;
    const SPEED: f32 = 1.0;
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = vertical_sheet(24, 0.5);
    let cloth = world.add_cloth(&ClothDesc { params: ClothParams { step_interval, ..ClothParams::default() }, ..ClothDesc::new(&p, &i) }).unwrap();
    let top: Vec<u32> = (0..24).collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&top, None).unwrap();
    let (mut steps, mut accumulator, mut drawn) = (0u32, 0.0f64, Vec::new());
    let mut out = vec![[0.0f32; 3]; p.len()];
    for frame in 0..300 {
        accumulator += 1.0 / 60.0;
        while accumulator >= FIXED as f64 {
            steps += 1;
            let x = SPEED * steps as f32 * FIXED;
            let targets: Vec<[f32; 3]> = top.iter().map(|&v| [p[v as usize][0] + x, p[v as usize][1], 0.0]).collect();
            world.cloth_mut(cloth).unwrap().set_pin_targets(&top, &targets).unwrap();
            world.step(FIXED).unwrap();
            accumulator -= FIXED as f64;
        }
        let alpha = (accumulator / FIXED as f64) as f32;
        world.cloth(cloth).unwrap().read_positions_interpolated(alpha, &mut out).unwrap();
        if frame >= 180 {
            let mean = out.iter().map(|&q| Vec3::from_array(q)).sum::<Vec3>() / out.len() as f32;
            // Drawn time: between the last two step states, alpha of the way.
            let rail = SPEED * (steps as f32 - 1.0 + alpha) * FIXED;
            drawn.push((mean, Vec3::from_array(out[0]), rail));
        }
    }
    drawn
}

#[test]
fn a_curtain_on_a_moving_rail_at_interval_four_moves_as_smoothly_at_60_hz_as_at_interval_one_and_its_pins_do_not_lag() {
    for n in [1, 4] {
        let drawn = curtain_on_a_moving_rail(n);
        let speeds: Vec<f32> = drawn.windows(2).map(|w| w[1].0.distance(w[0].0)).collect();
        let mean = speeds.iter().sum::<f32>() / speeds.len() as f32;
        let sd = (speeds.iter().map(|s| (s - mean).powi(2)).sum::<f32>() / speeds.len() as f32).sqrt();
        let lag = drawn.iter().map(|(_, corner, rail)| (corner.x - rail).abs()).fold(0.0, f32::max);
        println!("interval {n}: {:.3} mm per frame, sd {:.3} % of it; pinned corner off the rail by {:.4} mm", mean * 1e3, 100.0 * sd / mean, lag * 1e3);
        assert!((mean - 1.0 / 60.0).abs() < 1e-4, "interval {n}: the curtain moves with its rail (1 m/s = 16.7 mm per frame), not {mean}");
        assert!(sd < 0.02 * mean, "interval {n}: motion per frame {mean} m with sd {sd} m");
        assert!(lag < 1e-3, "interval {n}: the drawn pin is {lag} m off the rail drawn at the same time");
    }
}

/// State hashes after each step of four flags at intervals 1..=4 in a world of `threads` threads.
fn mixed_interval_hashes(threads: u32) -> Vec<[u64; 4]> {
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
    let flags: Vec<ClothHandle> = (0..4).map(|k| add_flag(&mut world, 40, [0.0, 0.0, 2.0 * k as f32], k as u32 + 1)).collect();
    (0..24)
        .map(|step| {
            if step == 11 {
                set_interval(&mut world, flags[3], 2);
            }
            world.step(DT).unwrap();
            [0, 1, 2, 3].map(|k| world.cloth(flags[k]).unwrap().state_hash())
        })
        .collect()
}

#[test]
fn flags_at_mixed_intervals_give_the_same_hashes_at_one_two_and_eight_threads() {
    let one = mixed_interval_hashes(1);
    assert_eq!(one, mixed_interval_hashes(2), "2 threads");
    assert_eq!(one, mixed_interval_hashes(8), "8 threads");
}

#[test]
fn a_cloth_at_interval_one_steps_as_before_bit_for_bit() {
    // The same flag at interval 1 and in a world of interval-3 neighbours: the neighbours' long
    // steps change nothing of it.
    let alone = {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let f = add_flag(&mut world, 16, [0.0; 3], 1);
        (0..20).map(|_| { world.step(DT).unwrap(); world.cloth(f).unwrap().state_hash() }).collect::<Vec<_>>()
    };
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    add_flag(&mut world, 16, [0.0, 0.0, 3.0], 3);
    let f = add_flag(&mut world, 16, [0.0; 3], 1);
    add_flag(&mut world, 16, [0.0, 0.0, -3.0], 3);
    let among = (0..20).map(|_| { world.step(DT).unwrap(); world.cloth(f).unwrap().state_hash() }).collect::<Vec<_>>();
    assert_eq!(alone, among);
}

#[test]
fn a_long_step_equals_one_step_over_the_same_time_and_is_drawn_at_the_worlds_time() {
    // A flag created at interval 4 takes, in its first world step, one step of 2 × dt (its step
    // length at most doubles from the 1 it starts at): the same bits as a flag at interval 1
    // stepped once with 2 × dt from the same state.
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let lod = add_flag(&mut world, 12, [0.0; 3], 4);
    world.step(DT).unwrap();
    let mut reference = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let once = add_flag(&mut reference, 12, [0.0; 3], 1);
    reference.step(2.0 * DT).unwrap();
    let hash = |w: &World, c| w.cloth(c).unwrap().state_hash();
    assert_eq!(hash(&world, lod), hash(&reference, once));
    // Drawn half way there (the world's time), on each vertex's curve between its two states:
    // within the chord's bulge of the straight line between them.
    let (start, end) = (grid(12, 12, 1.0, 1.0, |u, v| [u, -v, 0.0]).0, reference.cloth(once).unwrap().particle_positions().to_vec());
    let drawn = read(&world, lod);
    for v in 0..drawn.len() {
        let (a, b) = (Vec3::from_array(start[v]), end[v]);
        assert!(drawn[v].distance(a.lerp(b, 0.5)) <= 0.5 * a.distance(b) + 1e-6, "vertex {v}");
    }
    world.step(DT).unwrap();
    assert_eq!(hash(&world, lod), hash(&reference, once), "idle in the next world step");
    assert_eq!(read(&world, lod), end, "and drawn at the end of its step");
    world.step(DT).unwrap();
    assert_ne!(hash(&world, lod), hash(&reference, once), "its next step");
}

#[test]
fn during_an_asynchronous_step_a_cloth_between_its_long_steps_reads_as_before_the_step() {
    let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
    let flag = add_flag(&mut world, 16, [0.0; 3], 3);
    for _ in 0..5 {
        world.step(DT).unwrap();
    }
    let shared = SharedWorld::new(world);
    let mut before = vec![[0.0f32; 3]; 256];
    shared.read(flag, |c| c.read_positions_interpolated(0.5, &mut before)).unwrap().unwrap();
    let hold = shared.hold_steps();
    shared.step_begin(DT).unwrap();
    let mut during = vec![[0.0f32; 3]; 256];
    shared.read(flag, |c| c.read_positions_interpolated(0.5, &mut during)).unwrap().unwrap();
    assert_eq!(before, during);
    drop(hold);
    shared.step_end().unwrap();
    let mut after = vec![[0.0f32; 3]; 256];
    shared.read(flag, |c| c.read_positions_interpolated(0.5, &mut after)).unwrap().unwrap();
    assert_ne!(before, after, "a world step later the reads have moved on by a third of the long step");
}

#[test]
fn a_cloth_at_interval_four_falls_asleep_and_wakes_at_the_next_world_step() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = vertical_sheet(12, 0.5);
    let params = ClothParams { sleep_speed: Some(0.01), step_interval: 4, ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 11], None).unwrap();
    let mut steps = 0;
    while !world.cloth(cloth).unwrap().is_sleeping() {
        world.step(DT).unwrap();
        steps += 1;
        assert!(steps < 60 * 60, "never fell asleep");
    }
    // Asleep, it is drawn in the state it sleeps in from its first skipped world step on: up to
    // (4 - 1) world steps of motion below sleep_speed ahead of where it was drawn.
    let falling_asleep = read(&world, cloth);
    world.step(DT).unwrap();
    let asleep = read(&world, cloth);
    let jump = falling_asleep.iter().zip(&asleep).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
    assert!(jump <= 0.01 * 3.0 * DT, "{jump} m");
    world.step(DT).unwrap();
    assert_eq!(asleep, read(&world, cloth));
    let hash = world.cloth(cloth).unwrap().state_hash();
    world.cloth_mut(cloth).unwrap().set_pin_targets(&[0], &[[0.0, 0.1, 0.0]]).unwrap(); // wakes it
    world.step(DT).unwrap();
    assert_ne!(world.cloth(cloth).unwrap().state_hash(), hash, "woken, it steps in the next world step");
}
