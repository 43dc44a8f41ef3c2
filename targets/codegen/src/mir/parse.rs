//! The machine-IR text reader, so that passes can be tested on
//! hand-written input as LLVM's MIR tests are (grammar in
//! `mir/grammar.pest`, shown with an example there).
//!
//! Names are the register description's: `%5:VReg_64` takes a register
//! class, `%5.sub1` a `SubRegIndex`, `$V0` a register (matched exactly,
//! else ignoring case, so LLVM's lower-case `$vgpr0` style works too). A
//! virtual register's class is written at least once, at any mention.
//! Operand flags that the instruction's description implies (ties,
//! early-clobber, its implicit registers) are added when left out, and are
//! errors when written differently. Every problem is a located diagnostic.

use std::collections::HashMap;

use pest::iterators::Pair;
use pest::Parser as _;
use regdesc_runtime::{LaneBits, Reg, RegClass, RegisterInfo, SubRegIdx, Tables};

use crate::diag::{Diag, Diagnostics};
use crate::ir::{Source, Span};
use crate::mir::instr::OpKind;
use crate::mir::{
    FrameIdx, FrameObject, InstrSet, MBlock, MBlockId, MFunction, MInst, Operand, Props,
    RegOperand, RegRef, Sem, VReg,
};

#[derive(pest_derive::Parser)]
#[grammar = "mir/grammar.pest"]
struct MirParser;

/// Reads every function of a machine-IR text.
pub fn parse_mir<R: RegisterInfo>(
    source: Source,
    ri: &R,
    instrs: &InstrSet,
) -> Result<Vec<MFunction>, Diagnostics> {
    let tables = ri.tables();
    let text = source.text.clone();
    let pairs = match MirParser::parse(Rule::file, &text) {
        Ok(p) => p,
        Err(e) => return Err(Diagnostics::new(source, vec![syntax_error(&text, &e)])),
    };
    let names = Names::new(tables);
    let mut out: Vec<MFunction> = Vec::new();
    let mut diags = Vec::new();
    for f in pairs.flat_map(|p| p.into_inner()) {
        if f.as_rule() != Rule::function {
            continue;
        }
        match (Builder {
            names: &names,
            instrs,
            vreg_mentions: HashMap::new(),
        })
        .function(f)
        {
            Ok(func) => {
                if out.iter().any(|g| g.name == func.name) {
                    let span = func.span.clone().unwrap_or(0..0);
                    diags.push(
                        Diag::new(
                            "mir::redefinition",
                            format!("function '@{}' is defined twice", func.name),
                            span,
                        )
                        .label("defined again here"),
                    );
                } else {
                    out.push(func);
                }
            }
            Err(d) => diags.push(d),
        }
    }
    if diags.is_empty() {
        Ok(out)
    } else {
        Err(Diagnostics::new(source, diags))
    }
}

/// Name lookups in the tables.
struct Names<'t, L: LaneBits + 'static> {
    tables: &'t Tables<L>,
    classes: HashMap<&'static str, RegClass>,
    subs: HashMap<&'static str, SubRegIdx>,
    regs_lower: HashMap<String, Reg>,
}

impl<'t, L: LaneBits> Names<'t, L> {
    fn new(tables: &'t Tables<L>) -> Self {
        let classes = tables
            .all_classes()
            .map(|c| (tables.class_name(c), c))
            .collect();
        let subs = tables
            .all_sub_reg_indices()
            .map(|i| (tables.sub_reg_index_name(i), i))
            .collect();
        let regs_lower = tables
            .all_regs()
            .map(|r| (tables.name(r).to_ascii_lowercase(), r))
            .collect();
        Names {
            tables,
            classes,
            subs,
            regs_lower,
        }
    }

    fn reg(&self, name: &str) -> Option<Reg> {
        self.tables
            .reg_by_name(name)
            .or_else(|| self.regs_lower.get(&name.to_ascii_lowercase()).copied())
    }
}

fn span(p: &Pair<Rule>) -> Span {
    p.as_span().start()..p.as_span().end()
}

