//! The SSA verifier: block structure (every block ends with its only
//! terminator, phis first, the entry block has no predecessors), types
//! (each instruction's operand and result types, as LLVM's verifier and
//! parser require them), phi/predecessor agreement, and dominance (every
//! definition dominates its uses; a phi's incoming value dominates the end
//! of its predecessor). Uses in unreachable blocks are not checked, as in
//! LLVM.

use crate::diag::{Diag, Diagnostics};
use crate::ir::cfg::Cfg;
use crate::ir::print::local;
use crate::ir::types::{Scalar, Type};
use crate::ir::{
    BinOp, BlockId, Builtin, CastOp, Function, Inst, InstId, Module, Op, Operand, OperandKind,
    ValueKind,
};
use crate::value::Value;

/// Verifies every function of a module.
pub fn verify_module(m: &Module) -> Result<(), Diagnostics> {
    let diags: Vec<Diag> = m.functions.iter().flat_map(verify_function).collect();
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics::new(m.source.clone(), diags))
    }
}

/// Every problem of one function, in source order.
pub fn verify_function(f: &Function) -> Vec<Diag> {
    let mut v = Verifier {
        f,
        diags: Vec::new(),
    };
    if f.blocks.is_empty() {
        v.diags.push(Diag::new(
            "ir::empty-function",
            "function body requires at least one basic block",
            f.span.clone(),
        ));
        return v.diags;
    }
    v.structure();
    for i in f.inst_ids() {
        v.types(i);
    }
    if v.diags.is_empty() {
        // Dominance needs a well-formed CFG.
        let cfg = Cfg::new(f);
        v.phis(&cfg);
        v.dominance(&cfg);
    }
    v.diags
        .sort_by_key(|d| d.span.as_ref().map(|s| (s.start, s.end)));
    v.diags
}

struct Verifier<'f> {
    f: &'f Function,
    diags: Vec<Diag>,
}

fn type_error(msg: String, span: std::ops::Range<usize>, label: &str) -> Diag {
    Diag::new("ir::type-mismatch", msg, span).label(label.to_string())
}

