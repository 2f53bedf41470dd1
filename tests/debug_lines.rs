//! Debug lines (issue 46): a 32² cloth's edge lines are its edges, coloured by strain (green at
//! rest, red at the stretch limit); the count is the full count when the buffer is too small;
//! every flag draws what it says, as many lines as it says.

mod common;

use common::horizontal_sheet;
use xpbd_cloth::debug_lines::*;
use xpbd_cloth::{ClothDesc, ClothError, ClothParams, ColliderDesc, Pose, Vec3, World, WorldDesc};

fn lines(world: &World, flags: u32) -> Vec<([Vec3; 2], u32)> {
    let total = world.debug_lines(flags, &mut [], &mut []).unwrap();
    let (mut l, mut c) = (vec![[0.0f32; 6]; total], vec![0u32; total]);
    assert_eq!(world.debug_lines(flags, &mut l, &mut c).unwrap(), total);
    l.iter().zip(c).map(|(l, c)| ([Vec3::new(l[0], l[1], l[2]), Vec3::new(l[3], l[4], l[5])], c)).collect()
}

/// The line between the positions `a` and `b` (either way round), if any.
fn line_between(all: &[([Vec3; 2], u32)], a: Vec3, b: Vec3) -> Option<u32> {
    all.iter().find(|(l, _)| (l[0] == a && l[1] == b) || (l[0] == b && l[1] == a)).map(|l| l.1)
}

#[test]
fn a_32_squared_cloths_edge_lines_are_its_edges_green_at_rest_and_red_at_the_stretch_limit() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = horizontal_sheet(32, 1.0, 0.0);
    let cloth = world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    let edges = world.cloth(cloth).unwrap().info().edge_count as usize;
    assert_eq!(edges, 31 * 32 * 2 + 31 * 31, "a 32² grid has its rows, columns and one diagonal per quad");
    let at_rest = lines(&world, DEBUG_EDGES);
    assert_eq!(at_rest.len(), edges);
    assert!(at_rest.iter().all(|(_, c)| *c == rgba(0, 255, 0, 255)), "every edge at rest is green");
    // Vertex 10 of row 5 moved along the row: the edge from vertex 9 stretched to the limit
    // (max_stretch 1.025 by default: strain 0.025), the one to vertex 11 shortened.
    let h = 1.0 / 31.0;
    let v = 5 * 32 + 10;
    let moved = [p[v][0] + 0.025 * h, p[v][1], p[v][2]];
    world.cloth_mut(cloth).unwrap().set_positions(Some(&[v as u32]), &[moved]).unwrap();
    let drawn = lines(&world, DEBUG_EDGES);
    let at = |k: usize| Vec3::from_array(p[k]);
    assert_eq!(line_between(&drawn, at(v - 1), Vec3::from_array(moved)), Some(rgba(255, 0, 0, 255)), "at the limit: red");
    assert_eq!(line_between(&drawn, Vec3::from_array(moved), at(v + 1)), Some(rgba(0, 255, 0, 255)), "shorter: green");
    assert_eq!(line_between(&drawn, at(0), at(1)), Some(rgba(0, 255, 0, 255)), "elsewhere: green");
    // Half the limit: yellow.
    let half = [p[v][0] + 0.0125 * h, p[v][1], p[v][2]];
    world.cloth_mut(cloth).unwrap().set_positions(Some(&[v as u32]), &[half]).unwrap();
    let drawn = lines(&world, DEBUG_EDGES);
    let c = line_between(&drawn, at(v - 1), Vec3::from_array(half)).unwrap().to_le_bytes();
    assert!(c[0] == 255 && (c[1] as i32 - 255).abs() <= 2 && c[2] == 0, "half way: yellow, not {c:?}");
}

#[test]
fn a_buffer_too_small_gets_the_first_lines_and_the_full_count() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = horizontal_sheet(32, 1.0, 0.0);
    world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    world.add_collider(&ColliderDesc { pose: Pose::at([0.5, -0.5, 0.5]), ..ColliderDesc::sphere(0.3) }).unwrap();
    let flags = DEBUG_EDGES | DEBUG_COLLIDERS;
    let all = lines(&world, flags);
    assert_eq!(all.len(), 2945 + 48);
    let (mut l, mut c) = (vec![[7.0f32; 6]; 12], vec![0xDEADu32; 12]);
    assert_eq!(world.debug_lines(flags, &mut l[..10], &mut c[..10]).unwrap(), 2993, "the full count");
    for k in 0..10 {
        assert_eq!([Vec3::new(l[k][0], l[k][1], l[k][2]), Vec3::new(l[k][3], l[k][4], l[k][5])], all[k].0);
        assert_eq!(c[k], all[k].1);
    }
    assert_eq!((l[10], c[11]), ([7.0; 6], 0xDEAD), "nothing past the buffer given");
    assert_eq!(world.debug_lines(flags, &mut [], &mut []).unwrap(), 2993, "no buffer: just the count");
    // Bad input: nothing written.
    let e = world.debug_lines(flags, &mut l[..3], &mut c[..2]).unwrap_err();
    assert_eq!(e, ClothError::BufferSizeMismatch { expected: 3, got: 2 });
    assert!(matches!(world.debug_lines(1 << 7, &mut l, &mut c), Err(ClothError::InvalidParameter { name: "flags", .. })));
    assert_eq!(c[11], 0xDEAD);
}

