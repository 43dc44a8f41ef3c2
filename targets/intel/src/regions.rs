//! The operand rules the emitter enforces before printing an instruction.
//!
//! Hardware facts served (PRM Vol 7 "Register Region Restrictions", and the
//! GRF-crossing rules of Gen9..Gen12LP):
//!
//! - a source region `<vstride;width,hstride>` must fit the execution
//!   size: `width <= exec`, `exec % width == 0`; `width == 1` needs
//!   `hstride == 0`; `exec == width` with `hstride != 0` needs
//!   `vstride == width * hstride`;
//! - a destination's horizontal stride is 1, 2 or 4 (never 0);
//! - **an operand spans at most 2 GRFs.** IGA does not check this for
//!   strided regions (`<16;8,2>` at SIMD16 and `<2>` destinations), so the
//!   emitter does: a violation is a compiler error naming the instruction;
//! - the accumulator is a source of `mov`, and on Gen9 and Gen11 also
//!   `src0` of `add` (the carry of `addc` added in: `iga64 -Wall -p=9|11`
//!   accept it as `src0` and reject it as `src1`); on Gen12LP this back
//!   end reads it only through `mov`.

use std::fmt;

use crate::isa::{Dst, Inst, Op, RegName, Src};
use crate::target::Platform;

/// A rule an operand breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegionError {
    /// The instruction, as it would have been printed.
    pub inst: String,
    pub rule: String,
}

impl fmt::Display for RegionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` breaks a Gen operand rule: {}",
            self.inst, self.rule
        )
    }
}

/// Bytes in a GRF.
pub const GRF_BYTES: u32 = 32;

/// The first and last byte a source reads at `exec` channels (relative to
/// the register file).
fn src_bytes(nr: u8, sub: u8, size: u32, v: u32, w: u32, h: u32, exec: u32) -> (u32, u32) {
    let first = u32::from(nr) * GRF_BYTES + u32::from(sub) * size;
    let rows = exec.div_ceil(w.max(1));
    let last_el = (rows.saturating_sub(1)) * v + (w.min(exec).saturating_sub(1)) * h;
    (first, first + last_el * size + size - 1)
}

fn grfs(first: u32, last: u32) -> u32 {
    last / GRF_BYTES - first / GRF_BYTES + 1
}

/// Checks `i` for `platform`.
pub fn check(i: &Inst, platform: Platform) -> Result<(), RegionError> {
    let fail = |rule: String| RegionError {
        inst: i.to_string(),
        rule,
    };
    let exec = u32::from(i.exec);
    // 64-bit integer types (PRM Vol 2a "Data Types"; Vol 7 "GEN11 ... no
    // 64-bit integer"): only Gen9's ALU has Q/UQ.
    let qword =
        i.dst.is_some_and(|d| d.ty.size() == 8) || i.srcs.iter().any(|s| s.ty().size() == 8);
    if qword && !platform.has_int64_alu() {
        return Err(fail(format!(
            "{} has no 64-bit integer ALU (:q/:uq)",
            platform.name()
        )));
    }
    if !matches!(exec, 1 | 2 | 4 | 8 | 16) {
        return Err(fail(format!(
            "execution size {exec} is not 1, 2, 4, 8 or 16"
        )));
    }
    if let Some(Dst { reg, h, ty }) = i.dst {
        if !matches!(h, 1 | 2 | 4) {
            return Err(fail(format!("destination stride <{h}> is not 1, 2 or 4")));
        }
        if let RegName::Grf { nr, sub } = reg {
            let first = u32::from(nr) * GRF_BYTES + u32::from(sub) * ty.size();
            let last = first + (exec - 1) * u32::from(h) * ty.size() + ty.size() - 1;
            if grfs(first, last) > 2 {
                return Err(fail(format!(
                    "the destination spans {} GRFs (at most 2)",
                    grfs(first, last)
                )));
            }
            if last >= 128 * GRF_BYTES {
                return Err(fail("the destination runs past r127".to_string()));
            }
        }
        if let RegName::Acc { .. } = reg {
            if exec > 8 && ty.size() == 4 {
                return Err(fail(
                    "a dword accumulator destination holds 8 channels".to_string(),
                ));
            }
        }
    }
    for (k, s) in i.srcs.iter().enumerate() {
        let Src::Reg {
            reg, region, ty, ..
        } = s
        else {
            continue;
        };
        let (v, w, h) = (
            u32::from(region.v),
            u32::from(region.w),
            u32::from(region.h),
        );
        if w == 0 || w > exec || exec % w != 0 {
            return Err(fail(format!(
                "src{k}: width {w} does not divide the execution size {exec}"
            )));
        }
        if w == 1 && h != 0 {
            return Err(fail(format!("src{k}: width 1 needs horizontal stride 0")));
        }
        if exec == w && h != 0 && v != w * h {
            return Err(fail(format!(
                "src{k}: exec size = width with stride {h} needs vertical stride {}",
                w * h
            )));
        }
        match reg {
            RegName::Grf { nr, sub } => {
                let (first, last) = src_bytes(*nr, *sub, ty.size(), v, w, h, exec);
                if grfs(first, last) > 2 {
                    return Err(fail(format!(
                        "src{k} spans {} GRFs (at most 2)",
                        grfs(first, last)
                    )));
                }
                if last >= 128 * GRF_BYTES {
                    return Err(fail(format!("src{k} runs past r127")));
                }
            }
            RegName::Acc { .. } => {
                let add_src0 = i.op == Op::Add && platform != Platform::Gen12lp;
                if !(i.op == Op::Mov || add_src0) || k != 0 {
                    let why = match platform {
                        Platform::Gen12lp => "Gen12LP reads the accumulator only through mov",
                        _ => "the accumulator is src0 of mov or add only",
                    };
                    return Err(fail(format!("src{k} is the accumulator: {why}")));
                }
            }
            RegName::Null | RegName::Cr { .. } => {}
        }
    }
    if i.srcs.len() != i.op.num_srcs() {
        return Err(fail(format!(
            "{} takes {} sources",
            i.op.name(),
            i.op.num_srcs()
        )));
    }
    if i.srcs.first().is_some_and(|s| matches!(s, Src::Imm { .. })) && i.op != Op::Mov {
        return Err(fail("src0 cannot be an immediate".to_string()));
    }
    Ok(())
}
