//! Render proxies (issue 46): a fine render mesh drawn from a coarse simulation. The numbers of
//! the issue (a 64² flag drawing a 256² proxy: within 1 mm of the simulated triangles after 2 s of
//! flapping in wind, normals within 5° of the render mesh's own face normals), rest meshes given
//! back exactly (offset layers, back faces, curved cloth), exact max_distance errors, stale
//! handles, instances, the animated pose and level of detail carried through.

mod common;

use common::grid;
use xpbd_cloth::render_proxy::RenderProxyDesc;
use xpbd_cloth::{ClothDesc, ClothError, ClothHandle, ClothParams, RenderProxyHandle, SharedWorld, Vec3, VertexLayout, World, WorldDesc};

const DT: f32 = 1.0 / 60.0;

/// An n × n vertex grid over the 1 m square of a flag in the x–y plane, hoisted at x = 0, top at
/// y = 2 (the same surface at any n).
fn flag_mesh(n: usize) -> (Vec<[f32; 3]>, Vec<u32>) {
    grid(n, n, 1.0, 1.0, |u, v| [u, 2.0 - v, 0.0])
}

/// A 64² flag in gusty wind (drag and lift on: a flag needs air), its 256² proxy, after `steps`
/// steps.
fn flapping_flag(threads: u32, steps: usize) -> (World, ClothHandle, RenderProxyHandle) {
    let mut world = World::new(WorldDesc { thread_count: threads, ..WorldDesc::default() }).unwrap();
    let (p, i) = flag_mesh(64);
    let params = ClothParams { drag_coefficient: 1.0, lift_coefficient: 0.3, wind_velocity: [6.0, 0.0, 0.0], ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).unwrap();
    let hoist: Vec<u32> = (0..64).map(|r| r * 64).collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&hoist, None).unwrap();
    let (rp, ri) = flag_mesh(256);
    let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&rp, &ri)).unwrap();
    for step in 0..steps {
        let t = step as f32 * DT;
        let c = world.cloth_mut(cloth).unwrap();
        let wind = [6.0 + 1.5 * (1.3 * t).sin(), 0.5 * (2.1 * t).sin(), 1.2 * (0.9 * t).cos()];
        c.set_params(ClothParams { wind_velocity: wind, ..*c.params() }).unwrap();
        world.step(DT).unwrap();
    }
    (world, cloth, proxy)
}

/// The distance from `p` to the triangle `x` (nearest point by projection onto its plane,
/// clamped through its edges).
fn distance_to_triangle(p: Vec3, x: [Vec3; 3]) -> f32 {
    let n = (x[1] - x[0]).cross(x[2] - x[0]).normalize();
    let q = p - n * (p - x[0]).dot(n);
    let inside = (0..3).all(|k| (x[(k + 1) % 3] - x[k]).cross(q - x[k]).dot(n) >= 0.0);
    if inside {
        return p.distance(q);
    }
    let segment = |a: Vec3, b: Vec3| {
        let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        p.distance(a + (b - a) * t)
    };
    segment(x[0], x[1]).min(segment(x[1], x[2])).min(segment(x[2], x[0]))
}

/// Area-weighted vertex normals of the mesh `x`, `indices`: the render mesh's own normals.
fn own_normals(x: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut n = vec![Vec3::ZERO; x.len()];
    for t in indices.chunks_exact(3) {
        let f = (x[t[1] as usize] - x[t[0] as usize]).cross(x[t[2] as usize] - x[t[0] as usize]);
        t.iter().for_each(|&k| n[k as usize] += f);
    }
    n.into_iter().map(Vec3::normalize).collect()
}

fn read(world: &World, proxy: RenderProxyHandle, normals: bool) -> Vec<Vec3> {
    let mut out = vec![[0.0f32; 3]; world.render_proxy(proxy).unwrap().0.vertex_count() as usize];
    match normals {
        false => world.read_render_proxy_positions(proxy, &mut out).unwrap(),
        true => world.read_render_proxy_normals(proxy, &mut out).unwrap(),
    }
    out.into_iter().map(Vec3::from_array).collect()
}

