//! Ids: small structs passed by value (after Box2D v3's `b2WorldId`/`b2BodyId`). All-zero is the
//! null id. Each packs a slot index and the slot's generation, so an id whose object was destroyed
//! (its slot since reused or empty) is detected and answered with `XPBD_RESULT_INVALID_ID`, never
//! dereferenced.
//!
//! Bit layout of the `uint64_t` (callers must treat it as opaque; documented for debugging):
//!
//! | bits   | world id                | cloth id (collider ids: same)     |
//! |--------|-------------------------|-----------------------------------|
//! | 0–15   | world slot index        | its world's slot index            |
//! | 16–31  | world generation (≠ 0)  | its world's generation (≠ 0)      |
//! | 32–47  | 0                       | cloth slot index inside the world |
//! | 48–63  | 0                       | cloth generation (≠ 0)            |
//!
//! So the low 32 bits of a cloth id are its world's id (a cloth call finds its world without a
//! search), a world id passed as a cloth id (generation 0) or a cloth id passed as a world id
//! (high bits set) is rejected, and at most 65 536 worlds and 65 536 cloths per world are alive at
//! once. Generations count 1..=65535 and wrap (skipping 0): a stale id is only mistaken for a live
//! one after its slot has been reused 65 535 times, the same trade-off as Box2D's 16-bit generation.

use super::error::{FfiError, XpbdResult};

/// A world. Passed by value; all-zero (`{0}`) is null. Obtained from `xpbd_world_create`; becomes
/// invalid (calls return `XPBD_RESULT_INVALID_ID`) after `xpbd_world_destroy`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XpbdWorldId {
    /// Opaque; for debugging: bits 0-15 slot index, 16-31 generation (never 0), 32-63 zero.
    /// 0 = null.
    pub id: u64,
}

/// A cloth. Passed by value; all-zero (`{0}`) is null. Obtained from `xpbd_cloth_create`; becomes
/// invalid after `xpbd_cloth_destroy` or after its world is destroyed. Encodes its world, so
/// `xpbd_cloth_*` functions need no world argument.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XpbdClothId {
    /// Opaque; for debugging: bits 0-31 its world's id, 32-47 slot index in the world, 48-63
    /// generation (never 0). 0 = null.
    pub id: u64,
}

/// A collider (sphere, capsule, plane, box). Reserved for the collider functions
/// (`xpbd_collider_create`, `xpbd_collider_set_pose`, `xpbd_collider_destroy`), which a later ABI
/// version adds; same rules as the other ids.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XpbdColliderId {
    /// Opaque; laid out like `XpbdClothId.id`. 0 = null.
    pub id: u64,
}

/// Slots per table: ids keep 16 bits for an index.
pub(crate) const MAX_SLOTS: usize = 1 << 16;

/// The 16-bit generation stored in an id for a slot generation counted from 1: 1..=65535, never 0.
pub(crate) fn short_generation(generation: u32) -> u16 {
    (generation.wrapping_sub(1) % 0xFFFF) as u16 + 1
}

/// `XPBD_RESULT_INVALID_ID` naming the id's kind and bits.
pub(crate) fn invalid(kind: &str, raw: u64) -> FfiError {
    FfiError::new(
        XpbdResult::InvalidId,
        format!("{kind} id {raw:#018x} is null, stale (destroyed), of another kind, or forged"),
    )
}

impl XpbdWorldId {
    pub(crate) fn pack(index: u16, generation: u16) -> Self {
        debug_assert!(generation != 0);
        XpbdWorldId { id: (generation as u64) << 16 | index as u64 }
    }

    /// (slot index, generation); `InvalidId` when the bits cannot be a world id.
    pub(crate) fn unpack(self) -> Result<(u16, u16), FfiError> {
        let (index, generation) = (self.id as u16, (self.id >> 16) as u16);
        if self.id >> 32 != 0 || generation == 0 {
            return Err(invalid("world", self.id));
        }
        Ok((index, generation))
    }
}

impl XpbdClothId {
    pub(crate) fn pack(world: XpbdWorldId, index: u16, generation: u16) -> Self {
        debug_assert!(generation != 0 && world.id >> 32 == 0);
        XpbdClothId { id: (generation as u64) << 48 | (index as u64) << 32 | world.id }
    }

    /// (world, slot index in the world, generation); `InvalidId` when the bits cannot be a cloth id.
    pub(crate) fn unpack(self) -> Result<(XpbdWorldId, u16, u16), FfiError> {
        let world = XpbdWorldId { id: self.id & 0xFFFF_FFFF };
        let (index, generation) = ((self.id >> 32) as u16, (self.id >> 48) as u16);
        if generation == 0 || world.unpack().is_err() {
            return Err(invalid("cloth", self.id));
        }
        Ok((world, index, generation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_kinds_do_not_mix() {
        let world = XpbdWorldId::pack(65535, 7);
        assert_eq!(world.unpack(), Ok((65535, 7)));
        let cloth = XpbdClothId::pack(world, 3, 65535);
        assert_eq!(cloth.unpack(), Ok((world, 3, 65535)));
        // A cloth id is not a world id, and a world id is not a cloth id.
        assert_eq!(XpbdWorldId { id: cloth.id }.unpack().unwrap_err().code, XpbdResult::InvalidId);
        assert_eq!(XpbdClothId { id: world.id }.unpack().unwrap_err().code, XpbdResult::InvalidId);
        assert!(XpbdWorldId::default().unpack().is_err());
        assert!(XpbdClothId::default().unpack().is_err());
    }

    #[test]
    fn short_generation_wraps_without_zero() {
        assert_eq!(short_generation(1), 1);
        assert_eq!(short_generation(65535), 65535);
        assert_eq!(short_generation(65536), 1);
        assert!((1..200_000u32).all(|g| short_generation(g) != 0));
    }
}