fn describe(r: Rule) -> &'static str {
    match r {
        Rule::function => "`function`",
        Rule::fn_name => "a function name (`@f`)",
        Rule::stack_decl | Rule::stack_ref => "a stack slot (`%stack.0: size 4, align 4`)",
        Rule::block | Rule::block_label => "a block label (`bb.0:`)",
        Rule::inst | Rule::def_list | Rule::opcode => "an instruction",
        Rule::operand | Rule::operand_list => "an operand",
        Rule::reg_operand | Rule::reg | Rule::vreg | Rule::preg => "a register (`%0`, `$R0`)",
        Rule::implicit_kw => "`implicit` or `implicit-def`",
        Rule::flag => "a register flag",
        Rule::sub_name => "a sub-register index name",
        Rule::class_ann | Rule::class_name => "a register class (`:GPR`)",
        Rule::tied => "`(tied-def N)`",
        Rule::imm => "an immediate",
        Rule::block_ref => "a block (`%bb.1`)",
        Rule::subreg_ref => "a sub-register index (`%subreg.sub0`)",
        Rule::uint => "a number",
        Rule::EOI => "end of file",
        _ => "something else",
    }
}

fn syntax_error(text: &str, e: &pest::error::Error<Rule>) -> Diag {
    let mut pos = match e.location {
        pest::error::InputLocation::Pos(p) => p,
        pest::error::InputLocation::Span((s, _)) => s,
    };
    let mut words: Vec<&str> = match &e.variant {
        pest::error::ErrorVariant::ParsingError { positives, .. } => {
            positives.iter().map(|&r| describe(r)).collect()
        }
        pest::error::ErrorVariant::CustomError { .. } => Vec::new(),
    };
    words.sort();
    words.dedup();
    let expected = match words.as_slice() {
        [] => "something else".to_string(),
        [one] => one.to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    };
    while text
        .as_bytes()
        .get(pos)
        .is_some_and(|b| *b == b' ' || *b == b'\t')
    {
        pos += 1;
    }
    let rest = text.get(pos..).unwrap_or("");
    let (found, len) = match rest.chars().next() {
        None => ("end of file".to_string(), 0),
        Some('\n') | Some('\r') => ("end of line".to_string(), 1),
        Some(c) => {
            let is_word = |c: char| c.is_ascii_alphanumeric() || "_.$%@-".contains(c);
            let len = if is_word(c) {
                rest.find(|c: char| !is_word(c)).unwrap_or(rest.len())
            } else {
                c.len_utf8()
            };
            (format!("`{}`", &rest[..len]), len)
        }
    };
    Diag::new(
        "mir::syntax",
        format!("expected {expected}, found {found}"),
        pos..pos + len,
    )
    .label(format!("expected {expected}"))
    .help("the machine-IR text form is described in `regdesc_codegen::mir::parse`")
}

fn number<T: std::str::FromStr>(p: &Pair<Rule>, what: &str) -> Result<T, Diag> {
    p.as_str().parse::<T>().map_err(|_| {
        Diag::new(
            "mir::number",
            format!("{what} `{}` is out of range", p.as_str()),
            span(p),
        )
        .label("too large")
    })
}

/// Where a virtual register is first mentioned, and its class and where
/// that was given.
type Mention = (Span, Option<(RegClass, Span)>);

struct Builder<'a, 't, L: LaneBits + 'static> {
    names: &'a Names<'t, L>,
    instrs: &'a InstrSet,
    /// Each virtual register's first mention and its class annotations.
    vreg_mentions: HashMap<u32, Mention>,
}

impl<L: LaneBits> Builder<'_, '_, L> {
    fn function(mut self, p: Pair<Rule>) -> Result<MFunction, Diag> {
        let mut inner = p.into_inner();
        let name_pair = inner
            .next()
            .ok_or_else(|| Diag::unlocated("mir::syntax", "function without a name"))?;
        let mut f = MFunction::new(name_pair.as_str().trim_start_matches('@'));
        f.span = Some(span(&name_pair));
        for item in inner {
            match item.as_rule() {
                Rule::stack_decl => self.stack_decl(&mut f, item)?,
                Rule::block => {
                    let b = self.block(&f, item)?;
                    f.blocks.push(b);
                }
                _ => {}
            }
        }
        if f.blocks.is_empty() {
            return Err(Diag::new(
                "mir::empty-function",
                format!("function '@{}' has no blocks", f.name),
                f.span.clone().unwrap_or(0..0),
            )
            .label("no `bb.0:`")
            .help("a function body is a list of blocks `bb.0:`, `bb.1:`, ..."));
        }
        // Classes of virtual registers.
        let mut vregs: Vec<(u32, Mention)> = self.vreg_mentions.into_iter().collect();
        vregs.sort_by_key(|(n, _)| *n);
        let top = vregs.last().map_or(0, |(n, _)| *n as usize + 1);
        f.vregs = vec![None; top].into();
        for (n, (first, class)) in vregs {
            match class {
                Some((c, _)) => f.vregs[VReg(n)] = Some(c),
                None => {
                    return Err(Diag::new(
                        "mir::no-class",
                        format!("virtual register %{n} has no register class"),
                        first,
                    )
                    .label("class not given")
                    .help(format!("write the class at one mention, e.g. `%{n}:CLASS`")))
                }
            }
        }
        f.props = infer_props(&f, self.instrs);
        Ok(f)
    }