#[test]
fn a_256_squared_proxy_of_a_64_squared_flag_in_wind_stays_within_1_mm_of_the_simulated_triangles_with_normals_within_5_degrees() {
    let (world, cloth, proxy) = flapping_flag(2, 120);
    let c = world.cloth(cloth).unwrap();
    let x = c.particle_positions();
    assert!(x.iter().map(|p| p.z.abs()).fold(0.0, f32::max) > 0.1, "the flag flaps out of its plane");
    let drawn = read(&world, proxy, false);
    let normals = read(&world, proxy, true);
    // Independent of the binding: the simulated triangle each render vertex lay in at rest (the
    // grid's cell and diagonal), deformed; the distance to it bounds the distance to the surface.
    let (_, sim_indices) = flag_mesh(64);
    let mut worst = 0.0f32;
    for (k, p) in drawn.iter().enumerate() {
        let (u, v) = ((k % 256) as f32 / 255.0 * 63.0, (k / 256) as f32 / 255.0 * 63.0);
        let (i, j) = ((u.floor() as usize).min(62), (v.floor() as usize).min(62));
        let quad = &sim_indices[6 * (j * 63 + i)..6 * (j * 63 + i) + 6];
        let tri = |t: &[u32]| [0, 1, 2].map(|m| x[t[m] as usize]);
        let d = distance_to_triangle(*p, tri(&quad[..3])).min(distance_to_triangle(*p, tri(&quad[3..])));
        worst = worst.max(d);
    }
    let (_, render_indices) = flag_mesh(256);
    let own = own_normals(&drawn, &render_indices);
    let angle = normals.iter().zip(&own).map(|(a, b)| a.dot(*b).clamp(-1.0, 1.0).acos().to_degrees()).fold(0.0, f32::max);
    println!("after 2 s: farthest render vertex {:.4} mm from the simulated triangles, normals within {angle:.2} deg", worst * 1e3);
    assert!(worst < 1e-3, "a render vertex is {worst} m off the simulated surface");
    assert!(angle < 5.0, "a normal is {angle} degrees off the render mesh's own");
}

#[test]
fn the_proxy_writes_what_it_reads_at_alpha_one_the_same_bits_on_one_and_two_threads_and_only_its_bytes() {
    let (world, _, proxy) = flapping_flag(2, 30);
    let n = 256 * 256;
    // Interleaved: 4 bytes of colour, position, 4 bytes of UV padding, normal: 32 bytes a vertex,
    // the buffer misaligned by one byte.
    let layout = VertexLayout { stride: 32, position_offset: Some(4), normal_offset: Some(20) };
    let mut pooled = vec![0xA5u8; 1 + n * 32];
    world.write_render_proxy_vertices(proxy, &mut pooled[1..], layout, 1.0).unwrap();
    let mut alone = vec![0xA5u8; 1 + n * 32];
    let (p, c) = world.render_proxy(proxy).unwrap();
    p.write_vertices(world.cloth(c).unwrap().reads(), &mut alone[1..], layout, 1.0).unwrap();
    assert!(pooled == alone, "split over two threads and on one: the same bytes");
    let float = |b: &[u8], at: usize| f32::from_ne_bytes(b[at..at + 4].try_into().unwrap());
    let (positions, normals) = (read(&world, proxy, false), read(&world, proxy, true));
    for v in [0, 1, 777, n - 1] {
        let base = 1 + v * 32;
        assert_eq!([0, 1, 2].map(|k| float(&pooled, base + 4 + 4 * k)), positions[v].to_array());
        assert_eq!([0, 1, 2].map(|k| float(&pooled, base + 20 + 4 * k)), normals[v].to_array());
        for gap in [0..4, 16..20] {
            assert!(pooled[base + gap.start..base + gap.end].iter().all(|&b| b == 0xA5), "vertex {v}: bytes {gap:?} touched");
        }
    }
    assert_eq!(pooled[0], 0xA5);
}

