//! Generational slot storage behind the world's handles (cloths and colliders).
//!
//! A handle is (slot index, generation). Removing an object bumps nothing; creating one in a freed
//! slot bumps that slot's generation, so a handle kept from the removed object no longer matches
//! and is reported as invalid instead of reaching the new occupant (Box2D v3's id scheme).

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
}

impl<T> Default for SlotMap<T> {
    fn default() -> Self {
        SlotMap { slots: Vec::new(), free: Vec::new() }
    }
}

impl<T> SlotMap<T> {
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
        slot.generation = slot.generation.wrapping_add(1).max(1);
        slot.value = Some(value);
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

    /// Take the object out; its slot becomes reusable (with a new generation).
    pub fn remove(&mut self, index: u32, generation: u32) -> Option<T> {
        self.get(index, generation)?;
        self.free.push(index);
        self.slots[index as usize].value.take()
    }

    /// Number of live objects.
    pub fn len(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Live objects with their slot index, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| s.value.as_ref().map(|v| (i as u32, v)))
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
}
