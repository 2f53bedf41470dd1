//! State snapshots: a cloth's dynamic state saved into a caller buffer and restored from it, bit
//! for bit, for rollback netcode and replays.
//!
//! What a snapshot holds: particle positions and velocities, the pinned particles with their pin
//! positions and targets, the teleport frame of the rest pose, and the cuts a torn cloth was given
//! (`super::tear`). What it does not hold: the settings ([`crate::ClothParams`], constraint
//! colouring) and the world's colliders and gravity; restore into a cloth with the same settings in
//! the same world state and the next steps are bitwise identical to the steps that followed the
//! save. Everything else a step reads is either rebuilt from these (tethers and edge order depend
//! only on which particles are pinned) or reset at every substep (λ, contacts, wind forces).
//!
//! A torn cloth's mesh is its cuts replayed on the mesh as created, so a snapshot carries the
//! cuts (as the particle pairs they cut) and a restore whose cuts differ from the cloth's (a
//! rollback across a tear, or a snapshot of a torn cloth into a fresh one) makes the mesh again
//! from them: the render mesh, particles and topology are those at the save, bit for bit. Its
//! constraint layout is then built for that mesh from scratch, where the cloth that tore had
//! repaired its layout in place: the constraints are the same, their sweep order may differ, so
//! the steps after such a restore agree with those after the save to rounding, not bit for bit
//! (a restore that keeps the cuts keeps the layout, and is bit for bit).
//!
//! Format (all little-endian, no padding, version 2; version 1, without the cuts, is read too):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `XPBDSNAP` |
//! | 8 | 4 | format version (2) |
//! | 12 | 4 | header size (48) |
//! | 16 | 8 | total size in bytes, checksum included |
//! | 24 | 8 | mesh fingerprint: FNV-1a 64 of the render→particle map, the triangles in particle indices and the rest positions' bits |
//! | 32 | 4 | particle count n |
//! | 36 | 4 | pinned particle count P |
//! | 40 | 8 | reserved (0) |
//! | 48 | 24·n | positions (3 × f32 per particle) \[m\], then velocities \[m/s\] |
//! | … | 28·P | pinned particle indices (u32, ascending), pin positions, pin targets (3 × f32 each) \[m\] |
//! | … | 28 | rest frame: rotation quaternion x, y, z, w, translation \[m\] (f32) |
//! | … | 4 | cut count C (version 2) |
//! | … | 8·C | the cuts, in order: the two particles of each, u32 (version 2) |
//! | … | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! A snapshot is accepted by any cloth made from the same mesh (same fingerprint), so it can be
//! restored into a new cloth after a level reload; a buffer from another mesh, of another
//! version, cut short or changed after saving is rejected with a [`SnapshotProblem`] and the cloth
//! is left unchanged.

use super::Cloth;
use super::state_hash::{FNV_OFFSET_BASIS, fnv1a};
pub use crate::error::{SNAPSHOT_VERSION, SnapshotProblem};
use crate::error::ClothError;
use crate::out::Out;
use glam::{Quat, Vec3};

const MAGIC: [u8; 8] = *b"XPBDSNAP";
const HEADER_SIZE: usize = 48;
const REST_FRAME_SIZE: usize = 28;
const CHECKSUM_SIZE: usize = 8;

fn rejected(problem: SnapshotProblem) -> ClothError {
    ClothError::InvalidSnapshot(problem)
}

/// Size in bytes of a version-1 snapshot of `n` particles and `pins` pinned particles.
fn snapshot_size_v1(n: usize, pins: usize) -> usize {
    HEADER_SIZE + 24 * n + 28 * pins + REST_FRAME_SIZE + CHECKSUM_SIZE
}

/// Size in bytes of a snapshot (version 2) of `n` particles, `pins` pinned particles and `cuts` cuts.
fn snapshot_size(n: usize, pins: usize, cuts: usize) -> usize {
    snapshot_size_v1(n, pins) + 4 + 8 * cuts
}

/// Sequential little-endian writer into a buffer of exactly the right size.
struct Writer<'a> {
    buf: Out<'a, u8>,
    at: usize,
    /// FNV-1a of the bytes written so far (the buffer itself is write-only).
    hash: u64,
}

impl Writer<'_> {
    fn bytes(&mut self, b: &[u8]) {
        self.buf.sub(self.at..self.at + b.len()).copy_from_slice(b);
        self.at += b.len();
        self.hash = fnv1a(self.hash, b);
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn f32s(&mut self, v: &[f32]) {
        v.iter().for_each(|f| self.bytes(&f.to_bits().to_le_bytes()));
    }
    fn vec3s(&mut self, v: &[Vec3]) {
        v.iter().for_each(|p| self.f32s(&p.to_array()));
    }
}

