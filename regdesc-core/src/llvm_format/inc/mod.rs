//! `llvm-tblgen -gen-register-info`: LLVM's `GenRegisterInfo.inc`, byte for
//! byte, from the register bank and its lane masks.
//!
//! The file has four parts, each under its own macro and each written by
//! its own function, in LLVM's order: `GET_REGINFO_ENUM` (here),
//! `GET_REGINFO_MC_DESC` ([`mc_desc`]), `GET_REGINFO_HEADER` (here) and
//! `GET_REGINFO_TARGET_DESC` ([`target_desc`], with the generated functions
//! in [`target_fns`]). Shared-suffix tables are [`seq_table`]; what the bank
//! does not hold (value types, DWARF numbers, callee-saved sets, the 64-bit
//! lane masks) is gathered in [`facts`].
//!
//! With coverage lane masks ([`crate::lanes::LaneMode::Coverage`]) the same
//! file carries those masks instead; either way they must fit LLVM's 64-bit
//! `LaneBitmask`.

mod facts;
mod mc_desc;
mod out;
mod seq_table;
mod target_desc;
mod target_fns;

use std::fmt::Write;

use crate::diag::Diagnostic;
use crate::eval::RecordKeeper;
use crate::lanes::{LaneMode, Lanes};
use crate::regs::{RegBank, RegId, RegsError};

pub use facts::Facts;
use out::Out;

/// Why the `.inc` cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IncError {
    #[error("the description needs {lanes} lanes in {} mode; LLVM's LaneBitmask holds 64", .mode.name())]
    TooManyLanes { lanes: u32, mode: LaneMode },
    #[error("No 'Target' subclasses defined!")]
    NoTarget,
    #[error("'{name}' is not a value type llvm-tblgen knows")]
    ValueType { name: String },
    #[error("'{name}' in {set} is not a register")]
    NotARegister { set: String, name: String },
    #[error("{0}")]
    Regs(RegsError),
}

impl IncError {
    pub fn code(&self) -> &'static str {
        match self {
            IncError::TooManyLanes { .. } => "regdesc::inc::too_many_lanes",
            IncError::NoTarget => "regdesc::inc::no_target",
            IncError::ValueType { .. } => "regdesc::inc::value_type",
            IncError::NotARegister { .. } => "regdesc::inc::not_a_register",
            IncError::Regs(e) => e.code(),
        }
    }

    pub fn help(&self) -> Option<&'static str> {
        match self {
            IncError::TooManyLanes { .. } => {
                Some("`--lanes coverage` lets indices covering the same bits share a lane")
            }
            IncError::NoTarget => Some("add one `def MyTarget : Target;`"),
            _ => None,
        }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        if let IncError::Regs(e) = self {
            return e.to_diagnostic();
        }
        let d = Diagnostic::error(self.code(), self.to_string(), None);
        match self.help() {
            Some(h) => d.with_help(h),
            None => d,
        }
    }
}

/// What every part reads.
pub(crate) struct Ctx<'a> {
    pub bank: &'a RegBank,
    pub facts: Facts,
    /// The namespace of the first register.
    pub namespace: String,
}

impl Ctx<'_> {
    /// Writes `Namespace::Name` of a register.
    pub fn push_reg(&self, o: &mut Out, r: RegId) {
        let reg = self.bank.reg(r);
        if !reg.namespace.is_empty() {
            o.push_str(&reg.namespace);
            o.push_str("::");
        }
        o.push_str(&reg.name);
    }

    /// `Namespace::Name` of a class.
    pub fn class_qualified<'c>(&self, rc: &'c crate::regs::RegClass) -> Qualified<'c> {
        Qualified(&rc.namespace, &rc.name)
    }
}

/// `Namespace::Name`, or `Name` in no namespace.
pub(crate) struct Qualified<'a>(&'a str, &'a str);

impl std::fmt::Display for Qualified<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.0.is_empty() {
            f.write_str(self.0)?;
            f.write_str("::")?;
        }
        f.write_str(self.1)
    }
}

/// The whole `GenRegisterInfo.inc`, as llvm-tblgen 14 writes it.
pub fn register_info_inc(
    rk: &RecordKeeper,
    bank: &RegBank,
    lanes: &Lanes,
) -> Result<String, IncError> {
    let cx = context(rk, bank, lanes)?;
    let mut o = Out::string(size_estimate(bank));
    write_parts(&mut o, &cx);
    Ok(o.into_string())
}

