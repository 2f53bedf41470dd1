//! Ids: small structs passed by value (after Box2D v3's `b2WorldId`/`b2BodyId`). All-zero is the
//! null id. Each packs a slot index and the slot's generation, so an id whose object was destroyed
//! (its slot since reused or empty) is detected and answered with `XPBD_RESULT_INVALID_ID`, never
//! dereferenced.
//!
//! Bit layout of the `uint64_t` (callers must treat it as opaque; documented for debugging):
//!
//! | bits   | world id                | cloth id                        | collider id                          | render proxy id                 |
//! |--------|-------------------------|---------------------------------|--------------------------------------|---------------------------------|
//! | 0–15   | world slot index        | its world's slot index          | its world's slot index               | its world's slot index          |
//! | 16–31  | world generation (≠ 0)  | its world's generation (≠ 0)    | its world's generation (≠ 0)         | its world's generation (≠ 0)    |
//! | 32–45  | 0                       | cloth slot index in the world   | collider slot index (bits 32–46)     | proxy slot index in the world   |
//! | 46     | 0                       | 0 (kind: cloth)                 | (index)                              | 1 (kind: render proxy)          |
//! | 47     | 0                       | 0                               | 1 (kind: collider)                   | 0                               |
//! | 48–63  | 0                       | cloth generation (≠ 0)          | collider generation (≠ 0)            | proxy generation (≠ 0)          |
//!
//! So the low 32 bits of a cloth, collider or render proxy id are its world's id (a call finds
//! the world without a search), and no id is accepted as another kind: a world id has generation 0
//! where the others need one, the others set bits a world id must not, bit 47 tells a collider from
//! a cloth or a proxy, and bit 46 a proxy from a cloth, even in slot 0 of one world with
//! generation 1. At most 65 536 worlds, and per world 16 384 cloths, 32 768 colliders and 16 384
//! render proxies, are alive at once. Generations count 1..=65535 and never wrap: a slot that has
//! had generation 65 535 is retired when freed and never reused, so a stale id is never mistaken
//! for a live one. (A world can so create 16 384 × 65 535 cloths, as many proxies and twice as many
//! colliders over its life; the process 65 536 × 65 535 worlds.) A render proxy's id goes stale
//! when the proxy is destroyed and when its cloth is.
//!
//! A mesh shape id is its world's id in bits 0–31, its slot index in bits 32–39, a 7-bit
//! generation (1..=127) in bits 40–46, bit 47 set and bits 48–63 zero: zero there tells it from a
//! collider id (whose generation is never 0). So at most 256 mesh shapes per world are alive at
//! once (each shared by any number of colliders); a slot that has had generation 127 is retired, so
//! a stale shape id is never mistaken for a live one, and a world can create 256 × 127 = 32 512 mesh
//! shapes over its life (then `XPBD_RESULT_CAPACITY_EXCEEDED`).

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

/// A collider (sphere, capsule, plane, box). Passed by value; all-zero (`{0}`) is null. Obtained
/// from `xpbd_collider_create`; becomes invalid after `xpbd_collider_destroy` or after its world is
/// destroyed. Encodes its world, so `xpbd_collider_*` functions need no world argument. A cloth
/// id with the same bits is not a collider id (bit 47 differs).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XpbdColliderId {
    /// Opaque; for debugging: bits 0-31 its world's id, 32-46 slot index in the world, 47 set
    /// (collider, not cloth), 48-63 generation (never 0). 0 = null.
    pub id: u64,
}

/// A render proxy (a fine render mesh drawn from a cloth's simulation). Passed by value;
/// all-zero (`{0}`) is null. Obtained from `xpbd_render_proxy_create`; becomes invalid after
/// `xpbd_render_proxy_destroy`, after its cloth is destroyed, or after its world is. Encodes its
/// world, so `xpbd_render_proxy_*` functions need no world argument.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XpbdRenderProxyId {
    /// Opaque; for debugging: bits 0-31 its world's id, 32-45 slot index in the world, 46 set
    /// (render proxy), 47 clear, 48-63 generation (never 0). 0 = null.
    pub id: u64,
}

/// A mesh shape (a triangle mesh's signed distance field, shared by mesh colliders). Passed by
/// value; all-zero (`{0}`) is null. Obtained from `xpbd_mesh_shape_create` or `xpbd_mesh_shape_create_async`; becomes invalid after
/// `xpbd_mesh_shape_destroy` or after its world is destroyed. Encodes its world.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct XpbdMeshShapeId {
    /// Opaque; for debugging: bits 0-31 its world's id, 32-39 slot index in the world, 40-46
    /// generation (never 0), 47 set, 48-63 zero. 0 = null.
    pub id: u64,
}

/// Mesh shape slots per world: their ids keep 8 bits for an index.
pub(crate) const MAX_MESH_SHAPES_PER_WORLD: usize = 1 << 8;

/// World slots: world ids keep 16 bits for an index.
pub(crate) const MAX_WORLDS: usize = 1 << 16;

