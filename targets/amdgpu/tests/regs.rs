//! The AMD GCN register tables: classes, alignment, sub-registers, units
//! and encodings, and `regdesc check` / `regdesc doc` on the description.

use std::collections::BTreeSet;
use std::path::PathBuf;

use regdesc_amdgpu::Gfx;
use regdesc_core::diag::Severity;
use regdesc_core::driver::{self, Input};
use regdesc_runtime::{Reg, RegClass, RegUnit, RegisterInfo, SubRegIdx, Tables};

type T = Tables<<Gfx as RegisterInfo>::Lanes>;

fn t() -> &'static T {
    Gfx::Gfx900.tables()
}

fn reg(name: &str) -> Reg {
    t().reg_by_name(name)
        .unwrap_or_else(|| panic!("no register {name}"))
}

fn class(name: &str) -> RegClass {
    t().class_by_name(name)
        .unwrap_or_else(|| panic!("no class {name}"))
}

fn idx(name: &str) -> SubRegIdx {
    t().all_sub_reg_indices()
        .find(|&i| t().sub_reg_index_name(i) == name)
        .unwrap_or_else(|| panic!("no index {name}"))
}

fn units(r: Reg) -> BTreeSet<RegUnit> {
    t().units(r).collect()
}

/// The number of the first register of each tuple of `order`.
fn starts(order: &[Reg]) -> Vec<u16> {
    let sub0 = idx("sub0");
    order
        .iter()
        .map(|&r| {
            let first = t().sub_reg(r, sub0).unwrap_or(r);
            t().hw_encoding(first) & 0xff
        })
        .collect()
}

fn description() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("SIRegisterInfo.td")
}

#[test]
fn scalar_registers_and_encodings() {
    for i in 0..=105u16 {
        let s = reg(&format!("SGPR{i}"));
        assert_eq!(t().asm_name(s), format!("s{i}"));
        assert_eq!(t().hw_encoding(s), i);
    }
    assert!(t().reg_by_name("SGPR106").is_none());
    for (name, asm, enc) in [
        ("VCC_LO", "vcc_lo", 106),
        ("VCC_HI", "vcc_hi", 107),
        ("M0", "m0", 124),
        ("EXEC_LO", "exec_lo", 126),
        ("EXEC_HI", "exec_hi", 127),
        ("SCC", "scc", 253),
    ] {
        assert_eq!(t().asm_name(reg(name)), asm);
        assert_eq!(t().hw_encoding(reg(name)), enc, "{name}");
    }
    for (pair, lo, hi) in [("VCC", "VCC_LO", "VCC_HI"), ("EXEC", "EXEC_LO", "EXEC_HI")] {
        assert_eq!(t().sub_reg(reg(pair), idx("sub0")), Some(reg(lo)));
        assert_eq!(t().sub_reg(reg(pair), idx("sub1")), Some(reg(hi)));
    }
}

#[test]
fn vector_registers_and_halves() {
    for i in 0..=255u16 {
        let v = reg(&format!("VGPR{i}"));
        assert_eq!(t().asm_name(v), format!("v{i}"));
        assert_eq!(t().hw_encoding(v), 256 + i, "VGPR bit set");
        let lo = t().sub_reg(v, idx("lo16")).unwrap();
        let hi = t().sub_reg(v, idx("hi16")).unwrap();
        assert_eq!(t().name(lo), format!("VGPR{i}_LO16"));
        assert_eq!(t().name(hi), format!("VGPR{i}_HI16"));
        assert_eq!(t().hw_encoding(lo) & 0xff, i);
    }
    assert_eq!(
        t().asm_name(t().sub_reg(reg("VGPR1"), idx("hi16")).unwrap()),
        "v1.h"
    );
    assert!(t().reg_by_name("VGPR256").is_none());
}

#[test]
fn class_sizes_and_membership() {
    let n = |c: &str| t().num_members(class(c));
    assert_eq!(n("SGPR_32"), 106);
    assert_eq!(n("VGPR_32"), 256);
    assert_eq!(n("VGPR_LO16"), 256);
    assert_eq!(n("VGPR_HI16"), 256);
    assert_eq!(n("SReg_32"), 106 + 5); // vcc_lo/hi, exec_lo/hi, m0
    assert_eq!(n("SGPR_64"), 53);
    assert_eq!(n("SReg_64"), 53 + 2); // vcc, exec
    assert_eq!(n("SReg_64_XEXEC"), 53 + 1);
    // Scalar tuples of 96 bits and more start at multiples of 4 and end by s105.
    for (bits, count) in [
        (96, 26),
        (128, 26),
        (160, 26),
        (192, 26),
        (256, 25),
        (512, 23),
        (1024, 19),
    ] {
        assert_eq!(n(&format!("SGPR_{bits}")), count, "SGPR_{bits}");
        assert_eq!(n(&format!("SReg_{bits}")), count, "SReg_{bits}");
    }
    // Vector tuples start at every register.
    for (bits, dwords) in [
        (64, 2),
        (96, 3),
        (128, 4),
        (160, 5),
        (192, 6),
        (256, 8),
        (512, 16),
        (1024, 32),
    ] {
        assert_eq!(n(&format!("VReg_{bits}")), 256 - dwords + 1, "VReg_{bits}");
    }
    assert!(t().contains(class("SReg_32"), reg("M0")));
    assert!(!t().contains(class("SReg_32_XM0"), reg("M0")));
    assert!(t().contains(class("SReg_64"), reg("EXEC")));
    assert!(!t().contains(class("SReg_64_XEXEC"), reg("EXEC")));
    assert!(!t().is_allocatable(class("SCC_CLASS")));
    assert!(t().has_sub_class_eq(class("SReg_32"), class("SGPR_32")));
    assert!(t().has_sub_class_eq(class("SReg_64"), class("SGPR_64")));
}

