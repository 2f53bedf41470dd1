//! Level of detail at the world level (`step_interval`, docs/design.md "Level of detail"): which
//! cloths step in a world step and over how many world steps, spread evenly over the steps, and
//! the colliders a long step collides with. The cloth's side (its time, its extended inputs, what
//! the reads show) is `crate::cloth::lod`.

use super::World;
use crate::cloth::MAX_STEP_INTERVAL;
use crate::cloth::lod::Lod;
use crate::collision::ColliderStore;

/// The world's level-of-detail state.
#[derive(Debug, Default)]
pub(crate) struct LodSchedule {
    /// World steps taken: the index of the next one.
    steps: u64,
    /// For each span L = 2 ..= [`MAX_STEP_INTERVAL`] (at L − 2): the world's colliders with their
    /// motion carried on over L world steps, refreshed in the world steps that have a step of L.
    colliders: Vec<ColliderStore>,
}

impl LodSchedule {
    /// The colliders a step over `span` world steps collides with: the world's own for a span
    /// of 1.
    pub fn colliders<'a>(&'a self, span: u32, world: &'a ColliderStore) -> &'a ColliderStore {
        match span {
            0 | 1 => world,
            l => &self.colliders[l as usize - 2],
        }
    }
}

/// The spans of the steps taken in one world step: bit L set when some cloth steps over L world
/// steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Spans(u32);

impl Spans {
    /// The longest span (1 when no cloth steps).
    pub fn longest(self) -> u32 {
        (32 - self.0.leading_zeros()).saturating_sub(1).max(1)
    }
}

impl World {
    /// Decide for the world step about to run which awake cloths step, and over how many world
    /// steps (`Lod::stepping`; 0: idle). A cloth steps when its state's time has come. At
    /// `step_interval` N > 1 it takes, at its first step at that N, the slot r that the fewest
    /// cloths of that N hold (the smallest r of those), and each step spans the world steps up to
    /// the next one ≡ r (mod N); so the cloths of one N step in turns, about 1/N of them in each
    /// world step, and a cloth that changes N reaches its slot in one shorter step. In slot
    /// order on the calling thread: the same for any thread count.
    pub(crate) fn schedule_lod(&mut self) -> Spans {
        const SLOTS: usize = MAX_STEP_INTERVAL as usize;
        let k = self.lod.steps;
        self.lod.steps += 1;
        // Cloths per (N, r), for the slots already held.
        let mut held = [[0u32; SLOTS]; SLOTS + 1];
        for cloth in self.cloths.values_mut() {
            if let Some((n, r)) = cloth.lod.slot {
                held[n as usize][r as usize] += 1;
            }
        }
        let mut spans = Spans::default();
        for cloth in self.cloths.values_mut() {
            let (asleep, n) = (cloth.is_sleeping(), cloth.config.params.step_interval);
            let lod = &mut cloth.lod;
            lod.stepping = 0;
            if asleep || !lod.due() {
                continue;
            }
            let span = if n == 1 {
                if let Some((old, r)) = lod.slot.take() {
                    held[old as usize][r as usize] -= 1;
                }
                1
            } else {
                let r = match lod.slot {
                    Some((m, r)) if m == n => r,
                    old => {
                        if let Some((m, r)) = old {
                            held[m as usize][r as usize] -= 1;
                        }
                        let loads = &held[n as usize][..n as usize];
                        let r = (0..n).min_by_key(|&r| (loads[r as usize], r)).expect("n >= 2");
                        held[n as usize][r as usize] += 1;
                        lod.slot = Some((n, r));
                        r
                    }
                };
                Lod::span_from(k, n, r)
            };
            // The step length changes by at most a factor of 2 from one step to the next.
            let span = span.clamp(lod.span.div_ceil(2), 2 * lod.span);
            lod.stepping = span;
            spans.0 |= 1 << span;
        }
        spans
    }

    /// Refresh the colliders of every span longer than 1 in `spans` (`LodSchedule::colliders`).
    pub(crate) fn extrapolate_colliders(&mut self, spans: Spans) {
        let stores = &mut self.lod.colliders;
        for span in 2..=MAX_STEP_INTERVAL {
            if spans.0 & (1 << span) == 0 {
                continue;
            }
            let i = span as usize - 2;
            if stores.len() <= i {
                stores.resize_with(i + 1, ColliderStore::default);
            }
            stores[i].extrapolate_from(&self.colliders, span as f32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_span_is_the_highest_bit() {
        assert_eq!(Spans(0).longest(), 1);
        assert_eq!(Spans(1 << 1).longest(), 1);
        assert_eq!(Spans(1 << 1 | 1 << 4).longest(), 4);
        assert_eq!(Spans(1 << 16 | 1 << 3).longest(), 16);
    }
}