/// A cylinder of radius 0.3 m (n around × m along, open ends) and its rest mesh at `radius`.
fn cylinder(radius: f32, n: usize, m: usize, outward: bool) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut p = Vec::new();
    for j in 0..m {
        for i in 0..n {
            let a = std::f32::consts::TAU * i as f32 / n as f32;
            p.push([radius * a.cos(), j as f32 * 0.6 / (m - 1) as f32, radius * a.sin()]);
        }
    }
    let mut indices = Vec::new();
    for j in 0..m - 1 {
        for i in 0..n {
            let (a, b, c, d) = (j * n + i, j * n + (i + 1) % n, (j + 1) * n + i, (j + 1) * n + (i + 1) % n);
            let quad = [a, c, b, b, c, d].map(|k| k as u32);
            let quad = if outward { quad } else { [quad[0], quad[2], quad[1], quad[3], quad[5], quad[4]] };
            indices.extend(quad);
        }
    }
    (p, indices)
}

#[test]
fn at_rest_the_proxy_gives_back_its_mesh_offset_layers_and_back_faces_of_a_curved_cloth_included() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = cylinder(0.3, 24, 8, true);
    let cloth = world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    // A finer outer layer 5 mm outside facing out, and an inner lining 4 mm inside facing in.
    for (radius, outward) in [(0.305, true), (0.296, false)] {
        let (rp, ri) = cylinder(radius, 61, 23, outward);
        let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&rp, &ri)).unwrap();
        let (x, n) = (read(&world, proxy, false), read(&world, proxy, true));
        let rest: Vec<Vec3> = rp.iter().map(|&q| Vec3::from_array(q)).collect();
        let own = own_normals(&rest, &ri);
        let position_error = x.iter().zip(&rest).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
        let normal_error = n.iter().zip(&own).map(|(a, b)| a.distance(*b)).fold(0.0, f32::max);
        assert!(position_error < 2e-6, "radius {radius}: rest given back within {position_error} m");
        assert!(normal_error < 1e-4, "radius {radius}: own normals given back within {normal_error}");
        let facing = n.iter().zip(&rest).all(|(n, q)| (n.dot(Vec3::new(q.x, 0.0, q.z)) > 0.0) == outward);
        assert!(facing, "radius {radius}: every normal faces {}", if outward { "out" } else { "in" });
        // Farthest from the 24 chords of the simulated circle: a render vertex near a chord's middle.
        let sagitta = 0.3 * (1.0 - (std::f32::consts::PI / 24.0).cos());
        let distance = world.render_proxy(proxy).unwrap().0.max_rest_distance();
        let (lo, hi) = if outward { (radius - 0.3, radius - 0.3 + sagitta) } else { (0.3 - radius - sagitta, 0.3 - radius) };
        assert!((lo - 1e-5..=hi + 1e-5).contains(&distance), "radius {radius}: {distance} m from the chords, expected {lo}..{hi}");
    }
}