impl Verifier<'_> {
    fn structure(&mut self) {
        let f = self.f;
        for b in f.block_ids() {
            let block = f.block(b);
            let Some(last) = block.insts.last() else {
                self.diags.push(
                    Diag::new(
                        "ir::no-terminator",
                        format!("block '{}' is empty", local(&block.name)),
                        block.span.clone(),
                    )
                    .label("a block needs at least a terminator"),
                );
                continue;
            };
            let mut seen_non_phi = false;
            for (pos, &i) in block.insts.iter().enumerate() {
                let inst = f.inst(i);
                if inst.op.is_terminator() && pos + 1 != block.insts.len() {
                    self.diags.push(
                        Diag::new(
                            "ir::misplaced-terminator",
                            "terminator found in the middle of a basic block",
                            inst.span.clone(),
                        )
                        .label("only the last instruction of a block may branch or return"),
                    );
                }
                match inst.op {
                    Op::Phi { .. } if seen_non_phi => self.diags.push(
                        Diag::new(
                            "ir::misplaced-phi",
                            "PHI nodes not grouped at top of basic block",
                            inst.span.clone(),
                        )
                        .label("phi after a non-phi instruction"),
                    ),
                    Op::Phi { .. } => {}
                    _ => seen_non_phi = true,
                }
            }
            let last = f.inst(*last);
            if !last.op.is_terminator() {
                self.diags.push(
                    Diag::new(
                        "ir::no-terminator",
                        format!(
                            "block '{}' does not end with a terminator",
                            local(&block.name)
                        ),
                        last.span.clone(),
                    )
                    .label("the block ends here")
                    .help("end every block with `br` or `ret`"),
                );
            }
            for s in last.op.successors() {
                if s.index() >= f.blocks.len() {
                    self.diags.push(Diag::new(
                        "ir::undefined-value",
                        "branch to a block that does not exist",
                        last.span.clone(),
                    ));
                }
            }
        }
    }

    /// The operand's value has the type the instruction gives it.
    fn operand(&mut self, o: &Operand) {
        match &o.kind {
            OperandKind::Value(v) => {
                let Some(def) = self.f.values.get(*v) else {
                    self.diags.push(Diag::new(
                        "ir::undefined-value",
                        "use of a value that does not exist",
                        o.span.clone(),
                    ));
                    return;
                };
                if def.ty != o.ty {
                    self.diags.push(
                        type_error(
                            format!(
                                "'{}' defined with type '{}' but expected '{}'",
                                local(&def.name),
                                def.ty,
                                o.ty
                            ),
                            o.span.clone(),
                            &format!("expected `{}`", o.ty),
                        )
                        .note(def.span.clone(), format!("defined as `{}` here", def.ty)),
                    );
                }
            }
            OperandKind::Const(c) => {
                if c.ty() != o.ty {
                    self.diags.push(type_error(
                        format!("constant of type '{}' used as '{}'", c.ty(), o.ty),
                        o.span.clone(),
                        &format!("expected `{}`", o.ty),
                    ));
                }
            }
        }
    }

    fn expect(&mut self, ok: bool, o: &Operand, what: &str) {
        if !ok {
            self.diags.push(type_error(
                format!("expected {what}, found `{}`", o.ty),
                o.span.clone(),
                &format!("expected {what}"),
            ));
        }
    }

    fn types(&mut self, id: InstId) {
        let f = self.f;
        let inst = f.inst(id);
        for o in inst.op.operands() {
            self.operand(o);
        }
        let result_ty = inst.result.map(|r| f.value(r).ty);
        let expected = match &inst.op {
            Op::Bin {
                op,
                flags,
                lhs,
                rhs,
            } => {
                self.expect(
                    lhs.ty.is_int_or_int_vector(),
                    lhs,
                    "an integer or integer vector",
                );
                self.expect(rhs.ty == lhs.ty, rhs, &format!("`{}`", lhs.ty));
                let wraps = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Shl);
                let shr = matches!(op, BinOp::LShr | BinOp::AShr);
                if (flags.nuw || flags.nsw) && !wraps || flags.exact && !shr {
                    self.diags.push(
                        Diag::new(
                            "ir::invalid-flag",
                            format!("flag not valid on `{}`", op.name()),
                            inst.span.clone(),
                        )
                        .label("invalid flag")
                        .help("`nuw`/`nsw` go on add, sub, mul and shl; `exact` on lshr and ashr"),
                    );
                }
                Some(lhs.ty)
            }
            Op::FBin { lhs, rhs, .. } => {
                self.expect(
                    lhs.ty.is_fp_or_fp_vector(),
                    lhs,
                    "`half`, `float` or `<2 x half>`",
                );
                self.expect(rhs.ty == lhs.ty, rhs, &format!("`{}`", lhs.ty));
                Some(lhs.ty)
            }
            Op::ICmp { lhs, rhs, .. } => {
                self.expect(
                    lhs.ty.is_int() || lhs.ty == Type::Ptr,
                    lhs,
                    "an integer or pointer",
                );
                self.expect(rhs.ty == lhs.ty, rhs, &format!("`{}`", lhs.ty));
                Some(Type::Int(1))
            }
            Op::Select {
                cond,
                on_true,
                on_false,
            } => {
                self.expect(cond.ty == Type::Int(1), cond, "`i1`");
                self.expect(
                    on_false.ty == on_true.ty,
                    on_false,
                    &format!("`{}`", on_true.ty),
                );
                Some(on_true.ty)
            }
            Op::Cast { op, val, to } => {
                if let Some(why) = cast_problem(*op, val.ty, *to) {
                    self.diags.push(
                        Diag::new(
                            "ir::invalid-cast",
                            format!("invalid cast opcode for cast from '{}' to '{}'", val.ty, to),
                            inst.span.clone(),
                        )
                        .label(why),
                    );
                }
                Some(*to)
            }
            Op::ExtractElement { vec, index } => {
                self.vector_index(vec, index);
                vec.ty.scalar().map(Scalar::ty)
            }
            Op::InsertElement { vec, elt, index } => {
                self.vector_index(vec, index);
                if let Some(s) = vec.ty.scalar() {
                    self.expect(elt.ty == s.ty(), elt, &format!("`{s}`"));
                }
                Some(vec.ty)
            }
            Op::Phi { ty, .. } => Some(*ty),
            Op::Load { ty, ptr, .. } => {
                self.expect(ptr.ty == Type::Ptr, ptr, "`ptr addrspace(1)`");
                Some(*ty)
            }
            Op::Store { ptr, .. } => {
                self.expect(ptr.ty == Type::Ptr, ptr, "`ptr addrspace(1)`");
                None
            }
            Op::Gep { base, indices, .. } => {
                self.expect(base.ty == Type::Ptr, base, "`ptr addrspace(1)`");
                for i in indices {
                    self.expect(i.index.ty.is_int(), &i.index, "an integer index");
                }
                Some(Type::Ptr)
            }
            Op::Call {
                callee,
                ret_ty,
                args,
            } => {
                let ok = match callee {
                    Builtin::WorkitemIdX | Builtin::WorkgroupIdX => {
                        *ret_ty == Type::Int(32) && args.is_empty()
                    }
                    Builtin::GetGlobalId { .. } => {
                        matches!(ret_ty, Type::Int(32 | 64))
                            && args.len() == 1
                            && args[0].ty == Type::Int(32)
                    }
                    Builtin::MulHi { bits, .. } => {
                        *ret_ty == Type::Int(*bits)
                            && args.len() == 2
                            && args.iter().all(|a| a.ty == Type::Int(*bits))
                    }
                };
                if !ok {
                    let sig = match callee {
                        Builtin::GetGlobalId { .. } => "i64 (i32) (or i32 (i32))".to_string(),
                        Builtin::MulHi { bits, .. } => format!("i{bits} (i{bits}, i{bits})"),
                        _ => "i32 ()".to_string(),
                    };
                    self.diags.push(
                        Diag::new(
                            "ir::type-mismatch",
                            format!("wrong signature for `@{}`", callee.name()),
                            inst.span.clone(),
                        )
                        .label(format!("expected `{sig}`")),
                    );
                }
                Some(*ret_ty).filter(|t| *t != Type::Void)
            }
            Op::CondBr { cond, .. } => {
                self.expect(cond.ty == Type::Int(1), cond, "`i1`");
                None
            }
            Op::Br { .. } => None,
            Op::Ret { val } => {
                match val {
                    Some(v) => self.expect(v.ty == f.ret_ty, v, &format!("`{}`", f.ret_ty)),
                    None if f.ret_ty != Type::Void => self.diags.push(type_error(
                        format!("function returns '{}', not void", f.ret_ty),
                        inst.span.clone(),
                        "`ret void` in a non-void function",
                    )),
                    None => {}
                }
                None
            }
        };
        if result_ty != expected {
            self.diags.push(type_error(
                format!(
                    "result type '{}' does not match the instruction's '{}'",
                    result_ty.map_or("void".to_string(), |t| t.to_string()),
                    expected.map_or("void".to_string(), |t| t.to_string())
                ),
                inst.span.clone(),
                "wrong result type",
            ));
        }
    }

    fn vector_index(&mut self, vec: &Operand, index: &Operand) {
        self.expect(matches!(vec.ty, Type::Vec2(_)), vec, "a vector");
        self.expect(index.ty.is_int(), index, "an integer index");
        if let Some(Value::Int(i)) = index.constant() {
            if i.to_u64().is_none_or(|n| n >= 2) {
                self.diags.push(
                    Diag::new(
                        "ir::poison",
                        "vector index out of range: the result would be poison",
                        index.span.clone(),
                    )
                    .label("the vectors have two elements (index 0 or 1)")
                    .help("the subset is poison-free"),
                );
            }
        }
    }

    /// Phis list each predecessor edge once, with one value per predecessor.
    fn phis(&mut self, cfg: &Cfg) {
        let f = self.f;
        for b in f.block_ids() {
            let mut preds: Vec<BlockId> = cfg.preds(b).to_vec();
            preds.sort();
            for &i in &f.block(b).insts {
                let inst = f.inst(i);
                let Op::Phi { incoming, .. } = &inst.op else {
                    continue;
                };
                if b == f.entry() {
                    continue; // reported as an entry block with predecessors
                }
                let mut listed: Vec<BlockId> = incoming.iter().map(|e| e.block).collect();
                listed.sort();
                if listed != preds {
                    let names = |v: &[BlockId]| {
                        let mut v: Vec<String> =
                            v.iter().map(|b| local(&f.block(*b).name)).collect();
                        v.dedup();
                        v.join(", ")
                    };
                    self.diags.push(
                        Diag::new(
                            "ir::phi-preds",
                            "PHINode should have one entry for each predecessor of its parent basic block",
                            inst.span.clone(),
                        )
                        .label(format!("lists [{}]", names(&listed)))
                        .help(format!(
                            "the predecessors of '{}' are [{}]",
                            local(&f.block(b).name),
                            names(&preds)
                        )),
                    );
                    continue;
                }
                for (n, e) in incoming.iter().enumerate() {
                    if let Some(other) = incoming[..n]
                        .iter()
                        .find(|o| o.block == e.block && o.val.kind != e.val.kind)
                    {
                        self.diags.push(
                            Diag::new(
                                "ir::phi-preds",
                                "PHI node has multiple entries for the same basic block with different incoming values",
                                e.val.span.clone(),
                            )
                            .label("differs from the earlier entry")
                            .note(other.val.span.clone(), "earlier entry"),
                        );
                    }
                }
            }
        }
        if !cfg.preds(f.entry()).is_empty() {
            let entry = f.block(f.entry());
            self.diags.push(
                Diag::new(
                    "ir::entry-preds",
                    "entry block to function must not have predecessors",
                    entry.span.clone(),
                )
                .label("branched to")
                .help("start the function with a block that nothing branches to"),
            );
        }
    }

    fn dominance(&mut self, cfg: &Cfg) {
        let f = self.f;
        let mut position = vec![0usize; f.insts.len()];
        for b in f.block_ids() {
            for (pos, &i) in f.block(b).insts.iter().enumerate() {
                position[i.index()] = pos;
            }
        }
        let def_site = |v: crate::ir::ValueId| -> Option<(BlockId, usize)> {
            match f.value(v).kind {
                ValueKind::Arg(_) => None,
                ValueKind::Inst(i) => Some((f.inst(i).block, position[i.index()])),
            }
        };
        for id in f.inst_ids() {
            let inst: &Inst = f.inst(id);
            let use_block = inst.block;
            if !cfg.is_reachable(use_block) {
                continue;
            }
            let uses: Vec<(&Operand, BlockId, bool)> = match &inst.op {
                Op::Phi { incoming, .. } => {
                    incoming.iter().map(|e| (&e.val, e.block, true)).collect()
                }
                op => op
                    .operands()
                    .into_iter()
                    .map(|o| (o, use_block, false))
                    .collect(),
            };
            for (o, at, is_phi) in uses {
                let Some(v) = o.value() else { continue };
                let Some((def_block, def_pos)) = def_site(v) else {
                    continue;
                };
                if !cfg.is_reachable(at) {
                    continue;
                }
                let ok = if is_phi {
                    cfg.dominates(def_block, at)
                } else if def_block == at {
                    def_pos < position[id.index()]
                } else {
                    cfg.dominates(def_block, at)
                };
                if !ok {
                    let def = f.value(v);
                    self.diags.push(
                        Diag::new(
                            "ir::dominance",
                            format!(
                                "instruction does not dominate all uses: '{}' is used where it may not be defined",
                                local(&def.name)
                            ),
                            o.span.clone(),
                        )
                        .label(if is_phi {
                            "the definition does not dominate the end of this predecessor"
                        } else {
                            "used here"
                        })
                        .note(def.span.clone(), "defined here")
                        .help("in SSA form every definition dominates its uses; merge values from different paths with `phi`"),
                    );
                }
            }
        }
    }
}

/// Why a cast is invalid, if it is.
fn cast_problem(op: CastOp, from: Type, to: Type) -> Option<&'static str> {
    let count = |t: Type| match t {
        Type::Vec2(_) => 2,
        _ => 1,
    };
    match op {
        CastOp::ZExt | CastOp::SExt | CastOp::Trunc => {
            let (Some(Scalar::Int(a)), Some(Scalar::Int(b))) = (from.scalar(), to.scalar()) else {
                return Some("zext, sext and trunc take integers");
            };
            if count(from) != count(to) {
                return Some("the element counts differ");
            }
            let ok = match op {
                CastOp::Trunc => b < a,
                _ => b > a,
            };
            (!ok).then_some(if op == CastOp::Trunc {
                "trunc must make the integer narrower"
            } else {
                "zext and sext must make the integer wider"
            })
        }
        CastOp::Bitcast => {
            if (from == Type::Ptr) != (to == Type::Ptr) {
                Some("bitcast requires both operands to be pointers or neither")
            } else if from.bits() != to.bits() {
                Some("bitcast needs types of the same size")
            } else {
                None
            }
        }
    }
}
