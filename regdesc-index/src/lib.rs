//! Typed ids and the storage they index, for every crate of the
//! workspace (in the style of regalloc2's `define_index!`).
//!
//! [`define_index!`] makes an id: a `u32` newtype counted from 0, with
//! [`Idx::index`] for its position and `llvm_number()` for the number LLVM
//! gives the same thing where LLVM counts from 1 (registers, sub-register
//! indices: 0 is LLVM's "none"). [`IndexVec`] is storage indexed by one kind
//! of id: `storage[id]`, never `storage[id.0 as usize]`.
//!
//! ```
//! regdesc_index::define_index!(
//!     /// A block.
//!     pub struct BlockId;
//! );
//! let mut names: regdesc_index::IndexVec<BlockId, &str> = regdesc_index::IndexVec::new();
//! let b = names.push("entry");
//! assert_eq!(names[b], "entry");
//! assert_eq!(b.llvm_number(), 1);
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use core::ops::{Deref, DerefMut, Index, IndexMut};

/// A typed index.
pub trait Idx: Copy {
    /// The id at position `i`.
    fn from_index(i: usize) -> Self;
    /// Its position.
    fn index(self) -> usize;
}

/// Makes a typed id: `define_index!(/// doc \n pub struct Name;)`.
/// Attributes (docs, extra derives such as `serde::Serialize` with
/// `#[serde(transparent)]`) go on the struct.
#[macro_export]
macro_rules! define_index {
    ($(#[$meta:meta])* $vis:vis struct $name:ident;) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis struct $name(pub u32);

        impl $name {
            /// The id at position `index`.
            #[allow(dead_code)]
            pub const fn new(index: usize) -> Self {
                $name(index as u32)
            }

            /// Its position in its storage.
            #[allow(dead_code)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// LLVM's number for it, where LLVM counts from 1 (0 being
            /// "none"): the position plus one.
            #[allow(dead_code)]
            pub const fn llvm_number(self) -> u32 {
                self.0 + 1
            }
        }

        impl $crate::Idx for $name {
            fn from_index(i: usize) -> Self {
                $name(i as u32)
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

/// Storage indexed by one kind of id. Reads as a slice too.
pub struct IndexVec<I: Idx, T> {
    raw: Vec<T>,
    _id: PhantomData<fn(&I)>,
}

impl<I: Idx, T> IndexVec<I, T> {
    /// Empty storage.
    pub const fn new() -> Self {
        IndexVec {
            raw: Vec::new(),
            _id: PhantomData,
        }
    }

    /// Storage holding `raw`, the first element at id 0.
    pub fn from_vec(raw: Vec<T>) -> Self {
        IndexVec {
            raw,
            _id: PhantomData,
        }
    }

    /// Appends `v`; its id.
    pub fn push(&mut self, v: T) -> I {
        self.raw.push(v);
        I::from_index(self.raw.len() - 1)
    }

    /// The element at `i`, if there is one.
    pub fn get(&self, i: I) -> Option<&T> {
        self.raw.get(i.index())
    }

    /// The element at `i`, if there is one.
    pub fn get_mut(&mut self, i: I) -> Option<&mut T> {
        self.raw.get_mut(i.index())
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl Iterator<Item = I> + use<I, T> {
        (0..self.raw.len()).map(I::from_index)
    }

    /// Ids and elements, in order.
    pub fn iter_enumerated(&self) -> impl Iterator<Item = (I, &T)> {
        self.raw
            .iter()
            .enumerate()
            .map(|(k, v)| (I::from_index(k), v))
    }

    /// The elements as a vector.
    pub fn into_vec(self) -> Vec<T> {
        self.raw
    }
}

impl<I: Idx, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Idx, T: Clone> Clone for IndexVec<I, T> {
    fn clone(&self) -> Self {
        Self::from_vec(self.raw.clone())
    }
}

impl<I: Idx, T: fmt::Debug> fmt::Debug for IndexVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.raw.fmt(f)
    }
}

impl<I: Idx, T: PartialEq> PartialEq for IndexVec<I, T> {
    fn eq(&self, other: &Self) -> bool {
        self.raw == other.raw
    }
}

impl<I: Idx, T: Eq> Eq for IndexVec<I, T> {}

impl<I: Idx, T> Index<I> for IndexVec<I, T> {
    type Output = T;
    fn index(&self, i: I) -> &T {
        &self.raw[i.index()]
    }
}

impl<I: Idx, T> IndexMut<I> for IndexVec<I, T> {
    fn index_mut(&mut self, i: I) -> &mut T {
        &mut self.raw[i.index()]
    }
}

impl<I: Idx, T> Deref for IndexVec<I, T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.raw
    }
}

impl<I: Idx, T> DerefMut for IndexVec<I, T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.raw
    }
}

impl<I: Idx, T> FromIterator<T> for IndexVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(it: It) -> Self {
        Self::from_vec(it.into_iter().collect())
    }
}

impl<I: Idx, T> From<Vec<T>> for IndexVec<I, T> {
    fn from(raw: Vec<T>) -> Self {
        Self::from_vec(raw)
    }
}

impl<'a, I: Idx, T> IntoIterator for &'a IndexVec<I, T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter()
    }
}

impl<'a, I: Idx, T> IntoIterator for &'a mut IndexVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter_mut()
    }
}