/// Room for the whole file (or its last parts) up front: growing a string of
/// tens of megabytes copies it into fresh pages again and again. Pages
/// reserved but never written cost nothing, so the estimate is generous.
fn size_estimate(bank: &RegBank) -> usize {
    let members: usize = bank.classes.iter().map(|c| c.order.len()).sum();
    bank.classes.len() * bank.sub_reg_indices.len() * 96
        + members * 64
        + bank.registers.len() * 400
        + (1 << 20)
}

/// [`register_info_inc`], ready to be written a chunk at a time as it is
/// produced (no whole-file string): what the file needs beyond the bank is
/// gathered first, so that a description the file cannot be written for
/// fails before any output.
pub struct IncWriter<'a> {
    cx: Ctx<'a>,
}

impl<'a> IncWriter<'a> {
    /// Gathers the facts the file needs.
    pub fn new(
        rk: &RecordKeeper,
        bank: &'a RegBank,
        lanes: &Lanes,
    ) -> Result<IncWriter<'a>, IncError> {
        Ok(IncWriter {
            cx: context(rk, bank, lanes)?,
        })
    }

    /// Writes the whole file to `out` (in chunks of 64 KiB), then flushes
    /// it: the first write error stops the output.
    ///
    /// The file from the DWARF tables of `GET_REGINFO_MC_DESC` on (12 of
    /// AMDGPU's 17 MB, half of the work) is made on a second thread, into
    /// memory, while the register and class tables before it stream out.
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let cx = &self.cx;
        std::thread::scope(|s| {
            let later = std::thread::Builder::new()
                .name("regdesc inc writer".into())
                .spawn_scoped(s, || later_parts(cx));
            let mut o = Out::to_writer(out);
            first_parts(&mut o, cx);
            let rest = match later {
                Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
                // No thread to be had: here, then.
                Err(_) => later_parts(cx),
            };
            o.push_made(&rest);
            o.finish()
        })
    }
}

fn context<'a>(rk: &RecordKeeper, bank: &'a RegBank, lanes: &Lanes) -> Result<Ctx<'a>, IncError> {
    let facts = Facts::gather(rk, bank, lanes)?;
    Ok(Ctx {
        bank,
        namespace: bank
            .registers
            .first()
            .map(|r| r.namespace.clone())
            .unwrap_or_default(),
        facts,
    })
}

/// The four parts, in LLVM's order.
fn write_parts(o: &mut Out, cx: &Ctx) {
    first_parts(o, cx);
    later_parts_to(o, cx);
}

/// `GET_REGINFO_ENUM` and `GET_REGINFO_MC_DESC` up to the class table.
fn first_parts(o: &mut Out, cx: &Ctx) {
    enums(o, cx);
    mc_desc::write(o, cx);
}

/// The rest of `GET_REGINFO_MC_DESC` (from the DWARF tables on),
/// `GET_REGINFO_HEADER` and `GET_REGINFO_TARGET_DESC`.
fn later_parts_to(o: &mut Out, cx: &Ctx) {
    mc_desc::write_rest(o, cx);
    header(o, cx);
    target_desc::write(o, cx);
}

/// [`later_parts_to`], as text.
fn later_parts(cx: &Ctx) -> Vec<u8> {
    let mut o = Out::string(size_estimate(cx.bank));
    later_parts_to(&mut o, cx);
    o.into_bytes()
}

/// `emitSourceFileHeader`: the banner at the top of each part.
pub(crate) fn source_file_header(o: &mut Out, desc: &str) {
    const WIDTH: usize = 80;
    let line = |o: &mut Out, prefix: &str, fill: char, suffix: &str| {
        o.push_str(prefix);
        for _ in prefix.len()..WIDTH - suffix.len() {
            o.push(fill);
        }
        o.push_str(suffix);
        o.push('\n');
    };
    line(o, "/*===- TableGen'erated file ", '-', "*- C++ -*-===*\\");
    line(o, "|* ", ' ', " *|");
    let chunk = WIDTH - 6;
    let mut pos = 0;
    loop {
        let end = (pos + chunk).min(desc.len());
        line(o, &format!("|* {}", &desc[pos..end]), ' ', " *|");
        pos = end;
        if pos >= desc.len() {
            break;
        }
    }
    line(o, "|* ", ' ', " *|");
    line(
        o,
        "|* Automatically generated file, do not edit!",
        ' ',
        " *|",
    );
    line(o, "|* ", ' ', " *|");
    line(o, "\\*===", '-', "===*/");
    o.push('\n');
}

/// Opens `namespace NS {` when `ns` is not empty.
fn open_ns(o: &mut Out, ns: &str) {
    if !ns.is_empty() {
        let _ = writeln!(o, "namespace {ns} {{");
    }
}

