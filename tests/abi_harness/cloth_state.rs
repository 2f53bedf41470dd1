//! Operations on a cloth's whole state: teleport, the explosion guard's status, and snapshots
//! (state size, save, restore). Split from `mod.rs`, whose model and checks they use.

use super::input::Input;
use super::{Harness, OK, SAVED_STATES, SavedState, outcome};
use xpbd_cloth::ffi::*;

use XpbdResult::{BufferSizeMismatch, InvalidArgument, InvalidId, InvalidSnapshot, NullPointer};

/// Header, rest frame and checksum of a snapshot (bytes): the size of a snapshot of nothing, below
/// which a buffer is "too short" (`src/cloth/snapshot.rs`, format table).
const EMPTY_SNAPSHOT: usize = 48 + 28 + 8;
/// Byte range of the snapshot's "total size" header field: a change there is a size mismatch.
const SIZE_FIELD: std::ops::Range<usize> = 16..24;

/// The documented snapshot size of an untorn cloth: 48 + 24*particles + 28*pinned + 40 + 8*cuts.
fn snapshot_size(particles: usize, pinned: usize) -> usize {
    48 + 24 * particles + 28 * pinned + 40
}

/// `R*x + t` in f64, `q` normalised first (as the library renormalises).
fn rigid(q: [f32; 4], t: [f32; 3], x: [f32; 3]) -> [f64; 3] {
    let len = q.iter().map(|&c| c as f64 * c as f64).sum::<f64>().sqrt();
    let [qx, qy, qz, qw] = q.map(|c| c as f64 / len);
    let [x0, x1, x2] = x.map(f64::from);
    // v' = v + 2w (u × v) + 2 u × (u × v), u = (qx, qy, qz).
    let c = [qy * x2 - qz * x1, qz * x0 - qx * x2, qx * x1 - qy * x0];
    let cc = [qy * c[2] - qz * c[1], qz * c[0] - qx * c[2], qx * c[1] - qy * c[0]];
    [
        x0 + 2.0 * qw * c[0] + 2.0 * cc[0] + t[0] as f64,
        x1 + 2.0 * qw * c[1] + 2.0 * cc[1] + t[1] as f64,
        x2 + 2.0 * qw * c[2] + 2.0 * cc[2] + t[2] as f64,
    ]
}

impl Harness {
    /// Render positions of a live cloth.
    pub(super) fn positions(&mut self, id: XpbdClothId, vertex_count: u32, why: &str) -> Vec<[f32; 3]> {
        let mut read = vec![[f32::NAN; 3]; vertex_count as usize];
        // SAFETY: `read` holds `vertex_count` × 3 floats.
        let got = unsafe { xpbd_cloth_read_positions(id, read.as_mut_ptr().cast(), vertex_count) };
        self.expect("xpbd_cloth_read_positions", format_args!("{:#x} ({why})", id.id), got, OK);
        read
    }

