//! `GET_REGINFO_TARGET_DESC`, second half: the generated member functions
//! (index composition, lane mask composition, `getSubClassWithSubReg`,
//! register pressure), the constructor, and the callee-saved register
//! masks.

use std::fmt::Write;

use super::facts::MaskRol;
use super::out::Out;
use super::seq_table::{SeqId, SeqTable};
use super::{bits_as_hex, minimal_type, print_mask, Ctx};

pub(super) fn write(o: &mut Out, cx: &Ctx) {
    let bank = cx.bank;
    let t = &cx.facts.target;
    let class = format!("{t}GenRegisterInfo");
    let nidx = bank.sub_reg_indices.len();
    if nidx > 0 {
        compose(o, cx, &class);
        compose_lane_masks(o, cx, &class);
        sub_class_with_sub_reg(o, cx, &class);
    }
    pressure(o, cx, &class);

    for (ty, what) in [
        ("MCRegisterDesc", "RegDesc[]"),
        ("MCPhysReg", "RegDiffLists[]"),
        ("LaneBitmask", "LaneMaskLists[]"),
        ("char", "RegStrings[]"),
        ("char", "RegClassStrings[]"),
        ("MCPhysReg", "RegUnitRoots[][2]"),
        ("uint16_t", "SubRegIdxLists[]"),
        ("MCRegisterInfo::SubRegCoveredBits", "SubRegIdxRanges[]"),
        ("uint16_t", "RegEncodingTable[]"),
    ] {
        let _ = writeln!(o, "extern const {ty} {t}{what};");
    }
    super::mc_desc::dwarf_tables(o, cx, true);
    let pad = "                     ";
    let _ = write!(
        o,
        "{class}::\n{class}(unsigned RA, unsigned DwarfFlavour, unsigned EHFlavour,\n      unsigned PC, unsigned HwMode)\n  : TargetRegisterInfo(&{t}RegInfoDesc, RegisterClasses, RegisterClasses+{},\n             SubRegIndexNameTable, SubRegIndexLaneMaskTable,\n             ",
        bank.classes.len()
    );
    print_mask(o, cx.facts.covering_lanes);
    let _ = write!(
        o,
        ", RegClassInfos, HwMode) {{\n  InitMCRegisterInfo({t}RegDesc, {}, RA, PC,\n{pad}{t}MCRegisterClasses, {},\n{pad}{t}RegUnitRoots,\n{pad}{},\n{pad}{t}RegDiffLists,\n{pad}{t}LaneMaskLists,\n{pad}{t}RegStrings,\n{pad}{t}RegClassStrings,\n{pad}{t}SubRegIdxLists,\n{pad}{},\n{pad}{t}SubRegIdxRanges,\n{pad}{t}RegEncodingTable);\n\n",
        bank.registers.len() + 1,
        bank.classes.len(),
        bank.num_native_reg_units,
        nidx + 1
    );
    super::mc_desc::dwarf_mapping(o, cx, true);
    o.push_str("}\n\n");

    for s in &cx.facts.saved {
        let _ = write!(o, "static const MCPhysReg {}_SaveList[] = {{ ", s.name);
        for &r in &s.save {
            cx.push_reg(o, r);
            o.push_str(", ");
        }
        o.push_str("0 };\n");
        let _ = write!(o, "static const uint32_t {}_RegMask[] = {{ ", s.name);
        bits_as_hex(o, &s.preserved, 32);
        o.push_str("};\n");
    }
    o.push_str("\n\n");
    let names: Vec<String> = cx
        .facts
        .saved
        .iter()
        .map(|s| format!("\"{}\"", s.name))
        .collect();
    let masks: Vec<String> = cx
        .facts
        .saved
        .iter()
        .map(|s| format!("{}_RegMask", s.name))
        .collect();
    array_ref_fn(
        o,
        &class,
        "const uint32_t *",
        "getRegMasks",
        "Masks",
        &masks,
    );
    array_ref_fn(
        o,
        &class,
        "const char *",
        "getRegMaskNames",
        "Names",
        &names,
    );
    let _ = write!(
        o,
        "const {t}FrameLowering *\n{t}GenRegisterInfo::getFrameLowering(const MachineFunction &MF) {{\n  return static_cast<const {t}FrameLowering *>(\n      MF.getSubtarget().getFrameLowering());\n}}\n\n"
    );
    o.push_str("} // end namespace llvm\n\n#endif // GET_REGINFO_TARGET_DESC\n\n");
}

