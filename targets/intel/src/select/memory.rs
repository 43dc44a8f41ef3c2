//! Memory and the kernel payload in selection: global loads and stores
//! become A64 stateless scattered messages, the work-item and work-group
//! ids reads of the thread payload ([`crate::abi`]).
//!
//! Hardware facts served:
//! - **A64 scattered read/write** (PRM Vol 2d, "Data Port 1": message
//!   types 0x10 *A64 Scattered Read* and 0x1A *A64 Scattered Write*;
//!   descriptor bits 9:8 the element type — 0 byte, 1 dword — and bits
//!   11:10 the elements per address, 1, 2, 4 or 8 dwords, or for bytes 1,
//!   2 or 4 bytes): one 64-bit address per channel, and the dwords at it
//!   element-major (all channels' first dword, then all channels' second).
//!   So a 64-bit (or 128-bit) value is one message at one address, its
//!   dwords arriving in separate registers: the limbs the legalizer
//!   splits it into. Loads and stores of consecutive dwords from one base
//!   (`p`, `p + 4`, ... as the legalizer addresses the limbs of a wide
//!   access) are merged into one message of 2 (or 4 at SIMD8) dwords.
//! - **Payload** ([`crate::abi`]): the local id X is a `:uw` per channel in
//!   `r1`, the work-group id X is `r0.1`, the global offset X and the
//!   enqueued local size X are dwords of the cross-thread data. Each read
//!   names the payload register as an operand, so the allocator keeps it
//!   until then.
//!
//! `get_global_id(0)` (the legalizer's `G_MAD64 group id, local size,
//! local id, 0`) gets the global offset added to the local id (with the
//! carry into the high half), as IGC's kernels compute it.
//!
//! Every instruction keeps a meaning the machine interpreter runs: the
//! payload reads their generic one, the messages [`Sem::Target`] ones
//! ([`execute`]).

use regdesc_codegen::mir::{def, use_};
use std::collections::HashMap;

use regdesc_codegen::mir::instr::{InstrDesc, OpKind};
use regdesc_codegen::mir::interp::{Bits, Flow, InterpError, MachineCx};
use regdesc_codegen::mir::{
    InstrSet, LimbOp, MFunction, MInst, Opcode, Operand, Operands, RegOperand, RegRef, Sem, VReg,
};
use regdesc_codegen::target::TargetError;
use regdesc_runtime::RegisterInfo;

use crate::abi::KernelLayout;
use crate::regs::Intel;

/// The global offset X (reads 0 in the machine interpreter, whose
/// launches have none).
pub const T_GLOBAL_OFFSET: u16 = 0;
/// `a64.load.dN` (N = 1, 2, 4 dwords): `T_LOAD_D + log2 N`.
pub const T_LOAD_D: u16 = 1;
/// `a64.load.b1`, `a64.load.b2`: one or two bytes, zero-extended.
pub const T_LOAD_B: u16 = 4;
/// `a64.store.dN`.
pub const T_STORE_D: u16 = 6;
/// `a64.store.b1`, `a64.store.b2`.
pub const T_STORE_B: u16 = 9;
/// `a64.addr`: a message's address payload (a qword per channel) from
/// the address's two dwords.
pub const T_ADDR: u16 = 11;
/// `a64.load.q` (Gen9, [`crate::qword`]): one qword per channel, into
/// the address-payload layout (a GRF pair or quad, qwords interleaved).
pub const T_LOAD_Q: u16 = 12;
/// `add.q` (Gen9, [`crate::qword`]): the 64-bit sum of two qword
/// tuples (an `a64.addr` or `a64.load.q` result, or a uniform pair).
pub const T_ADD_Q: u16 = 13;

/// What a message target instruction does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Msg {
    pub store: bool,
    /// Dwords per address (byte messages: 1).
    pub dwords: u8,
    /// Bytes of a byte message (`None`: dwords).
    pub bytes: Option<u8>,
}

