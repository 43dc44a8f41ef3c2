//! The machine verifier (LLVM's `MachineVerifier`, for this IR): checks
//! that a function is well formed for the instruction set and the register
//! description, and that it satisfies the properties it claims
//! ([`crate::mir::Props`]).
//!
//! The hardware facts it guards: a sub-register index is only used on
//! classes whose every register has that sub-register (otherwise some
//! allocation would have no such part); instructions compute on operands
//! of matching widths; tied operands name one register once two-address
//! lowering has run; an early-clobber result never names a register the
//! instruction reads; after allocation only physical registers remain.
//!
//! Problems are located at the instruction's text when it was parsed, and
//! described by block and position otherwise.

use regdesc_runtime::RegisterInfo;

use crate::diag::{Diag, Diagnostics};
use crate::ir::Source;
use crate::mir::cfg::MCfg;
use crate::mir::instr::OpKind;
use crate::mir::liveness::{operand_lanes, Liveness};
use crate::mir::print::print_inst;
use crate::mir::widths::operand_width;
use crate::mir::{InstrSet, MBlockId, MFunction, MInst, Operand, RegRef, Sem, VReg};

/// Checks `f`; every problem found.
pub fn verify_function<R: RegisterInfo>(f: &MFunction, ri: &R, instrs: &InstrSet) -> Vec<Diag> {
    let mut v = Verifier {
        f,
        ri,
        instrs,
        diags: Vec::new(),
    };
    v.run();
    v.diags
}

/// Checks `f` read from `source`: its problems as rendered diagnostics.
pub fn verify_parsed<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    source: &Source,
) -> Result<(), Diagnostics> {
    let diags = verify_function(f, ri, instrs);
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics::new(source.clone(), diags))
    }
}

struct Verifier<'a, R: RegisterInfo> {
    f: &'a MFunction,
    ri: &'a R,
    instrs: &'a InstrSet,
    diags: Vec<Diag>,
}