/// `GET_REGINFO_ENUM`: registers, classes, alternate names, indices,
/// pressure sets.
#[inline(never)]
fn enums(o: &mut Out, cx: &Ctx) {
    let bank = cx.bank;
    let ns = cx.namespace.as_str();
    source_file_header(o, "Target Register Enum Values");
    o.push_str("\n#ifdef GET_REGINFO_ENUM\n#undef GET_REGINFO_ENUM\n\nnamespace llvm {\n\n");
    let _ = write!(
        o,
        "class MCRegisterClass;\nextern const MCRegisterClass {}MCRegisterClasses[];\n\n",
        cx.facts.target
    );
    open_ns(o, ns);
    o.push_str("enum {\n  NoRegister,\n");
    for (i, r) in bank.registers.iter().enumerate() {
        let _ = writeln!(o, "  {} = {},", r.name, i + 1);
    }
    let _ = writeln!(o, "  NUM_TARGET_REGS // {}", bank.registers.len() + 1);
    o.push_str("};\n");
    if !ns.is_empty() {
        let _ = writeln!(o, "}} // end namespace {ns}");
    }
    if !bank.classes.is_empty() {
        o.push_str("\n// Register classes\n\n");
        open_ns(o, ns);
        o.push_str("enum {\n");
        for rc in bank.classes_in_order() {
            let _ = writeln!(o, "  {}RegClassID = {},", rc.name, rc.enum_value);
        }
        o.push_str("\n};\n");
        if !ns.is_empty() {
            let _ = write!(o, "}} // end namespace {ns}\n\n");
        }
    }
    let alt = &cx.facts.alt_name_indices;
    if alt.len() > 1 {
        o.push_str("\n// Register alternate name indices\n\n");
        open_ns(o, ns);
        o.push_str("enum {\n");
        for (i, a) in alt.iter().enumerate() {
            let _ = writeln!(o, "  {a},\t// {i}");
        }
        let _ = writeln!(o, "  NUM_TARGET_REG_ALT_NAMES = {}", alt.len());
        o.push_str("};\n");
        if !ns.is_empty() {
            let _ = write!(o, "}} // end namespace {ns}\n\n");
        }
    }
    if let Some(first) = bank.sub_reg_indices.first() {
        o.push_str("\n// Subregister indices\n\n");
        let ins = first.namespace.as_str();
        open_ns(o, ins);
        o.push_str("enum : uint16_t {\n  NoSubRegister,\n");
        for (i, idx) in bank.sub_reg_indices.iter().enumerate() {
            let _ = writeln!(o, "  {},\t// {}", idx.name, i + 1);
        }
        o.push_str("  NUM_TARGET_SUBREGS\n};\n");
        if !ins.is_empty() {
            let _ = write!(o, "}} // end namespace {ins}\n\n");
        }
    }
    o.push_str("// Register pressure sets enum.\n");
    open_ns(o, ns);
    o.push_str("enum RegisterPressureSets {\n");
    for (i, s) in bank.pressure.sets.iter().enumerate() {
        let _ = writeln!(o, "  {} = {i},", s.name);
    }
    o.push_str("};\n");
    if !ns.is_empty() {
        let _ = writeln!(o, "}} // end namespace {ns}");
    }
    o.push_str("\n} // end namespace llvm\n\n#endif // GET_REGINFO_ENUM\n\n");
}

