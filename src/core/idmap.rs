//! The engine's maps from ids an agent chooses (`callId`s, tokens) to calls: open addressing
//! with linear probing, hashed with SipHash keyed from the engine's entropy.
//!
//! Keyed, because the agent chooses the ids: with known hash keys (std's `RandomState` has fixed
//! ones on wasm32-unknown-unknown, which has no OS to ask) it could work out offline which ids
//! collide and make every lookup walk them all.
//!
//! Why not hashbrown (std's `HashMap`, which a `no_std` crate would take directly): its
//! group-probing tables were 4 KB of the shipped wasm (twiggy, raw, SipHash apart) for two maps
//! that only look up, insert and remove; this is 1.5 KB, and the package 1.5 KB gzip smaller.
//! The table is kept at most half full, so a probe stays short, and a removal shifts the
//! entries after it back instead of leaving tombstones, so a map whose ids come and go for ever
//! never slows down.

use alloc::string::String;
use alloc::vec::Vec;
use core::hash::Hasher;

use super::engine::Entropy;

/// The smallest table (slots), once anything is inserted.
const MIN_SLOTS: usize = 8;

/// The SipHash keys of a map.
#[derive(Clone, Copy)]
pub(crate) struct HashKeys(u64, u64);

impl HashKeys {
    /// Sixteen random bytes from the engine's entropy.
    pub(crate) fn from_entropy(entropy: &mut dyn Entropy) -> Self {
        let mut bytes = [0u8; 16];
        entropy.fill(&mut bytes);
        let (a, b) = bytes.split_at(8);
        let word = |half: &[u8]| half.iter().fold(0u64, |w, &b| w << 8 | u64::from(b));
        HashKeys(word(a), word(b))
    }
}

/// A map from `String` ids to `V`.
pub(crate) struct IdMap<V> {
    /// A power of two long (or empty), never more than half full; `None` is a free slot.
    slots: Vec<Option<Slot<V>>>,
    len: usize,
    keys: HashKeys,
}

struct Slot<V> {
    hash: usize,
    key: String,
    value: V,
}

impl<V> IdMap<V> {
    /// A map that holds `capacity` ids before it first grows (0: allocates on first insert).
    pub(crate) fn with_capacity(capacity: usize, keys: HashKeys) -> Self {
        let mut map = IdMap {
            slots: Vec::new(),
            len: 0,
            keys,
        };
        if capacity > 0 {
            map.resize((2 * capacity).next_power_of_two().max(MIN_SLOTS));
        }
        map
    }

    /// The value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        let at = self.find(key)?;
        self.slots[at].as_ref().map(|slot| &slot.value)
    }

    /// The value of `key`, to change.
    pub(crate) fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        let at = self.find(key)?;
        self.slots[at].as_mut().map(|slot| &mut slot.value)
    }

    /// Sets `key` to `value`, replacing (and returning) a value it had.
    pub(crate) fn insert(&mut self, key: String, value: V) -> Option<V> {
        if let Some(at) = self.find(&key) {
            return self.slots[at]
                .as_mut()
                .map(|slot| core::mem::replace(&mut slot.value, value));
        }
        if 2 * (self.len + 1) > self.slots.len() {
            self.resize((2 * self.slots.len()).max(MIN_SLOTS));
        }
        let hash = self.hash(&key);
        self.place(Slot { hash, key, value });
        self.len += 1;
        None
    }

    /// Sets `key` to `value` unless `key` has a value (`HashMap`'s `entry(key).or_insert`).
    pub(crate) fn insert_new(&mut self, key: String, value: V) {
        if self.find(&key).is_none() {
            self.insert(key, value);
        }
    }

    /// Takes `key` out, returning its value.
    pub(crate) fn remove(&mut self, key: &str) -> Option<V> {
        let mut hole = self.find(key)?;
        let removed = self.slots[hole].take();
        self.len -= 1;
        // Close the hole: each entry of the run that follows moves back into it when the hole
        // lies on its probe path, that is between its home slot and where it is now.
        let mask = self.slots.len() - 1;
        let mut at = (hole + 1) & mask;
        while let Some(home) = self.slots[at].as_ref().map(|slot| slot.hash & mask) {
            if at.wrapping_sub(home) & mask >= at.wrapping_sub(hole) & mask {
                self.slots[hole] = self.slots[at].take();
                hole = at;
            }
            at = (at + 1) & mask;
        }
        removed.map(|slot| slot.value)
    }

    /// The slot holding `key`.
    fn find(&self, key: &str) -> Option<usize> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let hash = self.hash(key);
        let mut at = hash & mask;
        // Ends at a free slot, and there always is one: the table is at most half full.
        while let Some(slot) = &self.slots[at] {
            if slot.hash == hash && slot.key == key {
                return Some(at);
            }
            at = (at + 1) & mask;
        }
        None
    }

    /// Puts an entry whose key is not in the map into the first free slot from its home.
    fn place(&mut self, slot: Slot<V>) {
        let mask = self.slots.len() - 1;
        let mut at = slot.hash & mask;
        while self.slots[at].is_some() {
            at = (at + 1) & mask;
        }
        self.slots[at] = Some(slot);
    }

    /// Moves every entry to a table of `len` slots (a power of two).
    fn resize(&mut self, len: usize) {
        let fresh = (0..len).map(|_| None).collect();
        let old = core::mem::replace(&mut self.slots, fresh);
        for slot in old.into_iter().flatten() {
            self.place(slot);
        }
    }

    #[allow(deprecated)] // `SipHasher` is deprecated only in favour of `DefaultHasher`, which is unkeyable.
    fn hash(&self, key: &str) -> usize {
        let mut hasher = core::hash::SipHasher::new_with_keys(self.keys.0, self.keys.1);
        hasher.write(key.as_bytes());
        hasher.finish() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use std::collections::HashMap;

    /// A run of random operations on few keys (so runs of colliding entries form, wrap around
    /// the table's end and get holes) checked against std's map after every step.
    #[test]
    fn behaves_as_a_hash_map() {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..40 {
            let keys = HashKeys(next(), next());
            let mut map = IdMap::with_capacity(round % 3 * 4, keys);
            let mut model = HashMap::new();
            let key_space = 1 + round * 7 % 60;
            for step in 0..3000u32 {
                let key = format!("id{}", next() % key_space as u64);
                match next() % 4 {
                    0 | 1 => assert_eq!(map.insert(key.clone(), step), model.insert(key, step)),
                    2 => assert_eq!(map.remove(&key), model.remove(&key)),
                    _ => {
                        map.insert_new(key.clone(), step);
                        model.entry(key).or_insert(step);
                    }
                }
                assert_eq!(map.len, model.len());
                assert!(2 * map.len <= map.slots.len());
                for k in 0..key_space {
                    let key = format!("id{k}");
                    assert_eq!(map.get(&key), model.get(&key), "round {round} step {step}");
                }
            }
        }
    }

    #[test]
    fn holds_its_capacity_without_growing() {
        let mut map = IdMap::with_capacity(2048, HashKeys(1, 2));
        let slots = map.slots.len();
        for i in 0..2048u32 {
            map.insert(format!("call-{i}"), i);
        }
        assert_eq!(map.slots.len(), slots);
        if let Some(v) = map.get_mut("call-7") {
            *v = 70;
        }
        assert_eq!(map.get("call-7"), Some(&70));
        assert_eq!(map.get("call-2048"), None);
    }
}