/// The message of target instruction `id`.
pub fn msg_of(id: u16) -> Option<Msg> {
    let m = |store, dwords, bytes| {
        Some(Msg {
            store,
            dwords,
            bytes,
        })
    };
    match id {
        T_LOAD_D..=3 => m(false, 1 << (id - T_LOAD_D), None),
        4 | 5 => m(false, 1, Some(1 << (id - T_LOAD_B))),
        T_STORE_D..=8 => m(true, 1 << (id - T_STORE_D), None),
        9 | 10 => m(true, 1, Some(1 << (id - T_STORE_B))),
        _ => None,
    }
}

fn name_of(id: u16) -> String {
    match (id, msg_of(id)) {
        (T_GLOBAL_OFFSET, _) => "payload.gofs".into(),
        (T_ADDR, _) => "a64.addr".into(),
        (T_LOAD_Q, _) => "a64.load.q".into(),
        (T_ADD_Q, _) => "add.q".into(),
        (_, Some(m)) => format!(
            "a64.{}.{}{}",
            if m.store { "store" } else { "load" },
            if m.bytes.is_some() { "b" } else { "d" },
            m.bytes.unwrap_or(m.dwords)
        ),
        _ => format!("target.{id}"),
    }
}

/// Adds the payload reads and the messages to `s`.
pub fn add_instructions(s: &mut InstrSet) {
    let r = OpKind::Reg;
    s.add(InstrDesc::new(
        "payload.lid",
        1,
        &[r],
        Sem::Limb(LimbOp::WorkitemId),
    ));
    s.add(InstrDesc::new(
        "payload.wgid",
        1,
        &[r],
        Sem::Limb(LimbOp::WorkgroupId),
    ));
    s.add(InstrDesc::new(
        "payload.lsz",
        1,
        &[r],
        Sem::Limb(LimbOp::WorkgroupSize),
    ));
    s.add(InstrDesc::new(
        &name_of(T_GLOBAL_OFFSET),
        1,
        &[r],
        Sem::Target(T_GLOBAL_OFFSET),
    ));
    // The address tuple is written a half at a time (`mov` of the low
    // dwords to the even, of the high ones to the odd slots), so it must not
    // share a GRF with either half: an early-clobber def.
    s.add(InstrDesc::new(&name_of(T_ADDR), 1, &[r, r], Sem::Target(T_ADDR)).early_clobber(0));
    // The qword load's def is the response itself (no scratch), the sum
    // is written per SIMD8 chunk after its sources' chunks are read.
    s.add(InstrDesc::new(
        &name_of(T_LOAD_Q),
        1,
        &[r, OpKind::Imm],
        Sem::Target(T_LOAD_Q),
    ));
    s.add(InstrDesc::new(&name_of(T_ADD_Q), 1, &[r, r], Sem::Target(T_ADD_Q)).early_clobber(0));
    for id in T_LOAD_D..=10 {
        let Some(m) = msg_of(id) else { continue };
        // The last operand: 1 for a uniform (NoMask SIMD8) message.
        let d = if m.store {
            let mut ops = vec![r; 1 + usize::from(m.dwords)];
            ops.push(OpKind::Imm);
            InstrDesc::new(&name_of(id), 0, &ops, Sem::Target(id))
        } else {
            InstrDesc::new(
                &name_of(id),
                usize::from(m.dwords),
                &[r, OpKind::Imm],
                Sem::Target(id),
            )
        };
        s.add(d);
    }
}