#[test]
fn a_render_vertex_beyond_max_distance_is_named_with_its_exact_distance_and_nothing_is_added() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = flag_mesh(8);
    let cloth = world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    let (mut rp, ri) = flag_mesh(20);
    rp[37][2] = 0.0125; // 12.5 mm in front of the flat flag
    rp[250][2] = -0.03; // farther, but later
    let desc = RenderProxyDesc { max_distance: 0.012, ..RenderProxyDesc::new(&rp, &ri) };
    match world.add_render_proxy(cloth, &desc) {
        Err(ClothError::ProxyVertexTooFar { vertex, distance, max_distance }) => {
            assert_eq!((vertex, max_distance), (37, 0.012));
            assert!((distance - 0.0125).abs() < 1e-7, "{distance}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(world.render_proxy_count(), 0);
    // Within the limit by a hair: bound.
    assert!(world.add_render_proxy(cloth, &RenderProxyDesc { max_distance: 0.0301, ..desc }).is_ok());
    // A limit that is no distance, and a mesh that is no mesh.
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let e = world.add_render_proxy(cloth, &RenderProxyDesc { max_distance: bad, ..desc }).unwrap_err();
        assert!(matches!(e, ClothError::InvalidParameter { name: "max_distance", .. }), "{bad}: {e:?}");
    }
    rp[5][0] = f32::NAN;
    let e = world.add_render_proxy(cloth, &RenderProxyDesc::new(&rp, &ri)).unwrap_err();
    assert_eq!(e, ClothError::NonFiniteVertex { vertex: 5 });
    let e = world.add_render_proxy(cloth, &RenderProxyDesc::new(&p, &[0, 1, 64])).unwrap_err();
    assert_eq!(e, ClothError::IndexOutOfRange { triangle: 0, index: 64, vertex_count: 64 });
    assert_eq!(world.render_proxy_count(), 1);
}

#[test]
fn removing_a_cloth_makes_its_proxies_stale_and_leaves_the_others() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = flag_mesh(8);
    let (a, b) = (world.add_cloth(&ClothDesc::new(&p, &i)).unwrap(), world.add_cloth(&ClothDesc::new(&p, &i)).unwrap());
    let (rp, ri) = flag_mesh(16);
    let desc = RenderProxyDesc::new(&rp, &ri);
    let (pa, pb) = (world.add_render_proxy(a, &desc).unwrap(), world.add_render_proxy(b, &desc).unwrap());
    let pa2 = world.add_render_proxy(a, &desc).unwrap();
    world.remove_cloth(a).unwrap();
    let mut out = vec![[0.0f32; 3]; 256];
    for stale in [pa, pa2] {
        assert_eq!(world.read_render_proxy_positions(stale, &mut out), Err(ClothError::InvalidHandle));
        assert_eq!(world.remove_render_proxy(stale), Err(ClothError::InvalidHandle));
    }
    world.read_render_proxy_positions(pb, &mut out).unwrap();
    // A new proxy in a freed slot does not revive the old handles.
    let again = world.add_render_proxy(b, &desc).unwrap();
    assert!(again != pa && again != pa2);
    assert_eq!(world.read_render_proxy_positions(pa, &mut out), Err(ClothError::InvalidHandle));
    world.remove_render_proxy(pb).unwrap();
    assert_eq!(world.read_render_proxy_positions(pb, &mut out), Err(ClothError::InvalidHandle));
    assert_eq!(world.render_proxy_count(), 1);
}

#[test]
fn an_instance_shares_its_sources_binding_and_draws_its_own_state() {
    let (mut world, cloth, proxy) = flapping_flag(1, 10);
    let instance = world.add_instance(cloth).unwrap();
    let shared = world.add_render_proxy_instance(proxy, instance).unwrap();
    assert_eq!(read(&world, shared, false), read(&world, proxy, false), "an instance starts in its source's state");
    world.teleport(&[instance], &[], [0.0, 0.0, 5.0], [0.0, 0.0, 0.0, 1.0]).unwrap();
    let moved = read(&world, shared, false);
    let here = read(&world, proxy, false);
    assert!(moved.iter().zip(&here).all(|(m, h)| (*m - *h - Vec3::new(0.0, 0.0, 5.0)).length() < 1e-5));
    // Not for a cloth of another mesh.
    let (p, i) = flag_mesh(8);
    let other = world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    assert!(matches!(world.add_render_proxy_instance(proxy, other), Err(ClothError::InvalidParameter { name: "cloth", .. })));
}

#[test]
fn a_worn_cloth_blended_fully_to_its_pose_draws_its_proxy_on_the_pose() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = flag_mesh(12);
    let params = ClothParams { simulation_blend: 0.0, ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).unwrap();
    let (rp, ri) = flag_mesh(30);
    let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&rp, &ri)).unwrap();
    let pose: Vec<[f32; 3]> = p.iter().map(|q| [q[0] + 1.0, q[1], q[2] - 2.0]).collect();
    world.cloth_mut(cloth).unwrap().set_animated_pose(&pose, None).unwrap();
    world.step(DT).unwrap();
    let drawn = read(&world, proxy, false);
    for (d, r) in drawn.iter().zip(&rp) {
        assert!(d.distance(Vec3::from_array(*r) + Vec3::new(1.0, 0.0, -2.0)) < 2e-6, "{d}");
    }
}

