//! `GET_REGINFO_TARGET_DESC`, first half: value-type lists, index names and
//! lane masks, per-mode class infos, class masks, super-class lists,
//! allocation orders, the class instances and the per-register costs. The
//! generated functions follow in [`super::target_fns`].

use std::fmt::Write;

use super::facts::Vt;
use super::out::Out;
use super::seq_table::{SeqId, SeqTable};
use super::{print_mask, source_file_header, words_as_hex, Ctx};

pub(super) fn write(o: &mut Out, cx: &Ctx) {
    let bank = cx.bank;
    let t = &cx.facts.target;
    source_file_header(o, "Target Register and Register Classes Information");
    o.push_str(
        "\n#ifdef GET_REGINFO_TARGET_DESC\n#undef GET_REGINFO_TARGET_DESC\n\nnamespace llvm {\n\n",
    );
    let _ = writeln!(o, "extern const MCRegisterClass {t}MCRegisterClasses[];");

    let modes = bank.hw_modes.len();
    let mut vts: SeqTable<Vt> = SeqTable::default();
    // By mode, by class in enum order.
    let vt_lists: Vec<Vec<SeqId>> = (0..modes)
        .map(|m| {
            bank.class_order
                .iter()
                .map(|&c| vts.add(&cx.facts.vts[c as usize][m]))
                .collect()
        })
        .collect();
    vts.layout();
    o.push_str("\nstatic const MVT::SimpleValueType VTLists[] = {\n");
    vts.emit(o, |o, v| o.push_str(&v.name), "MVT::Other");
    o.push_str("};\n");

    o.push_str("\nstatic const char *const SubRegIndexNameTable[] = { \"");
    for idx in &bank.sub_reg_indices {
        o.push_str(&idx.name);
        o.push_str("\", \"");
    }
    o.push_str("\" };\n\n");
    o.push_str(
        "\nstatic const LaneBitmask SubRegIndexLaneMaskTable[] = {\n  LaneBitmask::getAll(),\n",
    );
    for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
        o.push_str("  ");
        print_mask(o, cx.facts.index_masks[i]);
        let _ = writeln!(o, ", // {}", idx.name);
    }
    o.push_str(" };\n\n\n");

    let nclasses = bank.classes.len();
    let mut super_idx: SeqTable<u32> = SeqTable::default();
    // By class in enum order.
    let mut super_idx_lists: Vec<SeqId> = Vec::with_capacity(nclasses);
    if !bank.classes.is_empty() {
        o.push_str("\nstatic const TargetRegisterInfo::RegClassInfo RegClassInfos[] = {\n");
        for (m, mode_vts) in vt_lists.iter().enumerate() {
            let _ = writeln!(o, "  // Mode = {m} ({})", bank.hw_modes[m]);
            for (&c, &vt_list) in bank.class_order.iter().zip(mode_vts) {
                let rc = bank.class(c);
                let ri = rc.rsi.get(m as u32);
                let _ = writeln!(
                    o,
                    "  {{ {}, {}, {}, VTLists+{} }},    // {}",
                    ri.reg_size,
                    ri.spill_size,
                    ri.spill_alignment,
                    vts.get(vt_list),
                    rc.name
                );
            }
        }
        o.push_str("};\n");
        o.push_str("\nstatic const TargetRegisterClass *const NullRegClasses[] = { nullptr };\n\n");

        // Class masks: 32-bit words over enum values.
        let words = nclasses.div_ceil(32);
        let mut bits: Vec<u32> = Vec::with_capacity(words);
        for rc in bank.classes_in_order() {
            let _ = write!(
                o,
                "static const uint32_t {}SubClassMask[] = {{\n  ",
                rc.name
            );
            // The sub-classes are a bit set over enum values already.
            let word =
                |w: usize| (rc.sub_classes.get(w / 2).map_or(0, |&x| x >> (w % 2 * 32))) as u32;
            words_as_hex(o, (0..words).map(word));
            let mut list = Vec::new();
            for (&i, supers) in &rc.super_reg_classes {
                bits.clear();
                bits.resize(words, 0);
                for &s in supers {
                    let e = bank.class(s).enum_value as usize;
                    bits[e / 32] |= 1 << (e % 32);
                }
                if bits.iter().all(|&w| w == 0) {
                    continue;
                }
                list.push(i + 1);
                o.push_str("\n  ");
                words_as_hex(o, bits.iter().copied());
                o.push_str("// ");
                o.push_str(&bank.idx(i).name);
            }
            super_idx_lists.push(super_idx.add(&list));
            o.push_str("\n};\n\n");
        }
        o.push_str("static const uint16_t SuperRegIdxSeqs[] = {\n");
        super_idx.layout();
        super_idx.emit(o, |o, x| o.num(*x as u64), "0");
        o.push_str("};\n\n");

        for rc in bank.classes_in_order() {
            if rc.super_classes.is_empty() {
                continue;
            }
            let _ = writeln!(
                o,
                "static const TargetRegisterClass *const {}Superclasses[] = {{",
                rc.name
            );
            for &s in &rc.super_classes {
                let _ = writeln!(o, "  &{}RegClass,", cx.class_qualified(bank.class(s)));
            }
            o.push_str("  nullptr\n};\n\n");
        }

        for rc in bank.classes_in_order() {
            if rc.alt_order_select.is_empty() {
                continue;
            }
            let _ = write!(
                o,
                "\nstatic inline unsigned {0}AltOrderSelect(const MachineFunction &MF) {{{1}}}\n\nstatic ArrayRef<MCPhysReg> {0}GetRawAllocationOrder(const MachineFunction &MF) {{\n",
                rc.name, rc.alt_order_select
            );
            for (k, order) in rc.alt_orders.iter().enumerate() {
                if order.is_empty() {
                    continue;
                }
                let _ = write!(o, "  static const MCPhysReg AltOrder{}[] = {{", k + 1);
                for (e, &r) in order.iter().enumerate() {
                    o.push_str(if e == 0 { " " } else { ", " });
                    cx.push_reg(o, r);
                }
                o.push_str(" };\n");
            }
            let _ = write!(
                o,
                "  const MCRegisterClass &MCR = {t}MCRegisterClasses[{}RegClassID];\n  const ArrayRef<MCPhysReg> Order[] = {{\n    makeArrayRef(MCR.begin(), MCR.getNumRegs()",
                cx.class_qualified(rc)
            );
            for (k, order) in rc.alt_orders.iter().enumerate() {
                if order.is_empty() {
                    o.push_str("),\n    ArrayRef<MCPhysReg>(");
                } else {
                    let _ = write!(o, "),\n    makeArrayRef(AltOrder{}", k + 1);
                }
            }
            let _ = write!(
                o,
                ")\n  }};\n  const unsigned Select = {}AltOrderSelect(MF);\n  assert(Select < {});\n  return Order[Select];\n}}\n",
                rc.name,
                rc.alt_orders.len() + 1
            );
        }

        let ns = bank
            .classes_in_order()
            .next()
            .map_or("", |rc| rc.namespace.as_str());
        let _ = writeln!(o, "\nnamespace {ns} {{   // Register class instances");
        for rc in bank.classes_in_order() {
            let _ = write!(
                o,
                "  extern const TargetRegisterClass {0}RegClass = {{\n    &{t}MCRegisterClasses[{0}RegClassID],\n    {0}SubClassMask,\n    SuperRegIdxSeqs + {1},\n    ",
                rc.name,
                super_idx.get(super_idx_lists[rc.enum_value as usize])
            );
            let cid = bank.class_order[rc.enum_value as usize];
            print_mask(o, cx.facts.class_masks[cid as usize]);
            let _ = write!(
                o,
                ",\n    {},\n    0x{:02x}, /* TSFlags */\n    {}, /* HasDisjunctSubRegs */\n    {}, /* CoveredBySubRegs */\n    ",
                rc.allocation_priority,
                cx.facts.ts_flags[cid as usize],
                rc.has_disjunct_sub_regs,
                rc.covered_by_sub_regs
            );
            if rc.super_classes.is_empty() {
                o.push_str("NullRegClasses,\n    ");
            } else {
                let _ = write!(o, "{}Superclasses,\n    ", rc.name);
            }
            if rc.alt_order_select.is_empty() {
                o.push_str("nullptr\n");
            } else {
                let _ = writeln!(o, "{}GetRawAllocationOrder", rc.name);
            }
            o.push_str("  };\n\n");
        }
        let _ = writeln!(o, "}} // end namespace {ns}");
    }

    o.push_str("\nnamespace {\n  const TargetRegisterClass *const RegisterClasses[] = {\n");
    for rc in bank.classes_in_order() {
        let _ = writeln!(o, "    &{}RegClass,", cx.class_qualified(rc));
    }
    o.push_str("  };\n} // end anonymous namespace\n");

    costs(o, cx);
    super::target_fns::write(o, cx);
}