    fn stack_decl(&mut self, f: &mut MFunction, p: Pair<Rule>) -> Result<(), Diag> {
        let sp = span(&p);
        let mut it = p.into_inner();
        let (Some(slot), Some(size), Some(align)) = (it.next(), it.next(), it.next()) else {
            return Err(Diag::new("mir::syntax", "malformed stack slot", sp));
        };
        let n: u32 = number(
            &slot.clone().into_inner().next().unwrap_or(slot.clone()),
            "slot",
        )?;
        if n as usize != f.frame.len() {
            return Err(Diag::new(
                "mir::stack-numbering",
                format!("stack slot %stack.{n} declared out of order"),
                span(&slot),
            )
            .label(format!("expected %stack.{}", f.frame.len())));
        }
        let size: u32 = number(&size, "size")?;
        let align: u32 = number(&align, "alignment")?;
        if align == 0 || !align.is_power_of_two() {
            return Err(Diag::new(
                "mir::stack-align",
                format!("alignment {align} is not a power of two"),
                sp,
            )
            .label("bad alignment"));
        }
        f.frame.push(FrameObject { size, align });
        Ok(())
    }

    fn block(&mut self, f: &MFunction, p: Pair<Rule>) -> Result<MBlock, Diag> {
        let mut it = p.into_inner();
        let label = it
            .next()
            .ok_or_else(|| Diag::unlocated("mir::syntax", "block without a label"))?;
        let num_pair = label.clone().into_inner().next().unwrap_or(label.clone());
        let n: usize = number(&num_pair, "block number")?;
        if n != f.blocks.len() {
            return Err(Diag::new(
                "mir::block-numbering",
                format!("block bb.{n} out of order"),
                span(&label),
            )
            .label(format!("expected bb.{}", f.blocks.len()))
            .help("blocks are numbered bb.0, bb.1, ... in order"));
        }
        let mut b = MBlock {
            insts: Vec::new(),
            span: Some(span(&label)),
        };
        for inst in it {
            b.insts.push(self.inst(f, inst)?);
        }
        Ok(b)
    }

