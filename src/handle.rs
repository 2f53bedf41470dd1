//! The handle of a cloth in its world (defined here, below every module that reports one).

/// Identifies a cloth in a [`crate::World`]: slot index + generation, so a handle to a removed cloth is
/// detected instead of reaching whatever reuses its slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClothHandle {
    /// Slot index.
    pub index: u32,
    /// Generation of the slot when the cloth was created (starts at 1; 0 is never valid).
    pub generation: u32,
}
