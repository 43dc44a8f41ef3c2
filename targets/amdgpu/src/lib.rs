//! The AMD GCN back end's register description: `SIRegisterInfo.td`,
//! written for regdesc after the facts of LLVM 14's AMDGPU description,
//! expanded by `regdesc!` into [`regs`].
//!
//! # The register file
//!
//! | registers | LLVM names | operand numbers (`HWEncoding`) | classes |
//! |---|---|---|---|
//! | scalar `s0`..`s105` | `SGPR0`..`SGPR105` | 0..105 | `SGPR_32`, `SReg_32*` |
//! | `vcc_lo`, `vcc_hi`, `vcc` (`sub0`/`sub1`) | `VCC_LO`, `VCC_HI`, `VCC` | 106, 107, 106 | `SReg_32*`, `SReg_64*` |
//! | `m0` | `M0` | 124 | `M0_CLASS`, `SReg_32` |
//! | `exec_lo`, `exec_hi`, `exec` (`sub0`/`sub1`) | `EXEC_LO`, `EXEC_HI`, `EXEC` | 126, 127, 126 | `SReg_32`, `SReg_32_XM0`, `SReg_64` |
//! | `scc` | `SCC` | 253 | `SCC_CLASS` (not allocatable) |
//! | vector `v0`..`v255` (`lo16`/`hi16`) | `VGPR0`..`VGPR255` | 256..511 (bit 8 is the VGPR bit, as in LLVM) | `VGPR_32` |
//! | `v0.l`/`v0.h` .. | `VGPR0_LO16`, `VGPR0_HI16`, .. | their VGPR's number | `VGPR_LO16`, `VGPR_HI16` |
//! | scalar tuples `s[0:1]`.. | `SGPR0_SGPR1`, .. | the first register's (TableGen copies it into each tuple) | `SGPR_N`, `SReg_N` |
//! | vector tuples `v[0:1]`.. | `VGPR0_VGPR1`, .. | the first register's (TableGen copies it into each tuple) | `VReg_N` |
//!
//! Tuples come in 64, 96, 128, 160, 192, 256, 512 and 1024 bits (`N`).
//! Scalar pairs start at even registers, wider scalar tuples at multiples
//! of 4, as the scalar unit requires. Vector tuples start anywhere (gfx900,
//! gfx1030). Sub-register indices: `sub0`..`sub31` (dwords), `lo16`/`hi16`
//! and `subK_lo16`/`subK_hi16` (halves), and the runs of dwords
//! (`sub0_sub1`, `sub4_sub5_sub6_sub7`, ...) naming a tuple inside a wider
//! one, as LLVM names them.
//!
//! # gfx90a: even-aligned vector tuples
//!
//! gfx90a needs every VGPR tuple to start at an even register. LLVM 14
//! gives it separate `VReg_N_Align2` classes; this description keeps one
//! `VReg_N` class per size and gives it a second allocation order
//! (`AltOrders`) holding only its even-aligned tuples. A hardware mode
//! could not express it: in LLVM 14 a `HwMode` changes a class's sizes and
//! value types, never its members or orders. [`Gfx::Gfx90a`] selects that
//! order through [`RegisterInfo::allocation_order_select`], where LLVM runs
//! the class's `AltOrderSelect`.
//!
//! # Checking and documenting it
//!
//! ```sh
//! cargo run --release -p regdesc -- check targets/amdgpu/SIRegisterInfo.td
//! cargo run --release -p regdesc -- doc targets/amdgpu/SIRegisterInfo.td -o target/amdgpu-docs
//! ```
//!
//! `check` is clean in both lane modes: 64 lanes in each (the 16-bit halves
//! of the 32 dwords of a 1024-bit tuple).
//!
//! ```
//! use regdesc_amdgpu::{regs, Gfx};
//! use regdesc_runtime::RegisterInfo;
//!
//! let t = Gfx::Gfx90a.tables();
//! let v = t.reg_by_name("VGPR7").unwrap();
//! assert_eq!(t.asm_name(v), "v7");
//! assert_eq!(t.hw_encoding(v), 256 + 7);
//! let vreg64 = t.class_by_name("VReg_64").unwrap();
//! assert!(Gfx::Gfx90a.allocation_order(vreg64).len() < Gfx::Gfx900.allocation_order(vreg64).len());
//! # let _ = regs::AMDGPU;
//! ```

use regdesc_runtime::{RegClass, RegisterInfo, Tables};

pub mod sim;

/// The generated register tables.
pub mod regs {
    regdesc_macros::regdesc!(include "SIRegisterInfo.td", lanes = coverage);
}

/// The subtargets whose register rules differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gfx {
    /// gfx900: vector tuples at any register.
    Gfx900,
    /// gfx90a: vector tuples at even registers only.
    Gfx90a,
    /// gfx1030: vector tuples at any register.
    Gfx1030,
}

impl Gfx {
    pub const ALL: [Gfx; 3] = [Gfx::Gfx900, Gfx::Gfx90a, Gfx::Gfx1030];

    /// The `-mcpu` name.
    pub fn name(self) -> &'static str {
        match self {
            Gfx::Gfx900 => "gfx900",
            Gfx::Gfx90a => "gfx90a",
            Gfx::Gfx1030 => "gfx1030",
        }
    }

    pub fn from_name(name: &str) -> Option<Gfx> {
        Gfx::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Lanes per wave: wave64 on gfx9, wave32 on gfx10.
    pub fn wave_size(self) -> usize {
        if self.is_gfx10() {
            32
        } else {
            64
        }
    }

    pub fn is_gfx10(self) -> bool {
        self == Gfx::Gfx1030
    }

    /// Distinct SGPRs (or literals) one VALU instruction may read over
    /// the constant bus: one on gfx9, two on gfx10.
    pub fn constant_bus_limit(self) -> usize {
        if self.is_gfx10() {
            2
        } else {
            1
        }
    }

    /// Whether vector tuples must start at an even register.
    pub fn needs_aligned_vgprs(self) -> bool {
        self == Gfx::Gfx90a
    }

    /// Whether `v_pk_mov_b32` (a 64-bit move into a VGPR pair) exists.
    pub fn has_packed_move(self) -> bool {
        self == Gfx::Gfx90a
    }
}

impl RegisterInfo for Gfx {
    type Lanes = <regs::AMDGPU as RegisterInfo>::Lanes;

    fn tables(&self) -> &'static Tables<Self::Lanes> {
        regs::AMDGPU.tables()
    }

    /// The even-aligned order (1) of the `VReg_N` classes on gfx90a; the
    /// default order everywhere else.
    fn allocation_order_select(&self, rc: RegClass) -> usize {
        let t = self.tables();
        usize::from(self.needs_aligned_vgprs() && t.num_allocation_orders(rc) > 1)
    }
}

pub mod abi;
pub mod cf;
pub mod combine;
pub mod copies;
pub mod copy_forward;
pub mod emit;
pub mod isa;
pub mod lane_shift;
pub mod legalize_wide_mul;
pub mod mul_i24;
pub mod pk_mov;
pub mod sdwa;
pub mod sdwa_bits;
pub mod sdwa_peephole;
pub mod sdwa_preserve_merge;
pub mod select;
pub mod semantics;
pub mod shift64;
pub mod spill;
pub mod support;
pub mod target;
pub mod waitcnt;

pub use target::Amdgpu;
