//! `GET_REGINFO_MC_DESC`: the MC layer's tables (register descriptors with
//! their difference-encoded lists, unit roots, classes, DWARF mappings,
//! encodings) and `Init<Target>MCRegisterInfo`.

use std::fmt::Write;

use crate::regs::{RegId, RegUnitId};

use super::out::Out;
use super::seq_table::SeqTable;
use super::{print_mask, source_file_header, sub_regs_pre_order, Ctx};

/// `diffEncode`: each element minus the one before, from `init`, in 16 bits.
fn diff_encode(init: u32, list: impl IntoIterator<Item = u32>) -> Vec<u16> {
    let mut val = init as u16;
    list.into_iter()
        .map(|cur| {
            let cur = cur as u16;
            let d = cur.wrapping_sub(val);
            val = cur;
            d
        })
        .collect()
}

pub(super) fn write(o: &mut Out, cx: &Ctx) {
    let bank = cx.bank;
    let t = &cx.facts.target;
    source_file_header(o, "MC Register Information");
    o.push_str("\n#ifdef GET_REGINFO_MC_DESC\n#undef GET_REGINFO_MC_DESC\n\n");

    let n = bank.registers.len();
    let mut diffs: SeqTable<u16> = SeqTable::default();
    let mut masks: SeqTable<u64> = SeqTable::default();
    let mut idx_lists: SeqTable<u32> = SeqTable::default();
    let mut strings: SeqTable<u8> = SeqTable::default();
    let mut sub_lists = Vec::with_capacity(n);
    let mut super_lists = Vec::with_capacity(n);
    let mut unit_lists = Vec::with_capacity(n);
    let mut scales = Vec::with_capacity(n);
    let mut sub_idx = Vec::with_capacity(n);
    let units = |r: usize| -> &[RegUnitId] { &bank.registers[r].units };
    for (i, reg) in bank.registers.iter().enumerate() {
        let ev = i as u32 + 1;
        strings.add(reg.name.as_bytes());
        let sr = sub_regs_pre_order(bank, i as RegId);
        let subs = diff_encode(ev, sr.iter().map(|&s| s + 1));
        diffs.add(&subs);
        sub_lists.push(subs);
        let idxs: Vec<u32> = sr
            .iter()
            .map(|&s| reg.sub_reg_index(s).map_or(0, |x| x + 1))
            .collect();
        idx_lists.add(&idxs);
        sub_idx.push(idxs);
        let supers = diff_encode(ev, reg.super_regs.iter().map(|&s| s + 1));
        diffs.add(&supers);
        super_lists.push(supers);
        // A scale lets neighbours with units in arithmetic progression share
        // a list.
        let ru = units(i);
        let first = |r: &[RegUnitId]| r.first().copied().unwrap_or(0);
        let (mut scale_a, mut scale_b) = (u32::MAX, u32::MAX);
        if i > 0 && units(i - 1).len() == ru.len() {
            scale_b = first(ru).wrapping_sub(first(units(i - 1)));
        }
        if i + 1 < n && units(i + 1).len() == ru.len() {
            scale_a = first(units(i + 1)).wrapping_sub(first(ru));
        }
        let mut scale = scale_a.min(scale_b);
        if scale >= 16 {
            scale = 0;
        }
        scales.push(scale);
        let list = diff_encode(scale.wrapping_mul(ev), ru.iter().copied());
        diffs.add(&list);
        unit_lists.push(list);
        masks.add(&cx.facts.unit_masks[i]);
    }
    diffs.layout();
    masks.layout();
    idx_lists.layout();

    o.push_str("namespace llvm {\n\n");
    let _ = writeln!(o, "extern const MCPhysReg {t}RegDiffLists[] = {{");
    diffs.emit(o, |o, d| write_num(o, *d as i64), "0");
    o.push_str("};\n\n");
    let _ = writeln!(o, "extern const LaneBitmask {t}LaneMaskLists[] = {{");
    masks.emit(o, |o, m| print_mask(o, *m), "LaneBitmask::getAll()");
    o.push_str("};\n\n");
    let _ = writeln!(o, "extern const uint16_t {t}SubRegIdxLists[] = {{");
    idx_lists.emit(o, |o, x| write_num(o, *x as i64), "0");
    o.push_str("};\n\n");
    let _ = writeln!(
        o,
        "extern const MCRegisterInfo::SubRegCoveredBits {t}SubRegIdxRanges[] = {{"
    );
    o.push_str("  { 65535, 65535 },\n");
    for idx in &bank.sub_reg_indices {
        let _ = writeln!(o, "  {{ {}, {} }},\t// {}", idx.offset, idx.size, idx.name);
    }
    o.push_str("};\n\n");
    strings.layout();
    strings.emit_string_literals(o, &format!("extern const char {t}RegStrings[]"));

    let _ = writeln!(
        o,
        "extern const MCRegisterDesc {t}RegDesc[] = {{ // Descriptors"
    );
    let _ = writeln!(o, "  {{ {}, 0, 0, 0, 0, 0 }},", strings.get(b""));
    for (i, reg) in bank.registers.iter().enumerate() {
        let _ = writeln!(
            o,
            "  {{ {}, {}, {}, {}, {}, {} }},",
            strings.get(reg.name.as_bytes()),
            diffs.get(&sub_lists[i]),
            diffs.get(&super_lists[i]),
            idx_lists.get(&sub_idx[i]),
            diffs.get(&unit_lists[i]) * 16 + scales[i],
            masks.get(&cx.facts.unit_masks[i])
        );
    }
    o.push_str("};\n\n");

    let _ = writeln!(o, "extern const MCPhysReg {t}RegUnitRoots[][2] = {{");
    for u in bank.reg_units.iter().take(bank.num_native_reg_units) {
        o.push_str("  { ");
        for (k, &r) in u.roots.iter().flatten().enumerate() {
            if k > 0 {
                o.push_str(", ");
            }
            cx.push_reg(o, r);
        }
        o.push_str(" },\n");
    }
    o.push_str("};\n\n");

    o.push_str("namespace {     // Register classes...\n");
    let mut class_strings: SeqTable<u8> = SeqTable::default();
    for rc in bank.classes_in_order() {
        class_strings.add(rc.name.as_bytes());
        let _ = write!(
            o,
            "  // {0} Register Class...\n  const MCPhysReg {0}[] = {{\n    ",
            rc.name
        );
        for &r in &rc.order {
            cx.push_reg(o, r);
            o.push_str(", ");
        }
        let _ = write!(
            o,
            "\n  }};\n\n  // {0} Bit set.\n  const uint8_t {0}Bits[] = {{\n    ",
            rc.name
        );
        let mut bits: Vec<bool> = Vec::new();
        for &r in &rc.order {
            let v = r as usize + 1;
            if v >= bits.len() {
                bits.resize((v / 8 + 1) * 8, false);
            }
            bits[v] = true;
        }
        super::bits_as_hex(o, &bits, 8);
        o.push_str("\n  };\n\n");
    }
    o.push_str("} // end anonymous namespace\n\n");
    class_strings.layout();
    class_strings.emit_string_literals(o, &format!("extern const char {t}RegClassStrings[]"));

    let _ = writeln!(
        o,
        "extern const MCRegisterClass {t}MCRegisterClasses[] = {{"
    );
    for rc in bank.classes_in_order() {
        let reg_size = if rc.rsi.map.len() == 1 && rc.rsi.map.contains_key(&0) {
            rc.rsi.get(0).reg_size
        } else {
            0
        };
        let _ = writeln!(
            o,
            "  {{ {0}, {0}Bits, {1}, {2}, sizeof({0}Bits), {3}RegClassID, {4}, {5}, {6} }},",
            rc.name,
            class_strings.get(rc.name.as_bytes()),
            rc.order.len(),
            cx.class_qualified(rc),
            reg_size,
            rc.copy_cost as i32,
            rc.allocatable
        );
    }
    o.push_str("};\n\n");

    dwarf_tables(o, cx, false);

    let _ = writeln!(o, "extern const uint16_t {t}RegEncodingTable[] = {{");
    o.push_str("  0,\n");
    for reg in &bank.registers {
        let _ = writeln!(o, "  {},", reg.hw_encoding);
    }
    o.push_str("};\n");
    let nidx = bank.sub_reg_indices.len() + 1;
    let _ = write!(
        o,
        "static inline void Init{t}MCRegisterInfo(MCRegisterInfo *RI, unsigned RA, unsigned DwarfFlavour = 0, unsigned EHFlavour = 0, unsigned PC = 0) {{\n  \
         RI->InitMCRegisterInfo({t}RegDesc, {}, RA, PC, {t}MCRegisterClasses, {}, {t}RegUnitRoots, {}, {t}RegDiffLists, {t}LaneMaskLists, {t}RegStrings, {t}RegClassStrings, {t}SubRegIdxLists, {nidx},\n\
         {t}SubRegIdxRanges, {t}RegEncodingTable);\n\n",
        n + 1,
        bank.classes.len(),
        bank.num_native_reg_units
    );
    dwarf_mapping(o, cx, false);
    o.push_str("}\n\n} // end namespace llvm\n\n#endif // GET_REGINFO_MC_DESC\n\n");
}

