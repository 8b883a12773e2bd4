//! Typed entity indices in dense arenas, in the Cranelift style.
//!
//! An entity (an instruction, a computation) is named by a small `u32`
//! newtype that indexes a [`PrimaryMap`]. Indices are only meaningful inside
//! the map that created them.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A small, copyable index type usable as a key of a [`PrimaryMap`].
pub trait EntityRef: Copy + Eq + fmt::Debug {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

/// Declares a `struct $name(u32)` entity reference.
#[macro_export]
macro_rules! entity_impl {
    ($name:ident, $prefix:expr) => {
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(u32);
        impl $crate::entity::EntityRef for $name {
            fn new(index: usize) -> Self {
                $name(u32::try_from(index).expect("entity index overflows u32"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }
    };
}

/// A dense arena that owns its values and hands out typed keys.
#[derive(Clone, PartialEq)]
pub struct PrimaryMap<K: EntityRef, V> {
    elems: Vec<V>,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    pub fn new() -> Self {
        PrimaryMap {
            elems: Vec::new(),
            _key: PhantomData,
        }
    }
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.elems.len());
        self.elems.push(v);
        k
    }
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
    pub fn get(&self, k: K) -> Option<&V> {
        self.elems.get(k.index())
    }
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.elems.get_mut(k.index())
    }
    pub fn is_valid(&self, k: K) -> bool {
        k.index() < self.elems.len()
    }
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.elems.len()).map(K::new)
    }
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.elems.iter()
    }
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, V> {
        self.elems.iter_mut()
    }
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (K, &mut V)> + ExactSizeIterator {
        self.elems
            .iter_mut()
            .enumerate()
            .map(|(i, v)| (K::new(i), v))
    }
    /// The key the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.elems.len())
    }
}

impl<K: EntityRef, V> Index<K> for PrimaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.elems[k.index()]
    }
}

impl<K: EntityRef, V> IndexMut<K> for PrimaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.elems[k.index()]
    }
}

impl<K: EntityRef, V: fmt::Debug> fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A dense side table keyed by the entities of some [`PrimaryMap`], in the
/// Cranelift style: every key maps to a value, `default` until written.
/// Reading a key past the end gives the default; writing grows the table.
/// Passes use it for per-instruction facts (an old-to-new id map, a group
/// number) instead of a `Vec` indexed by `.index()`.
#[derive(Clone, PartialEq)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    elems: Vec<V>,
    default: V,
    _key: PhantomData<K>,
}

impl<K: EntityRef, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: EntityRef, V: Clone + Default> SecondaryMap<K, V> {
    /// An empty map whose unwritten entries are `V::default()`.
    pub fn new() -> Self {
        Self::with_default(V::default())
    }
    /// An empty map with room for `n` entries.
    pub fn with_capacity(n: usize) -> Self {
        let mut m = Self::new();
        m.elems.reserve(n);
        m
    }
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// An empty map whose unwritten entries are `default`.
    pub fn with_default(default: V) -> Self {
        SecondaryMap {
            elems: Vec::new(),
            default,
            _key: PhantomData,
        }
    }
    /// The value of `k` (the default when never written).
    pub fn get(&self, k: K) -> &V {
        self.elems.get(k.index()).unwrap_or(&self.default)
    }
    /// Replaces the value of `k`, returning the previous one.
    pub fn insert(&mut self, k: K, v: V) -> V {
        std::mem::replace(&mut self[k], v)
    }
    /// Number of stored entries (keys below it may still hold the default).
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
    /// Every stored entry, in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// The stored values, in key order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.elems.iter()
    }
    /// Resets every entry to the default.
    pub fn clear(&mut self) {
        self.elems.clear();
    }
}

impl<K: EntityRef, V: Clone> Index<K> for SecondaryMap<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        self.get(k)
    }
}

impl<K: EntityRef, V: Clone> IndexMut<K> for SecondaryMap<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.elems.len() {
            self.elems.resize(i + 1, self.default.clone());
        }
        &mut self.elems[i]
    }
}

