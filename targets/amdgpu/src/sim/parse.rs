//! The assembly subset the simulator reads: LLVM's AMDGPU assembly syntax
//! as `llc` prints it and `llvm-mc` accepts it.
//!
//! - Instructions: `mnemonic op, op, ... modifier modifier:value`.
//!   Operands are registers (`v7`, `s4`, `v[0:3]`, `s[30:31]`, `vcc`,
//!   `vcc_lo`, `exec`, `exec_hi`, `m0`, `null`, `scc`), integers (decimal or
//!   `0x` hexadecimal, inline or 32-bit literal), the inline floating-point
//!   constants (`0.5`, `-4.0`, ...), labels, and `off`. Operands may carry
//!   `-` (negate), `|x|`/`abs(x)` and `sext(x)` (SDWA). Modifiers are
//!   `name:value` (`offset:16`, `dst_sel:WORD_1`, `op_sel:[0,1]`), flags
//!   (`offen`, `glc`, ...) and `s_waitcnt`'s counters (`vmcnt(0)`).
//! - Labels: `name:` on a line of their own. A function starts at the label
//!   with its name.
//! - Directives (`.text`, `.amdhsa_kernel F` ... `.end_amdhsa_kernel`) are
//!   skipped, except the kernel descriptor's `.amdhsa_*` settings, which
//!   give a kernel's initial register layout. The YAML between
//!   `.amdgpu_metadata` and `.end_amdgpu_metadata` is skipped.
//! - Comments: `;` to the end of the line (and `//`).
//!
//! Every error is a [`SimError`] located in the text.

use std::collections::HashMap;

use regdesc_codegen::source::Span;

use super::error::SimError;
use super::exec::{family, Family};

/// Scalar register file positions of the named registers (their operand
/// encodings, as in [`crate::regs`]).
pub mod enc {
    pub const VCC_LO: u16 = 106;
    pub const M0: u16 = 124;
    pub const NULL: u16 = 125;
    pub const EXEC_LO: u16 = 126;
    /// Size of the scalar file the simulator keeps.
    pub const SCALARS: usize = 128;
}

/// What an operand names.
#[derive(Clone, Debug, PartialEq)]
pub enum Opnd {
    /// `n` consecutive scalar registers from encoding `first` (SGPRs,
    /// `vcc`, `exec`, `m0`, `null`).
    Sreg {
        first: u16,
        n: u8,
    },
    /// `n` consecutive VGPRs from `first`.
    Vreg {
        first: u16,
        n: u8,
    },
    Scc,
    /// An integer constant as written.
    Int(i64),
    /// A floating-point constant as written (`1.0`).
    Float(f64),
    Label(String),
    /// `off`: no address register / no scalar offset.
    Off,
}

/// One operand with its modifiers and place.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    pub kind: Opnd,
    pub neg: bool,
    pub abs: bool,
    pub sext: bool,
    pub span: Span,
}

/// A modifier after the operands.
#[derive(Clone, Debug, PartialEq)]
pub struct Modifier {
    pub name: String,
    /// The text after `:` (or inside `(...)` for counters), if any.
    pub value: Option<String>,
    pub span: Span,
}

/// One instruction line.
#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    /// The mnemonic as written (`v_add_co_u32_e32`).
    pub mnemonic: String,
    /// The mnemonic without its encoding suffix (`v_add_co_u32`).
    pub base: String,
    /// `_sdwa` encoding.
    pub sdwa: bool,
    /// The family that runs it.
    pub family: Family,
    pub ops: Vec<Operand>,
    pub mods: Vec<Modifier>,
    pub span: Span,
    /// The mnemonic's place.
    pub name_span: Span,
}

impl Inst {
    pub fn modifier(&self, name: &str) -> Option<&Modifier> {
        self.mods.iter().find(|m| m.name == name)
    }

    pub fn has_flag(&self, name: &str) -> bool {
        self.modifier(name).is_some()
    }
}

/// A kernel's descriptor settings (`.amdhsa_*` directives).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelDesc {
    pub settings: HashMap<String, u64>,
}

impl KernelDesc {
    /// A setting, or its default under the AMDHSA code-object rules.
    pub fn get(&self, name: &str) -> u64 {
        self.settings
            .get(name)
            .copied()
            .unwrap_or(u64::from(name == "system_sgpr_workgroup_id_x"))
    }
}

/// A parsed assembly file.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub insts: Vec<Inst>,
    /// Label name to the index of the instruction that follows it.
    pub labels: HashMap<String, usize>,
    pub kernels: HashMap<String, KernelDesc>,
}

const FLAGS: &[&str] = &[
    "offen", "idxen", "glc", "slc", "dlc", "gds", "lds", "tfe", "nv", "clamp", "sc0", "sc1", "nt",
    "addr64",
];