/// A member function returning a static array (`None` when empty).
fn array_ref_fn(o: &mut Out, class: &str, ty: &str, func: &str, array: &str, items: &[String]) {
    let _ = writeln!(o, "ArrayRef<{ty}> {class}::{func}() const {{");
    if items.is_empty() {
        o.push_str("  return None;\n");
    } else {
        let _ = writeln!(o, "  static {ty}const {array}[] = {{");
        for item in items {
            let _ = writeln!(o, "    {item},");
        }
        let _ = writeln!(o, "  }};\n  return makeArrayRef({array});");
    }
    o.push_str("}\n\n");
}

/// `composeSubRegIndicesImpl`: indices whose compositions agree share a
/// row of the table.
#[inline(never)]
fn compose(o: &mut Out, cx: &Ctx, class: &str) {
    let bank = cx.bank;
    let n = bank.sub_reg_indices.len();
    let _ = writeln!(
        o,
        "unsigned {class}::composeSubRegIndicesImpl(unsigned IdxA, unsigned IdxB) const {{"
    );
    let mut rows: Vec<Vec<Option<u32>>> = Vec::new();
    let mut row_map = Vec::with_capacity(n);
    for idx in &bank.sub_reg_indices {
        let fits = |row: &Vec<Option<u32>>| {
            idx.composed
                .iter()
                .all(|(&a, &b)| row[a as usize].is_none_or(|x| x == b))
        };
        let found = match rows.iter().position(fits) {
            Some(r) => r,
            None => {
                rows.push(vec![None; n]);
                rows.len() - 1
            }
        };
        for (&a, &b) in idx.composed.iter() {
            rows[found][a as usize] = Some(b);
        }
        row_map.push(found);
    }
    if rows.len() > 1 {
        let _ = write!(
            o,
            "  static const {} RowMap[{n}] = {{\n    ",
            minimal_type(rows.len() as u64)
        );
        for r in &row_map {
            let _ = write!(o, "{r}, ");
        }
        o.push_str("\n  };\n");
    }
    let _ = writeln!(
        o,
        "  static const {} Rows[{}][{n}] = {{",
        minimal_type(n as u64 + 1),
        rows.len()
    );
    for row in &rows {
        o.push_str("    { ");
        for e in row {
            match e {
                Some(b) => {
                    o.push_str(&bank.idx(*b).qualified_name());
                    o.push_str(", ");
                }
                None => o.push_str("0, "),
            }
        }
        o.push_str("},\n");
    }
    let _ = write!(
        o,
        "  }};\n\n  --IdxA; assert(IdxA < {n});\n  --IdxB; assert(IdxB < {n});\n"
    );
    if rows.len() > 1 {
        o.push_str("  return Rows[RowMap[IdxA]][IdxB];\n");
    } else {
        o.push_str("  return Rows[0][IdxB];\n");
    }
    o.push_str("}\n\n");
}

