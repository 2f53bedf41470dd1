#[path = "../tests/common/mod.rs"]
mod common;
use std::time::Instant;
use xpbd_cloth::{ClothDesc, ColliderDesc, MeshShapeDesc, World, WorldDesc};
fn main() {
    let steps: usize = std::env::args().nth(1).map(|a| a.parse().unwrap()).unwrap_or(20);
    let t = common::tablecloth_on_its_table().unwrap();
    let (p, i) = common::load_obj(std::path::Path::new("data/table.obj")).unwrap();
    let tris: Vec<[u32; 3]> = i.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
    let mut world = World::new(WorldDesc { substeps: 10, iterations: 1, thread_count: 1, ..WorldDesc::default() }).unwrap();
    let mut desc = ClothDesc::new(&t.positions, &t.indices);
    desc.params = common::light_stiff_params();
    let h = world.add_cloth(&desc).unwrap();
    let shape = world.create_mesh_shape(&MeshShapeDesc { positions: &p, triangles: &tris, cell_size: 0.005, closed: true }).unwrap();
    world.add_collider(&ColliderDesc { static_friction: t.table.static_friction, kinetic_friction: t.table.kinetic_friction, ..ColliderDesc::mesh(shape) }).unwrap();
    let mut times = vec![];
    for _ in 0..steps { let s = Instant::now(); world.step(1.0 / 60.0).unwrap(); times.push(s.elapsed().as_secs_f64()); }
    times.sort_by(f64::total_cmp);
    println!("hash {:016x} median {:.2} ms", world.cloth(h).unwrap().state_hash(), times.get(times.len() / 2).copied().unwrap_or(0.0) * 1e3);
}
