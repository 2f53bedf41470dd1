//! The two bindings issue 46 named for render proxies, measured on its scene (a 64² flag after 2 s
//! in gusty wind drawing a 256² mesh of the same surface): the library's barycentric binding with
//! an offset along the interpolated normal, and weights over the particles within 1.5 edges
//! (poly6 kernel, rest offset kept in a frame of the weighted normal), written here over the
//! public API. Accuracy: distance of the drawn vertices to the simulated triangles. Smoothness:
//! the largest angle between neighbouring drawn triangles. Normals: the angle between a scheme's
//! normals and those of the mesh it draws. The numbers are in docs/dev/performance-log.md
//! (2026-12-06); the test keeps the choice honest: the barycentric binding must stay within the
//! issue's 1 mm and 5°, and the weighted one must not, or the choice would be the other.

mod common;

use common::grid;
use xpbd_cloth::render_proxy::RenderProxyDesc;
use xpbd_cloth::{ClothDesc, ClothParams, Vec3, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

fn flag_mesh(n: usize) -> (Vec<[f32; 3]>, Vec<u32>) {
    grid(n, n, 1.0, 1.0, |u, v| [u, 2.0 - v, 0.0])
}

/// Weights over nearby particles: for each render vertex the particles within `radius` of it at
/// rest with poly6 weights (normalised), and its rest offset from their weighted point in the
/// frame (weighted normal, tangent towards the heaviest particle).
struct Weighted {
    links: Vec<Vec<(usize, f32)>>,
    offsets: Vec<Vec3>,
}

fn frame(x: &[Vec3], n: &[Vec3], links: &[(usize, f32)]) -> (Vec3, [Vec3; 3]) {
    let centre: Vec3 = links.iter().map(|&(j, w)| x[j] * w).sum();
    let normal = links.iter().map(|&(j, w)| n[j] * w).sum::<Vec3>().normalize();
    let heaviest = links.iter().fold(links[0], |a, &b| if b.1 > a.1 { b } else { a }).0;
    let mut e = x[heaviest] - centre;
    if (e - normal * e.dot(normal)).length() < 1e-6 {
        e = x[links.iter().find(|l| l.0 != heaviest).unwrap().0] - centre;
    }
    let tangent = (e - normal * e.dot(normal)).normalize();
    (centre, [tangent, normal.cross(tangent), normal])
}

impl Weighted {
    fn bind(rest: &[Vec3], rest_normals: &[Vec3], render: &[Vec3], radius: f32) -> Weighted {
        let (mut links, mut offsets) = (Vec::new(), Vec::new());
        for &r in render {
            let mut l: Vec<(usize, f32)> = (0..rest.len())
                .filter_map(|j| {
                    let q = (rest[j].distance_squared(r) / (radius * radius)).min(1.0);
                    (q < 1.0).then(|| (j, (1.0 - q).powi(3)))
                })
                .collect();
            let total: f32 = l.iter().map(|p| p.1).sum();
            l.iter_mut().for_each(|p| p.1 /= total);
            let (centre, f) = frame(rest, rest_normals, &l);
            let d = r - centre;
            offsets.push(Vec3::new(d.dot(f[0]), d.dot(f[1]), d.dot(f[2])));
            links.push(l);
        }
        Weighted { links, offsets }
    }

    fn draw(&self, x: &[Vec3], n: &[Vec3]) -> (Vec<Vec3>, Vec<Vec3>) {
        self.links
            .iter()
            .zip(&self.offsets)
            .map(|(l, o)| {
                let (centre, f) = frame(x, n, l);
                (centre + f[0] * o.x + f[1] * o.y + f[2] * o.z, f[2])
            })
            .unzip()
    }
}

fn distance_to_triangle(p: Vec3, x: [Vec3; 3]) -> f32 {
    let n = (x[1] - x[0]).cross(x[2] - x[0]).normalize();
    let q = p - n * (p - x[0]).dot(n);
    if (0..3).all(|k| (x[(k + 1) % 3] - x[k]).cross(q - x[k]).dot(n) >= 0.0) {
        return p.distance(q);
    }
    let segment = |a: Vec3, b: Vec3| p.distance(a + (b - a) * ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0));
    segment(x[0], x[1]).min(segment(x[1], x[2])).min(segment(x[2], x[0]))
}

/// The largest distance of `drawn` (256² grid order) from the simulated triangles around the
/// place each vertex had at rest (the two triangles of its rest quad and the quads around it).
fn farthest_from_surface(drawn: &[Vec3], x: &[Vec3], sim_indices: &[u32]) -> f32 {
    let mut worst = 0.0f32;
    for (k, p) in drawn.iter().enumerate() {
        let (u, v) = ((k % 256) as f32 / 255.0 * 63.0, (k / 256) as f32 / 255.0 * 63.0);
        let mut best = f32::INFINITY;
        for j in (v as i32 - 1).max(0)..=(v as i32 + 1).min(62) {
            for i in (u as i32 - 1).max(0)..=(u as i32 + 1).min(62) {
                let q = 6 * (j as usize * 63 + i as usize);
                for t in sim_indices[q..q + 6].chunks_exact(3) {
                    best = best.min(distance_to_triangle(*p, [0, 1, 2].map(|m| x[t[m] as usize])));
                }
            }
        }
        worst = worst.max(best);
    }
    worst
}

