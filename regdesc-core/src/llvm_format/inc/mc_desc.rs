//! `GET_REGINFO_MC_DESC`: the MC layer's tables (register descriptors with
//! their difference-encoded lists, unit roots, classes, DWARF mappings,
//! encodings) and `Init<Target>MCRegisterInfo`.

use std::fmt::Write;

use crate::regs::{RegId, RegUnitId};

use super::out::Out;
use super::seq_table::{SeqId, SeqTable};
use super::{print_mask, source_file_header, Ctx, PreOrder};

/// `diffEncode`: each element minus the one before, from `init`, in 16 bits.
fn diff_encode(init: u32, list: impl IntoIterator<Item = u32>) -> impl Iterator<Item = u16> {
    let mut val = init as u16;
    list.into_iter().map(move |cur| {
        let cur = cur as u16;
        let d = cur.wrapping_sub(val);
        val = cur;
        d
    })
}

/// One register's entries in the shared tables.
struct RegLists {
    name: SeqId,
    subs: SeqId,
    supers: SeqId,
    idxs: SeqId,
    units: SeqId,
    scale: u32,
    masks: SeqId,
}

/// `GET_REGINFO_MC_DESC` up to the register class table (the rest is
/// [`write_rest`]).
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
    let no_name = strings.add(b"");
    let mut lists = Vec::with_capacity(n);
    let mut pre = PreOrder::new(bank);
    // For the register at hand: one more than the index of each of its
    // sub-registers (the lowest, were there two), 0 elsewhere.
    let mut idx_of = vec![0u32; n];
    let units = |r: usize| -> &[RegUnitId] { &bank.registers[r].units };
    for (i, reg) in bank.registers.iter().enumerate() {
        let ev = i as u32 + 1;
        let name = strings.add(reg.name.as_bytes());
        let sr = pre.of(bank, i as RegId);
        let subs = diffs.add_iter(diff_encode(ev, sr.iter().map(|&s| s + 1)));
        for (&x, &s) in &reg.sub_regs {
            let slot = &mut idx_of[s as usize];
            if *slot == 0 {
                *slot = x + 1;
            }
        }
        let idxs = idx_lists.add_iter(sr.iter().map(|&s| idx_of[s as usize]));
        for &s in reg.sub_regs.values() {
            idx_of[s as usize] = 0;
        }
        let supers = diffs.add_iter(diff_encode(ev, reg.super_regs.iter().map(|&s| s + 1)));
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
        let unit_list = diffs.add_iter(diff_encode(scale.wrapping_mul(ev), ru.iter().copied()));
        lists.push(RegLists {
            name,
            subs,
            supers,
            idxs,
            units: unit_list,
            scale,
            masks: masks.add(&cx.facts.unit_masks[i]),
        });
    }
    diffs.layout();
    masks.layout();
    idx_lists.layout();

    o.push_str("namespace llvm {\n\n");
    let _ = writeln!(o, "extern const MCPhysReg {t}RegDiffLists[] = {{");
    diffs.emit(o, |o, d| o.num(*d as u64), "0");
    o.push_str("};\n\n");
    let _ = writeln!(o, "extern const LaneBitmask {t}LaneMaskLists[] = {{");
    masks.emit(o, |o, m| print_mask(o, *m), "LaneBitmask::getAll()");
    o.push_str("};\n\n");
    let _ = writeln!(o, "extern const uint16_t {t}SubRegIdxLists[] = {{");
    idx_lists.emit(o, |o, x| o.num(*x as u64), "0");
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
    o.push_str("  { ");
    o.num(strings.get(no_name) as u64);
    o.push_str(", 0, 0, 0, 0, 0 },\n");
    for l in &lists {
        let fields = [
            strings.get(l.name),
            diffs.get(l.subs),
            diffs.get(l.supers),
            idx_lists.get(l.idxs),
            diffs.get(l.units) * 16 + l.scale,
            masks.get(l.masks),
        ];
        o.push_str("  { ");
        for (k, v) in fields.into_iter().enumerate() {
            if k > 0 {
                o.push_str(", ");
            }
            o.num(v as u64);
        }
        o.push_str(" },\n");
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
    let mut class_names = Vec::with_capacity(bank.classes.len());
    for rc in bank.classes_in_order() {
        class_names.push(class_strings.add(rc.name.as_bytes()));
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
        // Bit `r + 1` for each member `r`, in bytes up to the last member's.
        let len = rc.order.iter().map(|&r| (r as usize + 1) / 8 + 1).max();
        let mut bytes = vec![0u8; len.unwrap_or(0)];
        for &r in &rc.order {
            let v = r as usize + 1;
            bytes[v / 8] |= 1 << (v % 8);
        }
        for b in bytes {
            o.push_str("0x");
            o.hex(b as u64, 2, false);
            o.push_str(", ");
        }
        o.push_str("\n  };\n\n");
    }
    o.push_str("} // end anonymous namespace\n\n");
    class_strings.layout();
    class_strings.emit_string_literals(o, &format!("extern const char {t}RegClassStrings[]"));

    let _ = writeln!(
        o,
        "extern const MCRegisterClass {t}MCRegisterClasses[] = {{"
    );
    for (rc, &name) in bank.classes_in_order().zip(&class_names) {
        let reg_size = if rc.rsi.map.len() == 1 && rc.rsi.map.contains_key(&0) {
            rc.rsi.get(0).reg_size
        } else {
            0
        };
        let _ = writeln!(
            o,
            "  {{ {0}, {0}Bits, {1}, {2}, sizeof({0}Bits), {3}RegClassID, {4}, {5}, {6} }},",
            rc.name,
            class_strings.get(name),
            rc.order.len(),
            cx.class_qualified(rc),
            reg_size,
            rc.copy_cost as i32,
            rc.allocatable
        );
    }
    o.push_str("};\n\n");
}