/// Sequential little-endian reader; the caller has checked the length first.
struct Reader<'a> {
    buf: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let b = self.buf[self.at..self.at + N].try_into().expect("length checked before reading");
        self.at += N;
        b
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }
    fn vec3(&mut self) -> Vec3 {
        Vec3::new(self.f32(), self.f32(), self.f32())
    }
}

/// The header fields a restore needs.
struct Header {
    particles: usize,
    pins: usize,
    fingerprint: u64,
    /// Where the cuts start and how many (none in version 1).
    cuts_at: usize,
    cuts: usize,
}

/// Check everything that does not need the cloth: length, magic, version, sizes, checksum.
fn read_header(buf: &[u8]) -> Result<Header, ClothError> {
    if buf.len() < snapshot_size_v1(0, 0) {
        return Err(rejected(SnapshotProblem::TooShort { len: buf.len() }));
    }
    let mut r = Reader { buf, at: 0 };
    if r.take::<8>() != MAGIC {
        return Err(rejected(SnapshotProblem::NotASnapshot));
    }
    let version = r.u32();
    if !(1..=SNAPSHOT_VERSION).contains(&version) {
        return Err(rejected(SnapshotProblem::UnsupportedVersion { found: version }));
    }
    let header_size = r.u32();
    let recorded = r.u64();
    if recorded != buf.len() as u64 {
        return Err(rejected(SnapshotProblem::SizeMismatch { recorded, len: buf.len() }));
    }
    let (body, checksum) = buf.split_at(buf.len() - CHECKSUM_SIZE);
    if fnv1a(FNV_OFFSET_BASIS, body).to_le_bytes() != checksum {
        return Err(rejected(SnapshotProblem::Corrupted));
    }
    let fingerprint = r.u64();
    let (particles, pins) = (r.u32() as usize, r.u32() as usize);
    let reserved = r.u64();
    let cuts_at = snapshot_size_v1(particles, pins) - CHECKSUM_SIZE;
    let cuts = match version {
        1 => 0,
        _ if cuts_at + 4 <= buf.len() => Reader { buf, at: cuts_at }.u32() as usize,
        _ => return Err(rejected(SnapshotProblem::Corrupted)),
    };
    let size = if version == 1 { snapshot_size_v1(particles, pins) } else { snapshot_size(particles, pins, cuts) };
    if header_size as usize != HEADER_SIZE || reserved != 0 || size != buf.len() {
        return Err(rejected(SnapshotProblem::Corrupted));
    }
    Ok(Header { particles, pins, fingerprint, cuts_at: cuts_at + 4, cuts })
}

impl Cloth {
    /// Size in bytes of a snapshot of the cloth's current state: 48 + 24·particles + 28·pinned
    /// particles + 40 + 8·cuts. Changes when the set of pinned particles changes or the cloth tears.
    pub fn state_size(&self) -> usize {
        snapshot_size(self.state.x.len(), self.state.pins.particles.len(), self.cuts().len())
    }

