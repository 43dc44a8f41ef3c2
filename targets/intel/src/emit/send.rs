//! Emission of the kernel payload reads, the A64 stateless messages and
//! the end of thread.
//!
//! Hardware facts served:
//! - **A64 scattered read/write** (PRM Vol 2d "Data Port 1", *A64
//!   Scattered Read* 0x10 and *A64 Scattered Write* 0x1A; the message
//!   descriptor of Vol 2d: message length 28:25, response length 24:20,
//!   message type 18:14, SIMD mode 12 (1: SIMD16), elements per address
//!   11:10, element type 9:8 (0 byte, 1 dword), binding table index 7:0
//!   = 255 for stateless): the address payload is one qword per channel,
//!   lane-major (2 GRFs per 8 channels: `r.0<2>` the low dwords, `r.1<2>`
//!   the high ones); the data (a write's second payload, `sends` on
//!   Gen9/Gen11) and the response are element-major, one dword vector per
//!   element. IGA decodes the descriptors this module builds as `a64 dword
//!   gathering read`, `a64 dword scattering write`, `a64 byte gathering
//!   read 8b`... (see `tests/iga.rs`).
//! - The address payload is a register of its own (`a64.addr`, a GRF
//!   pair or quad the allocator places); data payloads and responses go
//!   through the scratch GRFs `r124..r127`. A response goes straight into the
//!   allocated registers when the dwords were given consecutive vectors.
//!   A byte read's response is masked to its width.
//! - **End of thread** (Vol 7 "Thread Spawner"): a kernel ends with a
//!   send to the thread spawner (SFID 7, descriptor `0x02000010`) with
//!   EOT, whose payload is `r0` copied into `r127` (EOT payloads must be
//!   in `r112..r127`).
//! - **Payload reads** ([`crate::abi`]): the local id X is `r1`'s words,
//!   read as `r1.0<8;8,1>:uw`; the work-group id X `r0.1`; the global
//!   offset X and the enqueued local size X dwords of the cross-thread
//!   data.
//!
//! A uniform access (every operand a scalar) runs as a NoMask SIMD8
//! message, each channel at the same address.

use regdesc_codegen::mir::{LimbOp, MInst, Operand, Sem};
use regdesc_codegen::target::TargetError;
use regdesc_runtime::RegisterInfo;

use super::{unsupported, Chunk, Em, Loc, BLOCK_MASK};
use crate::abi::SCRATCH_GRF;
use crate::isa::{Dst, Inst, Line, Op, RegName, Region, SendInst, Src, Ty};
use crate::regs::Intel;
use crate::select::memory::{msg_of, T_ADDR, T_ADD_Q, T_GLOBAL_OFFSET, T_LOAD_Q};
use crate::target::Platform;

/// Data port 1's SFID (ExDesc 3:0 on Gen9/Gen11, `.dc1` on Gen12LP).
const SFID_DC1: u8 = 0xC;
/// The thread spawner's.
const SFID_TS: u8 = 7;
/// Binding table index of stateless (A64) accesses.
const BTI_STATELESS: u32 = 0xFF;
const A64_SCATTERED_READ: u32 = 0x10;
const A64_SCATTERED_WRITE: u32 = 0x1A;
/// The data payload's (and responses') first GRF.
const DATA_GRF: u8 = SCRATCH_GRF + 4;
const _: () = assert!(DATA_GRF == 124);

/// An A64 scattered message descriptor.
pub fn a64_desc(write: bool, exec: u8, dwords: u8, bytes: Option<u8>, mlen: u8, rlen: u8) -> u32 {
    let (size, blocks) = match bytes {
        Some(b) => (0, u32::from(b).trailing_zeros()),
        None => (1, u32::from(dwords).trailing_zeros()),
    };
    let ty = if write {
        A64_SCATTERED_WRITE
    } else {
        A64_SCATTERED_READ
    };
    (u32::from(mlen) << 25)
        | (u32::from(rlen) << 20)
        | (ty << 14)
        | (u32::from(exec == 16) << 12)
        | (blocks << 10)
        | (size << 8)
        | BTI_STATELESS
}