fn face_normals(x: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    indices.chunks_exact(3).map(|t| (x[t[1] as usize] - x[t[0] as usize]).cross(x[t[2] as usize] - x[t[0] as usize]).normalize()).collect()
}

/// The largest angle [°] between the two triangles of an edge of the 256² grid mesh drawn at `x`.
fn sharpest_edge(x: &[Vec3], indices: &[u32]) -> f32 {
    let f = face_normals(x, indices);
    let mut by_edge = std::collections::HashMap::new();
    let mut worst = 0.0f32;
    for (t, tri) in indices.chunks_exact(3).enumerate() {
        for e in 0..3 {
            let key = (tri[e].min(tri[(e + 1) % 3]), tri[e].max(tri[(e + 1) % 3]));
            if let Some(other) = by_edge.insert(key, t) { worst = worst.max(f[t].dot(f[other]).clamp(-1.0, 1.0).acos().to_degrees()) }
        }
    }
    worst
}

/// The largest angle [°] between `normals` and the area-weighted normals of the mesh drawn at `x`.
fn normal_error(x: &[Vec3], normals: &[Vec3], indices: &[u32]) -> f32 {
    let mut own = vec![Vec3::ZERO; x.len()];
    for t in indices.chunks_exact(3) {
        let f = (x[t[1] as usize] - x[t[0] as usize]).cross(x[t[2] as usize] - x[t[0] as usize]);
        t.iter().for_each(|&k| own[k as usize] += f);
    }
    own.iter().zip(normals).map(|(a, b)| a.normalize().dot(b.normalize()).clamp(-1.0, 1.0).acos().to_degrees()).fold(0.0, f32::max)
}

#[test]
fn the_barycentric_binding_keeps_to_the_issues_bounds_where_weights_over_nearby_particles_cut_through_the_folds() {
    let mut world = World::new(WorldDesc { thread_count: 2, ..WorldDesc::default() }).unwrap();
    let (p, i) = flag_mesh(64);
    let params = ClothParams { drag_coefficient: 1.0, lift_coefficient: 0.3, wind_velocity: [6.0, 0.0, 0.0], ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).unwrap();
    let hoist: Vec<u32> = (0..64).map(|r| r * 64).collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&hoist, None).unwrap();
    let (rp, ri) = flag_mesh(256);
    let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&rp, &ri)).unwrap();
    let rest: Vec<Vec3> = p.iter().map(|&q| Vec3::from_array(q)).collect();
    let render: Vec<Vec3> = rp.iter().map(|&q| Vec3::from_array(q)).collect();
    let weighted = Weighted::bind(&rest, &vec![Vec3::Z; rest.len()], &render, 1.5 / 63.0);
    for step in 0..120 {
        let t = step as f32 * DT;
        let c = world.cloth_mut(cloth).unwrap();
        let wind = [6.0 + 1.5 * (1.3 * t).sin(), 0.5 * (2.1 * t).sin(), 1.2 * (0.9 * t).cos()];
        c.set_params(ClothParams { wind_velocity: wind, ..*c.params() }).unwrap();
        world.step(DT).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let x = c.particle_positions().to_vec();
    let mut n = vec![[0.0f32; 3]; x.len()];
    c.read_normals(&mut n).unwrap();
    let n: Vec<Vec3> = n.into_iter().map(Vec3::from_array).collect();
    let read = |normals: bool| {
        let mut out = vec![[0.0f32; 3]; render.len()];
        match normals {
            false => world.read_render_proxy_positions(proxy, &mut out).unwrap(),
            true => world.read_render_proxy_normals(proxy, &mut out).unwrap(),
        }
        out.into_iter().map(Vec3::from_array).collect::<Vec<Vec3>>()
    };
    let (bary, bary_normals) = (read(false), read(true));
    let (near, near_normals) = weighted.draw(&x, &n);
    let report = |name: &str, drawn: &[Vec3], normals: &[Vec3]| {
        let (d, s, e) = (farthest_from_surface(drawn, &x, &i), sharpest_edge(drawn, &ri), normal_error(drawn, normals, &ri));
        println!("{name}: farthest {:.3} mm from the simulated triangles, sharpest drawn edge {s:.1} deg, normals {e:.2} deg off the drawn mesh's", d * 1e3);
        (d, s, e)
    };
    let sim_sharpest = sharpest_edge(&x, &i);
    println!("the simulated flag's sharpest edge: {sim_sharpest:.1} deg");
    let (bary_distance, _, bary_error) = report("barycentric + normal offset", &bary, &bary_normals);
    let (near_distance, near_sharpest, _) = report("weights over nearby particles", &near, &near_normals);
    assert!(bary_distance < 1e-3 && bary_error < 5.0);
    assert!(near_distance > 1e-3, "weights over nearby particles stayed within 1 mm: reconsider the choice");
    assert!(near_sharpest < sim_sharpest, "the weighted mesh is the smoother one");
}
