//! Combines on legalized code, before selection, for instructions GCN has
//! and the generic limb opcodes do not spell.
//!
//! The hardware facts served:
//! - `v_addc_co_u32`/`v_add_co_ci_u32` and `s_addc_u32` add two values and
//!   a carry in one instruction: `(a + b) + carry`, where the carry is a
//!   0-or-1 value (a carry or borrow out, a compare), is a carry-in add
//!   (`G_UADDE a, b, carry`), and `(a - b) - borrow` a borrow-in subtract.
//!   `x + carry` is `G_UADDE x, 0, carry`, `x - borrow` `G_USUBE x, 0,
//!   borrow`.
//! - gfx9 and gfx10 have a three-input add, `v_add3_u32`: `(a + b) + c`
//!   on the VALU is one instruction.
//! - `v_mad_u64_u32` adds a 64-bit accumulator to a 32x32 product: a
//!   32-bit `a * b + c` on the VALU is its low half, with `c` as the
//!   accumulator's low half and anything as its high half (llc does the
//!   same).
//!
//! The inner add must have no other use; it is removed here, so that its
//! selection cannot clobber `SCC` between a carry and the carry-in add
//! that reads it (which would cost an `s_cselect`/`s_cmp` pair).

use regdesc_codegen::mir::{def, use_};
use std::collections::HashMap;

use regdesc_codegen::mir::instr::{BinOp, LimbOp};
use regdesc_codegen::mir::{MFunction, MInst, Operand, Sem, VReg};
use regdesc_runtime::RegClass;

use crate::isa::Isa;

/// Where a value comes from: (block, index) of its def, and what it is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Bin(BinOp, VReg, VReg),
    /// A 0-or-1 value: a carry or borrow out, or a compare.
    Bool,
    /// The high half of a 64-bit multiply-add.
    MadHigh,
    Other,
}