#[test]
fn scalar_tuples_are_aligned() {
    let sgpr64 = class("SGPR_64");
    let pairs: Vec<Reg> = t().members(sgpr64).collect();
    let s = starts(&pairs);
    assert_eq!(s, (0..53).map(|k| 2 * k).collect::<Vec<u16>>());
    assert_eq!(t().asm_name(pairs[2]), "s[4:5]");
    for bits in [96, 128, 160, 192, 256, 512, 1024] {
        let c = class(&format!("SGPR_{bits}"));
        let m: Vec<Reg> = t().members(c).collect();
        assert!(starts(&m).iter().all(|s| s % 4 == 0), "SGPR_{bits}");
    }
    let q = reg("SGPR4_SGPR5_SGPR6_SGPR7");
    assert!(t().contains(class("SReg_128"), q));
    assert_eq!(t().asm_name(q), "s[4:7]");
    assert!(t().reg_by_name("SGPR2_SGPR3_SGPR4_SGPR5").is_none());
    assert!(t().reg_by_name("SGPR1_SGPR2").is_none());
}

#[test]
fn vector_tuples_any_alignment_and_gfx90a_even() {
    let vreg64 = class("VReg_64");
    assert!(t().contains(vreg64, reg("VGPR1_VGPR2")));
    assert_eq!(t().asm_name(reg("VGPR1_VGPR2")), "v[1:2]");
    for bits in [64, 96, 128, 160, 192, 256, 512, 1024] {
        let c = class(&format!("VReg_{bits}"));
        assert_eq!(t().num_allocation_orders(c), 2, "VReg_{bits}");
        let any = Gfx::Gfx900.allocation_order(c);
        assert_eq!(Gfx::Gfx1030.allocation_order(c), any);
        assert_eq!(any.len(), t().num_members(c));
        let s = starts(any);
        assert!(
            s.iter().any(|s| s % 2 == 1),
            "VReg_{bits} has odd starts on gfx900"
        );
        let even = Gfx::Gfx90a.allocation_order(c);
        let s = starts(even);
        assert!(s.iter().all(|s| s % 2 == 0), "VReg_{bits} on gfx90a");
        assert_eq!(
            even.len(),
            any.len().div_ceil(2),
            "VReg_{bits}: every even tuple"
        );
        assert!(even.iter().all(|&r| t().contains(c, r)));
    }
    // Classes with one order are the same on every subtarget.
    let sgpr64 = class("SGPR_64");
    assert_eq!(
        Gfx::Gfx90a.allocation_order(sgpr64),
        Gfx::Gfx900.allocation_order(sgpr64)
    );
}

#[test]
fn sub_registers() {
    let s45 = reg("SGPR4_SGPR5");
    assert_eq!(t().sub_reg(s45, idx("sub1")), Some(reg("SGPR5")));
    assert_eq!(t().sub_reg(s45, idx("sub0")), Some(reg("SGPR4")));
    let v1 = reg("VGPR1");
    assert_eq!(t().sub_reg(v1, idx("hi16")), Some(reg("VGPR1_HI16")));
    let v03 = reg("VGPR0_VGPR1_VGPR2_VGPR3");
    assert_eq!(t().sub_reg(v03, idx("sub2_sub3")), Some(reg("VGPR2_VGPR3")));
    assert_eq!(t().sub_reg(v03, idx("sub1_sub2")), Some(reg("VGPR1_VGPR2")));
    assert_eq!(t().sub_reg(v03, idx("sub3_hi16")), Some(reg("VGPR3_HI16")));
    assert_eq!(
        t().compose_sub_reg_indices(idx("sub2_sub3"), idx("sub1")),
        Some(idx("sub3"))
    );
    assert_eq!(
        t().compose_sub_reg_indices(idx("sub1"), idx("lo16")),
        Some(idx("sub1_lo16"))
    );
    let s0_31 = reg(&(0..32)
        .map(|k| format!("SGPR{}", 72 + k))
        .collect::<Vec<_>>()
        .join("_"));
    assert_eq!(t().asm_name(s0_31), "s[72:103]");
    assert_eq!(t().sub_reg(s0_31, idx("sub31")), Some(reg("SGPR103")));
    assert_eq!(t().sub_reg_index(v03, reg("VGPR2")), Some(idx("sub2")));
    // A tuple carries its first register's operand number.
    assert_eq!(t().hw_encoding(s45), 4);
    assert_eq!(t().hw_encoding(reg("VGPR1_VGPR2")), 257);
    assert_eq!(t().hw_encoding(s0_31), 72);
}