/// The rest of `GET_REGINFO_MC_DESC` after [`write`]: the DWARF tables, the
/// encodings and `Init<Target>MCRegisterInfo`.
pub(super) fn write_rest(o: &mut Out, cx: &Ctx) {
    let bank = cx.bank;
    let t = &cx.facts.target;
    let n = bank.registers.len();
    dwarf_tables(o, cx, false);

    let _ = writeln!(o, "extern const uint16_t {t}RegEncodingTable[] = {{");
    o.push_str("  0,\n");
    for reg in &bank.registers {
        o.push_str("  ");
        o.num(reg.hw_encoding as u64);
        o.push_str(",\n");
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

/// The registers sorted by name as LLVM's `LessRecordRegister` sorts them,
/// without duplicate names.
fn by_name(cx: &Ctx) -> Vec<RegId> {
    let bank = cx.bank;
    let mut v: Vec<RegId> = (0..bank.registers.len() as RegId).collect();
    let name = |r: RegId| bank.reg(r).name.as_str();
    crate::regs::sort_by_register_name(&mut v, name);
    v.dedup_by(|b, a| name(*a) == name(*b));
    v
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
    let dwarf = &cx.facts.dwarf;
    let max = dwarf.iter().map(Vec::len).max().unwrap_or(0);
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
    if decl_only {
        table(o, "Dwarf2L", &|_, _| {});
        table(o, "L2Dwarf", &|_, _| {});
        return;
    }
    let regs = by_name(cx);
    // Number `i` of the register whose numbers `r` carries (-1 past its
    // list).
    let number = |r: RegId, i: usize| dwarf[r as usize].get(i).map_or(-1, |&d| d as i32);
    table(o, "Dwarf2L", &|o, i| {
        // By number; of registers with the same number, the last by name.
        let mut pairs: Vec<(u32, RegId)> = regs
            .iter()
            .filter_map(|&r| u32::try_from(number(r, i)).ok().map(|d| (d, r)))
            .collect();
        pairs.sort_by_key(|&(d, _)| d);
        for (k, &(d, r)) in pairs.iter().enumerate() {
            if pairs.get(k + 1).is_some_and(|&(next, _)| next == d) {
                continue;
            }
            o.push_str("  { ");
            o.num(d as u64);
            o.push_str("U, ");
            cx.push_reg(o, r);
            o.push_str(" },\n");
        }
    });
    // A register with a `DwarfAlias` takes its alias's numbers (as they
    // stand when its turn comes).
    let mut pos = vec![usize::MAX; cx.bank.registers.len()];
    for (k, &r) in regs.iter().enumerate() {
        pos[r as usize] = k;
    }
    let mut source = regs.clone();
    for (r, alias) in cx.facts.dwarf_alias.iter().enumerate() {
        let Some(a) = alias else { continue };
        let (ri, ai) = (pos[r], pos[*a as usize]);
        if ri != usize::MAX && ai != usize::MAX {
            source[ri] = source[ai];
        }
    }
    table(o, "L2Dwarf", &|o, i| {
        for (&r, &src) in regs.iter().zip(&source) {
            let d = number(src, i);
            if d != -1 {
                o.push_str("  { ");
                cx.push_reg(o, r);
                o.push_str(", ");
                o.int(d as i64);
                o.push_str("U },\n");
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