/// Parses a whole file.
pub fn parse(text: &str) -> Result<Program, SimError> {
    let mut p = Program::default();
    let mut kernel: Option<String> = None;
    let mut in_metadata = false;
    let mut pos = 0usize;
    for raw in text.split_inclusive('\n') {
        let line_start = pos;
        pos += raw.len();
        let code = strip_comment(raw);
        let trimmed = code.trim();
        if trimmed.is_empty() {
            continue;
        }
        let lead = code.len() - code.trim_start().len();
        let start = line_start + lead;
        if in_metadata {
            if trimmed.starts_with(".end_amdgpu_metadata") {
                in_metadata = false;
            }
            continue;
        }
        if let Some(d) = trimmed.strip_prefix('.') {
            if !d.contains(':') || d.contains(' ') || d.contains('\t') {
                directive(d, &mut p, &mut kernel, &mut in_metadata);
                continue;
            }
        }
        if let Some(name) = trimmed.strip_suffix(':') {
            if !name.contains(char::is_whitespace) {
                p.labels.insert(name.to_string(), p.insts.len());
                continue;
            }
        }
        p.insts.push(instruction(trimmed, start)?);
    }
    Ok(p)
}

fn strip_comment(line: &str) -> &str {
    let cut = [line.find(';'), line.find("//")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(line.len());
    &line[..cut]
}

fn directive(d: &str, p: &mut Program, kernel: &mut Option<String>, in_md: &mut bool) {
    let mut words = d.split_whitespace();
    let name = words.next().unwrap_or("");
    let arg = words.next();
    match name {
        "amdgpu_metadata" => *in_md = true,
        "amdhsa_kernel" => {
            if let Some(k) = arg {
                p.kernels.insert(k.to_string(), KernelDesc::default());
                *kernel = Some(k.to_string());
            }
        }
        "end_amdhsa_kernel" => *kernel = None,
        _ => {
            if let (Some(k), Some(setting), Some(v)) =
                (kernel.as_ref(), name.strip_prefix("amdhsa_"), arg)
            {
                if let (Some(desc), Some(v)) = (p.kernels.get_mut(k), parse_uint(v)) {
                    desc.settings.insert(setting.to_string(), v);
                }
            }
        }
    }
}

fn parse_uint(t: &str) -> Option<u64> {
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => t.parse().ok(),
    }
}

/// The mnemonic without `_e32`/`_e64`/`_sdwa`/`_dpp`, and whether it is SDWA.
fn base_name(m: &str) -> (String, bool) {
    for (suffix, sdwa) in [("_e32", false), ("_e64", false), ("_sdwa", true)] {
        if let Some(b) = m.strip_suffix(suffix) {
            return (b.to_string(), sdwa);
        }
    }
    (m.to_string(), false)
}

fn instruction(line: &str, start: usize) -> Result<Inst, SimError> {
    let name_len = line.find(|c: char| c.is_whitespace()).unwrap_or(line.len());
    let mnemonic = &line[..name_len];
    let name_span = start..start + name_len;
    if !mnemonic
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        || !mnemonic.starts_with(|c: char| c.is_ascii_lowercase())
    {
        return Err(SimError::Syntax {
            span: name_span,
            what: format!("`{mnemonic}` is not an instruction, label or directive"),
        });
    }
    let (base, sdwa) = base_name(mnemonic);
    let fam = family(&base).filter(|_| !mnemonic.ends_with("_dpp"));
    let Some(fam) = fam else {
        return Err(SimError::UnknownInstruction {
            span: name_span,
            mnemonic: mnemonic.to_string(),
        });
    };
    let mut inst = Inst {
        mnemonic: mnemonic.to_string(),
        base,
        sdwa,
        family: fam,
        ops: Vec::new(),
        mods: Vec::new(),
        span: start..start + line.len(),
        name_span,
    };
    for (tok, at) in tokens(&line[name_len..], start + name_len) {
        let span = at..at + tok.len();
        if let Some(m) = modifier(tok, span.clone()) {
            inst.mods.push(m);
        } else {
            if !inst.mods.is_empty() {
                return Err(SimError::Syntax {
                    span,
                    what: "an operand after the modifiers".into(),
                });
            }
            inst.ops.push(operand(tok, span)?);
        }
    }
    Ok(inst)
}

/// Splits the operand text at commas and blanks, keeping `[...]` and
/// `(...)` whole; gives each token with its offset.
fn tokens(text: &str, base: usize) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut begin: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let sep = depth == 0 && (c == ',' || c.is_whitespace());
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            _ => {}
        }
        if sep {
            if let Some(b) = begin.take() {
                out.push((&text[b..i], base + b));
            }
        } else if begin.is_none() {
            begin = Some(i);
        }
    }
    if let Some(b) = begin {
        out.push((&text[b..], base + b));
    }
    out
}

