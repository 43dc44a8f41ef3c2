//! [`Graph`]: what the register unit weights read of a bank, copied out of
//! it (each register's native units, sub-registers and super-registers,
//! each unit's roots, and the members of the allocatable classes), so that
//! they can be computed on another thread while class inference changes the
//! bank.
//!
//! The weights do not depend on the classes inference adds: an inferred
//! class is allocatable only through a super-class that is (LLVM's
//! `inheritProperties`), so its members are members of an allocatable
//! defined class, and the uber sets, which are all the weights read of the
//! classes, are those of the defined classes.

use super::super::{RegBank, RegId, RegUnitId};

/// Lists of numbers, back to back.
#[derive(Debug, Default)]
struct Lists {
    items: Vec<u32>,
    /// List `k` is `items[at[k]..at[k + 1]]`.
    at: Vec<usize>,
}

impl Lists {
    fn of<I: IntoIterator<Item = u32>>(lists: impl Iterator<Item = I>) -> Lists {
        let mut l = Lists::default();
        for list in lists {
            l.at.push(l.items.len());
            l.items.extend(list);
        }
        l.at.push(l.items.len());
        l
    }

    fn get(&self, k: usize) -> &[u32] {
        &self.items[self.at[k]..self.at[k + 1]]
    }

    fn len(&self) -> usize {
        self.at.len() - 1
    }
}

/// A bank's registers and units as the unit weights see them.
#[derive(Debug)]
pub(crate) struct Graph {
    /// By register: its native units, sorted.
    units: Lists,
    /// By register: its sub-registers but itself, in index order.
    subs: Lists,
    /// By register: its super-registers.
    supers: Lists,
    /// By register.
    artificial: Vec<bool>,
    /// By unit (native and adopted ones made before: none).
    roots: Vec<[Option<RegId>; 2]>,
    pub num_native_units: usize,
    /// The members of each allocatable class.
    allocatable: Lists,
}

impl Graph {
    /// The graph of `bank`, whose registers are complete; its classes may be
    /// only the defined ones.
    pub fn of(bank: &RegBank) -> Graph {
        let regs = &bank.registers;
        Graph {
            units: Lists::of(regs.iter().map(|r| r.units.iter().copied())),
            subs: Lists::of(regs.iter().enumerate().map(|(i, r)| {
                r.sub_regs
                    .values()
                    .copied()
                    .filter(move |&s| s as usize != i)
            })),
            supers: Lists::of(regs.iter().map(|r| r.super_regs.iter().copied())),
            artificial: regs.iter().map(|r| r.artificial).collect(),
            roots: bank.reg_units.iter().map(|u| u.roots).collect(),
            num_native_units: bank.num_native_reg_units,
            allocatable: Lists::of(
                bank.classes
                    .iter()
                    .filter(|c| c.allocatable)
                    .map(|c| c.members.iter().copied()),
            ),
        }
    }

    /// The number of registers.
    pub fn len(&self) -> usize {
        self.artificial.len()
    }

    pub fn units(&self, r: RegId) -> &[RegUnitId] {
        self.units.get(r as usize)
    }

    pub fn subs(&self, r: RegId) -> &[RegId] {
        self.subs.get(r as usize)
    }

    /// Where `r`'s sub-registers are among all registers' (the walks keep
    /// their place in them).
    pub fn subs_range(&self, r: RegId) -> (usize, usize) {
        (self.subs.at[r as usize], self.subs.at[r as usize + 1])
    }

    /// Sub-register `k` of all registers' (see [`Graph::subs_range`]).
    pub fn sub_at(&self, k: usize) -> RegId {
        self.subs.items[k]
    }

    pub fn supers(&self, r: RegId) -> &[RegId] {
        self.supers.get(r as usize)
    }

    pub fn artificial(&self, r: RegId) -> bool {
        self.artificial[r as usize]
    }

    /// The roots of native unit `u`.
    pub fn roots(&self, u: RegUnitId) -> impl Iterator<Item = RegId> + '_ {
        self.roots[u as usize].iter().flatten().copied()
    }

    /// The number of native units.
    pub fn num_units(&self) -> usize {
        self.roots.len()
    }

    /// The members of each allocatable class.
    pub fn allocatable_classes(&self) -> impl Iterator<Item = &[RegId]> + '_ {
        (0..self.allocatable.len()).map(|k| self.allocatable.get(k))
    }
}
