//! The soft grab's calls (`xpbd_cloth_grab`, `xpbd_cloth_grab_move`, `xpbd_cloth_release`) with
//! live, stale and forged ids, vertices in and out of range, targets valid, NaN, infinite, beyond
//! ±1e5 m or NULL, stiffnesses valid and not, and vertices grabbed or not (the model tracks which
//! are). None of them moves a particle: the state is unchanged after each, failed or not. Split
//! from `mod.rs`, whose model and checks they use.

use super::input::Input;
use super::{Harness, outcome};
use xpbd_cloth::ffi::*;

use XpbdResult::{InvalidArgument, InvalidId, NotGrabbed, NullPointer};

impl Harness {
    pub fn op_cloth_grab(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live_count = self.cloth(id).map(|c| c.vertex_count);
        let vertex = r.below(live_count.unwrap_or(8) + 2);
        let out_of_range = live_count.is_none_or(|n| vertex >= n);
        let grabbed = self.cloth(id).is_some_and(|c| c.particle_of.get(vertex as usize).is_some_and(|&p| c.grabbed[p as usize]));
        let target = match r.below(6) {
            0 => [r.wild_f32(), r.tame_f32(), r.tame_f32()],
            1 => [r.tame_f32(), r.pick(&[f32::NAN, f32::INFINITY, 2.0e5, -1.0e6]), r.tame_f32()],
            _ => [r.tame_f32(), r.tame_f32(), r.tame_f32()],
        };
        let bad_target = !target.iter().all(|c| c.abs() <= 1.0e5);
        let null = r.chance(8);
        let tptr = if null { std::ptr::null() } else { target.as_ptr() };
        let live = live_count.is_some();
        let before = self.snapshot();
        let (name, got, want, after) = match r.below(3) {
            0 => {
                let stiffness = r.pick(&[1000.0f32, 50.0, f32::INFINITY, 1.0e12, 0.0, -1.0, f32::NAN, 2.0e12, f32::NEG_INFINITY]);
                let bad_stiffness = !(stiffness > 0.0 && (stiffness <= 1.0e12 || stiffness == f32::INFINITY));
                let want = outcome(&[(null, NullPointer), (!live, InvalidId), (out_of_range || bad_target || bad_stiffness, InvalidArgument)]);
                // SAFETY: `tptr` is NULL or 3 floats.
                ("xpbd_cloth_grab", unsafe { xpbd_cloth_grab(id, vertex, tptr, stiffness) }, want, Some(true))
            }
            1 => {
                let want = outcome(&[(null, NullPointer), (!live, InvalidId), (out_of_range || bad_target, InvalidArgument), (!grabbed, NotGrabbed)]);
                // SAFETY: `tptr` is NULL or 3 floats.
                ("xpbd_cloth_grab_move", unsafe { xpbd_cloth_grab_move(id, vertex, tptr) }, want, None)
            }
            _ => {
                let want = outcome(&[(!live, InvalidId), (out_of_range, InvalidArgument), (!grabbed, NotGrabbed)]);
                ("xpbd_cloth_release", xpbd_cloth_release(id, vertex), want, Some(false))
            }
        };
        self.expect(name, format_args!("{:#x}, vertex {vertex}, {target:?}, null {null}", id.id), got, want);
        if let (XpbdResult::Ok, Some(now)) = (got, after) {
            let c = self.cloth_mut(id).expect("a grab call succeeded on a live cloth");
            let p = c.particle_of[vertex as usize] as usize;
            c.grabbed[p] = now;
        }
        // A grab moves nothing until the next step, whatever the call did.
        self.unchanged_since(&before, name);
    }
}