fn write_num(o: &mut Out, v: i64) {
    let _ = write!(o, "{v}");
}

/// The registers' DWARF numbers, sorted by name as LLVM's
/// `LessRecordRegister` sorts them, without duplicate names; and the
/// longest list's length.
fn dwarf_numbers(cx: &Ctx) -> (Vec<(RegId, Vec<i64>)>, usize) {
    let bank = cx.bank;
    let max = cx.facts.dwarf.iter().map(Vec::len).max().unwrap_or(0);
    let mut v: Vec<(RegId, Vec<i64>)> = (0..bank.registers.len() as RegId)
        .map(|r| (r, cx.facts.dwarf[r as usize].clone()))
        .collect();
    v.sort_by_cached_key(|(r, _)| crate::regs::RegisterNameKey::new(&bank.reg(*r).name));
    v.dedup_by(|b, a| bank.reg(a.0).name == bank.reg(b.0).name);
    for (_, nums) in &mut v {
        nums.resize(max, -1);
    }
    (v, max)
}

fn flavour(j: usize) -> &'static str {
    if j == 0 {
        "DwarfFlavour"
    } else {
        "EHFlavour"
    }
}

/// `EmitRegMappingTables`: DWARF ↔ LLVM tables (definitions, or with
/// `decl_only` the declarations the constructor needs).
pub(super) fn dwarf_tables(o: &mut Out, cx: &Ctx, decl_only: bool) {
    let (mut nums, max) = dwarf_numbers(cx);
    if max == 0 {
        return;
    }
    let ns = &cx.namespace;
    let _ = writeln!(o, "// {ns} Dwarf<->LLVM register mappings.");
    let table = |o: &mut Out, what: &str, body: &dyn Fn(&mut Out, usize)| {
        for j in 0..2 {
            for i in 0..max {
                let name = format!("{ns}{}{i}{what}", flavour(j));
                let _ = write!(o, "extern const MCRegisterInfo::DwarfLLVMRegPair {name}[]");
                if decl_only {
                    o.push_str(";\n");
                    let _ = write!(o, "extern const unsigned {name}Size;\n\n");
                } else {
                    o.push_str(" = {\n");
                    body(o, i);
                    o.push_str("};\n");
                    let _ = write!(
                        o,
                        "extern const unsigned {name}Size = array_lengthof({name});\n\n"
                    );
                }
            }
        }
    };
    table(o, "Dwarf2L", &|o, i| {
        let mut map = std::collections::BTreeMap::new();
        for (r, n) in &nums {
            let d = n[i] as i32;
            if d >= 0 {
                map.insert(d as u64, *r);
            }
        }
        for (d, r) in map {
            let _ = writeln!(o, "  {{ {d}U, {} }},", cx.reg_qualified(r));
        }
    });
    // A register with a `DwarfAlias` takes its alias's numbers.
    let pos: std::collections::HashMap<RegId, usize> =
        nums.iter().enumerate().map(|(k, (r, _))| (*r, k)).collect();
    for (r, alias) in cx.facts.dwarf_alias.iter().enumerate() {
        let Some(a) = alias else { continue };
        if let (Some(&ri), Some(&ai)) = (pos.get(&(r as RegId)), pos.get(a)) {
            nums[ri].1 = nums[ai].1.clone();
        }
    }
    table(o, "L2Dwarf", &|o, i| {
        for (r, n) in &nums {
            let d = n[i] as i32;
            if d != -1 {
                let _ = writeln!(o, "  {{ {}, {d}U }},", cx.reg_qualified(*r));
            }
        }
    });
}

/// `EmitRegMapping`: the calls wiring the DWARF tables up (`RI->` outside
/// the constructor).
pub(super) fn dwarf_mapping(o: &mut Out, cx: &Ctx, in_ctor: bool) {
    let max = cx.facts.dwarf.iter().map(Vec::len).max().unwrap_or(0);
    if max == 0 {
        return;
    }
    let ns = &cx.namespace;
    let recv = if in_ctor { "" } else { "RI->" };
    for (what, call) in [
        ("Dwarf2L", "mapDwarfRegsToLLVMRegs"),
        ("L2Dwarf", "mapLLVMRegsToDwarfRegs"),
    ] {
        for j in 0..2 {
            let f = flavour(j);
            let _ = write!(
                o,
                "  switch ({f}) {{\n  default:\n    llvm_unreachable(\"Unknown DWARF flavour\");\n"
            );
            for i in 0..max {
                let tab = format!("{ns}{f}{i}{what}");
                let _ = write!(
                    o,
                    "  case {i}:\n    {recv}{call}({tab}, {tab}Size, {});\n    break;\n",
                    j == 1
                );
            }
            o.push_str("  }\n");
        }
    }
}