    /// Write the cloth's dynamic state into `buf`, which must be exactly [`Cloth::state_size`]
    /// bytes (format in [`crate::cloth::snapshot`]). Errors: `BufferSizeMismatch` (nothing
    /// written).
    pub fn save_state<'o>(&self, buf: impl Into<Out<'o, u8>>) -> Result<(), ClothError> {
        let (size, buf) = (self.state_size(), buf.into());
        buf.check_len(size)?;
        let (p, pins) = (&self.state, &self.state.pins);
        let mut w = Writer { buf, at: 0, hash: FNV_OFFSET_BASIS };
        w.bytes(&MAGIC);
        w.u32(SNAPSHOT_VERSION);
        w.u32(HEADER_SIZE as u32);
        w.u64(size as u64);
        w.u64(self.model.fingerprint);
        w.u32(p.x.len() as u32);
        w.u32(pins.particles.len() as u32);
        w.u64(0);
        w.vec3s(&p.x);
        w.vec3s(&p.v);
        pins.particles.iter().for_each(|&i| w.u32(i));
        w.vec3s(&pins.start);
        w.vec3s(&pins.target);
        w.f32s(&p.rest_rotation.to_array());
        w.vec3s(&[p.rest_translation]);
        let cuts = self.cuts();
        w.u32(cuts.len() as u32);
        cuts.iter().flatten().for_each(|&p| w.u32(p));
        let checksum = w.hash;
        w.u64(checksum);
        debug_assert_eq!(w.at, size);
        Ok(())
    }

    /// Replace the cloth's dynamic state with a snapshot written by [`Cloth::save_state`] from a
    /// cloth of the same mesh (this one or another). The next steps are bitwise identical to the
    /// steps that followed the save (same settings and world assumed; see
    /// [`crate::cloth::snapshot`]). Pins are set as saved (changing which particles are pinned
    /// rebuilds the tethers, which allocates; restoring with the same pinned set does not). A
    /// snapshot with other cuts makes the torn mesh again (allocates; the steps after it agree to
    /// rounding: [`crate::cloth::snapshot`]).
    ///
    /// Errors: `InvalidSnapshot` with the [`SnapshotProblem`] (too short, not a snapshot, other
    /// version, size differs from the header's, checksum mismatch, other mesh, non-finite values,
    /// cuts this cloth cannot make); the cloth is unchanged on error.
    pub fn restore_state(&mut self, buf: &[u8]) -> Result<(), ClothError> {
        let _change = self.begin_change();
        let header = read_header(buf)?;
        if header.fingerprint != self.model.fingerprint {
            return Err(rejected(SnapshotProblem::OtherMesh));
        }
        let cut_at = |k: usize| {
            let mut r = Reader { buf, at: header.cuts_at + 8 * k };
            [r.u32(), r.u32()]
        };
        let cuts = (0..header.cuts).map(cut_at);
        // Other cuts: the mesh as created with the snapshot's cuts made again (checked whole
        // before anything changes).
        let replayed = match cuts.clone().eq(self.cuts().iter().copied()) {
            true => None,
            false => {
                let cuts: Vec<[u32; 2]> = cuts.collect();
                let model = self.replay_cuts(&cuts).ok_or(rejected(SnapshotProblem::CutsDoNotApply { cuts: header.cuts as u32 }))?;
                Some(model)
            }
        };
        let n = replayed.as_ref().map_or(self.state.x.len(), |m| m.rest.len());
        if header.particles != n {
            return Err(rejected(if header.cuts > 0 || self.can_tear() { SnapshotProblem::Corrupted } else { SnapshotProblem::OtherMesh }));
        }
        // Pinned particle indices: ascending, in range. Everything else: finite.
        let mut r = Reader { buf, at: HEADER_SIZE + 24 * n };
        let mut previous = None;
        for _ in 0..header.pins {
            let i = r.u32();
            if i as usize >= n || previous.is_some_and(|p| p >= i) {
                return Err(rejected(SnapshotProblem::Corrupted));
            }
            previous = Some(i);
        }
        let floats_end = header.cuts_at.saturating_sub(4).min(buf.len() - CHECKSUM_SIZE);
        let mut f = Reader { buf: &buf[..floats_end], at: HEADER_SIZE };
        let float_count = (floats_end - HEADER_SIZE - 4 * header.pins) / 4;
        for k in 0..float_count {
            if k == 6 * n {
                f.at += 4 * header.pins; // skip the pinned indices
            }
            if !f.f32().is_finite() {
                return Err(rejected(SnapshotProblem::NonFiniteState));
            }
        }
        let mut r = Reader { buf, at: floats_end - REST_FRAME_SIZE };
        let rotation = Quat::from_xyzw(r.f32(), r.f32(), r.f32(), r.f32());
        if (rotation.length() - 1.0).abs() > 1e-3 {
            return Err(rejected(SnapshotProblem::NonFiniteState));
        }

        // Valid: apply.
        let topology_changed = replayed.is_some();
        if let Some(model) = replayed {
            self.settle_layout();
            self.install_topology(model);
        }
        let mut r = Reader { buf, at: HEADER_SIZE };
        let p = &mut self.state;
        p.x.iter_mut().for_each(|x| *x = r.vec3());
        p.v.iter_mut().for_each(|v| *v = r.vec3());
        self.scratch.x_prev.copy_from_slice(&p.x);
        let pin_indices = r.at;
        let saved = (0..header.pins).map(|k| Reader { buf, at: pin_indices + 4 * k }.u32());
        let pin_set_changed = !saved.eq(p.pins.particles.iter().copied());
        let pins = &mut p.pins;
        if pin_set_changed {
            pins.particles = (0..header.pins).map(|_| r.u32()).collect();
            pins.start = vec![Vec3::ZERO; header.pins];
            pins.target = vec![Vec3::ZERO; header.pins];
        } else {
            r.at += 4 * header.pins;
        }
        pins.start.iter_mut().for_each(|s| *s = r.vec3());
        pins.target.iter_mut().for_each(|t| *t = r.vec3());
        p.rest_rotation = Quat::from_xyzw(r.f32(), r.f32(), r.f32(), r.f32());
        p.rest_translation = r.vec3();
        if topology_changed {
            self.refresh_inverse_masses();
            self.rebuild_layout_from_scratch();
        } else if pin_set_changed {
            self.refresh_inverse_masses();
            self.relayout(1);
        }
        self.moved_externally();
        Ok(())
    }
}
