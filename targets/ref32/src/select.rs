//! ref32's instruction selection: carry chains through the carry flag.
//!
//! The hardware fact served (as on every machine with a flags register,
//! and as AMD's `VCC`/`SCC` and Intel's `acc0` carry): a limb add or
//! subtract can leave its carry in a flag the next one reads, so a chain
//! of `G_UADDO`/`G_UADDE` needs no register for its carries. A carry goes
//! through `$CF` when its only use is the carry-in of the next
//! carry-using instruction of the block; otherwise the generic opcode
//! stays (its carry in a register), or `GETCF` copies the flag out.
//!
//! | instruction | meaning |
//! |---|---|
//! | `%d = ADDCF %a, %b, implicit-def $CF` | `a + b`, carry to `CF` |
//! | `%d = ADCCF %a, %b, implicit $CF, implicit-def $CF` | `a + b + CF`, carry to `CF` |
//! | `%d = SUBBF %a, %b, implicit-def $CF` | `a - b`, borrow to `CF` |
//! | `%d = SBCBF %a, %b, implicit $CF, implicit-def $CF` | `a - b - CF`, borrow to `CF` |
//! | `%d = GETCF implicit $CF` | `CF` (0 or 1) |

use regdesc_index::IndexVec;

use regdesc_codegen::mir::instr::{InstrDesc, OpKind};
use regdesc_codegen::mir::interp::{err, Bits, Flow, InterpError, MachineCx, TargetSemantics};
use regdesc_codegen::mir::{
    smallvec, InstrSet, LimbOp, MBlockId, MFunction, MInst, Operand, Operands, RegOperand, RegRef,
    Sem, VReg,
};
use regdesc_runtime::Reg;

/// Target instruction numbers (`Sem::Target`).
const ADDCF: u16 = 0;
const ADCCF: u16 = 1;
const SUBBF: u16 = 2;
const SBCBF: u16 = 3;
const GETCF: u16 = 4;

/// Adds the flag instructions to `s`.
pub fn add_instructions(s: &mut InstrSet, cf: Reg) {
    use OpKind::Reg as R;
    s.add(InstrDesc::new("ADDCF", 1, &[R, R], Sem::Target(ADDCF)).implicit_def(cf));
    s.add(
        InstrDesc::new("ADCCF", 1, &[R, R], Sem::Target(ADCCF))
            .implicit_use(cf)
            .implicit_def(cf),
    );
    s.add(InstrDesc::new("SUBBF", 1, &[R, R], Sem::Target(SUBBF)).implicit_def(cf));
    s.add(
        InstrDesc::new("SBCBF", 1, &[R, R], Sem::Target(SBCBF))
            .implicit_use(cf)
            .implicit_def(cf),
    );
    s.add(InstrDesc::new("GETCF", 1, &[], Sem::Target(GETCF)).implicit_use(cf));
}

/// The flag instructions' meaning, for the machine interpreter.
pub struct FlagSemantics {
    pub cf: Reg,
}

impl TargetSemantics for FlagSemantics {
    fn execute(&self, id: u16, _inst: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
        for lane in 0..cx.lanes() {
            if cx.exec() & (1u64 << lane) == 0 {
                continue;
            }
            let flag = cx.read_reg(self.cf, lane)?.to_u128() as u64 & 1;
            if id == GETCF {
                cx.write(0, lane, Bits::from_u128(32, u128::from(flag)))?;
                continue;
            }
            let a = cx.read(1, lane)?.to_u128() as u64 & 0xffff_ffff;
            let b = cx.read(2, lane)?.to_u128() as u64 & 0xffff_ffff;
            let (d, out) = match id {
                ADDCF | ADCCF => {
                    let s = a + b + if id == ADCCF { flag } else { 0 };
                    (s & 0xffff_ffff, s >> 32)
                }
                SUBBF | SBCBF => {
                    let c = if id == SBCBF { flag } else { 0 };
                    (
                        a.wrapping_sub(b).wrapping_sub(c) & 0xffff_ffff,
                        u64::from(a < b + c),
                    )
                }
                _ => return Err(err(format!("ref32 has no target instruction {id}"))),
            };
            cx.write(0, lane, Bits::from_u128(32, u128::from(d)))?;
            cx.write_reg(self.cf, lane, Bits::from_u128(1, u128::from(out)))?;
        }
        Ok(Flow::Next)
    }
}

fn carry_family(i: &MInst, s: &InstrSet) -> Option<(bool, bool)> {
    // (is an add, reads a carry in)
    match s.get(i.opcode)?.sem {
        Sem::Limb(LimbOp::UAddO) => Some((true, false)),
        Sem::Limb(LimbOp::UAddE) => Some((true, true)),
        Sem::Limb(LimbOp::USubO) => Some((false, false)),
        Sem::Limb(LimbOp::USubE) => Some((false, true)),
        _ => None,
    }
}