    fn inst(&mut self, f: &MFunction, p: Pair<Rule>) -> Result<MInst, Diag> {
        let sp = span(&p);
        let mut defs: Vec<(RegOperand, Span)> = Vec::new();
        let mut ops: Vec<(Operand, Span)> = Vec::new();
        let mut opcode_pair = None;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::def_list => {
                    for d in part.into_inner() {
                        let dsp = span(&d);
                        let r = self.reg_operand(f, d, true)?;
                        defs.push((r, dsp));
                    }
                }
                Rule::opcode => opcode_pair = Some(part),
                Rule::operand_list => {
                    for o in part.into_inner() {
                        let osp = span(&o);
                        let Some(o) = o.into_inner().next() else {
                            continue;
                        };
                        let op = self.operand(f, o)?;
                        ops.push((op, osp));
                    }
                }
                _ => {}
            }
        }
        let Some(opcode_pair) = opcode_pair else {
            return Err(Diag::new(
                "mir::syntax",
                "instruction without an opcode",
                sp,
            ));
        };
        let Some(opcode) = self.instrs.by_name(opcode_pair.as_str()) else {
            return Err(Diag::new(
                "mir::unknown-opcode",
                format!("unknown opcode `{}`", opcode_pair.as_str()),
                span(&opcode_pair),
            )
            .label("not in the instruction set")
            .help("the generic opcodes are COPY, PHI, REG_SEQUENCE, IMPLICIT_DEF, SPILL_STORE, SPILL_LOAD, ARG, MOVI, ADD, ..., BR, BRCOND, RET"));
        };
        let desc = self.instrs.desc(opcode);
        let name = desc.name.clone();

        // Explicit defs, then explicit operands, then implicit ones.
        if defs.len() != desc.num_defs {
            return Err(Diag::new(
                "mir::def-count",
                format!(
                    "{name} defines {} register{}, not {}",
                    desc.num_defs,
                    if desc.num_defs == 1 { "" } else { "s" },
                    defs.len()
                ),
                sp,
            )
            .label("wrong number of defs"));
        }
        let mut all: Vec<(Operand, Span)> = defs
            .into_iter()
            .map(|(r, s)| (Operand::Reg(r), s))
            .collect();
        let mut seen_implicit = false;
        for (o, s) in ops {
            let implicit = o.reg().is_some_and(|r| r.implicit());
            if seen_implicit && !implicit {
                return Err(Diag::new(
                    "mir::operand-order",
                    "explicit operand after an implicit one",
                    s,
                )
                .label("move it before the implicit operands"));
            }
            seen_implicit |= implicit;
            all.push((o, s));
        }
        let explicit = all
            .iter()
            .filter(|(o, _)| !o.reg().is_some_and(|r| r.implicit()))
            .count();
        let fixed = desc.num_fixed_operands();
        if explicit < fixed || (explicit > fixed && !desc.variadic) {
            return Err(Diag::new(
                "mir::operand-count",
                format!(
                    "{name} takes {}{} explicit operand{}, not {explicit}",
                    if desc.variadic { "at least " } else { "" },
                    fixed,
                    if fixed == 1 { "" } else { "s" }
                ),
                sp,
            )
            .label("wrong number of operands"));
        }
        for (k, kind) in desc.operands.iter().enumerate() {
            let i = desc.num_defs + k;
            let (o, s) = &all[i];
            let ok = match kind {
                OpKind::Reg => matches!(o, Operand::Reg(r) if !r.is_def()),
                OpKind::Imm => matches!(o, Operand::Imm(_)),
                OpKind::Block => matches!(o, Operand::Block(_)),
                OpKind::Frame => matches!(o, Operand::Frame(_)),
            };
            if !ok {
                let want = match kind {
                    OpKind::Reg => "a register",
                    OpKind::Imm => "an immediate",
                    OpKind::Block => "a block (`%bb.N`)",
                    OpKind::Frame => "a stack slot (`%stack.N`)",
                };
                return Err(Diag::new(
                    "mir::operand-kind",
                    format!("operand {i} of {name} must be {want}"),
                    s.clone(),
                )
                .label(format!("expected {want}")));
            }
        }
        // Ties and early-clobber from the description.
        for (i, (o, s)) in all.iter_mut().enumerate() {
            let Operand::Reg(r) = o else { continue };
            if r.implicit() {
                continue;
            }
            let want_tie = desc.tied_def_of(i);
            match (r.tied_def(), want_tie) {
                (Some(t), Some(w)) if t as usize != w => {
                    return Err(Diag::new(
                        "mir::tied-operand",
                        format!("operand {i} of {name} is tied to def {w}, not {t}"),
                        s.clone(),
                    )
                    .label(format!("expected (tied-def {w})")))
                }
                (Some(_), None) => {
                    return Err(Diag::new(
                        "mir::tied-operand",
                        format!("operand {i} of {name} is not a tied operand"),
                        s.clone(),
                    )
                    .label("no tie here"))
                }
                (None, Some(w)) => r.set_tied_def(Some(w as u8)),
                _ => {}
            }
            let want_ec = desc.early_clobber.contains(&i);
            if r.early_clobber() && !want_ec {
                return Err(Diag::new(
                    "mir::early-clobber",
                    format!("operand {i} of {name} is not an early-clobber def"),
                    s.clone(),
                )
                .label("not early-clobber"));
            }
            r.set_early_clobber(r.early_clobber() | (want_ec && r.is_def()));
        }
        let mut ops: Vec<Operand> = all.into_iter().map(|(o, _)| o).collect();
        // Implicit registers of the description that were left out.
        for (&r, is_def) in desc
            .implicit_defs
            .iter()
            .map(|r| (r, true))
            .chain(desc.implicit_uses.iter().map(|r| (r, false)))
        {
            let present = ops.iter().any(|o| {
                o.reg().is_some_and(|x| {
                    x.implicit() && x.is_def() == is_def && x.reg == RegRef::Phys(r)
                })
            });
            if !present {
                let mut op = if is_def {
                    RegOperand::def_of(RegRef::Phys(r), None)
                } else {
                    RegOperand::use_of(RegRef::Phys(r), None)
                };
                op.set_implicit(true);
                ops.push(Operand::Reg(op));
            }
        }
        Ok(MInst {
            opcode,
            ops: ops.into(),
            span: Some(Box::new(sp)),
        })
    }

    fn operand(&mut self, f: &MFunction, p: Pair<Rule>) -> Result<Operand, Diag> {
        match p.as_rule() {
            Rule::block_ref => {
                let n_pair = p.clone().into_inner().next().unwrap_or(p.clone());
                let n: u32 = number(&n_pair, "block number")?;
                Ok(Operand::Block(MBlockId(n)))
            }
            Rule::stack_ref => {
                let n_pair = p.clone().into_inner().next().unwrap_or(p.clone());
                let n: u32 = number(&n_pair, "stack slot")?;
                if n as usize >= f.frame.len() {
                    return Err(Diag::new(
                        "mir::undefined-stack-slot",
                        format!("stack slot %stack.{n} is not declared"),
                        span(&p),
                    )
                    .label("no such slot")
                    .help("declare it at the top of the function: `%stack.N: size S, align A`"));
                }
                Ok(Operand::Frame(FrameIdx(n)))
            }
            Rule::subreg_ref => {
                let name = p.clone().into_inner().next().unwrap_or(p.clone());
                let i = self.sub_index(&name)?;
                Ok(Operand::SubIdx(i))
            }
            Rule::imm => {
                let v: i64 = number(&p, "immediate")?;
                Ok(Operand::Imm(v))
            }
            _ => Ok(Operand::Reg(self.reg_operand(f, p, false)?)),
        }
    }

    fn sub_index(&self, p: &Pair<Rule>) -> Result<SubRegIdx, Diag> {
        self.names.subs.get(p.as_str()).copied().ok_or_else(|| {
            Diag::new(
                "mir::unknown-sub-register-index",
                format!("unknown sub-register index `{}`", p.as_str()),
                span(p),
            )
            .label("not a SubRegIndex of the register description")
        })
    }

    fn reg_operand(
        &mut self,
        _f: &MFunction,
        p: Pair<Rule>,
        is_def: bool,
    ) -> Result<RegOperand, Diag> {
        let mut op = RegOperand::use_of(RegRef::Virt(VReg(0)), None);
        op.set_def(is_def);
        let mut reg_span = span(&p);
        let mut class: Option<(RegClass, Span)> = None;
        let mut vreg: Option<u32> = None;
        for part in p.into_inner() {
            match part.as_rule() {
                Rule::implicit_kw => {
                    if is_def {
                        return Err(Diag::new(
                            "mir::implicit-def-position",
                            "implicit operands go after the opcode",
                            span(&part),
                        )
                        .label("written before `=`"));
                    }
                    op.set_implicit(true);
                    op.set_def(part.as_str() == "implicit-def");
                }
                Rule::flag => {
                    let ok = match part.as_str() {
                        "undef" | "renamable" => true,
                        "dead" => {
                            op.set_dead(true);
                            op.is_def()
                        }
                        "killed" => {
                            op.set_kill(true);
                            !op.is_def()
                        }
                        "early-clobber" => {
                            op.set_early_clobber(true);
                            op.is_def()
                        }
                        _ => true,
                    };
                    if part.as_str() == "undef" {
                        op.set_undef(true);
                    }
                    if !ok {
                        return Err(Diag::new(
                            "mir::flag",
                            format!(
                                "`{}` does not apply to a {}",
                                part.as_str(),
                                if op.is_def() { "def" } else { "use" }
                            ),
                            span(&part),
                        )
                        .label("misplaced flag"));
                    }
                }
                Rule::reg => {
                    reg_span = span(&part);
                    for r in part.into_inner() {
                        match r.as_rule() {
                            Rule::vreg => {
                                let n: u32 = r.as_str()[1..].parse().map_err(|_| {
                                    Diag::new(
                                        "mir::number",
                                        format!(
                                            "virtual register `{}` is out of range",
                                            r.as_str()
                                        ),
                                        span(&r),
                                    )
                                    .label("too large")
                                })?;
                                if n > 1 << 24 {
                                    return Err(Diag::new(
                                        "mir::number",
                                        format!("virtual register %{n} is out of range"),
                                        span(&r),
                                    )
                                    .label("at most %16777216"));
                                }
                                vreg = Some(n);
                                op.reg = RegRef::Virt(VReg(n));
                            }
                            Rule::sub_name => op.sub = Some(self.sub_index(&r)?),
                            Rule::preg => {
                                let name = r.as_str().trim_start_matches('$');
                                let Some(reg) = self.names.reg(name) else {
                                    return Err(Diag::new(
                                        "mir::unknown-register",
                                        format!("unknown register `${name}`"),
                                        span(&r),
                                    )
                                    .label("not a register of the description"));
                                };
                                op.reg = RegRef::Phys(reg);
                            }
                            _ => {}
                        }
                    }
                }
                Rule::class_ann => {
                    let name = part.clone().into_inner().next().unwrap_or(part.clone());
                    let Some(&c) = self.names.classes.get(name.as_str()) else {
                        return Err(Diag::new(
                            "mir::unknown-class",
                            format!("unknown register class `{}`", name.as_str()),
                            span(&name),
                        )
                        .label("not a register class of the description"));
                    };
                    class = Some((c, span(&name)));
                }
                Rule::tied => {
                    if op.is_def() {
                        return Err(Diag::new(
                            "mir::tied-operand",
                            "`tied-def` goes on the use, not the def",
                            span(&part),
                        )
                        .label("on a def"));
                    }
                    let n_pair = part.clone().into_inner().next().unwrap_or(part.clone());
                    let n: u8 = number(&n_pair, "operand number")?;
                    op.set_tied_def(Some(n));
                }
                _ => {}
            }
        }
        match (vreg, &class) {
            (None, Some((_, csp))) => {
                return Err(Diag::new(
                    "mir::class-on-physical",
                    "a physical register has no class annotation",
                    csp.clone(),
                )
                .label("remove this"))
            }
            (Some(n), _) => {
                let entry = self
                    .vreg_mentions
                    .entry(n)
                    .or_insert_with(|| (reg_span.clone(), None));
                if let Some((c, csp)) = class {
                    match &entry.1 {
                        Some((prev, prev_span)) if *prev != c => {
                            let t = self.names.tables;
                            return Err(Diag::new(
                                "mir::class-mismatch",
                                format!(
                                    "%{n} is given class {} here and {} before",
                                    t.class_name(c),
                                    t.class_name(*prev)
                                ),
                                csp,
                            )
                            .label("conflicting class")
                            .note(prev_span.clone(), "first given here"));
                        }
                        Some(_) => {}
                        None => entry.1 = Some((c, csp)),
                    }
                }
            }
            _ => {}
        }
        if matches!(op.reg, RegRef::Phys(_)) && op.sub.is_some() {
            return Err(Diag::new(
                "mir::physical-sub-register",
                "sub-register indices apply to virtual registers only",
                reg_span,
            )
            .label("name the sub-register itself"));
        }
        Ok(op)
    }
}