/// The descriptor of an A64 scattered read of one qword per address
/// (element type 2, PRM Vol 2d; IGA: `a64 qword gathering read`).
pub fn a64_qword_read_desc(exec: u8, mlen: u8, rlen: u8) -> u32 {
    (u32::from(mlen) << 25)
        | (u32::from(rlen) << 20)
        | (A64_SCATTERED_READ << 14)
        | (u32::from(exec == 16) << 12)
        | (2 << 8)
        | BTI_STATELESS
}

impl Em<'_> {
    fn grf_loc(&self, i: &MInst, k: usize) -> Result<Loc, TargetError> {
        match self.loc(i, k) {
            Ok(l) => Ok(l),
            Err(e) => {
                // A whole GRF (the local ids).
                let r = i
                    .ops
                    .get(k)
                    .and_then(Operand::reg)
                    .and_then(|r| r.phys())
                    .ok_or(e.clone())?;
                let n = Intel.tables().name(r);
                n.strip_prefix('R')
                    .and_then(|x| x.parse::<u8>().ok())
                    .map(Loc::Lane)
                    .ok_or(e)
            }
        }
    }

    /// A payload read: the def from the payload register (operand 1).
    pub(super) fn payload(&mut self, i: &MInst) -> Result<(), TargetError> {
        let dl = self.loc(i, 0)?;
        let from = self.grf_loc(i, 1)?;
        let lid = self.gen.instrs.desc(i.opcode).sem == Sem::Limb(LimbOp::WorkitemId);
        for c in self.full(dl) {
            let src = match (lid, from) {
                (true, Loc::Lane(nr)) => Src::Reg {
                    reg: RegName::Grf { nr, sub: 0 },
                    region: Region::PACKED,
                    ty: Ty::Uw,
                    neg: false,
                },
                (_, l) => Self::src(c, l, Ty::Ud),
            };
            self.alu(c, Op::Mov, dl, src, None);
        }
        Ok(())
    }

    /// The first GRF of the multi-GRF register of operand `k`
    /// (`R4_R5`, `R4_R5_R6_R7`).
    fn tuple_grf(&self, i: &MInst, k: usize) -> Result<u8, TargetError> {
        let r = self.phys(i, k)?;
        let name = Intel.tables().name(r);
        name.strip_prefix('R')
            .and_then(|x| x.split('_').next())
            .and_then(|x| x.parse::<u8>().ok())
            .ok_or_else(|| unsupported(self.f, format!("`{name}` is not a GRF tuple")))
    }

    /// `a64.addr`: a qword per channel, low dwords at `.0<2>`, high ones
    /// at `.1<2>`, SIMD8 chunk by chunk (a destination spans 2 GRFs at
    /// most).
    fn address(&mut self, i: &MInst) -> Result<(), TargetError> {
        let pay = self.tuple_grf(i, 0)?;
        let lo = self.loc(i, 1)?;
        let hi = self.loc(i, 2)?;
        let r = i.ops[0].reg().and_then(|r| r.phys());
        let quad = r.is_some_and(|r| Intel.tables().contains(crate::regs::classes::SIMD16_Q, r));
        let uniform = !quad && matches!((lo, hi), (Loc::Scalar(..), Loc::Scalar(..)));
        let g = if quad { 2 } else { 1 };
        for c in 0..g {
            let ch = Chunk {
                exec: 8,
                offset: 8 * c,
                shift: c,
                nomask: uniform || (self.gen.simd.lanes() == 16 && !quad),
            };
            for (half, l) in [(0u8, lo), (1, hi)] {
                let d = Dst {
                    reg: RegName::Grf {
                        nr: pay + 2 * c,
                        sub: half,
                    },
                    h: 2,
                    ty: Ty::Ud,
                };
                self.push(ch, Op::Mov, d, vec![Self::src(ch, l, Ty::Ud)]);
            }
        }
        Ok(())
    }

    /// `a64.load.q` (Gen9, [`crate::qword`]): the response, a qword per
    /// channel lane-major, straight into the def's GRF pair or quad.
    fn load_qword(&mut self, i: &MInst) -> Result<(), TargetError> {
        let dst = self.tuple_grf(i, 0)?;
        let pay = self.tuple_grf(i, 1)?;
        let exec = self.gen.simd.lanes();
        let g = exec / 8;
        self.send(SendInst {
            gen12: false,
            nomask: false,
            pred: None,
            exec,
            offset: 0,
            sfid: SFID_DC1,
            dst: Some(dst),
            src0: pay,
            src1: None,
            mlen: 2 * g,
            ex_mlen: 0,
            rlen: 2 * g,
            desc: a64_qword_read_desc(exec, 2 * g, 2 * g),
            eot: false,
            swsb: Default::default(),
        });
        Ok(())
    }

    /// `add.q` (Gen9, [`crate::qword`]): `add (8) d:q a<4;4,1>:q b:q` per
    /// SIMD8 chunk (8 qwords fill the 2 GRFs an operand may span); a
    /// GRF-pair source at SIMD16 is a uniform qword, read `<0;1,0>`.
    fn add_qword(&mut self, i: &MInst) -> Result<(), TargetError> {
        let d = self.tuple_grf(i, 0)?;
        let quad = |k: usize| {
            i.ops
                .get(k)
                .and_then(Operand::reg)
                .and_then(|r| r.phys())
                .is_some_and(|r| Intel.tables().contains(crate::regs::classes::SIMD16_Q, r))
        };
        let srcs = [
            (self.tuple_grf(i, 1)?, quad(1)),
            (self.tuple_grf(i, 2)?, quad(2)),
        ];
        let lanes = self.gen.simd.lanes();
        for c in 0..lanes / 8 {
            let ch = Chunk {
                exec: 8,
                offset: 8 * c,
                shift: c,
                nomask: false,
            };
            let src = |(nr, quad): (u8, bool)| {
                let (nr, region) = if quad {
                    (nr + 2 * c, Region { v: 4, w: 4, h: 1 })
                } else if lanes == 16 {
                    (nr, Region { v: 0, w: 1, h: 0 })
                } else {
                    (nr, Region { v: 4, w: 4, h: 1 })
                };
                Src::Reg {
                    reg: RegName::Grf { nr, sub: 0 },
                    region,
                    ty: Ty::Q,
                    neg: false,
                }
            };
            let dst = Dst {
                reg: RegName::Grf {
                    nr: d + 2 * c,
                    sub: 0,
                },
                h: 1,
                ty: Ty::Q,
            };
            self.push(ch, Op::Add, dst, vec![src(srcs[0]), src(srcs[1])]);
        }
        Ok(())
    }

    fn send(&mut self, mut s: SendInst) {
        s.gen12 = self.gen.platform == Platform::Gen12lp;
        if self.divergent && !s.nomask {
            s.pred = Some(BLOCK_MASK);
        }
        self.out.push(Line::Send(s));
    }

    /// Target instruction `id` (a message or the global offset).
    pub(super) fn target_op(&mut self, i: &MInst, id: u16) -> Result<(), TargetError> {
        if id == T_GLOBAL_OFFSET {
            return self.payload(i);
        }
        if id == T_ADDR {
            return self.address(i);
        }
        if id == T_LOAD_Q {
            return self.load_qword(i);
        }
        if id == T_ADD_Q {
            return self.add_qword(i);
        }
        let m = msg_of(id)
            .ok_or_else(|| unsupported(self.f, format!("target instruction {id} is not Gen's")))?;
        let n = usize::from(m.dwords);
        let (addr_at, vals): (usize, Vec<usize>) = if m.store {
            (0, (1..1 + n).collect())
        } else {
            (n, (0..n).collect())
        };
        let pay = self.tuple_grf(i, addr_at)?;
        let vlocs: Vec<Loc> = vals
            .iter()
            .map(|k| self.loc(i, *k))
            .collect::<Result<_, _>>()?;
        let uniform = self.imm(i, 1 + n)? != 0;
        let exec = if uniform { 8 } else { self.gen.simd.lanes() };
        let g = exec / 8;
        let whole = Chunk {
            exec,
            offset: 0,
            shift: 0,
            nomask: uniform,
        };
        // Consecutive vectors go straight to and from the message.
        let direct = !uniform
            && m.bytes.is_none()
            && match vlocs.first() {
                Some(Loc::Lane(first)) => vlocs
                    .iter()
                    .enumerate()
                    .all(|(j, l)| *l == Loc::Lane(first + j as u8 * g)),
                _ => false,
            };
        let data = match (direct, vlocs.first()) {
            (true, Some(Loc::Lane(nr))) => *nr,
            _ => DATA_GRF,
        };
        let rlen = if m.bytes.is_some() { g } else { n as u8 * g };
        if m.store {
            if !direct {
                for (j, l) in vlocs.iter().enumerate() {
                    let to = Loc::Lane(DATA_GRF + j as u8 * g);
                    self.alu(whole, Op::Mov, to, Self::src(whole, *l, Ty::Ud), None);
                }
            }
            self.send(SendInst {
                gen12: false,
                nomask: uniform,
                pred: None,
                exec,
                offset: 0,
                sfid: SFID_DC1,
                dst: None,
                src0: pay,
                src1: Some(data),
                mlen: 2 * g,
                ex_mlen: rlen,
                rlen: 0,
                desc: a64_desc(true, exec, m.dwords, m.bytes, 2 * g, 0),
                eot: false,
                swsb: Default::default(),
            });
            return Ok(());
        }
        self.send(SendInst {
            gen12: false,
            nomask: uniform,
            pred: None,
            exec,
            offset: 0,
            sfid: SFID_DC1,
            dst: Some(data),
            src0: pay,
            src1: None,
            mlen: 2 * g,
            ex_mlen: 0,
            rlen,
            desc: a64_desc(false, exec, m.dwords, m.bytes, 2 * g, rlen),
            eot: false,
            swsb: Default::default(),
        });
        if direct {
            return Ok(());
        }
        for (j, l) in vlocs.iter().enumerate() {
            let from = data + j as u8 * g;
            for c in self.full(*l) {
                let src = match l {
                    Loc::Lane(_) => Self::src(c, Loc::Lane(from), Ty::Ud),
                    Loc::Scalar(..) => Self::src(c, Loc::Scalar(from, 0), Ty::Ud),
                };
                match m.bytes {
                    Some(b) if b < 4 => {
                        let mask = (1u32 << (8 * u32::from(b))) - 1;
                        self.alu(c, Op::And, *l, src, Some(Self::imm_src(mask)));
                    }
                    _ => {
                        self.alu(c, Op::Mov, *l, src, None);
                    }
                }
            }
        }
        Ok(())
    }

    /// A kernel's end: `r0` into `r127`, and the EOT message.
    pub(super) fn end_of_thread(&mut self) {
        let mut mv = Inst::new(
            Op::Mov,
            8,
            Dst {
                reg: RegName::Grf { nr: 127, sub: 0 },
                h: 1,
                ty: Ty::Ud,
            },
            vec![Src::Reg {
                reg: RegName::Grf { nr: 0, sub: 0 },
                region: Region::PACKED,
                ty: Ty::Ud,
                neg: false,
            }],
        );
        mv.nomask = true;
        self.out.push(Line::Inst(mv));
        self.out.push(Line::Send(SendInst {
            gen12: self.gen.platform == Platform::Gen12lp,
            nomask: true,
            pred: None,
            exec: 8,
            offset: 0,
            sfid: SFID_TS,
            dst: None,
            src0: 127,
            src1: None,
            mlen: 1,
            ex_mlen: 0,
            rlen: 0,
            desc: 0x0200_0010,
            eot: true,
            swsb: Default::default(),
        }));
    }
}
