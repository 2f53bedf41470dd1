//! Operations of the engine's frame loop: `xpbd_world_advance`, the interpolated reads,
//! `xpbd_cloth_write_vertices`, bounds, and particle writes (`xpbd_cloth_set_positions` /
//! `set_velocities`), instances, the asynchronous step (`xpbd_world_step_begin` / `_end`). Split
//! from `mod.rs`, whose model and checks they use.

use super::input::Input;
use super::{ClothModel, Harness, OK, outcome};
use xpbd_cloth::ffi::*;

use XpbdResult::{BufferSizeMismatch, InvalidArgument, InvalidId, NullPointer};

/// A byte the library never writes by chance into a canary-filled buffer.
const CANARY: u8 = 0xA7;

impl Harness {
    /// `xpbd_world_step_end` with nothing begun (1 in 4), then `xpbd_world_step_begin` with a valid or
    /// invalid dt; when it began: a second begin or a synchronous step (both refused), a read of
    /// the first cloth (the state at begin, bit for bit), and `xpbd_world_step_end`. The model
    /// keeps no open bracket: every program sees whole ones.
    pub fn op_world_step_async(&mut self, r: &mut Input) {
        let id = self.pick_world(r);
        let world = self.world_index(id);
        let before = self.snapshot();
        if r.chance(25) {
            let got = xpbd_world_step_end(id);
            let want = outcome(&[(world.is_none(), InvalidId), (true, XpbdResult::StepNotBegun)]);
            self.expect("xpbd_world_step_end", format_args!("{:#x} (not begun)", id.id), got, want);
            self.unchanged_since(&before, "xpbd_world_step_end without a begin");
        }
        let dt = r.pick(&[1.0f32 / 60.0, 1.0 / 60.0, 1.0 / 30.0, 0.0, -1.0 / 60.0, f32::NAN, 1.5, 1e-30]);
        let want = outcome(&[(world.is_none(), InvalidId), (!(1.0e-5..=1.0).contains(&dt), InvalidArgument)]);
        let first = world.and_then(|w| self.worlds[w].cloths.first()).map(|c| (c.id, c.vertex_count));
        let read = |cloth: XpbdClothId, n: u32| {
            let mut out = vec![[f32::NAN; 3]; n as usize];
            // SAFETY: `out` holds `n` × 3 floats.
            let got = unsafe { xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), n) };
            (got, out.iter().map(|p| p.map(f32::to_bits)).collect::<Vec<_>>())
        };
        let read_before = first.map(|(c, n)| read(c, n));
        let got = xpbd_world_step_begin(id, dt);
        self.expect("xpbd_world_step_begin", format_args!("{:#x}, {dt}", id.id), got, want);
        if got != OK {
            self.unchanged_since(&before, "failed xpbd_world_step_begin");
            return;
        }
        let refused = match r.below(4) {
            0 => Some(("xpbd_world_step_begin", xpbd_world_step_begin(id, dt))),
            1 => Some(("xpbd_world_step", xpbd_world_step(id, dt))),
            _ => None,
        };
        if let Some((name, got)) = refused {
            self.expect(name, format_args!("{:#x} (inside a bracket)", id.id), got, XpbdResult::StepInProgress);
        }
        if let (Some((c, n)), Some(read_before)) = (first, read_before)
            && read(c, n) != read_before
        {
            self.fail(format!("a read of cloth {:#x} between step_begin and step_end is not the state at begin", c.id));
        }
        let got = xpbd_world_step_end(id);
        let want = if got == XpbdResult::SimulationUnstable { got } else { OK };
        self.expect("xpbd_world_step_end", format_args!("{:#x}", id.id), got, want);
        if got == XpbdResult::SimulationUnstable {
            self.check_unstable_step_was_recovered(id);
        }
    }

    /// `xpbd_world_advance_end` with nothing begun (1 in 4), then `xpbd_world_advance_begin` with
    /// valid or invalid arguments; when it began: a second begin, a step or an advance (refused),
    /// a read of the first cloth (the state at begin, bit for bit), and the bracket ended by
    /// `xpbd_world_advance_end` (or, 1 in 4, `xpbd_world_step_end`, without the outputs).
    pub fn op_world_advance_async(&mut self, r: &mut Input) {
        let id = self.pick_world(r);
        let world = self.world_index(id);
        let before = self.snapshot();
        if r.chance(25) {
            // SAFETY: NULL outputs are allowed.
            let got = unsafe { xpbd_world_advance_end(id, std::ptr::null_mut(), std::ptr::null_mut()) };
            let want = outcome(&[(world.is_none(), InvalidId), (true, XpbdResult::StepNotBegun)]);
            self.expect("xpbd_world_advance_end", format_args!("{:#x} (not begun)", id.id), got, want);
            self.unchanged_since(&before, "xpbd_world_advance_end without a begin");
        }
        let frame = r.pick(&[0.016f32, 0.007, 0.033, 0.0, -0.001, f32::NAN, 4000.0]);
        let fixed = r.pick(&[1.0f32 / 60.0, 1.0 / 60.0, 1.0 / 30.0, 0.0, f32::NAN]);
        let max_steps = r.pick(&[1u32, 2, 4, 0, 1001]);
        let valid = (0.0..=3600.0).contains(&frame) && (1.0e-5..=1.0).contains(&fixed) && (1..=1000).contains(&max_steps);
        let want = outcome(&[(world.is_none(), InvalidId), (!valid, InvalidArgument)]);
        let first = world.and_then(|w| self.worlds[w].cloths.first()).map(|c| (c.id, c.vertex_count));
        let read = |cloth: XpbdClothId, n: u32| {
            let mut out = vec![[f32::NAN; 3]; n as usize];
            // SAFETY: `out` holds `n` × 3 floats.
            let got = unsafe { xpbd_cloth_read_positions(cloth, out.as_mut_ptr().cast(), n) };
            (got, out.iter().map(|p| p.map(f32::to_bits)).collect::<Vec<_>>())
        };
        let read_before = first.map(|(c, n)| read(c, n));
        let got = xpbd_world_advance_begin(id, frame, fixed, max_steps);
        self.expect("xpbd_world_advance_begin", format_args!("{:#x}, {frame}, {fixed}, {max_steps}", id.id), got, want);
        if got != OK {
            self.unchanged_since(&before, "failed xpbd_world_advance_begin");
            return;
        }
        let refused = match r.below(4) {
            0 => Some(("xpbd_world_advance_begin", xpbd_world_advance_begin(id, frame, fixed, max_steps))),
            1 => Some(("xpbd_world_step_begin", xpbd_world_step_begin(id, fixed))),
            // SAFETY: NULL outputs are allowed.
            2 => Some(("xpbd_world_advance", unsafe { xpbd_world_advance(id, frame, fixed, max_steps, std::ptr::null_mut(), std::ptr::null_mut()) })),
            _ => None,
        };
        if let Some((name, got)) = refused {
            self.expect(name, format_args!("{:#x} (inside a bracket)", id.id), got, XpbdResult::StepInProgress);
        }
        if let (Some((c, n)), Some(read_before)) = (first, read_before)
            && read(c, n) != read_before
        {
            self.fail(format!("a read of cloth {:#x} between advance_begin and advance_end is not the state at begin", c.id));
        }
        let (mut steps, mut alpha) = (u32::MAX, f32::NAN);
        let (name, got) = match r.chance(25) {
            true => ("xpbd_world_step_end", xpbd_world_step_end(id)),
            // SAFETY: valid outputs.
            false => ("xpbd_world_advance_end", unsafe { xpbd_world_advance_end(id, &mut steps, &mut alpha) }),
        };
        let want = if got == XpbdResult::SimulationUnstable { got } else { OK };
        self.expect(name, format_args!("{:#x}", id.id), got, want);
        if name == "xpbd_world_advance_end" && (steps > max_steps || !(0.0..1.0).contains(&alpha)) {
            self.fail(format!("xpbd_world_advance_end wrote {steps} steps (max {max_steps}), alpha {alpha}"));
        }
        if got == XpbdResult::SimulationUnstable {
            self.check_unstable_step_was_recovered(id);
        }
    }

    /// `xpbd_world_advance` with valid or invalid times and step limits (at most 4 steps, so a
    /// program stays fast), outputs NULL or not.
    pub fn op_world_advance(&mut self, r: &mut Input) {
        let id = self.pick_world(r);
        let frame = r.pick(&[0.016f32, 0.007, 0.033, 0.0, 0.5, -0.001, f32::NAN, 4000.0, f32::INFINITY]);
        let fixed = r.pick(&[1.0f32 / 60.0, 1.0 / 60.0, 1.0 / 30.0, 0.0, 1.5, f32::NAN, 1e-30]);
        let max_steps = r.pick(&[1u32, 1, 2, 4, 0, 1001]);
        let valid = (0.0..=3600.0).contains(&frame) && (1.0e-5..=1.0).contains(&fixed) && (1..=1000).contains(&max_steps);
        let (null_steps, null_alpha) = (r.chance(20), r.chance(20));
        let want = outcome(&[(self.world_index(id).is_none(), InvalidId), (!valid, InvalidArgument)]);
        let before = self.snapshot();
        let (mut steps, mut alpha) = (u32::MAX, f32::NAN);
        let sp: *mut u32 = if null_steps { std::ptr::null_mut() } else { &mut steps };
        let ap: *mut f32 = if null_alpha { std::ptr::null_mut() } else { &mut alpha };
        // SAFETY: each out-parameter is NULL or valid.
        let got = unsafe { xpbd_world_advance(id, frame, fixed, max_steps, sp, ap) };
        let want = if want == OK && got == XpbdResult::SimulationUnstable { got } else { want };
        let args = format_args!("{:#x}, {frame}, {fixed}, {max_steps}", id.id);
        self.expect("xpbd_world_advance", args, got, want);
        match got {
            OK | XpbdResult::SimulationUnstable => {
                if !null_steps && steps > max_steps {
                    self.fail(format!("xpbd_world_advance took {steps} steps, more than {max_steps}"));
                }
                if !null_alpha && !(0.0..1.0).contains(&alpha) {
                    self.fail(format!("xpbd_world_advance gave alpha {alpha}"));
                }
                if got == XpbdResult::SimulationUnstable {
                    self.check_unstable_step_was_recovered(id);
                }
            }
            _ => {
                if steps != u32::MAX || !alpha.is_nan() {
                    self.fail("failed xpbd_world_advance wrote an out-parameter".into());
                }
                self.unchanged_since(&before, "failed xpbd_world_advance");
            }
        }
    }

    /// An interpolated read, a vertex-buffer write or the bounds, with valid or invalid alpha,
    /// layout, count and pointers. Never changes state; a failed call writes nothing.
    pub fn op_cloth_frame_read(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live_count = self.cloth(id).map(|c| c.vertex_count);
        let vc = live_count.unwrap_or(r.below(16) + 1);
        let count = match r.below(8) {
            0 => vc.saturating_sub(1),
            1 => vc + 1,
            _ => vc,
        };
        let alpha = r.pick(&[0.0f32, 0.5, 1.0, 0.25, -0.01, 1.01, f32::NAN]);
        let bad_alpha = !(0.0..=1.0).contains(&alpha);
        let before = self.snapshot();
        match r.below(3) {
            0 => {
                let normals = r.chance(50);
                let null = count > 0 && r.chance(10);
                let mut buf = vec![[f32::from_bits(0x7FC0_1234); 3]; count as usize];
                let ptr = if null { std::ptr::null_mut() } else { buf.as_mut_ptr().cast::<f32>() };
                let want = outcome(&[
                    (null, NullPointer),
                    (live_count.is_none(), InvalidId),
                    (bad_alpha, InvalidArgument),
                    (Some(count) != live_count, BufferSizeMismatch),
                ]);
                // SAFETY: `ptr` is NULL or holds `count` 3-vectors.
                let (name, got) = unsafe {
                    match normals {
                        true => ("xpbd_cloth_read_normals_interpolated", xpbd_cloth_read_normals_interpolated(id, alpha, ptr, count)),
                        false => ("xpbd_cloth_read_positions_interpolated", xpbd_cloth_read_positions_interpolated(id, alpha, ptr, count)),
                    }
                };
                self.expect(name, format_args!("{:#x}, {alpha}, count {count}", id.id), got, want);
                let untouched = buf.iter().flatten().all(|c| c.to_bits() == 0x7FC0_1234);
                if got != OK && !untouched {
                    self.fail(format!("failed {name} wrote into the buffer"));
                }
                if got == OK && buf.iter().flatten().any(|c| c.to_bits() == 0x7FC0_1234) {
                    self.fail(format!("{name} left part of the buffer unwritten"));
                }
            }
            1 => {
                let stride = r.pick(&[32u32, 24, 12, 16, 8, 0, 4096]);
                let po = r.pick(&[0i32, 0, 12, 20, -1, -2, 24, i32::MIN]);
                let no = r.pick(&[12i32, 12, 0, -1, 4, 24, i32::MAX]);
                let misalign = r.below(4) as usize;
                let null = r.chance(8);
                let fits = |o: i32| o == -1 || (o >= 0 && o as i64 + 12 <= stride as i64);
                let overlap = po >= 0 && no >= 0 && (po as i64 - no as i64).abs() < 12;
                let bad_layout = po < -1 || no < -1 || !fits(po) || !fits(no) || overlap || (po == -1 && no == -1);
                let end = po.max(no) as i64 + 12;
                // A bad layout must be refused before any write: it gets the spare bytes only (an
                // offset of i32::MAX would otherwise ask the harness for 2 GiB).
                let span = if count == 0 || bad_layout { 0 } else { stride as i64 * (count as i64 - 1) + end };
                let mut buf = vec![CANARY; misalign + span.max(0) as usize + 16];
                let base = if null { std::ptr::null_mut() } else { buf.as_mut_ptr().wrapping_add(misalign).cast() };
                let want = outcome(&[
                    (null, NullPointer),
                    (live_count.is_none(), InvalidId),
                    (bad_layout, InvalidArgument),
                    (Some(count) != live_count, BufferSizeMismatch),
                    (bad_alpha, InvalidArgument),
                ]);
                // SAFETY: `base` is NULL or holds the span the layout needs (plus 16 spare bytes);
                // a bad layout is rejected before any write.
                let got = unsafe { xpbd_cloth_write_vertices(id, base, stride, po, no, count, alpha) };
                let args = format_args!("{:#x}, stride {stride}, offsets {po}/{no}, count {count}, {alpha}", id.id);
                self.expect("xpbd_cloth_write_vertices", args, got, want);
                let written = |i: usize| {
                    i >= misalign && {
                        let k = i - misalign;
                        let (v, at) = (k / stride.max(1) as usize, (k % stride.max(1) as usize) as i64);
                        let inside = |o: i32| o >= 0 && (o as i64..o as i64 + 12).contains(&at);
                        v < count as usize && (inside(po) || inside(no))
                    }
                };
                let stray = (0..buf.len()).find(|&i| buf[i] != CANARY && (got != OK || !written(i)));
                if let Some(i) = stray {
                    self.fail(format!("xpbd_cloth_write_vertices ({got:?}) wrote byte {i} outside its attributes"));
                }
            }
            _ => {
                let null = r.chance(10);
                let (mut lo, mut hi) = ([f32::NAN; 3], [f32::NAN; 3]);
                let lp = if null { std::ptr::null_mut() } else { lo.as_mut_ptr() };
                let want = outcome(&[(null, NullPointer), (live_count.is_none(), InvalidId)]);
                // SAFETY: `lp` is NULL or 3 writable floats; `hi` is 3 writable floats.
                let got = unsafe { xpbd_cloth_get_bounds(id, lp, hi.as_mut_ptr()) };
                self.expect("xpbd_cloth_get_bounds", format_args!("{:#x}, null {null}", id.id), got, want);
                let ordered = (0..3).all(|k| lo[k] <= hi[k]);
                if got == OK && !ordered {
                    self.fail(format!("bounds {lo:?}..{hi:?} are not ordered"));
                }
                if got != OK && hi.iter().any(|c| !c.is_nan()) {
                    self.fail("failed xpbd_cloth_get_bounds wrote `max3`".into());
                }
            }
        }
        self.unchanged_since(&before, "a frame-loop read");
    }

    /// `xpbd_cloth_set_positions` or `set_velocities` on a vertex list (or NULL = all) with tame or
    /// wild values. On error nothing changes.
    pub fn op_cloth_set_particles(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).map(|c| c.vertex_count);
        let velocities = r.chance(50);
        let max_speed = live.map(|_| {
            let mut p = xpbd_default_cloth_params();
            // SAFETY: a valid out-parameter.
            let got = unsafe { xpbd_cloth_get_params(id, &mut p) };
            self.expect("xpbd_cloth_get_params", format_args!("{:#x}", id.id), got, OK);
            p.max_particle_speed
        });
        let (all, vertices, out_of_range) = match r.chance(25) {
            true => (true, Vec::new(), false),
            false => {
                let (v, out) = self.pin_vertices(r, self.cloth(id), false);
                (false, v, out)
            }
        };
        let vc = live.unwrap_or(4);
        let count = match (all, r.below(8)) {
            (true, 0) => vc + 1,
            (true, _) => vc,
            (false, _) => vertices.len() as u32,
        };
        let wild = r.chance(20);
        let values: Vec<[f32; 3]> = (0..count)
            .map(|_| match wild {
                true => [r.wild_f32(), r.tame_f32(), r.wild_f32()],
                false => [r.tame_f32(), r.tame_f32(), r.tame_f32()],
            })
            .collect();
        let bad_value = values.iter().any(|v| match velocities {
            true => !((v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt() <= max_speed.unwrap_or(f32::INFINITY)),
            false => !v.iter().all(|c| c.abs() <= 1.0e5),
        });
        let null_values = count > 0 && r.chance(8);
        let vptr = if all { std::ptr::null() } else { vertices.as_ptr() };
        let xptr = if null_values { std::ptr::null() } else { values.as_ptr().cast::<f32>() };
        let want = outcome(&[
            (null_values, NullPointer),
            (live.is_none(), InvalidId),
            (all && Some(count) != live, BufferSizeMismatch),
            (out_of_range, InvalidArgument),
            (bad_value, InvalidArgument),
        ]);
        let before = self.snapshot();
        // SAFETY: `vptr` is NULL or `count` u32s, `xptr` NULL or 3*count floats.
        let (name, got) = unsafe {
            match velocities {
                true => ("xpbd_cloth_set_velocities", xpbd_cloth_set_velocities(id, vptr, count, xptr)),
                false => ("xpbd_cloth_set_positions", xpbd_cloth_set_positions(id, vptr, count, xptr)),
            }
        };
        self.expect(name, format_args!("{:#x}, all {all}, {vertices:?}, {values:?}", id.id), got, want);
        if got != OK {
            self.unchanged_since(&before, name);
        } else if !velocities {
            // What was written reads back (the last value of a welded copy wins).
            let vc = live.expect("live");
            let read = self.positions(id, vc, "after set_positions");
            let particle_of = &self.cloth(id).expect("live").particle_of;
            for k in 0..count as usize {
                let v = if all { k } else { vertices[k] as usize };
                let last = (0..count as usize)
                    .rev()
                    .find(|&j| particle_of[if all { j } else { vertices[j] as usize }] == particle_of[v])
                    .expect("k itself");
                if read[v] != values[last] {
                    self.fail(format!("vertex {v} reads {:?} after set_positions of {:?}", read[v], values[last]));
                }
            }
        }
    }

    /// `xpbd_cloth_create_instance`: on success the instance is a cloth of the source's world with
    /// the source's mesh, pins and state hash; on error nothing is created or written.
    pub fn op_cloth_create_instance(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let source = self.cloth(id).map(|c| (c.vertex_count, c.particle_of.clone(), c.pinned.clone(), c.grabbed.clone(), c.mesh_key.clone()));
        let null_out = r.chance(10);
        let want = outcome(&[(null_out, NullPointer), (source.is_none(), InvalidId)]);
        let before = self.snapshot();
        let mut out = XpbdClothId { id: 0xDEAD };
        let ptr: *mut XpbdClothId = if null_out { std::ptr::null_mut() } else { &mut out };
        // SAFETY: NULL or a valid out-parameter.
        let got = unsafe { xpbd_cloth_create_instance(id, ptr) };
        self.expect("xpbd_cloth_create_instance", format_args!("{:#x}, null {null_out}", id.id), got, want);
        let Some((vertex_count, particle_of, pinned, grabbed, mesh_key)) = source.filter(|_| got == OK) else {
            if out.id != 0xDEAD {
                self.fail("failed xpbd_cloth_create_instance wrote its out-parameter".into());
            }
            self.unchanged_since(&before, "failed xpbd_cloth_create_instance");
            return;
        };
        let hash = |c: XpbdClothId| before.cloth_hashes.iter().find(|(k, _)| *k == c.id).map(|&(_, h)| h);
        let mut h = 0;
        // SAFETY: valid out-parameter.
        let read = unsafe { xpbd_cloth_state_hash(out, &mut h) };
        self.expect("xpbd_cloth_state_hash", format_args!("{:#x} (instance)", out.id), read, OK);
        if Some(h) != hash(id) {
            self.fail(format!("instance {:#x} hashes {h:#x}, its source {:?}", out.id, hash(id)));
        }
        let w = self.worlds.iter().position(|w| w.cloths.iter().any(|c| c.id == id)).expect("source is live");
        self.worlds[w].cloths.push(ClothModel { id: out, vertex_count, particle_of, pinned, grabbed, mesh_key });
        self.check_counts();
    }
}