/// What a freshly read function satisfies (as LLVM's MIR reader infers
/// its properties).
pub fn infer_props(f: &MFunction, instrs: &InstrSet) -> Props {
    let mut defs = vec![0u32; f.vregs.len()];
    let mut partial = false;
    let (mut phis, mut vregs, mut reg_seq, mut tied_apart) = (false, false, false, false);
    for b in &f.blocks {
        for i in &b.insts {
            let sem = instrs.get(i.opcode).map(|d| d.sem);
            phis |= sem == Some(Sem::Phi);
            reg_seq |= sem == Some(Sem::RegSequence);
            for (_, r) in i.reg_ops() {
                if let Some(v) = r.vreg() {
                    vregs = true;
                    if r.is_def() {
                        if let Some(n) = defs.get_mut(v.index()) {
                            *n += 1;
                        }
                        partial |= r.sub.is_some();
                    }
                }
                if let Some(d) = r.tied_def() {
                    let same = i
                        .ops
                        .get(d as usize)
                        .and_then(Operand::reg)
                        .is_some_and(|x| x.reg == r.reg && x.sub == r.sub);
                    tied_apart |= !same;
                }
            }
        }
    }
    Props {
        ssa: !partial && defs.iter().all(|&n| n <= 1),
        no_phis: !phis,
        tied_lowered: !reg_seq && !tied_apart,
        no_vregs: !vregs,
    }
}