/// Collider slots per world: collider ids keep 15 bits for an index (bit 47 is the kind).
pub(crate) const MAX_PER_WORLD: usize = 1 << 15;

/// Cloth slots per world, and render proxy slots per world: their ids keep 14 bits for an index
/// (bit 46 tells them apart).
pub(crate) const MAX_CLOTHS_PER_WORLD: usize = 1 << 14;

/// Bit 47: set in collider ids, clear in cloth and render proxy ids.
const COLLIDER_KIND_BIT: u64 = 1 << 47;

/// Bit 46 of an id whose bit 47 is clear: set in render proxy ids, clear in cloth ids.
const PROXY_KIND_BIT: u64 = 1 << 46;

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

/// Bits of an object (cloth or collider) id: its world, `index` < [`MAX_PER_WORLD`] in bits
/// 32–46, `kind_bit`, generation ≠ 0 in bits 48–63.
fn pack_object(world: XpbdWorldId, index: u16, generation: u16, kind_bit: u64) -> u64 {
    debug_assert!(generation != 0 && world.id >> 32 == 0 && (index as usize) < MAX_PER_WORLD);
    (generation as u64) << 48 | kind_bit | (index as u64) << 32 | world.id
}

/// (world, slot index in the world, generation) of an object id whose kind bits (`kind_mask` of
/// bits 46–47) must equal `kind_bits`; `InvalidId` naming `kind` when the bits cannot be such an
/// id.
fn unpack_object(raw: u64, kind_mask: u64, kind_bits: u64, kind: &str) -> Result<(XpbdWorldId, u16, u16), FfiError> {
    let world = XpbdWorldId { id: raw & 0xFFFF_FFFF };
    let index_mask = !(kind_mask >> 32) as u16 & 0x7FFF;
    let (index, generation) = ((raw >> 32) as u16 & index_mask, (raw >> 48) as u16);
    if generation == 0 || raw & kind_mask != kind_bits || world.unpack().is_err() {
        return Err(invalid(kind, raw));
    }
    Ok((world, index, generation))
}

/// Bits 46 and 47: what tells a cloth from a render proxy from a collider.
const CLOTH_OR_PROXY: u64 = COLLIDER_KIND_BIT | PROXY_KIND_BIT;

impl XpbdClothId {
    pub(crate) fn pack(world: XpbdWorldId, index: u16, generation: u16) -> Self {
        debug_assert!((index as usize) < MAX_CLOTHS_PER_WORLD);
        XpbdClothId { id: pack_object(world, index, generation, 0) }
    }

    /// (world, slot index in the world, generation); `InvalidId` when the bits cannot be a cloth id.
    pub(crate) fn unpack(self) -> Result<(XpbdWorldId, u16, u16), FfiError> {
        unpack_object(self.id, CLOTH_OR_PROXY, 0, "cloth")
    }
}

impl XpbdRenderProxyId {
    pub(crate) fn pack(world: XpbdWorldId, index: u16, generation: u16) -> Self {
        debug_assert!((index as usize) < MAX_CLOTHS_PER_WORLD);
        XpbdRenderProxyId { id: pack_object(world, index, generation, PROXY_KIND_BIT) }
    }

    /// (world, slot index in the world, generation); `InvalidId` when the bits cannot be a render
    /// proxy id.
    pub(crate) fn unpack(self) -> Result<(XpbdWorldId, u16, u16), FfiError> {
        unpack_object(self.id, CLOTH_OR_PROXY, PROXY_KIND_BIT, "render proxy")
    }
}

impl XpbdColliderId {
    pub(crate) fn pack(world: XpbdWorldId, index: u16, generation: u16) -> Self {
        XpbdColliderId { id: pack_object(world, index, generation, COLLIDER_KIND_BIT) }
    }

    /// (world, slot index in the world, generation); `InvalidId` when the bits cannot be a
    /// collider id.
    pub(crate) fn unpack(self) -> Result<(XpbdWorldId, u16, u16), FfiError> {
        unpack_object(self.id, COLLIDER_KIND_BIT, COLLIDER_KIND_BIT, "collider")
    }
}

/// The 7-bit generation a mesh shape id stores for a slot generation counted from 1: 1..=127.
pub(crate) fn mesh_shape_generation(generation: u32) -> u16 {
    (generation.wrapping_sub(1) % 0x7F) as u16 + 1
}

impl XpbdMeshShapeId {
    /// Slot `index` < [`MAX_MESH_SHAPES_PER_WORLD`] and slot generation `generation` in `world`.
    pub(crate) fn pack(world: XpbdWorldId, index: u32, generation: u32) -> Self {
        debug_assert!((index as usize) < MAX_MESH_SHAPES_PER_WORLD && world.id >> 32 == 0);
        let g = mesh_shape_generation(generation) as u64;
        XpbdMeshShapeId { id: COLLIDER_KIND_BIT | g << 40 | (index as u64) << 32 | world.id }
    }