#[test]
fn colliders_are_drawn_as_their_wire_shapes() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let sphere = ColliderDesc { pose: Pose::at([1.0, 2.0, 3.0]), ..ColliderDesc::sphere(0.5) };
    world.add_collider(&sphere).unwrap();
    let sphere_lines = lines(&world, DEBUG_COLLIDERS);
    assert_eq!(sphere_lines.len(), 48, "three great circles of 16");
    for ([a, b], c) in &sphere_lines {
        assert!((a.distance(Vec3::new(1.0, 2.0, 3.0)) - 0.5).abs() < 1e-5 && (b.distance(Vec3::new(1.0, 2.0, 3.0)) - 0.5).abs() < 1e-5);
        assert_eq!(*c, COLLIDER_COLOUR);
    }
    world.add_collider(&ColliderDesc { pose: Pose::from_axis_angle([0.0; 3], [0.0, 0.0, 1.0], 0.3), ..ColliderDesc::cuboid([0.1, 0.2, 0.3]) }).unwrap();
    world.add_collider(&ColliderDesc::capsule(0.1, 0.4)).unwrap();
    world.add_collider(&ColliderDesc::plane()).unwrap();
    let all = lines(&world, DEBUG_COLLIDERS);
    assert_eq!(all.len(), 48 + 12 + (2 * (16 + 2 * 8) + 4) + 7);
    // The box's edges have its three lengths, four of each.
    let box_lengths: Vec<f32> = all[48..60].iter().map(|(l, _)| l[0].distance(l[1])).collect();
    for side in [0.2, 0.4, 0.6] {
        assert_eq!(box_lengths.iter().filter(|&&d| (d - side).abs() < 1e-5).count(), 4, "{box_lengths:?}");
    }
}

#[test]
fn pins_normals_and_contacts_are_drawn_where_they_are() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = horizontal_sheet(12, 0.5, 0.205);
    let cloth = world.add_cloth(&ClothDesc::new(&p, &i)).unwrap();
    world.cloth_mut(cloth).unwrap().set_pinned(&[0, 11], None).unwrap();
    world.add_collider(&ColliderDesc { pose: Pose::at([0.25, 0.0, 0.25]), ..ColliderDesc::cuboid([1.0, 0.2, 1.0]) }).unwrap();
    let pins = lines(&world, DEBUG_PINS);
    assert_eq!(pins.len(), 6, "a cross of three lines per pin");
    let centre = |l: &[Vec3; 2]| (l[0] + l[1]) * 0.5;
    assert!(pins[..3].iter().all(|(l, c)| *c == PIN_COLOUR && centre(l).distance(Vec3::from_array(p[0])) < 1e-7));
    assert!(pins[3..].iter().all(|(l, c)| *c == PIN_COLOUR && centre(l).distance(Vec3::from_array(p[11])) < 1e-7));
    let normals = lines(&world, DEBUG_NORMALS);
    assert_eq!(normals.len(), 144);
    assert!(normals.iter().all(|(l, _)| (l[1] - l[0]).normalize().y.abs() > 0.999), "a flat sheet's normals are vertical");
    // The sheet lies 5 mm above the box top, at its collision thickness: every particle touches.
    let contacts = lines(&world, DEBUG_CONTACTS);
    assert_eq!(contacts.len(), 144);
    assert!(contacts.iter().all(|(l, c)| *c == CONTACT_COLOUR && (l[1] - l[0]).normalize().y > 0.999), "the box's normal: up");
    world.cloth_mut(cloth).unwrap().set_positions(None, &p.iter().map(|q| [q[0], q[1] + 0.1, q[2]]).collect::<Vec<_>>()).unwrap();
    assert!(lines(&world, DEBUG_CONTACTS).is_empty(), "10 cm above: none");
}

#[test]
fn max_distances_and_backstops_are_drawn_about_the_animated_pose() {
    let mut world = World::new(WorldDesc { thread_count: 1, ..WorldDesc::default() }).unwrap();
    let (p, i) = horizontal_sheet(6, 0.5, 0.0);
    let params = ClothParams::default();
    let cloth = world.add_cloth(&ClothDesc { params, ..ClothDesc::new(&p, &i) }).unwrap();
    let c = world.cloth_mut(cloth).unwrap();
    let d: Vec<f32> = (0..36).map(|k| if k < 6 { 0.0 } else { 0.05 }).collect();
    c.set_max_distances(Some(&d)).unwrap();
    c.set_backstops(Some((&[0.01; 36], &[0.2; 36]))).unwrap();
    assert!(lines(&world, DEBUG_MAX_DISTANCE).is_empty(), "inactive until posed");
    world.cloth_mut(cloth).unwrap().set_animated_pose(&p, None).unwrap();
    let max = lines(&world, DEBUG_MAX_DISTANCE);
    assert_eq!(max.len(), 30 * 13, "a circle of 12 and a line per particle with d > 0");
    let circle = &max[..12];
    assert!(circle.iter().all(|(l, c)| *c == MAX_DISTANCE_COLOUR && (l[0].distance(Vec3::from_array(p[6])) - 0.05).abs() < 1e-6));
    assert_eq!(max[12].1, rgba(0, 255, 0, 255), "on its pose: none of d used");
    let back = lines(&world, DEBUG_BACKSTOP);
    assert_eq!(back.len(), 36 * 3);
    let (l, _) = back[0];
    assert!((l[0] - l[1]).length() - 0.01 < 1e-6 && (l[0] - l[1]).normalize().y.abs() > 0.999, "1 cm along the animated normal");
    assert_eq!(lines(&world, DEBUG_PINS).len(), 6 * 3, "max distance 0: kinematic, drawn as pins");
}