impl<R: RegisterInfo> Verifier<'_, R> {
    fn report(&mut self, b: MBlockId, k: usize, i: &MInst, code: &'static str, msg: String) {
        let d = match &i.span {
            Some(sp) => {
                let d = Diag::new(code, msg, (**sp).clone()).label(label(code));
                match help(code) {
                    Some(h) => d.help(h),
                    None => d,
                }
            }
            None => Diag::unlocated(
                code,
                format!(
                    "{msg} (in @{}, bb.{}, instruction {k}: `{}`)",
                    self.f.name,
                    b.0,
                    print_inst(self.f, i, self.ri, self.instrs)
                ),
            ),
        };
        self.diags.push(d);
    }

    fn run(&mut self) {
        let f = self.f;
        if f.blocks.is_empty() {
            self.diags.push(Diag::unlocated(
                "mir::empty-function",
                format!("@{} has no blocks", f.name),
            ));
            return;
        }
        let cfg = MCfg::new(f);
        for (bi, b) in f.blocks.iter().enumerate() {
            let bid = MBlockId(bi as u32);
            if b.insts.is_empty() {
                let msg = format!("bb.{bi} has no instructions");
                self.diags.push(match &b.span {
                    Some(sp) => Diag::new("mir::empty-block", msg, sp.clone())
                        .label("empty block")
                        .help("every block ends with a terminator (BR, BRCOND, RET)"),
                    None => Diag::unlocated("mir::empty-block", format!("{msg} in @{}", f.name)),
                });
                continue;
            }
            let mut in_phis = true;
            for (k, i) in b.insts.iter().enumerate() {
                let Some(desc) = self.instrs.get(i.opcode) else {
                    self.report(bid, k, i, "mir::bad-opcode", "unknown opcode".into());
                    continue;
                };
                let last = k + 1 == b.insts.len();
                if desc.is_terminator && !last {
                    self.report(
                        bid,
                        k,
                        i,
                        "mir::terminator",
                        format!("terminator {} before the end of bb.{bi}", desc.name),
                    );
                }
                if last && !desc.is_terminator {
                    self.report(
                        bid,
                        k,
                        i,
                        "mir::no-terminator",
                        format!("bb.{bi} does not end with a terminator"),
                    );
                }
                if desc.sem == Sem::Phi {
                    if !in_phis {
                        self.report(
                            bid,
                            k,
                            i,
                            "mir::phi-position",
                            "PHI after a non-PHI instruction".into(),
                        );
                    }
                    if f.props.no_phis {
                        self.report(
                            bid,
                            k,
                            i,
                            "mir::phi",
                            "PHI in a function without PHIs (after PHI elimination)".into(),
                        );
                    }
                    self.phi(&cfg, bid, k, i);
                } else {
                    in_phis = false;
                }
                self.shape(bid, k, i);
                self.registers(bid, k, i);
                self.widths(bid, k, i);
            }
        }
        if f.props.ssa {
            self.ssa(&cfg);
        } else if f.props.no_phis && !f.props.no_vregs && self.diags.is_empty() {
            self.defined_before_use(&cfg);
        }
    }

    fn shape(&mut self, b: MBlockId, k: usize, i: &MInst) {
        let desc = self.instrs.desc(i.opcode);
        let name = desc.name.clone();
        let explicit: Vec<&Operand> = i
            .ops
            .iter()
            .filter(|o| !o.reg().is_some_and(|r| r.implicit()))
            .collect();
        let num_explicit = explicit.len();
        if let Some(p) = i
            .ops
            .iter()
            .position(|o| o.reg().is_some_and(|r| r.implicit()))
        {
            if p < num_explicit {
                self.report(
                    b,
                    k,
                    i,
                    "mir::operand-order",
                    "explicit operand after an implicit one".into(),
                );
                return;
            }
        }
        for d in 0..desc.num_defs {
            if !matches!(explicit.get(d), Some(Operand::Reg(r)) if r.is_def()) {
                self.report(
                    b,
                    k,
                    i,
                    "mir::def-count",
                    format!("operand {d} of {name} must be a def"),
                );
                return;
            }
        }
        let fixed = desc.num_fixed_operands();
        if num_explicit < fixed || (num_explicit > fixed && !desc.variadic) {
            self.report(
                b,
                k,
                i,
                "mir::operand-count",
                format!("{name} takes {fixed} explicit operands, not {num_explicit}"),
            );
            return;
        }
        for (j, kind) in desc.operands.iter().enumerate() {
            let o = explicit[desc.num_defs + j];
            let ok = match kind {
                OpKind::Reg => matches!(o, Operand::Reg(r) if !r.is_def()),
                OpKind::Imm => matches!(o, Operand::Imm(_)),
                OpKind::Block => matches!(o, Operand::Block(_)),
                OpKind::Frame => matches!(o, Operand::Frame(_)),
            };
            if !ok {
                self.report(
                    b,
                    k,
                    i,
                    "mir::operand-kind",
                    format!("operand {} of {name} has the wrong kind", desc.num_defs + j),
                );
            }
        }
        for (j, o) in i.ops.iter().enumerate() {
            match o {
                Operand::Block(t) if t.index() >= self.f.blocks.len() => {
                    self.report(
                        b,
                        k,
                        i,
                        "mir::undefined-block",
                        format!("%bb.{} does not exist", t.0),
                    );
                }
                Operand::Frame(s) if s.0 as usize >= self.f.frame.len() => {
                    self.report(
                        b,
                        k,
                        i,
                        "mir::undefined-stack-slot",
                        format!("%stack.{} does not exist", s.0),
                    );
                }
                Operand::Reg(r) if !r.implicit() => {
                    if r.is_def() && j >= desc.num_defs {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::def-position",
                            format!("explicit def at operand {j} of {name}"),
                        );
                    }
                    let want = desc.tied_def_of(j);
                    if r.tied_def().map(usize::from) != want {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::tied-operand",
                            format!(
                                "operand {j} of {name} must be tied to {want:?}, is {:?}",
                                r.tied_def()
                            ),
                        );
                    } else if let (Some(d), true) = (want, self.f.props.tied_lowered) {
                        let same = i
                            .ops
                            .get(d)
                            .and_then(Operand::reg)
                            .is_some_and(|x| x.reg == r.reg && x.sub == r.sub);
                        if !same {
                            self.report(b, k, i, "mir::tied-operand", format!("tied operands {d} and {j} of {name} name different registers after two-address lowering"));
                        }
                    }
                    if r.is_def() && r.early_clobber() != desc.early_clobber.contains(&j) {
                        self.report(b, k, i, "mir::early-clobber", format!("operand {j} of {name}: early-clobber does not match the description"));
                    }
                }
                _ => {}
            }
        }
        if desc.sem == Sem::RegSequence && self.f.props.tied_lowered {
            self.report(
                b,
                k,
                i,
                "mir::reg-sequence",
                "REG_SEQUENCE after two-address lowering".into(),
            );
        }
    }

    fn registers(&mut self, b: MBlockId, k: usize, i: &MInst) {
        let t = self.ri.tables();
        let mut early: Vec<(VReg, Option<regdesc_runtime::SubRegIdx>)> = Vec::new();
        for (_, r) in i.reg_ops() {
            match r.reg {
                RegRef::Virt(v) => {
                    if self.f.props.no_vregs {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::virtual-register",
                            format!("%{} after register allocation", v.0),
                        );
                    }
                    let Some(rc) = self.f.class_of(v) else {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::no-class",
                            format!("%{} has no register class", v.0),
                        );
                        continue;
                    };
                    if rc.index() >= t.num_classes() {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::bad-class",
                            format!("%{} has an unknown class", v.0),
                        );
                        continue;
                    }
                    if let Some(s) = r.sub {
                        if t.sub_class_with_sub_reg(rc, s) != Some(rc) {
                            self.report(
                                b,
                                k,
                                i,
                                "mir::sub-register",
                                format!(
                                    "not every register of {} has a {} sub-register",
                                    t.class_name(rc),
                                    t.sub_reg_index_name(s)
                                ),
                            );
                        }
                    }
                    if r.is_def() && r.early_clobber() {
                        early.push((v, r.sub));
                    }
                }
                RegRef::Phys(p) => {
                    if p.index() >= t.num_regs() {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::bad-register",
                            "unknown physical register".into(),
                        );
                    }
                    if r.sub.is_some() {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::physical-sub-register",
                            "sub-register index on a physical register".into(),
                        );
                    }
                }
            }
        }
        for (v, sub) in early {
            let Some(rc) = self.f.class_of(v) else {
                continue;
            };
            let lanes = operand_lanes(t, rc, sub);
            let overlaps = |r: &crate::mir::RegOperand| {
                r.reads() && r.vreg() == Some(v) && operand_lanes(t, rc, r.sub).intersects(lanes)
            };
            if i.reg_ops().any(|(_, r)| overlaps(r)) {
                self.report(
                    b,
                    k,
                    i,
                    "mir::early-clobber",
                    format!("early-clobber def of %{} which the instruction reads", v.0),
                );
            }
        }
        // After allocation: an early-clobber def overlaps no use.
        for (_, d) in i.reg_ops().filter(|(_, r)| r.is_def() && r.early_clobber()) {
            let Some(p) = d.phys() else { continue };
            for (_, u) in i.reg_ops().filter(|(_, r)| r.reads()) {
                if let Some(q) = u.phys() {
                    if t.regs_overlap(p, q) {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::early-clobber",
                            format!(
                                "early-clobber def ${} overlaps use ${}",
                                t.name(p),
                                t.name(q)
                            ),
                        );
                    }
                }
            }
        }
    }

    fn widths(&mut self, b: MBlockId, k: usize, i: &MInst) {
        let desc = self.instrs.desc(i.opcode);
        let w = |j: usize| -> Option<u32> {
            i.ops
                .get(j)
                .and_then(Operand::reg)
                .and_then(|r| operand_width(self.ri, self.f, r))
        };
        let groups: Vec<Vec<usize>> = match desc.sem {
            Sem::Copy => vec![vec![0, 1]],
            Sem::Binary(_) => vec![vec![0, 1, 2]],
            Sem::Compare(_) => vec![vec![1, 2]],
            Sem::Select => vec![vec![0, 2, 3]],
            Sem::Phi => vec![std::iter::once(0)
                .chain((1..i.ops.len()).step_by(2))
                .collect()],
            _ => Vec::new(),
        };
        for g in groups {
            let ws: Vec<Option<u32>> = g.iter().map(|&j| w(j)).collect();
            if ws.iter().any(Option::is_none)
                && g.iter()
                    .all(|&j| i.ops.get(j).is_some_and(|o| o.reg().is_some()))
            {
                self.report(
                    b,
                    k,
                    i,
                    "mir::width",
                    "an operand's width is unknown to the register description".into(),
                );
            } else if ws.windows(2).any(|p| p[0] != p[1]) {
                let list: Vec<String> = ws
                    .iter()
                    .map(|x| x.map_or("?".into(), |x| x.to_string()))
                    .collect();
                self.report(
                    b,
                    k,
                    i,
                    "mir::width",
                    format!(
                        "{} operands have different widths: {}",
                        desc.name,
                        list.join(", ")
                    ),
                );
            }
        }
        match desc.sem {
            Sem::RegSequence => self.reg_sequence(b, k, i),
            Sem::StackStore | Sem::StackLoad => {
                // The register is operand 0 of both.
                let reg = 0;
                let slot = i.ops.iter().find_map(|o| match o {
                    Operand::Frame(s) => Some(*s),
                    _ => None,
                });
                if let (Some(bits), Some(s)) = (w(reg), slot) {
                    if let Some(obj) = self.f.frame.get(s.0 as usize) {
                        if u64::from(bits) > u64::from(obj.size) * 8 {
                            self.report(
                                b,
                                k,
                                i,
                                "mir::stack-slot",
                                format!(
                                    "{bits} bits do not fit %stack.{} ({} bytes)",
                                    s.0, obj.size
                                ),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn reg_sequence(&mut self, b: MBlockId, k: usize, i: &MInst) {
        let t = self.ri.tables();
        let Some(def) = i.ops.first().and_then(Operand::reg) else {
            return;
        };
        let Some(rc) = def.vreg().and_then(|v| self.f.class_of(v)) else {
            self.report(
                b,
                k,
                i,
                "mir::reg-sequence",
                "REG_SEQUENCE defines a virtual register".into(),
            );
            return;
        };
        if def.sub.is_some() {
            self.report(
                b,
                k,
                i,
                "mir::reg-sequence",
                "REG_SEQUENCE defines a whole register".into(),
            );
        }
        let rest: Vec<&Operand> = i.ops[1..]
            .iter()
            .filter(|o| !o.reg().is_some_and(|r| r.implicit()))
            .collect();
        if !rest.len().is_multiple_of(2) || rest.is_empty() {
            self.report(
                b,
                k,
                i,
                "mir::reg-sequence",
                "REG_SEQUENCE takes pairs of a register and %subreg.INDEX".into(),
            );
            return;
        }
        let mut seen = regdesc_runtime::LaneMask::NONE;
        for pair in rest.chunks(2) {
            let (Operand::Reg(r), Operand::SubIdx(s)) = (pair[0], pair[1]) else {
                self.report(
                    b,
                    k,
                    i,
                    "mir::reg-sequence",
                    "REG_SEQUENCE takes pairs of a register and %subreg.INDEX".into(),
                );
                return;
            };
            if t.sub_class_with_sub_reg(rc, *s) != Some(rc) {
                self.report(
                    b,
                    k,
                    i,
                    "mir::sub-register",
                    format!(
                        "not every register of {} has a {} sub-register",
                        t.class_name(rc),
                        t.sub_reg_index_name(*s)
                    ),
                );
                continue;
            }
            let lanes = operand_lanes(t, rc, Some(*s));
            if lanes.intersects(seen) {
                self.report(
                    b,
                    k,
                    i,
                    "mir::reg-sequence",
                    format!("{} overlaps an earlier part", t.sub_reg_index_name(*s)),
                );
            }
            seen |= lanes;
            let (wv, ws) = (
                operand_width(self.ri, self.f, r),
                crate::mir::widths::index_width(self.ri, *s),
            );
            if wv != ws {
                self.report(
                    b,
                    k,
                    i,
                    "mir::width",
                    format!(
                        "a {}-bit part does not fit {}",
                        wv.unwrap_or(0),
                        t.sub_reg_index_name(*s)
                    ),
                );
            }
        }
    }

    fn phi(&mut self, cfg: &MCfg, b: MBlockId, k: usize, i: &MInst) {
        if i.ops
            .first()
            .and_then(Operand::reg)
            .is_some_and(|r| r.sub.is_some() || r.vreg().is_none())
        {
            self.report(
                b,
                k,
                i,
                "mir::phi",
                "a PHI defines a whole virtual register".into(),
            );
        }
        let rest = &i.ops[1.min(i.ops.len())..];
        if !rest.len().is_multiple_of(2) {
            self.report(
                b,
                k,
                i,
                "mir::phi",
                "PHI takes pairs of a value and a block".into(),
            );
            return;
        }
        let mut seen: Vec<MBlockId> = Vec::new();
        for pair in rest.chunks(2) {
            match (&pair[0], &pair[1]) {
                (Operand::Reg(r), Operand::Block(p)) if !r.is_def() => {
                    if seen.contains(p) {
                        self.report(b, k, i, "mir::phi", format!("%bb.{} appears twice", p.0));
                    }
                    seen.push(*p);
                    if !cfg.preds(b).contains(p) {
                        self.report(
                            b,
                            k,
                            i,
                            "mir::phi",
                            format!("%bb.{} is not a predecessor of bb.{}", p.0, b.0),
                        );
                    }
                }
                _ => {
                    self.report(
                        b,
                        k,
                        i,
                        "mir::phi",
                        "PHI takes pairs of a value and a block".into(),
                    );
                    return;
                }
            }
        }
        for p in cfg.preds(b) {
            if !seen.contains(p) {
                self.report(
                    b,
                    k,
                    i,
                    "mir::phi",
                    format!("no value for predecessor %bb.{}", p.0),
                );
            }
        }
    }

    fn ssa(&mut self, cfg: &MCfg) {
        let f = self.f;
        // (block, index) of each def.
        let mut def_at: Vec<Option<(MBlockId, usize)>> = vec![None; f.vregs.len()];
        for (bi, b) in f.blocks.iter().enumerate() {
            let bid = MBlockId(bi as u32);
            for (k, i) in b.insts.iter().enumerate() {
                for (_, r) in i.reg_ops() {
                    let (true, Some(v)) = (r.is_def(), r.vreg()) else {
                        continue;
                    };
                    if r.sub.is_some() {
                        self.report(
                            bid,
                            k,
                            i,
                            "mir::ssa",
                            format!("sub-register def of %{} in SSA form", v.0),
                        );
                    }
                    match def_at.get_mut(v.index()) {
                        Some(Some(_)) => self.report(
                            bid,
                            k,
                            i,
                            "mir::ssa",
                            format!("%{} is defined more than once in SSA form", v.0),
                        ),
                        Some(slot) => *slot = Some((bid, k)),
                        None => {}
                    }
                }
            }
        }
        for (bi, b) in f.blocks.iter().enumerate() {
            let bid = MBlockId(bi as u32);
            if !cfg.is_reachable(bid) {
                continue;
            }
            for (k, i) in b.insts.iter().enumerate() {
                let is_phi = self.instrs.desc(i.opcode).sem == Sem::Phi;
                for (j, r) in i.reg_ops() {
                    let (false, Some(v)) = (r.is_def(), r.vreg()) else {
                        continue;
                    };
                    if r.undef() {
                        continue;
                    }
                    let Some((db, dk)) = def_at.get(v.index()).copied().flatten() else {
                        self.report(
                            bid,
                            k,
                            i,
                            "mir::ssa",
                            format!("%{} is read but never defined", v.0),
                        );
                        continue;
                    };
                    let ok = if is_phi {
                        // Read at the end of the incoming block.
                        match i.ops.get(j + 1) {
                            Some(Operand::Block(p)) => {
                                !cfg.is_reachable(*p) || cfg.dominates(db, *p)
                            }
                            _ => true,
                        }
                    } else if db == bid {
                        dk < k
                    } else {
                        cfg.dominates(db, bid)
                    };
                    if !ok {
                        self.report(
                            bid,
                            k,
                            i,
                            "mir::ssa",
                            format!("%{} is read where its def does not dominate", v.0),
                        );
                    }
                }
            }
        }
    }

    fn defined_before_use(&mut self, cfg: &MCfg) {
        let live = Liveness::compute(self.f, self.ri, cfg);
        for u in &live.undefined {
            // Report at the first read in the block that is not preceded
            // by a def there.
            let b = &self.f.blocks[u.block];
            let mut at = None;
            for (k, i) in b.insts.iter().enumerate() {
                if i.reg_ops()
                    .any(|(_, r)| r.reads() && r.vreg() == Some(u.vreg))
                {
                    at = Some((u.block, k, i));
                    break;
                }
                if i.reg_ops()
                    .any(|(_, r)| r.is_def() && r.vreg() == Some(u.vreg))
                {
                    break;
                }
            }
            if let Some((b, k, i)) = at {
                self.report(
                    b,
                    k,
                    i,
                    "mir::undefined-read",
                    format!(
                        "%{} may be read before it is defined (on some path from the entry)",
                        u.vreg.0
                    ),
                );
            }
        }
    }
}

/// The label under an instruction with problem `code`.
fn label(code: &str) -> &'static str {
    match code {
        "mir::sub-register" => "sub-register not in every register of the class",
        "mir::width" => "operand widths differ",
        "mir::no-terminator" | "mir::terminator" => "terminator misplaced",
        "mir::phi" | "mir::phi-position" => "bad PHI",
        "mir::ssa" => "not SSA",
        "mir::undefined-read" => "read of a possibly undefined value",
        "mir::early-clobber" => "early-clobber def overlaps a use",
        "mir::tied-operand" => "tied operands disagree",
        "mir::reg-sequence" => "bad REG_SEQUENCE",
        _ => "in this instruction",
    }
}

/// Help for problem `code`.
fn help(code: &str) -> Option<&'static str> {
    Some(match code {
        "mir::sub-register" => {
            "use a class whose registers all have the index (the tables' sub_class_with_sub_reg)"
        }
        "mir::width" => "the operands of this opcode have the same width (class size or sub-register index size)",
        "mir::no-terminator" => "end every block with BR, BRCOND or RET",
        "mir::terminator" => "a terminator ends its block",
        "mir::phi" => "a PHI has one (value, %bb.N) pair per predecessor of its block",
        "mir::phi-position" => "PHIs come first in their block",
        "mir::ssa" => "in SSA form every register has one def, which dominates its reads",
        "mir::undefined-read" => "define the register on every path from the entry, or mark the read `undef`",
        "mir::early-clobber" => "an early-clobber def is written before the uses are read: it needs its own register",
        _ => return None,
    })
}

/// Checks that no virtual register of `f` is wider than `max` bits: what
/// legalization promises (every value split into limbs of at most the
/// target's ALU width).
pub fn verify_legal_widths<R: RegisterInfo>(f: &MFunction, ri: &R, max: u32) -> Vec<Diag> {
    let t = ri.tables();
    let mut out = Vec::new();
    for (v, rc) in f.vregs.iter().enumerate() {
        let Some(rc) = rc else { continue };
        let w = crate::mir::widths::class_width(ri, *rc).unwrap_or(0);
        if w > max {
            out.push(
                Diag::unlocated(
                    "mir::wide-value",
                    format!(
                        "%{v} of @{} has class {} ({w} bits) after legalization, wider than {max} bits",
                        f.name,
                        t.class_name(*rc)
                    ),
                )
                .help("legalization must split every value into 32-bit limbs"),
            );
        }
    }
    out
}