/// `composeSubRegIndexLaneMaskImpl` and its reverse: each index's
/// mask-and-rotate steps, equal sequences shared.
#[inline(never)]
fn compose_lane_masks(o: &mut Out, cx: &Ctx, class: &str) {
    let bank = cx.bank;
    let n = bank.sub_reg_indices.len();
    let mut seqs: Vec<&Vec<MaskRol>> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut at = Vec::with_capacity(n);
    for steps in &cx.facts.transforms {
        let k = match seqs.iter().position(|s| *s == steps) {
            Some(k) => k,
            None => {
                let start = starts
                    .last()
                    .map_or(0, |&s| s + seqs[seqs.len() - 1].len() + 1);
                seqs.push(steps);
                starts.push(start);
                seqs.len() - 1
            }
        };
        at.push(starts[k]);
    }
    o.push_str("  struct MaskRolOp {\n    LaneBitmask Mask;\n    uint8_t  RotateLeft;\n  };\n  static const MaskRolOp LaneMaskComposeSequences[] = {\n");
    for (k, seq) in seqs.iter().enumerate() {
        o.push_str("    ");
        for step in seq.iter() {
            o.push_str("{ ");
            print_mask(o, step.mask);
            let _ = write!(o, ", {:2} }}, ", step.rotate);
        }
        o.push_str("{ LaneBitmask::getNone(), 0 }");
        if k + 1 != seqs.len() {
            o.push_str(", ");
        }
        let _ = writeln!(o, "  // Sequence {}", starts[k]);
    }
    o.push_str("  };\n  static const MaskRolOp *const CompositeSequences[] = {\n");
    for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
        let _ = write!(o, "    &LaneMaskComposeSequences[{}]", at[i]);
        if i + 1 != n {
            o.push(',');
        }
        let _ = writeln!(o, " // to {}", idx.name);
    }
    o.push_str("  };\n\n");
    let _ = write!(
        o,
        "LaneBitmask {class}::composeSubRegIndexLaneMaskImpl(unsigned IdxA, LaneBitmask LaneMask) const {{\n  \
         --IdxA; assert(IdxA < {n} && \"Subregister index out of bounds\");\n  \
         LaneBitmask Result;\n  \
         for (const MaskRolOp *Ops = CompositeSequences[IdxA]; Ops->Mask.any(); ++Ops) {{\n    \
         LaneBitmask::Type M = LaneMask.getAsInteger() & Ops->Mask.getAsInteger();\n    \
         if (unsigned S = Ops->RotateLeft)\n      \
         Result |= LaneBitmask((M << S) | (M >> (LaneBitmask::BitWidth - S)));\n    \
         else\n      \
         Result |= LaneBitmask(M);\n  \
         }}\n  \
         return Result;\n\
         }}\n\n"
    );
    let _ = write!(
        o,
        "LaneBitmask {class}::reverseComposeSubRegIndexLaneMaskImpl(unsigned IdxA,  LaneBitmask LaneMask) const {{\n  \
         LaneMask &= getSubRegIndexLaneMask(IdxA);\n  \
         --IdxA; assert(IdxA < {n} && \"Subregister index out of bounds\");\n  \
         LaneBitmask Result;\n  \
         for (const MaskRolOp *Ops = CompositeSequences[IdxA]; Ops->Mask.any(); ++Ops) {{\n    \
         LaneBitmask::Type M = LaneMask.getAsInteger();\n    \
         if (unsigned S = Ops->RotateLeft)\n      \
         Result |= LaneBitmask((M >> S) | (M << (LaneBitmask::BitWidth - S)));\n    \
         else\n      \
         Result |= LaneBitmask(M);\n  \
         }}\n  \
         return Result;\n\
         }}\n\n"
    );
}

/// `getSubClassWithSubReg`: a table by class and index.
#[inline(never)]
fn sub_class_with_sub_reg(o: &mut Out, cx: &Ctx, class: &str) {
    let bank = cx.bank;
    let n = bank.sub_reg_indices.len();
    let nc = bank.classes.len();
    let _ = writeln!(
        o,
        "const TargetRegisterClass *{class}::getSubClassWithSubReg(const TargetRegisterClass *RC, unsigned Idx) const {{"
    );
    let ty = if nc < 255 { "uint8_t" } else { "uint16_t" };
    let _ = writeln!(o, "  static const {ty} Table[{nc}][{n}] = {{");
    for rc in bank.classes_in_order() {
        o.push_str("    {\t// ");
        o.push_str(&rc.name);
        o.push('\n');
        // The map is by index: walk it alongside the indices (the table
        // has classes × indices rows, 145,000 on AMDGPU).
        let mut entries = rc.sub_class_with_sub_reg.iter().peekable();
        for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
            let sub = entries.next_if(|(&k, _)| k as usize == i).map(|(_, &s)| s);
            o.push_str("      ");
            match sub {
                Some(s) => {
                    let s = bank.class(s);
                    o.num(s.enum_value as u64 + 1);
                    o.push_str(",\t// ");
                    o.push_str(&idx.name);
                    o.push_str(" -> ");
                    o.push_str(&s.name);
                }
                None => {
                    o.push_str("0,\t// ");
                    o.push_str(&idx.name);
                }
            }
            o.push('\n');
        }
        o.push_str("    },\n");
    }
    let _ = write!(
        o,
        "  }};\n  assert(RC && \"Missing regclass\");\n  if (!Idx) return RC;\n  --Idx;\n  assert(Idx < {n} && \"Bad subreg\");\n  unsigned TV = Table[RC->getID()][Idx];\n  return TV ? getRegClass(TV - 1) : nullptr;\n}}\n\n"
    );
}

