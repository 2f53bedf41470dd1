//! Generational slot storage behind the world's handles (cloths and colliders).
//!
//! A handle is (slot index, generation). Removing an object bumps nothing; creating one in a freed
//! slot bumps that slot's generation, so a handle kept from the removed object no longer matches
//! and is reported as invalid instead of reaching the new occupant (Box2D v3's id scheme). A slot
//! whose generation reached the map's [`SlotMap::max_generation`] is retired when it is freed
//! rather than reused, so a generation never wraps and no kept handle ever names a later object
//! (the C ABI's ids store 16 or 7 bits of it).

use rayon::prelude::*;

#[derive(Clone, Debug)]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Objects addressed by (index, generation). Iteration is in slot order, so anything computed
/// over all objects is deterministic.
#[derive(Clone, Debug)]
pub(crate) struct SlotMap<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    /// Live objects.
    live: usize,
    /// The last generation a slot is given; freed after it, the slot is retired.
    max_generation: u32,
}

/// Generations of cloth and collider slots: 1..=65 535, what a C ABI id stores in 16 bits.
pub(crate) const MAX_OBJECT_GENERATION: u32 = 0xFFFF;

/// Generations of mesh shape slots: 1..=127, what a C ABI mesh shape id stores in 7 bits.
pub(crate) const MAX_MESH_SHAPE_GENERATION: u32 = 0x7F;

impl<T> Default for SlotMap<T> {
    fn default() -> Self {
        Self::with_max_generation(MAX_OBJECT_GENERATION)
    }
}

impl<T> SlotMap<T> {
    /// An empty map whose slots are retired after generation `max_generation` (≥ 1).
    pub fn with_max_generation(max_generation: u32) -> Self {
        SlotMap { slots: Vec::new(), free: Vec::new(), live: 0, max_generation: max_generation.max(1) }
    }

    /// The last generation a slot is given before it is retired.
    #[cfg(test)]
    pub fn max_generation(&self) -> u32 {
        self.max_generation
    }

    /// Become a copy of `other` (same handles), reusing this map's buffers: no allocation once
    /// they are as large as `other`'s, when cloning a `T` allocates nothing.
    pub fn copy_from(&mut self, other: &SlotMap<T>)
    where
        T: Clone,
    {
        self.slots.clone_from(&other.slots);
        self.free.clone_from(&other.free);
        self.live = other.live;
        self.max_generation = other.max_generation;
    }

    /// Store `value`; returns its (index, generation). Generations start at 1, so an all-zero
    /// handle is never valid.
    pub fn insert(&mut self, value: T) -> (u32, u32) {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot { generation: 0, value: None });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.generation += 1;
        slot.value = Some(value);
        self.live += 1;
        (index, slot.generation)
    }

    /// The live object at (index, generation), if any.
    pub fn get(&self, index: u32, generation: u32) -> Option<&T> {
        match self.slots.get(index as usize) {
            Some(Slot { generation: g, value: Some(v) }) if *g == generation => Some(v),
            _ => None,
        }
    }

    /// Mutable access to the live object at (index, generation), if any.
    pub fn get_mut(&mut self, index: u32, generation: u32) -> Option<&mut T> {
        match self.slots.get_mut(index as usize) {
            Some(Slot { generation: g, value: Some(v) }) if *g == generation => Some(v),
            _ => None,
        }
    }

    /// Generation of the live object in slot `index`, if any.
    pub fn live_generation(&self, index: u32) -> Option<u32> {
        match self.slots.get(index as usize) {
            Some(Slot { generation, value: Some(_) }) => Some(*generation),
            _ => None,
        }
    }

    /// Take the object out; its slot becomes reusable (with a new generation), or is retired
    /// once it has had the last generation.
    pub fn remove(&mut self, index: u32, generation: u32) -> Option<T> {
        self.get(index, generation)?;
        if generation < self.max_generation {
            self.free.push(index);
        }
        self.live -= 1;
        self.slots[index as usize].value.take()
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Live objects with their slot index, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| s.value.as_ref().map(|v| (i as u32, v)))
    }

    /// Live objects, mutably, with their slot index, in slot order.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (u32, &mut T)> {
        self.slots.iter_mut().enumerate().filter_map(|(i, s)| s.value.as_mut().map(|v| (i as u32, v)))
    }

    /// Live objects, mutably, in slot order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.slots.iter_mut().filter_map(|s| s.value.as_mut())
    }

    /// Live objects, mutably, as a rayon parallel iterator.
    pub fn par_values_mut(&mut self) -> impl ParallelIterator<Item = &mut T>
    where
        T: Send,
    {
        self.slots.par_iter_mut().filter_map(|s| s.value.as_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_slot_rejects_the_old_generation() {
        let mut m = SlotMap::default();
        let (a, ga) = m.insert("a");
        assert_eq!(m.remove(a, ga), Some("a"));
        let (b, gb) = m.insert("b");
        assert_eq!(a, b);
        assert_ne!(ga, gb);
        assert_eq!(m.get(a, ga), None);
        assert_eq!(m.get(b, gb), Some(&"b"));
        assert_eq!(m.get(0, 0), None);
        assert_eq!(m.len(), 1);
    }

    /// A slot created and freed over and over reaches its last generation and is retired: the
    /// next object takes a new slot, and every handle of the retired slot stays invalid.
    #[test]
    fn a_slot_past_its_last_generation_is_retired_not_wrapped() {
        let mut m = SlotMap::with_max_generation(5);
        assert_eq!(m.max_generation(), 5);
        let first = m.insert(0);
        m.remove(first.0, first.1);
        let mut handles = vec![first];
        for k in 1..5 {
            let h = m.insert(k);
            assert_eq!(h, (0, k as u32 + 1), "slot 0 is reused up to its last generation");
            assert_eq!(m.remove(h.0, h.1), Some(k));
            handles.push(h);
        }
        let next = m.insert(99);
        assert_eq!(next, (1, 1), "slot 0 retired after generation 5");
        assert_eq!(m.len(), 1);
        for (i, g) in handles {
            assert_eq!(m.get(i, g), None);
        }
        assert_eq!(m.iter().map(|(i, v)| (i, *v)).collect::<Vec<_>>(), vec![(1, 99)]);
    }
}