/// Runs the combines on `f` (legalized, SSA).
pub fn combine(f: &mut MFunction, isa: &Isa, vgpr: RegClass) {
    let s = &isa.instrs;
    let mad_co = isa.op("G_AMD_MAD64_CO");
    let mut origin: HashMap<VReg, Origin> = HashMap::new();
    // The registers `MOVI` sets (a shift's constant amount).
    let mut consts: HashMap<VReg, i64> = HashMap::new();
    let mut uses: HashMap<VReg, usize> = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            for (_, r) in i.reg_ops() {
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    *uses.entry(v).or_default() += 1;
                }
            }
            let v = |k: usize| i.ops.get(k).and_then(Operand::vreg);
            match (s.desc(i.opcode).sem, v(0), v(1), v(2)) {
                (Sem::MovImm, Some(d), _, _) => {
                    if let Some(Operand::Imm(k)) = i.ops.get(1) {
                        consts.insert(d, *k);
                    }
                }
                (Sem::Binary(op), Some(d), Some(a), Some(b)) => {
                    origin.insert(d, Origin::Bin(op, a, b));
                }
                (Sem::Compare(_), Some(d), _, _) => {
                    origin.insert(d, Origin::Bool);
                }
                // A MAD's halves.
                (Sem::Limb(LimbOp::Mad64), Some(lo), Some(hi), _) => {
                    origin.insert(lo, Origin::Other);
                    origin.insert(hi, Origin::MadHigh);
                }
                // The multiply cascade's MAD: its third def is a carry.
                (Sem::Target(_), Some(lo), Some(hi), _) if i.opcode == mad_co => {
                    origin.insert(lo, Origin::Other);
                    origin.insert(hi, Origin::Other);
                    if let Some(c) = v(2) {
                        origin.insert(c, Origin::Bool);
                    }
                }
                (
                    Sem::Limb(LimbOp::UAddO | LimbOp::UAddE | LimbOp::USubO | LimbOp::USubE),
                    Some(d),
                    Some(c),
                    _,
                ) => {
                    origin.insert(d, Origin::Other);
                    origin.insert(c, Origin::Bool);
                }
                _ => {}
            }
        }
    }
    let single = |v: VReg| uses.get(&v) == Some(&1);
    let (uadde, usube) = (s.op("G_UADDE"), s.op("G_USUBE"));
    let add3 = isa.op("V_ADD3_U32");
    let lshl_add = isa.op("V_LSHL_ADD_U32");
    // Zeros and undefined values to define before the instruction they
    // feed: (block, index, their def).
    let mut before = Vec::new();
    let (movi, mad64) = (s.op("MOVI"), s.op("G_MAD64"));
    // The inner adds folded into their single user.
    let mut folded: Vec<VReg> = Vec::new();
    for blk in f.blocks.ids().collect::<Vec<_>>() {
        for k in 0..f.blocks[blk].insts.len() {
            let i = &f.blocks[blk].insts[k];
            let v = |k: usize| i.ops.get(k).and_then(Operand::vreg);
            let (Sem::Binary(op @ (BinOp::Add | BinOp::Sub)), Some(d), Some(x), Some(y)) =
                (s.desc(i.opcode).sem, v(0), v(1), v(2))
            else {
                continue;
            };
            let rc = f.class_of(d);
            let mut new = None;
            // (a << k) + c on the VALU: one `v_lshl_add_u32`. (Not `(a <<
            // k) | c` as `v_lshl_or_b32`: a half shifted into the high
            // word and ored is the SDWA peephole's, one instruction with
            // the operation that made the half.)
            if op == BinOp::Add && rc == Some(vgpr) {
                // A product by a power of two is the same shift.
                let power = |m: VReg| {
                    let c = consts.get(&m).copied().filter(|&c| c > 1 && c < 1 << 32)?;
                    (c & (c - 1) == 0).then(|| i64::from(c.trailing_zeros()))
                };
                let shifted = [(x, y), (y, x)].into_iter().find_map(|(t, c)| {
                    let (a, k) = match origin.get(&t).copied() {
                        Some(Origin::Bin(BinOp::Shl, a, amount)) => {
                            (a, consts.get(&amount).copied()?)
                        }
                        Some(Origin::Bin(BinOp::Mul, p, q)) => match (power(q), power(p)) {
                            (Some(k), _) => (p, k),
                            (None, Some(k)) => (q, k),
                            (None, None) => return None,
                        },
                        _ => return None,
                    };
                    let k = Some(k).filter(|k| (1..32).contains(k))?;
                    (single(t) && f.class_of(t) == rc && f.class_of(a) == rc)
                        .then_some((t, a, k, c))
                });
                if let Some((t, a, k, c)) = shifted {
                    new = Some(MInst::new(
                        lshl_add,
                        vec![def(d), use_(a), Operand::Imm(k), use_(c)],
                    ));
                    folded.push(t);
                }
            }
            // (a op b) op carry, and for adds also carry + (a + b).
            let pairs = match (op, new.is_some()) {
                (_, true) => vec![],
                (BinOp::Add, false) => vec![(x, y), (y, x)],
                _ => vec![(x, y)],
            };
            for (t, c) in pairs {
                let Some(Origin::Bin(top, a, b)) = origin.get(&t).copied() else {
                    continue;
                };
                if top != op || !single(t) || f.class_of(t) != rc {
                    continue;
                }
                if origin.get(&c) == Some(&Origin::Bool) && f.class_of(c) == rc {
                    let carry = rc.map(|rc| f.new_vreg(rc));
                    if let Some(co) = carry {
                        let opc = if op == BinOp::Add { uadde } else { usube };
                        new = Some(MInst::new(
                            opc,
                            vec![def(d), def(co), use_(a), use_(b), use_(c)],
                        ));
                        folded.push(t);
                        break;
                    }
                }
                if op == BinOp::Add && rc == Some(vgpr) {
                    new = Some(MInst::new(add3, vec![def(d), use_(a), use_(b), use_(c)]));
                    folded.push(t);
                    break;
                }
            }
            // a * b + c on the VALU: the low half of `v_mad_u64_u32` with
            // an accumulator whose high half is anything.
            if new.is_none() && op == BinOp::Add && rc == Some(vgpr) {
                for (t, c) in [(x, y), (y, x)] {
                    let Some(Origin::Bin(BinOp::Mul, a, b)) = origin.get(&t).copied() else {
                        continue;
                    };
                    // Not on a MAD's high half: the cascade's top column
                    // (`a1 * b0 + hi(a0 * b0)`) would need the half copied
                    // to the bottom of a pair, where the add is free.
                    if !single(t) || f.class_of(t) != rc || origin.get(&c) == Some(&Origin::MadHigh)
                    {
                        continue;
                    }
                    let (undef, hi) = (f.new_vreg(vgpr), f.new_vreg(vgpr));
                    before.push((blk, k, MInst::new(s.implicit_def, vec![def(undef)])));
                    new = Some(MInst::new(
                        mad64,
                        vec![def(d), def(hi), use_(a), use_(b), use_(c), use_(undef)],
                    ));
                    folded.push(t);
                    break;
                }
            }
            // x + carry: a carry-in add of x and 0; x - borrow: a
            // borrow-in subtract of 0 from x (a difference's top limb
            // whose other operand's limb is zero).
            if new.is_none() && matches!(op, BinOp::Add | BinOp::Sub) {
                let orders = [(x, y), (y, x)];
                let orders = if op == BinOp::Add {
                    &orders[..]
                } else {
                    &orders[..1]
                };
                for &(x, c) in orders {
                    let bool_c = origin.get(&c) == Some(&Origin::Bool);
                    if !bool_c || f.class_of(c) != rc || f.class_of(x) != rc {
                        continue;
                    }
                    let Some(rc) = rc else { continue };
                    let (zero, co) = (f.new_vreg(rc), f.new_vreg(rc));
                    before.push((blk, k, MInst::new(movi, vec![def(zero), Operand::Imm(0)])));
                    let opc = if op == BinOp::Add { uadde } else { usube };
                    new = Some(MInst::new(
                        opc,
                        vec![def(d), def(co), use_(x), use_(zero), use_(c)],
                    ));
                    break;
                }
            }
            if let Some(n) = new {
                f.blocks[blk].insts[k] = n;
            }
        }
    }
    for (blk, k, i) in before.into_iter().rev() {
        f.blocks[blk].insts.insert(k, i);
    }
    if folded.is_empty() {
        return;
    }
    // An inner add folded into its user, and rewritten itself, may still
    // be read by the rewrite (`(a + b) + c` became `add3 a, b, c`, then
    // `that + carry` became `G_UADDE (a + b), c, carry`): only the unread
    // ones go.
    folded.sort_unstable();
    let mut read = std::collections::HashSet::new();
    for b in f.blocks.iter() {
        for i in &b.insts {
            read.extend(
                i.reg_ops()
                    .filter(|(_, r)| !r.is_def())
                    .filter_map(|(_, r)| r.vreg()),
            );
        }
    }
    for b in f.blocks.iter_mut() {
        b.insts.retain(|i| {
            let mut defs = i
                .reg_ops()
                .filter(|(_, r)| r.is_def())
                .filter_map(|(_, r)| r.vreg());
            let first = i.ops.first().and_then(Operand::vreg);
            !(first.is_some_and(|d| folded.binary_search(&d).is_ok())
                && defs.all(|d| !read.contains(&d)))
        });
    }
}