fn modifier(tok: &str, span: Span) -> Option<Modifier> {
    if FLAGS.contains(&tok) {
        return Some(Modifier {
            name: tok.to_string(),
            value: None,
            span,
        });
    }
    for counter in ["vmcnt", "expcnt", "lgkmcnt", "vscnt"] {
        if let Some(rest) = tok.strip_prefix(counter) {
            if let Some(v) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                return Some(Modifier {
                    name: counter.to_string(),
                    value: Some(v.to_string()),
                    span,
                });
            }
        }
    }
    let (name, value) = tok.split_once(':')?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    if name == "s" || name == "v" {
        return None;
    }
    Some(Modifier {
        name: name.to_string(),
        value: Some(value.to_string()),
        span,
    })
}

fn bad(span: Span, what: impl Into<String>) -> SimError {
    SimError::BadOperand {
        span,
        what: what.into(),
    }
}

fn operand(tok: &str, span: Span) -> Result<Operand, SimError> {
    let mut op = Operand {
        kind: Opnd::Off,
        neg: false,
        abs: false,
        sext: false,
        span: span.clone(),
    };
    let mut t = tok;
    if let Some(r) = t.strip_prefix('-') {
        if !r.starts_with(|c: char| c.is_ascii_digit()) {
            op.neg = true;
            t = r;
        }
    }
    if let Some(inner) = t.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        op.abs = true;
        t = inner;
    } else if let Some(inner) = t.strip_prefix("abs(").and_then(|r| r.strip_suffix(')')) {
        op.abs = true;
        t = inner;
    } else if let Some(inner) = t.strip_prefix("sext(").and_then(|r| r.strip_suffix(')')) {
        op.sext = true;
        t = inner;
    } else if let Some(inner) = t.strip_prefix("neg(").and_then(|r| r.strip_suffix(')')) {
        op.neg = true;
        t = inner;
    }
    op.kind = match register(t) {
        Some(r) => r.map_err(|e| with_span(e, &span))?,
        None => constant_or_label(t, &span)?,
    };
    Ok(op)
}

fn register(t: &str) -> Option<Result<Opnd, SimError>> {
    let named = match t {
        "vcc" => Some((enc::VCC_LO, 2)),
        "vcc_lo" => Some((enc::VCC_LO, 1)),
        "vcc_hi" => Some((enc::VCC_LO + 1, 1)),
        "exec" => Some((enc::EXEC_LO, 2)),
        "exec_lo" => Some((enc::EXEC_LO, 1)),
        "exec_hi" => Some((enc::EXEC_LO + 1, 1)),
        "m0" => Some((enc::M0, 1)),
        "null" => Some((enc::NULL, 1)),
        _ => None,
    };
    if let Some((first, n)) = named {
        return Some(Ok(Opnd::Sreg { first, n }));
    }
    if t == "scc" {
        return Some(Ok(Opnd::Scc));
    }
    let (file, rest) = match t.as_bytes().first() {
        Some(b's') => ('s', &t[1..]),
        Some(b'v') => ('v', &t[1..]),
        Some(b'a') => ('a', &t[1..]),
        _ => return None,
    };
    let (first, last) = if let Some(r) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = r.split_once(':')?;
        (a.parse::<u16>().ok()?, b.parse::<u16>().ok()?)
    } else {
        let n = rest.parse::<u16>().ok()?;
        (n, n)
    };
    let limit = if file == 's' { 106 } else { 256 };
    if last < first || last >= limit || last - first >= 32 {
        return Some(Err(SimError::BadOperand {
            span: 0..0,
            what: format!("`{t}` is not a register range of this chip"),
        }));
    }
    let n = (last - first + 1) as u8;
    Some(Ok(match file {
        's' => Opnd::Sreg { first, n },
        // The accumulation VGPRs (gfx90a, where llc spills VGPRs into
        // them) after the VGPRs.
        'a' => Opnd::Vreg {
            first: first + 256,
            n,
        },
        _ => Opnd::Vreg { first, n },
    }))
}

fn constant_or_label(t: &str, span: &Span) -> Result<Opnd, SimError> {
    if t == "off" {
        return Ok(Opnd::Off);
    }
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    if digits.starts_with(|c: char| c.is_ascii_digit()) {
        if digits.contains('.') {
            return digits
                .parse::<f64>()
                .map(|f| Opnd::Float(if neg { -f } else { f }))
                .map_err(|_| bad(span.clone(), format!("`{t}` is not a number")));
        }
        let v = parse_uint(digits)
            .filter(|v| *v <= u64::from(u32::MAX) || !neg)
            .ok_or_else(|| bad(span.clone(), format!("`{t}` is not a number")))?;
        let v = v as i64;
        return Ok(Opnd::Int(if neg { v.wrapping_neg() } else { v }));
    }
    if t.starts_with(|c: char| c == '.' || c == '_' || c.is_ascii_alphabetic())
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$')
    {
        return Ok(Opnd::Label(t.to_string()));
    }
    Err(bad(span.clone(), format!("`{t}` is not an operand")))
}

/// Fixes the span of a register-range error (which has no span of its own).
fn with_span(e: SimError, span: &Span) -> SimError {
    match e {
        SimError::BadOperand { span: s, what } if s.is_empty() => SimError::BadOperand {
            span: span.clone(),
            what,
        },
        e => e,
    }
}