#[test]
fn a_proxy_of_the_simulated_mesh_itself_draws_what_the_cloth_draws_at_any_alpha_and_interval() {
    for step_interval in [1, 3] {
        let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
        let (p, i) = flag_mesh(16);
        let params = ClothParams { drag_coefficient: 1.0, wind_velocity: [4.0, 0.0, 1.0], step_interval, ..ClothParams::default() };
        let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).unwrap();
        world.cloth_mut(cloth).unwrap().set_pinned(&[0, 240], None).unwrap();
        let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&p, &i)).unwrap();
        let layout = VertexLayout { stride: 12, position_offset: Some(0), normal_offset: None };
        for _ in 0..9 {
            world.step(DT).unwrap();
            for alpha in [0.0, 0.4, 1.0] {
                let mut own = vec![0u8; 12 * p.len()];
                let mut drawn = vec![0u8; 12 * p.len()];
                world.cloth(cloth).unwrap().write_vertices(&mut own, layout, alpha).unwrap();
                world.write_render_proxy_vertices(proxy, &mut drawn, layout, alpha).unwrap();
                let floats = |b: &[u8]| b.chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect::<Vec<f32>>();
                let worst = floats(&own).iter().zip(floats(&drawn)).map(|(a, b)| (a - b).abs()).fold(0.0, f32::max);
                assert!(worst < 2e-6, "interval {step_interval}, alpha {alpha}: {worst} m");
            }
        }
    }
}

#[test]
fn during_an_asynchronous_step_the_proxy_draws_the_state_before_it() {
    let (world, _, proxy) = flapping_flag(2, 5);
    let before = read(&world, proxy, false);
    let shared = SharedWorld::new(world);
    let layout = VertexLayout { stride: 12, position_offset: Some(0), normal_offset: None };
    let hold = shared.hold_steps();
    shared.step_begin(DT).unwrap();
    let mut during = vec![0u8; 12 * before.len()];
    shared.write_render_proxy_vertices(proxy, &mut during, layout, 1.0).unwrap();
    let first: Vec<f32> = during[..12].chunks_exact(4).map(|c| f32::from_ne_bytes(c.try_into().unwrap())).collect();
    assert_eq!(first, before[0].to_array());
    let same = shared.read_proxy(proxy, |p, r| {
        let mut out = vec![[0.0f32; 3]; before.len()];
        p.read_positions(r, &mut out).unwrap();
        out.iter().zip(&before).all(|(a, b)| *a == b.to_array())
    });
    assert_eq!(same, Ok(true));
    drop(hold);
    shared.step_end().unwrap();
    let moved = shared.read_proxy(proxy, |p, r| {
        let mut out = vec![[0.0f32; 3]; before.len()];
        p.read_positions(r, &mut out).unwrap();
        out.iter().zip(&before).any(|(a, b)| *a != b.to_array())
    });
    assert_eq!(moved, Ok(true));
}