    /// `xpbd_cloth_teleport` with a valid or invalid translation and rotation. On success every
    /// vertex is at R*x + t (to f32 rounding) and the state hash moved if any vertex did; on error
    /// nothing moved.
    pub fn op_cloth_teleport(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let vertex_count = self.cloth(id).map(|c| c.vertex_count);
        let mut t = [r.tame_f32(), r.tame_f32(), r.tame_f32()];
        let bad_translation = r.chance(12);
        if bad_translation {
            t[r.below(3) as usize] = r.pick(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1.5e5, -100_000.01]);
        } else if r.chance(3) {
            t[r.below(3) as usize] = r.pick(&[1.0e5, -1.0e5]); // the bound is inclusive
        }
        let bad_rotation = r.chance(12);
        let mut q = Self::rotation(r, bad_rotation);
        if !bad_rotation && r.chance(10) {
            q = q.map(|c| c * 1.0005); // within the 1e-3 tolerance: renormalised
        }
        let (null_t, null_q) = (r.chance(4), r.chance(4));
        let old = vertex_count.map(|n| self.positions(id, n, "before teleport"));
        // A teleport may not carry a particle beyond ±1e5 m: computed as the library does (the
        // renormalised quaternion, then R·x + t in f32), so the prediction is exact.
        let beyond_bound = !bad_translation && !bad_rotation && old.as_ref().is_some_and(|old| {
            let q = glam::Quat::from_array(q);
            let q = q / q.length();
            let t = glam::Vec3::from_array(t);
            old.iter().any(|x| (q * glam::Vec3::from_array(*x) + t).abs().max_element() > 1.0e5)
        });
        let want = outcome(&[
            (null_t || null_q, NullPointer),
            (vertex_count.is_none(), InvalidId),
            (bad_translation || bad_rotation || beyond_bound, InvalidArgument),
        ]);
        let before = self.snapshot();
        let tp = if null_t { std::ptr::null() } else { t.as_ptr() };
        let qp = if null_q { std::ptr::null() } else { q.as_ptr() };
        // SAFETY: NULL or 3 / 4 readable floats.
        let got = unsafe { xpbd_cloth_teleport(id, tp, qp) };
        self.expect(
            "xpbd_cloth_teleport",
            format_args!("{:#x}, {t:?}, {q:?}, null {null_t} {null_q}", id.id),
            got,
            want,
        );
        let (Some(old), Some(n), OK) = (old, vertex_count, got) else {
            self.unchanged_since(&before, "failed xpbd_cloth_teleport");
            return;
        };
        if !old.iter().flatten().all(|c| c.is_finite()) {
            return;
        }
        let new = self.positions(id, n, "after teleport");
        let mut moved = false;
        for (v, (x, y)) in old.iter().zip(&new).enumerate() {
            let want = rigid(q, t, *x);
            let scale = 1.0 + x.iter().chain(&t).map(|c| c.abs() as f64).sum::<f64>();
            // NaN fails `<=`, so a non-finite result is caught too.
            let close = (0..3).all(|k| (y[k] as f64 - want[k]).abs() <= 1e-5 * scale);
            if !close {
                self.fail(format!("teleport moved vertex {v} from {x:?} to {y:?}, expected {want:?}"));
            }
            moved |= (0..3).any(|k| (want[k] - x[k] as f64).abs() > 2e-5 * scale);
        }
        let hash_before = before.cloth_hashes.iter().find(|(c, _)| *c == id.id).map(|&(_, h)| h);
        let after = self.snapshot();
        let hash_after = after.cloth_hashes.iter().find(|(c, _)| *c == id.id).map(|&(_, h)| h);
        if moved && hash_after == hash_before {
            self.fail(format!("teleport by {t:?} {q:?} moved vertices but not the state hash"));
        }
    }

    /// `xpbd_cloth_get_status`: every step that failed the guard was read (and so cleared) by
    /// `op_world_step`, so a live cloth always reports a clear status, and reading changes nothing.
    pub fn op_cloth_get_status(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let live = self.cloth(id).is_some();
        let null = r.chance(10);
        let want = outcome(&[(null, NullPointer), (!live, InvalidId)]);
        let before = self.snapshot();
        let mut status = XpbdClothStatus { unstable_steps: u32::MAX, ..XpbdClothStatus::default() };
        let out: *mut XpbdClothStatus = if null { std::ptr::null_mut() } else { &mut status };
        // SAFETY: NULL or a valid out-parameter.
        let got = unsafe { xpbd_cloth_get_status(id, out) };
        self.expect("xpbd_cloth_get_status", format_args!("{:#x}, null {null}", id.id), got, want);
        self.unchanged_since(&before, "xpbd_cloth_get_status");
        match got {
            OK if status != XpbdClothStatus::default() => {
                self.fail(format!("status {status:?} of {:#x}: no unread failed step was expected", id.id))
            }
            OK => {}
            _ if status.unstable_steps != u32::MAX => self.fail("failed xpbd_cloth_get_status wrote its output".into()),
            _ => {}
        }
    }

    /// `xpbd_cloth_state_size` (must be the documented formula for the model's pins), then
    /// `xpbd_cloth_save_state` into a buffer of the right size, one off, empty or NULL, at any
    /// alignment. A save writes exactly `size` bytes starting with the magic, is repeatable
    /// bitwise, and is kept for `op_cloth_restore_state`; a failed one writes nothing.
    pub fn op_cloth_save_state(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let expected = self.cloth(id).map(|c| snapshot_size(c.pinned.len(), c.pinned.iter().filter(|&&p| p).count()));
        let null_size = r.chance(10);
        let want = outcome(&[(null_size, NullPointer), (expected.is_none(), InvalidId)]);
        let before = self.snapshot();
        let mut reported = usize::MAX;
        let out: *mut usize = if null_size { std::ptr::null_mut() } else { &mut reported };
        // SAFETY: NULL or a valid out-parameter.
        let got = unsafe { xpbd_cloth_state_size(id, out) };
        self.expect("xpbd_cloth_state_size", format_args!("{:#x}, null {null_size}", id.id), got, want);
        if got == OK && Some(reported) != expected {
            self.fail(format!("state size {reported}, documented formula gives {expected:?}"));
        }
        self.unchanged_since(&before, "xpbd_cloth_state_size");

        let right = expected.unwrap_or(EMPTY_SNAPSHOT + 24 * (1 + r.below(8) as usize));
        let size = match r.below(10) {
            0 => right - 1,
            1 => right + 1,
            2 => 0,
            _ => right,
        };
        let null_buf = r.chance(8);
        let offset = r.below(4) as usize; // any alignment is allowed
        let mut buf = vec![0xA5u8; offset + size + 1];
        let ptr = if null_buf { std::ptr::null_mut() } else { buf[offset..].as_mut_ptr() };
        let want = outcome(&[
            (null_buf && size > 0, NullPointer),
            (expected.is_none(), InvalidId),
            (Some(size) != expected, BufferSizeMismatch),
        ]);
        // SAFETY: NULL or `size` writable bytes.
        let got = unsafe { xpbd_cloth_save_state(id, ptr.cast(), size) };
        let args = format_args!("{:#x}, size {size} (state {expected:?}), null {null_buf}, offset {offset}", id.id);
        self.expect("xpbd_cloth_save_state", args, got, want);
        self.unchanged_since(&before, "xpbd_cloth_save_state");
        let outside = buf[..offset].iter().chain(&buf[offset + size..]).any(|&b| b != 0xA5);
        if got != OK {
            if buf.iter().any(|&b| b != 0xA5) {
                self.fail("failed xpbd_cloth_save_state wrote into the buffer".into());
            }
            return;
        }
        let bytes = buf[offset..offset + size].to_vec();
        if outside || &bytes[..8] != b"XPBDSNAP" || bytes[SIZE_FIELD] != (size as u64).to_le_bytes() {
            self.fail(format!("snapshot of {size} bytes: wrote outside it, or bad header {:?}", &bytes[..24]));
        }
        let mut again = vec![0u8; size];
        // SAFETY: `size` writable bytes.
        let got = unsafe { xpbd_cloth_save_state(id, again.as_mut_ptr().cast(), size) };
        self.expect("xpbd_cloth_save_state", format_args!("{:#x} (again)", id.id), got, OK);
        if again != bytes {
            self.fail("two saves of an unchanged cloth differ".into());
        }
        let c = self.cloth(id).expect("live");
        let hash = before.cloth_hashes.iter().find(|(k, _)| *k == id.id).expect("live cloth hashed").1;
        let saved = SavedState {
            bytes,
            hash,
            pinned: c.pinned.clone(),
            particle_of: c.particle_of.clone(),
            mesh_key: c.mesh_key.clone(),
        };
        if self.saved.len() == SAVED_STATES {
            self.saved.remove(0);
        }
        self.saved.push(saved);
    }

    /// `xpbd_cloth_restore_state` of a kept snapshot (from this cloth, another of the same mesh,
    /// another mesh, or a destroyed one), maybe truncated, extended, with a flipped bit, NULL, or
    /// not a snapshot at all. Success restores the saved state hash and pins (a new save is
    /// bitwise the restored buffer); every error leaves the cloth as it was.
    pub fn op_cloth_restore_state(&mut self, r: &mut Input) {
        let id = self.pick_cloth(r);
        let target = self.cloth(id).map(|c| (c.mesh_key.clone(), c.particle_of.clone()));
        let source = match self.saved.is_empty() || r.chance(10) {
            true => None,
            false => Some(r.below(self.saved.len() as u32) as usize),
        };
        let (mut bytes, same_mesh) = match source {
            Some(s) => {
                let saved = &self.saved[s];
                let same =
                    target.as_ref().is_some_and(|(key, map)| *key == saved.mesh_key && *map == saved.particle_of);
                (saved.bytes.clone(), same)
            }
            // Not a snapshot: no magic (the first byte is 0, and stays other than 'X' under any
            // one defect below).
            None => ((0..r.below(160)).map(|k| if k == 0 { 0 } else { r.u8() }).collect(), false),
        };
        let content_error = match (r.below(8), bytes.len()) {
            _ if source.is_none() => Some(InvalidSnapshot),
            (0, len) if len > 0 => {
                bytes.truncate(r.below(len as u32) as usize);
                Some(if bytes.len() < EMPTY_SNAPSHOT { InvalidSnapshot } else { BufferSizeMismatch })
            }
            (1, _) => {
                bytes.push(r.u8());
                Some(if bytes.len() < EMPTY_SNAPSHOT { InvalidSnapshot } else { BufferSizeMismatch })
            }
            (2, len) if len > 0 => {
                let at = r.below(len as u32) as usize;
                bytes[at] ^= 1 << r.below(8);
                Some(if SIZE_FIELD.contains(&at) { BufferSizeMismatch } else { InvalidSnapshot })
            }
            _ => (!same_mesh).then_some(InvalidSnapshot),
        };
        let null = r.chance(6);
        let want = outcome(&[
            (null && !bytes.is_empty(), NullPointer),
            (target.is_none(), InvalidId),
            (null, InvalidSnapshot), // NULL with size 0: an empty buffer, too short
            (content_error.is_some(), content_error.unwrap_or(OK)),
        ]);
        let offset = r.below(4) as usize; // any alignment is allowed
        let mut buf = vec![0u8; offset];
        buf.extend_from_slice(&bytes);
        let ptr = if null { std::ptr::null() } else { buf[offset..].as_ptr() };
        let before = self.snapshot();
        // SAFETY: NULL or `bytes.len()` readable bytes.
        let got = unsafe { xpbd_cloth_restore_state(id, ptr.cast(), bytes.len()) };
        let args = format_args!(
            "{:#x}, {} bytes from saved {source:?} (same mesh {same_mesh}), expected {content_error:?}, null {null}",
            id.id,
            bytes.len()
        );
        self.expect("xpbd_cloth_restore_state", args, got, want);
        if got != OK {
            self.unchanged_since(&before, "failed xpbd_cloth_restore_state");
            return;
        }
        let saved = &self.saved[source.expect("only a kept snapshot restores")];
        let (hash, pinned) = (saved.hash, saved.pinned.clone());
        self.cloth_mut(id).expect("live").pinned = pinned;
        let after = self.snapshot();
        if !after.cloth_hashes.contains(&(id.id, hash)) {
            self.fail(format!("restored {:#x} does not have the saved state hash {hash:#x}", id.id));
        }
        let mut again = vec![0u8; bytes.len()];
        // SAFETY: `bytes.len()` writable bytes.
        let got = unsafe { xpbd_cloth_save_state(id, again.as_mut_ptr().cast(), again.len()) };
        self.expect("xpbd_cloth_save_state", format_args!("{:#x} (after restore)", id.id), got, OK);
        if again != bytes {
            self.fail("a save right after a restore differs from the restored snapshot".into());
        }
    }
}