impl<K: EntityRef, V: Clone + fmt::Debug> fmt::Debug for SecondaryMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A set of entities, stored densely (one bit per key up to the largest
/// member): liveness, "already visited", "is a fusion member".
#[derive(Clone, Default, PartialEq, Eq)]
pub struct EntitySet<K: EntityRef> {
    words: Vec<u64>,
    len: usize,
    _key: PhantomData<K>,
}

impl<K: EntityRef> EntitySet<K> {
    pub fn new() -> Self {
        EntitySet {
            words: Vec::new(),
            len: 0,
            _key: PhantomData,
        }
    }
    /// Is `k` a member?
    pub fn contains(&self, k: K) -> bool {
        let i = k.index();
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }
    /// Adds `k`; true when it was not a member before.
    pub fn insert(&mut self, k: K) -> bool {
        let i = k.index();
        if i / 64 >= self.words.len() {
            self.words.resize(i / 64 + 1, 0);
        }
        let bit = 1u64 << (i % 64);
        let new = self.words[i / 64] & bit == 0;
        self.words[i / 64] |= bit;
        self.len += usize::from(new);
        new
    }
    /// Removes `k`; true when it was a member.
    pub fn remove(&mut self, k: K) -> bool {
        let i = k.index();
        let bit = 1u64 << (i % 64);
        match self.words.get_mut(i / 64) {
            Some(w) if *w & bit != 0 => {
                *w &= !bit;
                self.len -= 1;
                true
            }
            _ => false,
        }
    }
    /// Number of members.
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The members in key order.
    pub fn iter(&self) -> impl Iterator<Item = K> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits & (1u64 << b) != 0)
                .map(move |b| K::new(w * 64 + b))
        })
    }
    /// Removes every member.
    pub fn clear(&mut self) {
        self.words.clear();
        self.len = 0;
    }
}

impl<K: EntityRef> Extend<K> for EntitySet<K> {
    fn extend<I: IntoIterator<Item = K>>(&mut self, iter: I) {
        for k in iter {
            self.insert(k);
        }
    }
}

impl<K: EntityRef> FromIterator<K> for EntitySet<K> {
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut s = EntitySet::new();
        for k in iter {
            s.insert(k);
        }
        s
    }
}

impl<K: EntityRef> fmt::Debug for EntitySet<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::entity_impl!(E, "e");

    #[test]
    fn secondary_map_reads_default_and_grows_on_write() {
        let mut m: SecondaryMap<E, Option<u32>> = SecondaryMap::new();
        assert_eq!(m[E::new(5)], None);
        assert_eq!(m.len(), 0);
        m[E::new(3)] = Some(7);
        assert_eq!(m.len(), 4);
        assert_eq!(m[E::new(3)], Some(7));
        assert_eq!(m[E::new(0)], None);
        assert_eq!(m.insert(E::new(3), None), Some(7));
        let mut d: SecondaryMap<E, usize> = SecondaryMap::with_default(9);
        d[E::new(1)] += 1;
        assert_eq!((d[E::new(0)], d[E::new(1)], d[E::new(100)]), (9, 10, 9));
    }

    #[test]
    fn entity_set_inserts_removes_and_iterates_in_order() {
        let mut s: EntitySet<E> = EntitySet::new();
        assert!(s.insert(E::new(70)));
        assert!(s.insert(E::new(2)));
        assert!(!s.insert(E::new(2)));
        assert!(s.contains(E::new(70)) && !s.contains(E::new(3)) && !s.contains(E::new(1000)));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![E::new(2), E::new(70)]);
        assert_eq!(s.len(), 2);
        assert!(s.remove(E::new(70)));
        assert!(!s.remove(E::new(70)));
        assert_eq!(s.len(), 1);
        let t: EntitySet<E> = [E::new(1), E::new(1)].into_iter().collect();
        assert_eq!(t.len(), 1);
    }
}