#[test]
fn a_render_mesh_split_at_a_seam_draws_one_smooth_normal_across_it_and_a_loose_vertex_gets_the_surfaces() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = flag_mesh(12);
    let cloth = world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 11], None).unwrap();
    // Two halves of a 21 × 21 render grid, each with its own copy of the middle column (a UV seam),
    // and one loose vertex in no triangle.
    let n = 21usize;
    let (full, _) = flag_mesh(n);
    let mut positions = Vec::new();
    let mut indices = Vec::new();
    for half in 0..2 {
        let columns: Vec<usize> = if half == 0 { (0..=10).collect() } else { (10..n).collect() };
        let base = positions.len() as u32;
        for r in 0..n {
            for &c in &columns {
                positions.push(full[r * n + c]);
            }
        }
        let w = columns.len() as u32;
        for r in 0..n as u32 - 1 {
            for c in 0..w - 1 {
                let a = base + r * w + c;
                indices.extend([a, a + w, a + 1, a + 1, a + w, a + w + 1]);
            }
        }
    }
    positions.push([0.37, 1.52, 0.0]);
    let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&positions, &indices)).unwrap();
    for _ in 0..40 {
        world.step(DT).unwrap();
    }
    let normals = read(&world, proxy, true);
    // The seam copies: column 10 of the left half (index r·11 + 10) and column 0 of the right half.
    for r in 0..n {
        let (left, right) = (normals[r * 11 + 10], normals[n * 11 + r * 11]);
        assert_eq!(left, right, "row {r}: the two copies of a seam vertex share their normal");
    }
    let loose = *normals.last().unwrap();
    assert!((loose.length() - 1.0).abs() < 1e-5, "the loose vertex gets a unit normal: {loose}");
    // The simulated surface's normal there: close to that of the particle nearest to it at rest
    // (0.37, 1.52 lies within a third of an 11th of a metre of particle (4, 5)).
    let mut cloth_normals = vec![[0.0f32; 3]; p.len()];
    world.cloth(cloth).unwrap().read_normals(&mut cloth_normals).unwrap();
    let nearest = Vec3::from_array(cloth_normals[5 * 12 + 4]);
    assert!(loose.dot(nearest) > 0.99, "the simulated surface's: {loose} vs {nearest}");
}

/// A proxy of a tearable flag keeps drawing after cuts add vertices: a slit cut down from the top
/// edge splits 7 vertices; after a second of wind every render vertex of the proxy (the flag's own
/// mesh) is where the cloth draws the vertex it was made from or one of its copies (the side of
/// its triangle), and the two sides of the slit have come apart.
#[test]
fn a_proxy_follows_the_cuts_of_a_tearable_cloth() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let n = 16u32;
    let (p, i) = flag_mesh(n as usize);
    let params = ClothParams { drag_coefficient: 1.0, lift_coefficient: 0.3, wind_velocity: [6.0, 0.5, 1.0], ..ClothParams::default() };
    let cloth = world.add_cloth(&ClothDesc { params, max_extra_vertices: 32, ..ClothDesc::new(&p, &i) }).unwrap();
    let hoist: Vec<u32> = (0..n).map(|r| r * n).collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&hoist, None).unwrap();
    let proxy = world.add_render_proxy(cloth, &RenderProxyDesc::new(&p, &i)).unwrap();
    world.step(DT).unwrap();
    for r in 0..7 {
        world.cloth_mut(cloth).unwrap().tear(r * n + 8, (r + 1) * n + 8).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let count = c.render_counts().vertex_count as usize;
    assert_eq!(count, p.len() + 7, "the slit splits the vertices along it");
    for _ in 0..60 {
        world.step(DT).unwrap();
    }
    let c = world.cloth(cloth).unwrap();
    let (mut own, mut sources) = (vec![[0.0f32; 3]; count], vec![0u32; count]);
    c.read_positions(&mut own).unwrap();
    c.read_vertex_sources(&mut sources).unwrap();
    let drawn = read(&world, proxy, false);
    let mut apart = 0.0f32;
    for (v, x) in drawn.iter().enumerate() {
        let copies: Vec<Vec3> = (0..count).filter(|&u| sources[u] as usize == v).map(|u| Vec3::from_array(own[u])).collect();
        let nearest = copies.iter().map(|c| c.distance(*x)).fold(f32::INFINITY, f32::min);
        assert!(nearest < 2e-6, "proxy vertex {v} is {nearest} m from every copy of its vertex");
        apart = copies.iter().map(|c| c.distance(copies[0])).fold(apart, f32::max);
    }
    assert!(apart > 1e-3, "the slit's sides are {apart} m apart");
    assert!(read(&world, proxy, true).iter().all(|n| (n.length() - 1.0).abs() < 1e-5), "unit normals");
}
