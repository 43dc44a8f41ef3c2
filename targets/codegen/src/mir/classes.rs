//! Register class queries the passes need beyond the runtime's.
//!
//! The hardware fact served: a part of a wide value, taken out into a
//! register of its own (to break a tie, or when spilling a part), needs a
//! class whose registers can hold every such part — for AMD's 64-bit pairs
//! and `sub1`, the 32-bit VGPRs; for an Intel SIMD8 dword tuple and
//! `subd2`, the dword class. LLVM asks the target's `getSubRegClass`; here
//! it is derived from the tables.

use regdesc_runtime::{RegClass, RegisterInfo, SubRegIdx};

use crate::mir::widths::{class_width, index_width};

/// The largest allocatable class, as wide as index `i`, that holds the
/// `i` sub-register of every register of `rc`.
pub fn sub_reg_class<R: RegisterInfo>(ri: &R, rc: RegClass, i: SubRegIdx) -> Option<RegClass> {
    let t = ri.tables();
    let width = index_width(ri, i)?;
    let subs: Vec<_> = t.members(rc).filter_map(|r| t.sub_reg(r, i)).collect();
    if subs.len() != t.num_members(rc) {
        return None;
    }
    t.all_classes().find(|&c| {
        t.is_allocatable(c)
            && class_width(ri, c) == Some(width)
            && subs.iter().all(|&s| t.contains(c, s))
    })
}
