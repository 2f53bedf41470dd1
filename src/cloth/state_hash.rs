//! A 64-bit fingerprint of a cloth's dynamic state, for lockstep and replay checks in engines.

use super::Cloth;

/// FNV-1a 64-bit offset basis (Fowler, Noll & Vo; IETF draft-eastlake-fnv, §2).
pub(super) const FNV_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64-bit prime.
pub(super) const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl Cloth {
    /// 64-bit FNV-1a hash of the particle state: for every particle in particle order its position
    /// x, y, z \[m\], then for every particle its velocity x, y, z \[m/s\]; each `f32` contributes the
    /// four little-endian bytes of its bit pattern (`f32::to_bits`), hashed byte by byte
    /// (h = (h ⊕ byte) · 0x100000001b3, starting from 0xcbf29ce484222325).
    ///
    /// Equal states give equal hashes on every platform; any change of a single bit (including
    /// −0.0 versus +0.0 and NaN payloads) changes the input, so two runs that agree on the hash
    /// after every step have, with overwhelming probability, bitwise identical trajectories.
    /// Not cryptographic. Cost: one pass over 24 bytes per particle.
    pub fn state_hash(&self) -> u64 {
        let p = &self.state;
        let floats = p.x.iter().chain(&p.v).flat_map(|v| v.to_array());
        floats.fold(FNV_OFFSET_BASIS, |h, f| fnv1a(h, &f.to_bits().to_le_bytes()))
    }
}

/// Continue the FNV-1a hash `h` over `bytes`.
#[inline]
pub(super) fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published FNV-1a 64 test vectors: "" and "a".
    #[test]
    fn fnv1a_constants_reproduce_the_reference_vectors() {
        let fnv = |bytes: &[u8]| fnv1a(FNV_OFFSET_BASIS, bytes);
        assert_eq!(fnv(b""), 0xcbf29ce484222325);
        assert_eq!(fnv(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv(b"foobar"), 0x85944171f73967e8);
    }
}
