use xpbd_cloth::{ClothDesc, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};
#[path = "../tests/common/mod.rs"]
mod common;
fn main() {
    let mut world = World::new(WorldDesc::default()).unwrap();
    world.add_collider(&ColliderDesc { pose: Pose::at([0.0, 0.0, 0.0]), ..ColliderDesc::cuboid([0.3, 0.3, 0.3]) }).unwrap();
    let (positions, indices) = common::horizontal_sheet(21, 1.0, 0.5);
    let positions: Vec<[f32; 3]> = positions.iter().map(|p| [p[0] - 0.5, p[1], p[2] - 0.5]).collect();
    let cloth = world.add_cloth(&ClothDesc { params: ClothParams::default(), ..ClothDesc::new(&positions, &indices) }).unwrap();
    let mut prev = vec![];
    for step in 0..420 {
        let before = world.cloth(cloth).unwrap().particle_positions().to_vec();
        world.step(1.0 / 60.0).unwrap();
        let x = world.cloth(cloth).unwrap().particle_positions().to_vec();
        if step >= 400 {
            let mut m: Vec<(f32, usize)> = x.iter().zip(&before).enumerate().map(|(i, (a, b))| (a.distance(*b), i)).collect();
            m.sort_by(|a, b| b.0.total_cmp(&a.0));
            let st = world.cloth(cloth).unwrap().stats();
            println!("step {step}: max strain {:.3}% p99 {:.3}% contacts {}; top movers: {}", st.max_edge_strain * 100.0, st.strain_p99 * 100.0, st.contact_count,
                m[..4].iter().map(|(d, i)| format!("{} ({:.2},{:.3},{:.2}) {:.3}mm d{:+.3}", i, x[*i].x, x[*i].y, x[*i].z, d * 1e3, (x[*i].y - before[*i].y) * 1e3)).collect::<Vec<_>>().join("; "));
        }
        prev = x;
    }
    let _ = prev; let _ = Vec3::ZERO;
}
