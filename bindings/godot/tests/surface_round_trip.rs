//! The node's whole data path without Godot: a Godot-style surface (clockwise front, a UV seam,
//! vertex colours) under a scaled, rotated, moved mesh instance → world space → the core (pins
//! from the colour channel, held in the instance's frame) → back to local space → the vertex
//! buffer bytes Godot reads. What Godot would decode must be what the core computed.

use glam::{Affine3A, Quat, Vec3};
use xpbd_cloth::{ClothDesc, World, WorldDesc};
use xpbd_cloth_godot::convert::pins::{self, AnchoredPin, ColorChannel};
use xpbd_cloth_godot::convert::surface::{WorldToLocal, core_triangles, is_mirroring, to_world};
use xpbd_cloth_godot::convert::vertex_buffer::{
    VertexLayout, VertexWriter, dequantise, octahedron_decode, octahedron_tangent_decode,
};

/// A 1 m square in the XZ plane facing +Y, `n × n` quads, split along its middle column into two
/// halves that duplicate the seam vertices (as a UV seam does). Godot order: clockwise from +Y.
/// Vertex colours: red 1 on the far edge (z = 0), 0 elsewhere.
fn seamed_sheet(n: usize) -> (Vec<[f32; 3]>, Vec<i32>, Vec<[f32; 4]>) {
    let (mut positions, mut indices, mut colors) = (Vec::new(), Vec::new(), Vec::new());
    let half = n / 2;
    for (first, last) in [(0, half), (half, n)] {
        let base = positions.len() as i32;
        let cols = (last - first + 1) as i32;
        for j in 0..=n {
            for i in first..=last {
                let (x, z) = (i as f32 / n as f32, j as f32 / n as f32);
                positions.push([x, 0.0, z]);
                colors.push([if j == 0 { 1.0 } else { 0.0 }, 0.0, 0.0, 1.0]);
            }
        }
        for j in 0..n as i32 {
            for i in 0..cols - 1 {
                let a = base + j * cols + i;
                let (b, c, d) = (a + 1, a + cols, a + cols + 1);
                // (a, b, c) runs clockwise seen from +Y (its right-hand normal is −Y).
                indices.extend_from_slice(&[a, b, c, c, b, d]);
            }
        }
    }
    (positions, indices, colors)
}

#[test]
fn godot_decodes_what_the_core_computed_and_pins_hold() {
    let (local, indices, colors) = seamed_sheet(8);
    let instance = Affine3A::from_scale_rotation_translation(
        Vec3::new(1.5, 1.0, 1.5),
        Quat::from_rotation_y(0.6),
        Vec3::new(0.0, 2.0, -1.0),
    );
    let world_positions = to_world(&local, &instance);
    let tris = core_triangles(Some(&indices), local.len(), is_mirroring(&instance)).unwrap();
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let cloth = world.add_cloth(&ClothDesc::new(&world_positions, &tris)).unwrap();
    // The seam's duplicates weld: 9 × 9 grid points, 81 particles for 90 render vertices.
    assert_eq!(local.len(), 90);
    assert_eq!(world.cloth(cloth).unwrap().particle_count(), 81);

    let pinned = pins::by_color(&colors, ColorChannel::Red, 0.5);
    assert_eq!(pinned.len(), 10); // 9 edge points + the seam's copy
    let anchored: Vec<AnchoredPin> = pinned
        .iter()
        .map(|&v| AnchoredPin::attach(v, Vec3::from_array(world_positions[v as usize]), &instance).unwrap())
        .collect();
    world.cloth_mut(cloth).unwrap().set_pinned(&pinned, None).unwrap();

    // Rest normals first: the front Godot renders is +Y in local space.
    let layout = VertexLayout::godot_uncompressed(local.len(), true);
    let writer = VertexWriter::new(layout, None).unwrap();
    let mut bytes = vec![0u8; layout.buffer_len];
    let decode_normal = |bytes: &[u8], v: usize| {
        let at = layout.normal_offset.unwrap() + v * layout.normal_stride;
        octahedron_decode(dequantise(bytes[at..at + 4].try_into().unwrap()))
    };
    let decode_position = |bytes: &[u8], v: usize| {
        let at = layout.position_offset + v * layout.position_stride;
        let f = |k: usize| f32::from_le_bytes(bytes[at + 4 * k..at + 4 * k + 4].try_into().unwrap());
        Vec3::new(f(0), f(1), f(2))
    };

    let frame = |world: &mut World, bytes: &mut [u8]| {
        let c = world.cloth(cloth).unwrap();
        let (mut p, mut n) = (vec![[0.0f32; 3]; 90], vec![[0.0f32; 3]; 90]);
        c.read_positions(&mut p).unwrap();
        c.read_normals(&mut n).unwrap();
        let back = WorldToLocal::new(&instance).unwrap();
        let lp: Vec<Vec3> = p.iter().map(|w| back.point(*w)).collect();
        let ln: Vec<Vec3> = n.iter().map(|w| back.normal(*w)).collect();
        writer.write(bytes, &lp, &ln);
        (lp, ln)
    };

    let (_, rest_normals) = frame(&mut world, &mut bytes); // normals exist from creation on
    for (v, n) in rest_normals.iter().enumerate() {
        assert!((*n - Vec3::Y).length() < 1e-6, "vertex {v}: {n}");
        assert!((decode_normal(&bytes, v) - Vec3::Y).length() < 2e-4);
    }

    // Half a second of falling from the pinned edge, pins held in the instance's frame.
    for _ in 0..30 {
        let targets: Vec<[f32; 3]> = anchored.iter().map(|a| a.target(&instance)).collect();
        world.cloth_mut(cloth).unwrap().set_pin_targets(&pinned, &targets).unwrap();
        world.step(1.0 / 60.0).unwrap();
    }
    let (lp, ln) = frame(&mut world, &mut bytes);
    for v in 0..local.len() {
        // Positions arrive bit-exact (plain floats); normals to 16-bit octahedral precision.
        assert_eq!(decode_position(&bytes, v), lp[v]);
        assert!((decode_normal(&bytes, v) - ln[v]).length() < 2e-4);
    }
    for &v in &pinned {
        assert!((lp[v as usize] - Vec3::from_array(local[v as usize])).length() < 1e-5, "pin {v} moved");
    }
    // The sheet hangs: its near edge (z = 1) has fallen well below the pinned one (in world y).
    let low = to_world(&[lp[89].to_array()], &instance)[0];
    assert!(low[1] < 2.0 - 0.5, "near corner at y = {}", low[1]);
    // Seam copies (vertex 4 of the first half, 45 of the second) read one particle.
    assert_eq!(lp[4], lp[45]);
    // Decoded UV-less tangents stay perpendicular to the decoded normals.
    let t_at = layout.tangent_offset.unwrap() + 40 * layout.normal_stride;
    let (t, _) = octahedron_tangent_decode(dequantise(bytes[t_at..t_at + 4].try_into().unwrap()));
    assert!(t.dot(decode_normal(&bytes, 40)).abs() < 1e-3);
}