/// Runs target instruction `id` on the machine interpreter: the
/// messages read and write memory per lane under the execution mask.
pub fn execute(id: u16, inst: &MInst, cx: &mut dyn MachineCx) -> Result<Flow, InterpError> {
    let bad = |m: String| -> InterpError { regdesc_codegen::mir::interp::err(m) };
    if id == T_GLOBAL_OFFSET {
        for lane in 0..cx.lanes() {
            cx.write(0, lane, Bits::from_u128(32, 0))?;
        }
        return Ok(Flow::Next);
    }
    let _ = inst;
    let lanes = cx.lanes();
    let exec = cx.exec();
    if id == T_ADDR {
        // One thread per lane (`ExecModel::Threads`): the payload holds
        // that lane's address in its low qword.
        for lane in 0..lanes {
            let lo = cx.read(1, lane)?.to_u128() & 0xffff_ffff;
            let hi = cx.read(2, lane)?.to_u128() & 0xffff_ffff;
            cx.write(0, lane, Bits::from_u128(1024, lo | (hi << 32)))?;
        }
        return Ok(Flow::Next);
    }
    if id == T_ADD_Q {
        for lane in 0..lanes {
            let a = cx.read(1, lane)?.to_u128() as u64;
            let b = cx.read(2, lane)?.to_u128() as u64;
            cx.write(
                0,
                lane,
                Bits::from_u128(1024, u128::from(a.wrapping_add(b))),
            )?;
        }
        return Ok(Flow::Next);
    }
    if id == T_LOAD_Q {
        for lane in 0..lanes {
            if lanes > 1 && exec >> lane & 1 == 0 {
                continue;
            }
            let addr = cx.read(1, lane)?.to_u128() as u64;
            let bytes = cx
                .memory()
                .read_bytes(addr, 8)
                .map_err(|e| bad(e.to_string()))?;
            let mut v = 0u128;
            for (j, b) in bytes.iter().enumerate() {
                v |= u128::from(*b) << (8 * j);
            }
            cx.write(0, lane, Bits::from_u128(1024, v))?;
        }
        return Ok(Flow::Next);
    }
    let m = msg_of(id).ok_or_else(|| bad(format!("target instruction {id} is not Gen's")))?;
    let base = if m.store { 0 } else { usize::from(m.dwords) };
    for lane in 0..lanes {
        if lanes > 1 && exec >> lane & 1 == 0 {
            continue;
        }
        let addr = cx.read(base, lane)?.to_u128() as u64;
        let width = u64::from(m.bytes.unwrap_or(4));
        for k in 0..u64::from(m.dwords) {
            let a = addr.wrapping_add(4 * k);
            if m.store {
                let v = cx.read(base + 1 + k as usize, lane)?.to_u128() as u32;
                cx.memory()
                    .write_bytes(a, &v.to_le_bytes()[..width as usize])
                    .map_err(|e| bad(e.to_string()))?;
            } else {
                let bytes = cx
                    .memory()
                    .read_bytes(a, width)
                    .map_err(|e| bad(e.to_string()))?;
                let mut v = 0u128;
                for (j, b) in bytes.iter().enumerate() {
                    v |= u128::from(*b) << (8 * j);
                }
                cx.write(k as usize, lane, Bits::from_u128(32, v))?;
            }
        }
    }
    Ok(Flow::Next)
}

fn phys_use(name: &str) -> Result<Operand, TargetError> {
    let r = Intel
        .tables()
        .reg_by_name(name)
        .ok_or_else(|| TargetError::Unsupported {
            what: format!("the payload register `{name}`"),
            span: None,
        })?;
    Ok(Operand::Reg(RegOperand::use_of(RegRef::Phys(r), None)))
}

fn v(i: &MInst, k: usize) -> Option<VReg> {
    i.ops.get(k).and_then(Operand::vreg)
}

fn imm(i: &MInst, k: usize) -> Option<i64> {
    match i.ops.get(k) {
        Some(Operand::Imm(x)) => Some(*x),
        _ => None,
    }
}

/// One global access of the generic code.
struct Access {
    at: usize,
    store: bool,
    /// The root address and the constant offset from it.
    root: (VReg, VReg),
    offset: i64,
    /// The access's own address operands.
    addr: (VReg, VReg),
    /// Def (load) or value (store).
    val: VReg,
    bytes: i64,
}