fn vreg_at(i: &MInst, k: usize) -> Option<VReg> {
    i.ops.get(k).and_then(Operand::vreg)
}

/// Rewrites carry chains of `f` to go through `$CF`.
///
/// One read of the machine code: the use counts and the candidate links
/// (a carry read as the carry-in of the next carry-family instruction of
/// its block) are found together, the links kept where the carry has no
/// other use, and only the linked instructions are touched again. (Two
/// reads cost a cache miss per instruction each once the function is
/// larger than the cache.)
pub fn select_flags(f: &mut MFunction, s: &InstrSet, cf: Reg) {
    let op = |name: &str| s.by_name(name);
    let (Some(addcf), Some(adccf), Some(subbf), Some(sbcbf), Some(getcf)) = (
        op("ADDCF"),
        op("ADCCF"),
        op("SUBBF"),
        op("SBCBF"),
        op("GETCF"),
    ) else {
        return;
    };
    // Uses per virtual register (a vector indexed by the register: a hash
    // map here cost a cache miss per operand on large functions).
    let mut uses: IndexVec<VReg, u32> = IndexVec::from_vec(vec![0; f.vregs.len()]);
    // Candidate links: (block, producer, consumer, carry), in order.
    let mut links: Vec<(MBlockId, usize, usize, VReg)> = Vec::new();
    for (bi, b) in f.blocks.iter_enumerated() {
        // The last carry-family instruction: (index, is an add, its carry).
        let mut last: Option<(usize, bool, Option<VReg>)> = None;
        for (k, i) in b.insts.iter().enumerate() {
            for (_, r) in i.reg_ops() {
                if let (false, Some(v)) = (r.is_def(), r.vreg()) {
                    if let Some(n) = uses.get_mut(v) {
                        *n += 1;
                    }
                }
            }
            let Some((add, reads)) = carry_family(i, s) else {
                continue;
            };
            if let (true, Some((p, p_add, Some(carry)))) = (reads, last) {
                if p_add == add && Some(carry) == vreg_at(i, 4) {
                    links.push((bi, p, k, carry));
                }
            }
            last = Some((k, add, vreg_at(i, 1)));
        }
    }
    links.retain(|&(_, _, _, carry)| uses.get(carry) == Some(&1));
    let phys = |def: bool| {
        let mut r = RegOperand::use_of(RegRef::Phys(cf), None);
        r.set_def(def);
        r.set_implicit(true);
        Operand::Reg(r)
    };
    let mut at = 0;
    while at < links.len() {
        let bi = links[at].0;
        // The block's linked instructions in order: (index, gives its
        // carry to the flag, takes its carry-in from it).
        let mut marked: Vec<(usize, bool, bool)> = Vec::new();
        while let Some(&(_, p, k, _)) = links.get(at).filter(|l| l.0 == bi) {
            match marked.last_mut() {
                Some(m) if m.0 == p => m.1 = true,
                _ => marked.push((p, true, false)),
            }
            marked.push((k, false, true));
            at += 1;
        }
        let b = &mut f.blocks[bi];
        // Rewrite in place; a carry still wanted in a register gets a
        // `GETCF` after its producer, inserted in one pass at the end (most
        // blocks need none, and then no instruction moves).
        let mut getcf_after: Vec<(usize, MInst)> = Vec::new();
        for (k, to_flag, from_flag) in marked {
            let Some((add, _)) = carry_family(&b.insts[k], s) else {
                continue;
            };
            let opcode = match (add, from_flag) {
                (true, false) => addcf,
                (true, true) => adccf,
                (false, false) => subbf,
                (false, true) => sbcbf,
            };
            let i = &b.insts[k];
            let mut ops: Operands = smallvec![i.ops[0].clone(), i.ops[2].clone(), i.ops[3].clone()];
            if from_flag {
                ops.push(phys(false));
            }
            ops.push(phys(true));
            if !to_flag {
                // The carry is wanted in a register.
                if let Some(c) = vreg_at(i, 1) {
                    if uses.get(c).copied().unwrap_or(0) > 0 {
                        getcf_after.push((
                            k,
                            MInst::new(
                                getcf,
                                smallvec![
                                    Operand::Reg(RegOperand::def_of(RegRef::Virt(c), None)),
                                    phys(false),
                                ],
                            ),
                        ));
                    }
                }
            }
            b.insts[k] = MInst::new(opcode, ops);
        }
        if getcf_after.is_empty() {
            continue;
        }
        let old = std::mem::take(&mut b.insts);
        b.insts.reserve(old.len() + getcf_after.len());
        let mut extra = getcf_after.into_iter().peekable();
        for (k, i) in old.into_iter().enumerate() {
            b.insts.push(i);
            while let Some((_, g)) = extra.next_if(|(at, _)| *at == k) {
                b.insts.push(g);
            }
        }
    }
}