/// `CostPerUseTable`, `InAllocatableClassTable` and `<Target>RegInfoDesc`.
#[inline(never)]
fn costs(o: &mut Out, cx: &Ctx) {
    let bank = cx.bank;
    let ncosts = bank
        .registers
        .iter()
        .map(|r| r.cost_per_use.len())
        .max()
        .unwrap_or(0)
        .max(1);
    let mut in_alloc = vec![false; bank.registers.len() + 1];
    for rc in &bank.classes {
        if rc.allocatable {
            for &r in &rc.order {
                in_alloc[r as usize + 1] = true;
            }
        }
    }
    o.push_str("\nstatic const uint8_t CostPerUseTable[] = { \n");
    for k in 0..ncosts {
        o.push_str("0, ");
        for r in &bank.registers {
            let c = r.cost_per_use.get(k).copied().unwrap_or(0);
            o.num(c as u32 as u64);
            o.push_str(", ");
        }
    }
    o.push_str("};\n\n");
    o.push_str("\nstatic const bool InAllocatableClassTable[] = { \n");
    for b in in_alloc {
        o.push_str(if b { "true, " } else { "false, " });
    }
    o.push_str("};\n\n");
    let _ = write!(
        o,
        "\nstatic const TargetRegisterInfoDesc {}RegInfoDesc = {{ // Extra Descriptors\nCostPerUseTable, {ncosts}, InAllocatableClassTable}};\n\n",
        cx.facts.target
    );
}