    /// (world, slot index, 7-bit generation); `InvalidId` when the bits cannot be a mesh shape id
    /// (bits 48-63 must be zero, bit 47 set, the generation non-zero).
    pub(crate) fn unpack(self) -> Result<(XpbdWorldId, u16, u16), FfiError> {
        let world = XpbdWorldId { id: self.id & 0xFFFF_FFFF };
        let (index, generation) = ((self.id >> 32) as u16 & 0xFF, (self.id >> 40) as u16 & 0x7F);
        if self.id >> 48 != 0 || self.id & COLLIDER_KIND_BIT == 0 || generation == 0 || world.unpack().is_err() {
            return Err(invalid("mesh shape", self.id));
        }
        Ok((world, index, generation))
    }
}

/// The 16-bit (index, generation) an id stores for a new object in slot `index` with slot
/// generation `generation`, or `None` when the index is not below `slots` (the id's
/// [`MAX_PER_WORLD`] or [`MAX_CLOTHS_PER_WORLD`]).
pub(crate) fn object_slot(index: u32, generation: u32, slots: usize) -> Option<(u16, u16)> {
    match index < slots as u32 {
        true => Some((index as u16, short_generation(generation))),
        false => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_kinds_do_not_mix() {
        let world = XpbdWorldId::pack(65535, 7);
        assert_eq!(world.unpack(), Ok((65535, 7)));
        let cloth = XpbdClothId::pack(world, 16383, 65535);
        assert_eq!(cloth.unpack(), Ok((world, 16383, 65535)));
        let proxy = XpbdRenderProxyId::pack(world, 16383, 65535);
        assert_eq!(proxy.unpack(), Ok((world, 16383, 65535)));
        let collider = XpbdColliderId::pack(world, 32767, 65535);
        assert_eq!(collider.unpack(), Ok((world, 32767, 65535)));
        // No kind is accepted as another, even for the same world, slot and generation.
        let kinds_reject = |raw: u64| {
            let rejected = |r: Result<_, FfiError>| r.is_err_and(|e| e.code == XpbdResult::InvalidId);
            [
                rejected(XpbdWorldId { id: raw }.unpack().map(|_| ())),
                rejected(XpbdClothId { id: raw }.unpack().map(|_| ())),
                rejected(XpbdColliderId { id: raw }.unpack().map(|_| ())),
                rejected(XpbdRenderProxyId { id: raw }.unpack().map(|_| ())),
            ]
        };
        assert_eq!(kinds_reject(world.id), [false, true, true, true]);
        assert_eq!(kinds_reject(cloth.id), [true, false, true, true]);
        assert_eq!(kinds_reject(collider.id), [true, true, false, true]);
        assert_eq!(kinds_reject(proxy.id), [true, true, true, false]);
        let first_cloth = XpbdClothId::pack(world, 0, 1);
        let first_collider = XpbdColliderId::pack(world, 0, 1);
        let first_proxy = XpbdRenderProxyId::pack(world, 0, 1);
        assert_eq!(first_collider.id, first_cloth.id | 1 << 47);
        assert_eq!(first_proxy.id, first_cloth.id | 1 << 46);
        assert_eq!(kinds_reject(first_cloth.id), [true, false, true, true]);
        assert_eq!(kinds_reject(first_collider.id), [true, true, false, true]);
        assert_eq!(kinds_reject(first_proxy.id), [true, true, true, false]);
        // A collider in a slot with bit 14 set is no proxy, nor a cloth.
        assert_eq!(kinds_reject(XpbdColliderId::pack(world, 1 << 14, 3).id), [true, true, false, true]);
        assert_eq!(kinds_reject(0), [true, true, true, true]);
        // Mesh shape ids are none of the others, and the others are no mesh shape ids.
        let shape = XpbdMeshShapeId::pack(world, 255, 127);
        assert_eq!(shape.unpack(), Ok((world, 255, 127)));
        assert_eq!(kinds_reject(shape.id), [true, true, true, true]);
        for raw in [world.id, cloth.id, collider.id, proxy.id, first_cloth.id, first_collider.id, first_proxy.id, 0] {
            assert!(XpbdMeshShapeId { id: raw }.unpack().is_err(), "{raw:#x}");
        }
        assert_eq!(mesh_shape_generation(128), 1);
    }

    #[test]
    fn object_slots_fit_their_ids() {
        assert_eq!(object_slot(32767, 65536, MAX_PER_WORLD), Some((32767, 1)));
        assert_eq!(object_slot(32768, 1, MAX_PER_WORLD), None);
        assert_eq!(object_slot(16383, 2, MAX_CLOTHS_PER_WORLD), Some((16383, 2)));
        assert_eq!(object_slot(16384, 1, MAX_CLOTHS_PER_WORLD), None);
    }

    #[test]
    fn short_generation_wraps_without_zero() {
        assert_eq!(short_generation(1), 1);
        assert_eq!(short_generation(65535), 65535);
        assert_eq!(short_generation(65536), 1);
        assert!((1..200_000u32).all(|g| short_generation(g) != 0));
    }
}
