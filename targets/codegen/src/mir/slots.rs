//! Slot indexes: a number for every point of a function where a register
//! can start or stop being live (LLVM's `SlotIndexes`, simplified).
//!
//! The hardware fact served: an instruction reads its sources before it
//! writes its results, so a source that dies at an instruction can share a
//! register with its result — unless the result is early-clobber (written
//! while sources are still being read, as for AMD's multi-dword results
//! that overlap a source). Instruction `n` (counted over the whole function
//! in block order) has two slots: `2n`, where uses read (and early-clobber
//! defs write), and `2n + 1`, where ordinary defs write. A live segment is
//! a half-open range of slots: a value defined at `n` and last read at `m`
//! lives on `[2n + 1, 2m + 1)`. Block `b` covers
//! `[2 * first(b), 2 * (last(b) + 1))`.

use crate::mir::{MBlockId, MFunction};

/// Instruction numbering of one function (valid until it changes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slots {
    /// Index of each block's first instruction, and the total at the end.
    first: Vec<u32>,
}

impl Slots {
    pub fn new(f: &MFunction) -> Slots {
        let mut first = Vec::with_capacity(f.blocks.len() + 1);
        let mut n = 0u32;
        for b in &f.blocks {
            first.push(n);
            n += b.insts.len() as u32;
        }
        first.push(n);
        Slots { first }
    }

    /// The global number of instruction `k` of block `b`.
    pub fn inst(&self, b: MBlockId, k: usize) -> u32 {
        self.first[b.index()] + k as u32
    }

    /// Where instruction `n` reads its uses (and early-clobber defs write).
    pub fn use_slot(n: u32) -> u32 {
        2 * n
    }

    /// Where instruction `n` writes its defs.
    pub fn def_slot(n: u32) -> u32 {
        2 * n + 1
    }

    /// The instruction a slot belongs to.
    pub fn inst_of(slot: u32) -> u32 {
        slot / 2
    }

    pub fn block_start(&self, b: MBlockId) -> u32 {
        2 * self.first[b.index()]
    }

    pub fn block_end(&self, b: MBlockId) -> u32 {
        2 * self.first[b.index() + 1]
    }

    pub fn num_blocks(&self) -> usize {
        self.first.len() - 1
    }

    pub fn num_insts(&self) -> u32 {
        self.first.last().copied().unwrap_or(0)
    }

    /// The block holding a slot (the last block for slots past the end).
    pub fn block_of(&self, slot: u32) -> MBlockId {
        let n = Slots::inst_of(slot);
        // The last block whose first instruction is <= n (empty blocks
        // share their start with the next one: take the non-empty one).
        let k = self.first[..self.num_blocks()].partition_point(|&x| x <= n);
        MBlockId(k.saturating_sub(1) as u32)
    }

    /// Block and position within it of instruction `n`.
    pub fn position(&self, n: u32) -> (MBlockId, usize) {
        let b = self.block_of(2 * n);
        (b, (n - self.first[b.index()]) as usize)
    }
}
