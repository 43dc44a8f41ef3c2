//! Bit widths of register operands, from the tables.
//!
//! The hardware fact served: an instruction computes on as many bits as
//! the register (or sub-register) it names holds — a 16-bit half, a
//! 32-bit VGPR, a 64-bit pair. A class's width is its register size in
//! the hardware mode in effect (`RegisterInfo::spill_info`), a
//! sub-register's the size of its `SubRegIndex`, a physical register's the
//! size of the smallest class holding it (or the extent of its
//! sub-registers when no class does).

use regdesc_runtime::{Reg, RegClass, RegisterInfo, SubRegIdx};

use crate::mir::{MFunction, RegOperand, RegRef};

/// Bits in the registers of `rc`.
pub fn class_width<R: RegisterInfo>(ri: &R, rc: RegClass) -> Option<u32> {
    let w = ri.spill_info(rc).reg_size;
    (w > 0).then_some(w)
}

/// Bits of sub-register index `i`.
pub fn index_width<R: RegisterInfo>(ri: &R, i: SubRegIdx) -> Option<u32> {
    ri.tables().sub_reg_index_size(i).map(u32::from)
}

/// Bits in physical register `p`.
pub fn phys_width<R: RegisterInfo>(ri: &R, p: Reg) -> Option<u32> {
    let t = ri.tables();
    if let Some(w) = t.minimal_class(p).and_then(|c| class_width(ri, c)) {
        return Some(w);
    }
    t.sub_regs_with_indices(p)
        .filter_map(|(i, _)| {
            Some(u32::from(t.sub_reg_index_offset(i)?) + u32::from(t.sub_reg_index_size(i)?))
        })
        .max()
}

/// Bits an operand reads or writes.
pub fn operand_width<R: RegisterInfo>(ri: &R, f: &MFunction, r: &RegOperand) -> Option<u32> {
    match (r.reg, r.sub) {
        (RegRef::Virt(_), Some(i)) => index_width(ri, i),
        (RegRef::Virt(v), None) => class_width(ri, f.class_of(v)?),
        (RegRef::Phys(p), _) => phys_width(ri, p),
    }
}
