//! The register ABI of plain functions (documented in the crate docs).
//!
//! Hardware fact served: a Gen thread starts with its payload in GRFs —
//! `r0` is the thread header, the rest is data the dispatcher preloads per
//! channel (SoA: one GRF per dword of each channel at SIMD8, two at
//! SIMD16). This ABI follows that shape so output can be checked with no
//! memory: arguments preloaded from `r1` on, results left in GRFs.

use regdesc_codegen::ir::Function;
use regdesc_codegen::legalize::words_of;
use regdesc_codegen::target::{Abi, TargetError, WordLoc};
use regdesc_codegen::uniformity::Uniformity;
use regdesc_runtime::{Reg, RegisterInfo};

use crate::regs::Intel;
use crate::target::Simd;

/// The first GRF the emitter uses for its scratch values (`r120..r127`).
pub const SCRATCH_GRF: u8 = 120;

/// The per-lane block number of functions with divergent branches
/// (`r118..r119`, see [`crate::emit`]).
pub const PC_GRF: u8 = 118;

/// The last GRF arguments and results may use.
pub const LAST_ABI_GRF: u8 = PC_GRF - 1;

/// `r0` (the thread header), the block-number vector and the emitter's
/// scratch GRFs.
pub fn reserved() -> Vec<Reg> {
    let t = Intel.tables();
    std::iter::once(0u8)
        .chain(PC_GRF..=127)
        .filter_map(|n| t.reg_by_name(&format!("R{n}")))
        .collect()
}

/// The per-lane register of the vector starting at GRF `nr`.
pub fn lane_reg(simd: Simd, nr: u8) -> Option<Reg> {
    let name = match simd {
        Simd::Simd8 => format!("L8_R{nr}"),
        Simd::Simd16 => format!("L16_R{nr}"),
    };
    Intel.tables().reg_by_name(&name)
}

/// The uniform dword scalar `rN.k`.
pub fn scalar_reg(nr: u8, k: u8) -> Option<Reg> {
    Intel.tables().reg_by_name(&format!("R{nr}_D{k}"))
}

struct Alloc {
    simd: Simd,
    /// The next free dword for uniform scalars (GRF, dword).
    scalar: Option<(u8, u8)>,
    /// The next free GRF.
    next: u8,
}

impl Alloc {
    fn word(&mut self, uniform: bool) -> Option<Reg> {
        if uniform {
            let (nr, k) = match self.scalar {
                Some((nr, k)) if k < 8 => (nr, k),
                _ => {
                    let nr = self.next;
                    self.next = self.next.checked_add(1)?;
                    (nr, 0)
                }
            };
            self.scalar = Some((nr, k + 1));
            return (nr <= LAST_ABI_GRF).then(|| scalar_reg(nr, k)).flatten();
        }
        let g = self.simd.grfs();
        let nr = self.next.div_ceil(g) * g;
        self.next = nr.checked_add(g)?;
        (nr + g - 1 <= LAST_ABI_GRF)
            .then(|| lane_reg(self.simd, nr))
            .flatten()
    }
}

fn overflow(what: String, words: usize, span: &regdesc_codegen::ir::Span) -> TargetError {
    TargetError::AbiOverflow {
        what,
        words,
        available: usize::from(LAST_ABI_GRF),
        span: span.clone(),
    }
}

/// Where `f`'s arguments and result live at `simd`.
pub fn assign(f: &Function, simd: Simd) -> Result<Abi, TargetError> {
    let uni = Uniformity::analyze(f);
    let mut a = Alloc {
        simd,
        scalar: None,
        next: 1,
    };
    let mut args = Vec::new();
    let mut used = 0;
    // Uniform arguments first, packed as dword scalars.
    let mut slots: Vec<Option<Vec<WordLoc>>> = vec![None; f.params.len()];
    for pass_uniform in [true, false] {
        for (n, p) in f.params.iter().enumerate() {
            if uni.is_uniform(*p) != pass_uniform {
                continue;
            }
            let def = f.value(*p);
            let w = words_of(def.ty);
            used += w;
            let mut locs = Vec::new();
            for _ in 0..w {
                let r = a.word(pass_uniform).ok_or_else(|| {
                    overflow(
                        format!("argument {} (`{}`) and those before it", n + 1, def.ty),
                        used,
                        &def.span,
                    )
                })?;
                locs.push(WordLoc::Reg(r));
            }
            slots[n] = Some(locs);
        }
    }
    for s in slots {
        args.push(s.unwrap_or_default());
    }
    // Results: per lane, from r1 on.
    let mut r = Alloc {
        simd,
        scalar: None,
        next: 1,
    };
    let words = words_of(f.ret_ty);
    let mut ret = Vec::new();
    for _ in 0..words {
        let reg = r
            .word(false)
            .ok_or_else(|| overflow(format!("the result (`{}`)", f.ret_ty), words, &f.span))?;
        ret.push(WordLoc::Reg(reg));
    }
    Ok(Abi { args, ret })
}