/// `GET_REGINFO_HEADER`: the `<Target>GenRegisterInfo` declaration.
#[inline(never)]
fn header(o: &mut Out, cx: &Ctx) {
    let t = &cx.facts.target;
    let class = format!("{t}GenRegisterInfo");
    source_file_header(o, "Register Information Header Fragment");
    o.push_str("\n#ifdef GET_REGINFO_HEADER\n#undef GET_REGINFO_HEADER\n\n");
    o.push_str("#include \"llvm/CodeGen/TargetRegisterInfo.h\"\n\nnamespace llvm {\n\n");
    let _ = write!(o, "class {t}FrameLowering;\n\n");
    let _ = write!(
        o,
        "struct {class} : public TargetRegisterInfo {{\n  explicit {class}(unsigned RA, unsigned D = 0, unsigned E = 0,\n      unsigned PC = 0, unsigned HwMode = 0);\n"
    );
    if !cx.bank.sub_reg_indices.is_empty() {
        o.push_str(
            "  unsigned composeSubRegIndicesImpl(unsigned, unsigned) const override;\n  \
             LaneBitmask composeSubRegIndexLaneMaskImpl(unsigned, LaneBitmask) const override;\n  \
             LaneBitmask reverseComposeSubRegIndexLaneMaskImpl(unsigned, LaneBitmask) const override;\n  \
             const TargetRegisterClass *getSubClassWithSubReg(const TargetRegisterClass *, unsigned) const override;\n",
        );
    }
    o.push_str(
        "  const RegClassWeight &getRegClassWeight(const TargetRegisterClass *RC) const override;\n  \
         unsigned getRegUnitWeight(unsigned RegUnit) const override;\n  \
         unsigned getNumRegPressureSets() const override;\n  \
         const char *getRegPressureSetName(unsigned Idx) const override;\n  \
         unsigned getRegPressureSetLimit(const MachineFunction &MF, unsigned Idx) const override;\n  \
         const int *getRegClassPressureSets(const TargetRegisterClass *RC) const override;\n  \
         const int *getRegUnitPressureSets(unsigned RegUnit) const override;\n  \
         ArrayRef<const char *> getRegMaskNames() const override;\n  \
         ArrayRef<const uint32_t *> getRegMasks() const override;\n  \
         /// Devirtualized TargetFrameLowering.\n",
    );
    let _ = write!(
        o,
        "  static const {t}FrameLowering *getFrameLowering(\n      const MachineFunction &MF);\n}};\n\n"
    );
    if let Some(first) = cx.bank.classes_in_order().next() {
        let ns = &first.namespace;
        let _ = writeln!(o, "namespace {ns} {{ // Register classes");
        for rc in cx.bank.classes_in_order() {
            let _ = writeln!(o, "  extern const TargetRegisterClass {}RegClass;", rc.name);
        }
        let _ = write!(o, "}} // end namespace {ns}\n\n");
    }
    o.push_str("} // end namespace llvm\n\n#endif // GET_REGINFO_HEADER\n\n");
}

/// LLVM's `addSubRegsPreOrder`: explicit sub-registers depth first, then
/// the remaining sub-registers in index order, each once. One walker serves
/// every register: its buffers and its "seen" marks (a stamp per register,
/// not a set cleared each time) are reused.
pub(crate) struct PreOrder {
    /// By register: the walk that last reached it.
    seen: Vec<u32>,
    walk: u32,
    out: Vec<RegId>,
    /// (register, next explicit sub-register to visit).
    stack: Vec<(RegId, usize)>,
}

impl PreOrder {
    pub fn new(bank: &RegBank) -> PreOrder {
        PreOrder {
            seen: vec![0; bank.registers.len()],
            walk: 0,
            out: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// `r`'s sub-registers in pre-order.
    pub fn of(&mut self, bank: &RegBank, r: RegId) -> &[RegId] {
        self.walk += 1;
        let walk = self.walk;
        self.out.clear();
        self.stack.clear();
        self.stack.push((r, 0));
        while let Some(top) = self.stack.last_mut() {
            let (reg, k) = *top;
            let reg = bank.reg(reg);
            if let Some(&s) = reg.explicit_sub_regs.get(k) {
                top.1 += 1;
                if self.seen[s as usize] != walk {
                    self.seen[s as usize] = walk;
                    self.out.push(s);
                    self.stack.push((s, 0));
                }
                continue;
            }
            self.stack.pop();
            for &s in reg.sub_regs.values() {
                if self.seen[s as usize] != walk {
                    self.seen[s as usize] = walk;
                    self.out.push(s);
                }
            }
        }
        &self.out
    }
}

/// `printBitVectorAsHex` of 32-bit words: `0x%08x, ` each.
pub(crate) fn words_as_hex(o: &mut Out, words: impl Iterator<Item = u32>) {
    for w in words {
        o.push_str("0x");
        o.hex(w as u64, 8, false);
        o.push_str(", ");
    }
}

/// `printBitVectorAsHex`: `bits` as `0x...` words of `width` bits.
pub(crate) fn bits_as_hex(o: &mut Out, bits: &[bool], width: usize) {
    let digits = width.div_ceil(4);
    for chunk in bits.chunks(width) {
        let mut v = 0u64;
        for (j, &b) in chunk.iter().enumerate() {
            v |= (b as u64) << j;
        }
        o.push_str("0x");
        o.hex(v, digits, false);
        o.push_str(", ");
    }
}

/// `getMinimalTypeForRange(range, 32)`.
pub(crate) fn minimal_type(range: u64) -> &'static str {
    if range > 0xFFFF {
        "uint32_t"
    } else if range > 0xFF {
        "uint16_t"
    } else {
        "uint8_t"
    }
}

/// `LaneBitmask(0x...)`.
pub(crate) fn print_mask(o: &mut Out, m: u64) {
    o.push_str("LaneBitmask(0x");
    o.hex(m, 16, true);
    o.push(')');
}