/// Rewrites the payload reads, `get_global_id`'s global offset and the
/// global accesses of `f` (generic, legalized, SSA) into Gen's payload
/// reads and messages. `max_dwords`: the most dwords per address a
/// message may carry: 4 response GRFs (the emitter's scratch holds that
/// many), so 4 at SIMD8 and 2 at SIMD16.
pub fn select(
    f: &mut MFunction,
    s: &InstrSet,
    layout: Option<&KernelLayout>,
    simd: crate::target::Simd,
) -> Result<(), TargetError> {
    // The emitter's scratch GRFs hold 4 response GRFs.
    let max_dwords = 4 / simd.grfs();
    let op = |n: &str| {
        s.by_name(n).ok_or_else(|| TargetError::Unsupported {
            what: format!("the instruction `{n}`"),
            span: None,
        })
    };
    let sem = |o: Opcode| s.get(o).map(|d| d.sem);
    let name = f.name.clone();
    // Definitions by opcode meaning.
    let mut defs: HashMap<VReg, (Sem, Operands)> = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            if let (Some(d), Some(m)) = (v(i, 0), sem(i.opcode)) {
                defs.insert(d, (m, i.ops.clone()));
            }
        }
    }
    let consts: HashMap<VReg, i64> = defs
        .iter()
        .filter_map(|(d, (m, ops))| match (m, ops.get(1)) {
            (Sem::MovImm, Some(Operand::Imm(x))) => Some((*d, *x)),
            _ => None,
        })
        .collect();
    // Addresses `p + K`: `lo', c = G_UADDO p.lo, K` and `hi' = ADD p.hi,
    // c` (or `G_UADDE p.hi, 0, c`).
    let mut lows: HashMap<VReg, (VReg, VReg, i64)> = HashMap::new();
    let mut offsets: HashMap<(VReg, VReg), (VReg, VReg, i64)> = HashMap::new();
    for b in &f.blocks {
        for i in &b.insts {
            match sem(i.opcode) {
                Some(Sem::Limb(LimbOp::UAddO)) => {
                    if let (Some(d), Some(c), Some(a), Some(k)) =
                        (v(i, 0), v(i, 1), v(i, 2), v(i, 3))
                    {
                        if let Some(&x) = consts.get(&k).filter(|x| (0..64).contains(*x)) {
                            lows.insert(c, (d, a, x));
                        }
                    }
                }
                Some(Sem::Binary(regdesc_codegen::mir::instr::BinOp::Add)) => {
                    if let (Some(h), Some(a), Some(c)) = (v(i, 0), v(i, 1), v(i, 2)) {
                        if let Some(&(lo, plo, k)) = lows.get(&c) {
                            offsets.insert((lo, h), (plo, a, k));
                        }
                    }
                }
                Some(Sem::Limb(LimbOp::UAddE)) => {
                    if let (Some(h), Some(a), Some(z), Some(c)) =
                        (v(i, 0), v(i, 2), v(i, 3), v(i, 4))
                    {
                        if let (Some(&(lo, plo, k)), Some(0)) = (lows.get(&c), consts.get(&z)) {
                            offsets.insert((lo, h), (plo, a, k));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let is = |v: Option<VReg>, l: LimbOp| {
        v.and_then(|v| defs.get(&v))
            .is_some_and(|(m, _)| *m == Sem::Limb(l))
    };
    for bi in f.block_ids().collect::<Vec<_>>() {
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        // The global accesses of the block, in order.
        let mut acc: Vec<Access> = Vec::new();
        for (at, i) in insts.iter().enumerate() {
            let store = match sem(i.opcode) {
                Some(Sem::Limb(LimbOp::Load)) => false,
                Some(Sem::Limb(LimbOp::Store)) => true,
                _ => continue,
            };
            // G_LOAD d, lo, hi, n and G_STORE v, lo, hi, n alike.
            let (val, lo, hi, n) = (v(i, 0), v(i, 1), v(i, 2), imm(i, 3));
            let (Some(val), Some(lo), Some(hi), Some(n)) = (val, lo, hi, n) else {
                return Err(TargetError::Unsupported {
                    what: format!("@{name}: a global access with constant operands"),
                    span: i.text_span(),
                });
            };
            let (root, offset) = match offsets.get(&(lo, hi)) {
                Some(&(plo, phi, k)) => ((plo, phi), k),
                None => ((lo, hi), 0),
            };
            acc.push(Access {
                at,
                store,
                root,
                offset,
                addr: (lo, hi),
                val,
                bytes: n,
            });
        }
        // Groups of accesses merged into one message: the same kind and
        // root, consecutive dword offsets, nothing else touching memory
        // between them. `plan[at]`: (the instruction replacing it, or
        // nothing when it was merged into another).
        let mut plan: HashMap<usize, Vec<MInst>> = HashMap::new();
        let mut k = 0;
        while k < acc.len() {
            let a = &acc[k];
            let mut n = 1usize;
            if a.bytes == 4 {
                let mut len = 1;
                while k + len < acc.len()
                    && len < usize::from(max_dwords)
                    && acc[k + len].store == a.store
                    && acc[k + len].bytes == 4
                    && acc[k + len].root == a.root
                    && acc[k + len].offset == a.offset + 4 * len as i64
                {
                    len += 1;
                }
                n = if len >= 4 {
                    4
                } else if len >= 2 {
                    2
                } else {
                    1
                };
                if (a.offset / 4) % n as i64 != 0 && n > 1 {
                    // Keep each message at a multiple of its size from
                    // the root: a wide value's limbs pair up.
                    n = 1;
                }
            }
            let group = &acc[k..k + n];
            let (lo, hi) = a.addr;
            let (id, num_vals) = match (a.store, a.bytes) {
                (false, 4) => (T_LOAD_D + n.trailing_zeros() as u16, n),
                (true, 4) => (T_STORE_D + n.trailing_zeros() as u16, n),
                (false, 1 | 2) => (T_LOAD_B + (a.bytes as u16 - 1), 1),
                (true, 1 | 2) => (T_STORE_B + (a.bytes as u16 - 1), 1),
                _ => {
                    return Err(TargetError::Unsupported {
                        what: format!("@{name}: a global access of {} bytes", a.bytes),
                        span: insts[a.at].text_span(),
                    })
                }
            };
            let _ = num_vals;
            let o = op(&name_of(id))?;
            // The address payload: a qword per channel of the message,
            // NoMask SIMD8 when every operand is uniform.
            let scalar = |x: VReg| f.class_of(x) == Some(crate::regs::classes::GRF_D);
            let uniform = scalar(lo) && scalar(hi) && group.iter().all(|g| scalar(g.val));
            let rc = if uniform || simd == crate::target::Simd::Simd8 {
                crate::regs::classes::SIMD8_Q
            } else {
                crate::regs::classes::SIMD16_Q
            };
            let pay = f.new_vreg(rc);
            let mut ops = Vec::new();
            if a.store {
                ops.push(use_(pay));
                ops.extend(group.iter().map(|g| use_(g.val)));
            } else {
                ops.extend(group.iter().map(|g| def(g.val)));
                ops.push(use_(pay));
            }
            ops.push(Operand::Imm(i64::from(uniform)));
            let mut mi = MInst::new(o, ops);
            mi.span = insts[a.at].span.clone();
            let mut addr = MInst::new(op(&name_of(T_ADDR))?, vec![def(pay), use_(lo), use_(hi)]);
            if let Some(r) = addr.ops[0].reg_mut() {
                r.set_early_clobber(true);
            }
            // Loads go where the first one was, stores where the last.
            let (keep, drop): (usize, Vec<usize>) = if a.store {
                (
                    group[n - 1].at,
                    group[..n - 1].iter().map(|g| g.at).collect(),
                )
            } else {
                (group[0].at, group[1..].iter().map(|g| g.at).collect())
            };
            plan.insert(keep, vec![addr, mi]);
            for d in drop {
                plan.insert(d, Vec::new());
            }
            k += n;
        }
        let mut out = Vec::with_capacity(insts.len());
        for (at, i) in insts.into_iter().enumerate() {
            if let Some(p) = plan.remove(&at) {
                out.extend(p);
                continue;
            }
            match sem(i.opcode) {
                Some(Sem::Limb(LimbOp::WorkitemId)) => {
                    let d = v(&i, 0).ok_or_else(|| bad_op(&name))?;
                    out.push(MInst::new(
                        op("payload.lid")?,
                        vec![def(d), phys_use(&format!("R{}", crate::abi::LOCAL_ID_GRF))?],
                    ));
                }
                Some(Sem::Limb(LimbOp::WorkgroupId)) => {
                    let d = v(&i, 0).ok_or_else(|| bad_op(&name))?;
                    out.push(MInst::new(
                        op("payload.wgid")?,
                        vec![def(d), phys_use("R0_D1")?],
                    ));
                }
                Some(Sem::Limb(LimbOp::WorkgroupSize)) => {
                    let d = v(&i, 0).ok_or_else(|| bad_op(&name))?;
                    let at = layout.and_then(|l| l.enqueued_local_size).ok_or_else(|| {
                        TargetError::Unsupported {
                            what: format!(
                                "@{name}: the work-group size outside `get_global_id` (the payload has no enqueued local size)"
                            ),
                            span: i.text_span(),
                        }
                    })?;
                    let r = crate::abi::cross_thread_reg(at).ok_or_else(|| bad_op(&name))?;
                    out.push(MInst::new(
                        op("payload.lsz")?,
                        vec![
                            def(d),
                            Operand::Reg(RegOperand::use_of(RegRef::Phys(r), None)),
                        ],
                    ));
                }
                Some(Sem::Limb(LimbOp::Mad64))
                    if layout.is_some_and(|l| l.enqueued_local_size.is_some())
                        && is(v(&i, 2), LimbOp::WorkgroupId)
                        && is(v(&i, 3), LimbOp::WorkgroupSize)
                        && is(v(&i, 4), LimbOp::WorkitemId)
                        && v(&i, 5).and_then(|c| consts.get(&c)) == Some(&0) =>
                {
                    // get_global_id(0) = (global offset + group id *
                    // local size), uniform and 64-bit, plus the local id
                    // with one carry.
                    let (Some(lo), Some(hi), Some(wi), Some(lane_rc)) = (
                        v(&i, 0),
                        v(&i, 1),
                        v(&i, 4),
                        v(&i, 4).and_then(|x| f.class_of(x)),
                    ) else {
                        return Err(bad_op(&name));
                    };
                    let grf_d = crate::regs::classes::GRF_D;
                    let phys = |r: Option<regdesc_runtime::Reg>| {
                        r.map(|r| Operand::Reg(RegOperand::use_of(RegRef::Phys(r), None)))
                            .ok_or_else(|| bad_op(&name))
                    };
                    let [g, wg, lsz, z, ulo, uhi] = [(); 6].map(|_| f.new_vreg(grf_d));
                    let enq = layout.and_then(|l| l.enqueued_local_size).unwrap_or(0);
                    out.push(MInst::new(
                        op(&name_of(T_GLOBAL_OFFSET))?,
                        vec![
                            def(g),
                            phys(crate::abi::cross_thread_reg(crate::abi::GLOBAL_OFFSET))?,
                        ],
                    ));
                    out.push(MInst::new(
                        op("payload.wgid")?,
                        vec![def(wg), phys_use("R0_D1")?],
                    ));
                    out.push(MInst::new(
                        op("payload.lsz")?,
                        vec![def(lsz), phys(crate::abi::cross_thread_reg(enq))?],
                    ));
                    out.push(MInst::new(op("MOVI")?, vec![def(z), Operand::Imm(0)]));
                    out.push(MInst::new(
                        op("G_MAD64")?,
                        vec![def(ulo), def(uhi), use_(wg), use_(lsz), use_(g), use_(z)],
                    ));
                    let c = f.new_vreg(lane_rc);
                    out.push(MInst::new(
                        op("G_UADDO")?,
                        vec![def(lo), def(c), use_(ulo), use_(wi)],
                    ));
                    out.push(MInst::new(op("ADD")?, vec![def(hi), use_(uhi), use_(c)]));
                }
                _ => out.push(i),
            }
        }
        f.blocks[bi].insts = out;
    }
    cse(f, s);
    crate::mul64::remove_dead(f, s);
    hoist_addresses(f, s);
    Ok(())
}

fn bad_op(name: &str) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{name}: a payload read without its def"),
        span: None,
    }
}

/// An address `p + i * 2^k` (a `getelementptr` over elements of a
/// power-of-two size, the legalizer's multiply plan with a constant
/// factor and an addend): the index shifted into its two limbs and added
/// to the base with one carry, instead of the general multiply-add.
pub fn lower_scaled_index(
    plan: &regdesc_codegen::legalize::MulPlan,
    b: &mut regdesc_codegen::legalize::MirBuilder<'_>,
) -> Option<Vec<regdesc_codegen::legalize::Limb>> {
    use regdesc_codegen::legalize::Limb;
    use regdesc_codegen::mir::instr::BinOp;
    if plan.limbs != 2 || plan.a.len() != 2 || plan.b.len() != 2 {
        return None;
    }
    let p = plan.addend.as_ref()?;
    let (idx, k) = match (&plan.a[..], &plan.b[..]) {
        (x, [Limb::Const(s), Limb::Const(0)]) | ([Limb::Const(s), Limb::Const(0)], x)
            if s.is_power_of_two() =>
        {
            (x.to_vec(), s.trailing_zeros())
        }
        _ => return None,
    };
    let (lo_off, hi_off) = if k == 0 {
        (idx[0], idx[1])
    } else {
        let lo = b.bin(BinOp::Shl, idx[0], Limb::Const(k));
        let spill = b.bin(BinOp::LShr, idx[0], Limb::Const(32 - k));
        let hi = match idx[1] {
            Limb::Const(0) => spill,
            h => {
                let h = b.bin(BinOp::Shl, h, Limb::Const(k));
                b.bin(BinOp::Or, h, spill)
            }
        };
        (lo, hi)
    };
    let (lo, c) = b.uaddo(p[0], lo_off);
    let hi = b.bin(BinOp::Add, p[1], hi_off);
    let hi = b.bin(BinOp::Add, hi, c);
    Some(vec![lo, hi])
}

/// Whether target instruction `id` of this module is free of effects
/// (the global offset read and the address packing; not the messages).
pub fn is_pure_target(id: u16) -> bool {
    matches!(id, T_GLOBAL_OFFSET | T_ADDR | T_ADD_Q)
}

/// An operand as a value-numbering key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Key {
    V(VReg),
    P(regdesc_runtime::Reg),
    I(i64),
    Other,
}

/// Block-local value numbering of pure instructions: the legalizer
/// addresses each `getelementptr` on its own, so the same index shift
/// (and the same constants) come once per pointer; they are computed
/// once.
pub fn cse(f: &mut MFunction, s: &InstrSet) {
    let mut rename: HashMap<VReg, VReg> = HashMap::new();
    let classes = f.vregs.clone();
    for b in f.blocks.iter_mut() {
        let mut seen: HashMap<(Opcode, Vec<Key>), Vec<VReg>> = HashMap::new();
        let mut keep = Vec::with_capacity(b.insts.len());
        for mut i in std::mem::take(&mut b.insts) {
            for o in i.ops.iter_mut() {
                if let Operand::Reg(r) = o {
                    if let (false, RegRef::Virt(v)) = (r.is_def(), r.reg) {
                        if let Some(n) = rename.get(&v) {
                            r.reg = RegRef::Virt(*n);
                        }
                    }
                }
            }
            let Some(d) = s.get(i.opcode) else {
                keep.push(i);
                continue;
            };
            let nd = d.num_defs;
            if !crate::mul64::is_pure(d.sem) || nd == 0 || !d.implicit_defs.is_empty() {
                keep.push(i);
                continue;
            }
            let defs: Vec<VReg> = (0..nd).filter_map(|k| v(&i, k)).collect();
            if defs.len() != nd {
                keep.push(i);
                continue;
            }
            let mut key: Vec<Key> = i.ops[nd..]
                .iter()
                .map(|o| match o {
                    Operand::Reg(r) if r.sub.is_none() => match r.reg {
                        RegRef::Virt(v) => Key::V(v),
                        RegRef::Phys(p) => Key::P(p),
                    },
                    Operand::Imm(x) => Key::I(*x),
                    _ => Key::Other,
                })
                .collect();
            if key.contains(&Key::Other) {
                keep.push(i);
                continue;
            }
            // Defs of different classes are different values.
            key.extend(defs.iter().map(|x| {
                Key::I(
                    classes
                        .get(*x)
                        .copied()
                        .flatten()
                        .map_or(-1, |c| i64::from(c.0)),
                )
            }));
            match seen.get(&(i.opcode, key.clone())) {
                Some(prev) => {
                    for (a, b) in defs.iter().zip(prev) {
                        rename.insert(*a, *b);
                    }
                }
                None => {
                    seen.insert((i.opcode, key), defs);
                    keep.push(i);
                }
            }
        }
        b.insts = keep;
    }
    if rename.is_empty() {
        return;
    }
    for b in f.blocks.iter_mut() {
        for i in b.insts.iter_mut() {
            for o in i.ops.iter_mut() {
                if let Operand::Reg(r) = o {
                    if let (false, RegRef::Virt(v)) = (r.is_def(), r.reg) {
                        if let Some(n) = rename.get(&v) {
                            r.reg = RegRef::Virt(*n);
                        }
                    }
                }
            }
        }
    }
}

/// Addresses before data: in each block, every instruction that does not
/// depend on a load (nor touch memory, nor end the block) moves, in
/// order, before those that do. All the messages' addresses are so ready
/// before the first load is sent, and the loads go out back to back.
pub fn hoist_addresses(f: &mut MFunction, s: &InstrSet) {
    for b in f.blocks.iter_mut() {
        let mut late: std::collections::HashSet<VReg> = Default::default();
        let (mut early, mut rest) = (Vec::new(), Vec::new());
        for i in std::mem::take(&mut b.insts) {
            let d = s.get(i.opcode);
            let movable = d.is_some_and(|d| {
                (crate::mul64::is_pure(d.sem) || d.sem == Sem::Phi)
                    && d.implicit_defs.is_empty()
                    && !d.is_terminator
            }) && i
                .reg_ops()
                .all(|(_, r)| !(r.is_def() && matches!(r.reg, RegRef::Phys(_))))
                && !i
                    .reg_ops()
                    .any(|(_, r)| !r.is_def() && r.vreg().is_some_and(|x| late.contains(&x)));
            if movable {
                early.push(i);
            } else {
                for (_, r) in i.reg_ops() {
                    if let (true, Some(x)) = (r.is_def(), r.vreg()) {
                        late.insert(x);
                    }
                }
                rest.push(i);
            }
        }
        early.extend(rest);
        b.insts = early;
    }
}
