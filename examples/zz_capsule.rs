#[path = "../tests/common/mod.rs"]
mod common;
use xpbd_cloth::{ClothDesc, ColliderDesc, Pose, World, WorldDesc};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let r: f32 = args.get(1).map(|a| a.parse().unwrap()).unwrap_or(0.01);
    let nx: usize = args.get(2).map(|a| a.parse().unwrap()).unwrap_or(51);
    let offset: f32 = args.get(3).map(|a| a.parse().unwrap()).unwrap_or(0.0);
    let mut world = World::new(WorldDesc::default()).unwrap();
    // Strip 1 m along x, 0.1 m along z, horizontal at y = 1 + r + 0.01, centred at x = offset.
    let (positions, indices) = common::grid(nx, 6, 1.0, 0.1, |u, v| [u - 0.5 + offset, 1.0 + r + 0.01, v - 0.05]);
    let cloth = world.add_cloth(&ClothDesc::new(&positions, &indices)).unwrap();
    // Capsule along z (local Y rotated to z), long enough.
    let s = std::f32::consts::FRAC_1_SQRT_2;
    let mut c = ColliderDesc::capsule(r, 0.5);
    c.pose = Pose { position: [0.0, 1.0, 0.0], rotation: [s, 0.0, 0.0, s] };
    world.add_collider(&c).unwrap();
    for step in 0..600 {
        world.step(1.0 / 60.0).unwrap();
        if step % 60 == 59 {
            let x = world.cloth(cloth).unwrap().particle_positions();
            let top = x.iter().map(|p| p.y).fold(f32::MIN, f32::max);
            let cx = x.iter().map(|p| p.x).sum::<f32>() / x.len() as f32;
            let st = world.cloth(cloth).unwrap().stats();
            println!("t {:.0} s: highest y {:.4}, mean x {:+.4}, contacts {}, penetration {:.4}", (step + 1) as f32 / 60.0, top, cx, st.contact_count, st.max_penetration);
        }
    }
}