/// `EmitRegUnitPressure`: weights, pressure sets and their limits.
#[inline(never)]
fn pressure(o: &mut Out, cx: &Ctx, class: &str) {
    let bank = cx.bank;
    let p = &bank.pressure;
    let nunits = bank.num_native_reg_units;
    let _ = write!(
        o,
        "/// Get the weight in units of pressure for this register class.\nconst RegClassWeight &{class}::\ngetRegClassWeight(const TargetRegisterClass *RC) const {{\n  static const RegClassWeight RCWeightTable[] = {{\n"
    );
    for &c in &bank.class_order {
        let w = p.class_weights[c as usize];
        let _ = writeln!(
            o,
            "    {{{}, {}}},  \t// {}",
            w.weight,
            w.limit,
            bank.class(c).name
        );
    }
    o.push_str("  };\n  return RCWeightTable[RC->getID()];\n}\n\n");
    let _ = write!(
        o,
        "/// Get the weight in units of pressure for this register unit.\nunsigned {class}::\ngetRegUnitWeight(unsigned RegUnit) const {{\n  assert(RegUnit < {nunits} && \"invalid register unit\");\n"
    );
    if p.unit_weights.iter().all(|&w| w <= 1) {
        o.push_str("  // All register units have unit weight.\n  return 1;\n");
    } else {
        o.push_str("  static const uint8_t RUWeightTable[] = {\n    ");
        for w in &p.unit_weights {
            let _ = write!(o, "{w}, ");
        }
        o.push_str("};\n  return RUWeightTable[RegUnit];\n");
    }
    o.push_str("}\n\n");
    let _ = write!(
        o,
        "\n// Get the number of dimensions of register pressure.\nunsigned {class}::getNumRegPressureSets() const {{\n  return {};\n}}\n\n",
        p.sets.len()
    );
    let _ = write!(
        o,
        "// Get the name of this register unit pressure set.\nconst char *{class}::\ngetRegPressureSetName(unsigned Idx) const {{\n  static const char *const PressureNameTable[] = {{\n"
    );
    for s in &p.sets {
        let _ = writeln!(o, "    \"{}\",", s.name);
    }
    o.push_str("  };\n  return PressureNameTable[Idx];\n}\n\n");
    let max = p.sets.iter().map(|s| s.limit).max().unwrap_or(0);
    let _ = write!(
        o,
        "// Get the register unit pressure limit for this dimension.\n// This limit must be adjusted dynamically for reserved registers.\nunsigned {class}::\ngetRegPressureSetLimit(const MachineFunction &MF, unsigned Idx) const {{\n  static const {} PressureLimitTable[] = {{\n",
        minimal_type(max as u64)
    );
    for (i, s) in p.sets.iter().enumerate() {
        let _ = writeln!(o, "    {},  \t// {i}: {}", s.limit, s.name);
    }
    o.push_str("  };\n  return PressureLimitTable[Idx];\n}\n\n");

    // Set numbers are small and not negative: as u32 they sort as LLVM's
    // ints do.
    let mut seqs: SeqTable<u32> = SeqTable::default();
    let class_ids: Vec<SeqId> = bank
        .class_order
        .iter()
        .map(|&c| seqs.add(&p.class_sets[c as usize]))
        .collect();
    let unit_ids: Vec<SeqId> = p.unit_sets.iter().map(|l| seqs.add(l)).collect();
    seqs.layout();
    o.push_str("/// Table of pressure sets per register class or unit.\nstatic const int RCSetsTable[] = {\n");
    seqs.emit(o, |o, x| o.num(*x as u64), "-1");
    o.push_str("};\n\n");
    let ty = minimal_type(seqs.size().saturating_sub(1) as u64);
    let _ = write!(
        o,
        "/// Get the dimensions of register pressure impacted by this register class.\n/// Returns a -1 terminated array of pressure set IDs\nconst int *{class}::\ngetRegClassPressureSets(const TargetRegisterClass *RC) const {{\n  static const {ty} RCSetStartTable[] = {{\n    "
    );
    for &l in &class_ids {
        o.num(seqs.get(l) as u64);
        o.push(',');
    }
    o.push_str("};\n  return &RCSetsTable[RCSetStartTable[RC->getID()]];\n}\n\n");
    let _ = write!(
        o,
        "/// Get the dimensions of register pressure impacted by this register unit.\n/// Returns a -1 terminated array of pressure set IDs\nconst int *{class}::\ngetRegUnitPressureSets(unsigned RegUnit) const {{\n  assert(RegUnit < {nunits} && \"invalid register unit\");\n  static const {ty} RUSetStartTable[] = {{\n    "
    );
    for &l in &unit_ids {
        o.num(seqs.get(l) as u64);
        o.push(',');
    }
    o.push_str("};\n  return &RCSetsTable[RUSetStartTable[RegUnit]];\n}\n\n");
}