#[test]
fn units_and_overlap() {
    let v0 = reg("VGPR0");
    let lo = reg("VGPR0_LO16");
    let hi = reg("VGPR0_HI16");
    let v01 = reg("VGPR0_VGPR1");
    let v12 = reg("VGPR1_VGPR2");
    let (u0, ulo, uhi, u01) = (units(v0), units(lo), units(hi), units(v01));
    assert!(ulo.is_subset(&u0) && uhi.is_subset(&u0));
    assert!(ulo.is_disjoint(&uhi));
    assert_eq!(ulo.union(&uhi).copied().collect::<BTreeSet<_>>(), u0);
    assert!(u0.is_subset(&u01));
    assert!(ulo.is_subset(&u01));
    assert!(t().regs_overlap(v0, v01));
    assert!(t().regs_overlap(lo, v01));
    assert!(!t().regs_overlap(lo, hi));
    assert!(t().regs_overlap(v01, v12));
    assert!(!t().regs_overlap(v0, v12));
    assert!(t().regs_overlap(reg("SGPR5"), reg("SGPR4_SGPR5")));
    assert!(!t().regs_overlap(reg("SGPR5"), reg("VGPR5")));
    assert!(t().regs_overlap(reg("VCC"), reg("VCC_HI")));
    assert!(!t().regs_overlap(reg("EXEC"), reg("VCC")));
    // Lane masks tell the halves of v0 apart inside v[0:1].
    let m = |i: &str| t().sub_reg_index_lane_mask(idx(i));
    assert_ne!(m("lo16"), m("hi16"));
    assert_eq!(m("sub0"), m("lo16") | m("hi16"));
}

#[test]
fn check_is_clean_in_coverage_mode() {
    let input = Input::file(description());
    let run = driver::check(&input, &Default::default());
    assert!(!run.has_errors(), "{}", run.render(false));
    let bad: Vec<_> = run
        .diagnostics
        .iter()
        .filter(|d| matches!(d.severity, Severity::Error | Severity::Warning))
        .collect();
    assert!(bad.is_empty(), "{}", run.render(false));
    let report = run.check.as_ref().unwrap();
    let summary = report.summary.as_ref().unwrap();
    assert_eq!(summary.lanes_coverage, 64);
    assert_eq!(summary.lanes_llvm, 64);
    assert_eq!(
        summary.registers_defined + summary.registers_from_tuples,
        t().num_regs()
    );
}

#[test]
fn doc_site_renders() {
    let input = Input::file(description());
    let run = driver::target_both_modes(&input, &Default::default());
    let (target, other, check) = (
        run.target.as_ref().expect("model"),
        run.other_target.as_ref().expect("model in the other mode"),
        run.check.as_ref().expect("report"),
    );
    let doc = regdesc_core::doc::DocInput {
        target,
        other,
        check,
        sources: &run.sources,
        source_name: "SIRegisterInfo.td".to_string(),
    };
    let site = regdesc_core::doc::site(&doc);
    assert!(site.files.contains_key("index.html"));
    assert!(site.files.keys().any(|f| f.contains("VReg_64")));
    let md = regdesc_core::doc::markdown(&doc);
    assert!(md.contains("VGPR_32"));
}

/// llvm-tblgen 14 accepts the description without a warning, and its
/// register-info dump equals regdesc's (llvm lanes). Skipped without
/// `llvm-tblgen-14` and `llvm-config-14`, unless REGDESC_REQUIRE_ORACLES=1.
#[test]
fn llvm_tblgen_14_agrees() {
    use std::process::Command;
    let include = Command::new("llvm-config-14")
        .arg("--includedir")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    let tblgen = Command::new("llvm-tblgen-14")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| String::from_utf8_lossy(&o.stdout).contains("LLVM version 14."));
    let (Some(include), Some(_)) = (include, tblgen) else {
        let why = "llvm-tblgen-14 or llvm-config-14 is missing";
        assert!(
            std::env::var_os("REGDESC_REQUIRE_ORACLES").is_none(),
            "{why}"
        );
        eprintln!("SKIPPED: {why} (set REGDESC_REQUIRE_ORACLES=1 to make this a failure)");
        return;
    };
    let out = Command::new("llvm-tblgen-14")
        .args([
            "-gen-register-info",
            "-register-info-debug",
            "-o",
            "/dev/null",
            "-I",
        ])
        .arg(&include)
        .arg(description())
        .output()
        .expect("run llvm-tblgen-14");
    let llvm = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "llvm-tblgen-14 failed:\n{llvm}");
    assert!(!llvm.contains("warning:"), "{llvm}");
    let run = driver::bank(
        &Input::file(description()).include(include),
        regdesc_core::lanes::LaneMode::Llvm,
    );
    let ours = run.register_info_debug().expect("bank");
    assert!(ours == llvm, "register-info dumps differ");
}
