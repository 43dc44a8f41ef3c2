//! PHI elimination: SSA machine code to copies (LLVM's `PHIElimination`).
//!
//! The hardware fact served: registers have no φ-functions; a value that
//! flows in from several predecessors must sit in one register at the
//! join. Each `%d = PHI %a, %bb.p, ...` becomes a fresh register `%inc`
//! of `%d`'s class, a copy `%d = COPY %inc` at the top of the block, and a
//! copy `%inc = COPY %a` at the end of each predecessor, before its
//! terminator. The fresh register keeps the copies of several PHIs of one
//! block from clobbering each other's sources (the "swap" and "lost copy"
//! problems); the coalescer removes the copies whose registers do not
//! interfere. This is also the slot where target passes that need
//! non-SSA machine code with sub-register liveness run (AMD's SDWA
//! preserve merge).

use crate::mir::{smallvec, InstrSet, MFunction, MInst, Operand, RegOperand, RegRef, Sem};

/// Replaces every PHI of `f` by copies. Returns how many PHIs there were.
pub fn eliminate_phis(f: &mut MFunction, instrs: &InstrSet) -> usize {
    let mut count = 0;
    // Copies to append to each predecessor, in order.
    let mut at_end: Vec<Vec<MInst>> = vec![Vec::new(); f.blocks.len()];
    for bi in f.blocks.ids() {
        let n_phis = f.blocks[bi]
            .insts
            .iter()
            .take_while(|i| instrs.get(i.opcode).is_some_and(|d| d.sem == Sem::Phi))
            .count();
        if n_phis == 0 {
            continue;
        }
        // Each PHI is replaced in place by its copy (no shifting of the
        // block: on large functions that memory traffic dominates).
        let mut malformed = Vec::new();
        for k in 0..n_phis {
            count += 1;
            let phi = std::mem::replace(
                &mut f.blocks[bi].insts[k],
                MInst::new(instrs.implicit_def, Vec::new()),
            );
            match phi_copy(f, instrs, phi, &mut at_end) {
                Some(copy) => f.blocks[bi].insts[k] = copy,
                None => malformed.push(k),
            }
        }
        // A PHI without a virtual def of known class is dropped.
        for k in malformed.into_iter().rev() {
            f.blocks[bi].insts.remove(k);
        }
    }
    for (bi, copies) in f.blocks.ids().zip(at_end) {
        if copies.is_empty() {
            continue;
        }
        let insts = &mut f.blocks[bi].insts;
        // Before the terminators, found from the end (not by reading the
        // whole block).
        let is_term = |i: &MInst| instrs.get(i.opcode).is_some_and(|d| d.is_terminator);
        let mut term = insts.len();
        while term > 0 && is_term(&insts[term - 1]) {
            term -= 1;
        }
        insts.splice(term..term, copies);
    }
    f.props.no_phis = true;
    if count > 0 {
        f.props.ssa = false;
    }
    count
}

/// The copy that replaces `phi` at the top of its block (`%d = COPY %inc`,
/// `%inc` fresh), with the copies into `%inc` queued for the end of each
/// predecessor; `None` for a PHI without a virtual def of known class.
fn phi_copy(
    f: &mut MFunction,
    instrs: &InstrSet,
    phi: MInst,
    at_end: &mut [Vec<MInst>],
) -> Option<MInst> {
    let def = phi.ops.first().and_then(Operand::reg).cloned()?;
    let d = def.vreg()?;
    let rc = f.class_of(d)?;
    let inc = f.new_vreg(rc);
    let mut def_op = RegOperand::def_of(RegRef::Virt(d), None);
    def_op.set_dead(def.dead());
    let mut copy = MInst::new(
        instrs.copy,
        vec![
            Operand::Reg(def_op),
            Operand::Reg(RegOperand::use_of(RegRef::Virt(inc), None)),
        ],
    );
    copy.span = phi.span.clone();
    for pair in phi.ops[1..].chunks(2) {
        let (Some(Operand::Reg(v)), Some(Operand::Block(p))) = (pair.first(), pair.get(1)) else {
            continue;
        };
        let Some(list) = at_end.get_mut(p.index()) else {
            continue;
        };
        let dst = Operand::Reg(RegOperand::def_of(RegRef::Virt(inc), None));
        let inst = if v.undef() {
            MInst::new(instrs.implicit_def, smallvec![dst])
        } else {
            let mut src = RegOperand::use_of(v.reg, v.sub);
            src.set_kill(false);
            MInst::new(instrs.copy, smallvec![dst, Operand::Reg(src)])
        };
        list.push(inst);
    }
    Some(copy)
}
