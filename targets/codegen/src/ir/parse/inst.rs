//! Building instructions: each opcode's operands, its result type, and
//! the errors for instructions and calls outside the subset.

use pest::iterators::Pair;

use super::{name_of, FnBuilder, Rule};
use crate::diag::Diag;
use crate::ir::literals::{parse_gep_type, parse_type, parse_value_type, span_of};
use crate::ir::types::Type;
use crate::ir::{
    BinOp, BlockId, Builtin, CastOp, FBinOp, FastMath, GepIndex, GepStep, IntFlags, IntPredicate,
    Op, Operand, PhiIncoming, Span,
};
use crate::value::Value;

const INSTRUCTIONS_HELP: &str = "the subset's instructions are add, sub, mul, and, or, xor, shl, \
     lshr, ashr, fadd, fsub, fmul, icmp, select, zext, sext, trunc, bitcast, extractelement, \
     insertelement, phi, br, ret, load, store, getelementptr and call (of the work-item builtins)";

const CALLS_HELP: &str = "calls may name only `llvm.amdgcn.workitem.id.x`, \
     `llvm.amdgcn.workgroup.id.x`, OpenCL's `get_global_id` (`_Z13get_global_idj`) \
     and OpenCL's scalar `mul_hi` (`_Z6mul_himm`, `_Z6mul_hijj`, ...)";

impl FnBuilder {
    /// Builds an operation and says its result type.
    pub(super) fn op(&mut self, p: Pair<'_, Rule>) -> Result<(Op, Type), Diag> {
        let span = span_of(&p);
        let rule = p.as_rule();
        let kids: Vec<Pair<'_, Rule>> = p.into_inner().collect();
        let find = |r: Rule| kids.iter().find(|k| k.as_rule() == r).cloned();
        let all = |r: Rule| -> Vec<Pair<'_, Rule>> {
            kids.iter().filter(|k| k.as_rule() == r).cloned().collect()
        };
        let missing = || Diag::new("ir::syntax", "malformed instruction", span.clone());
        match rule {
            Rule::binop | Rule::fbinop | Rule::icmp => {
                let ty = parse_value_type(find(Rule::r#type).ok_or_else(missing)?)?;
                let vals = all(Rule::value);
                let [l, r] = <[_; 2]>::try_from(vals).map_err(|_| missing())?;
                let lhs = self.operand(ty, l)?;
                let rhs = self.operand(ty, r)?;
                match rule {
                    Rule::binop => {
                        let op = find(Rule::binop_kw)
                            .and_then(|k| BinOp::from_name(k.as_str()))
                            .ok_or_else(missing)?;
                        let mut flags = IntFlags::default();
                        for f in all(Rule::int_flag) {
                            match f.as_str() {
                                "nuw" => flags.nuw = true,
                                "nsw" => flags.nsw = true,
                                _ => flags.exact = true,
                            }
                        }
                        Ok((
                            Op::Bin {
                                op,
                                flags,
                                lhs,
                                rhs,
                            },
                            ty,
                        ))
                    }
                    Rule::fbinop => {
                        let op = find(Rule::fbinop_kw)
                            .and_then(|k| FBinOp::from_name(k.as_str()))
                            .ok_or_else(missing)?;
                        Ok((
                            Op::FBin {
                                op,
                                fmf: fast_math(&all(Rule::fmf)),
                                lhs,
                                rhs,
                            },
                            ty,
                        ))
                    }
                    _ => {
                        let pred = find(Rule::icmp_pred)
                            .and_then(|k| IntPredicate::from_name(k.as_str()))
                            .ok_or_else(missing)?;
                        if let Type::Vec2(_) = ty {
                            return Err(Diag::new(
                                "ir::unsupported-type",
                                "a vector `icmp` gives `<2 x i1>`, which is not in the subset",
                                span,
                            )
                            .label("vector comparison")
                            .help("extract the elements and compare them one by one"));
                        }
                        Ok((Op::ICmp { pred, lhs, rhs }, Type::Int(1)))
                    }
                }
            }
            Rule::select => {
                let tv = all(Rule::typed_value);
                let [c, t, f] = <[_; 3]>::try_from(tv).map_err(|_| missing())?;
                let cond = self.typed_operand(c)?;
                let on_true = self.typed_operand(t)?;
                let on_false = self.typed_operand(f)?;
                let ty = on_true.ty;
                Ok((
                    Op::Select {
                        cond,
                        on_true,
                        on_false,
                    },
                    ty,
                ))
            }
            Rule::cast => {
                let op = find(Rule::cast_kw)
                    .and_then(|k| CastOp::from_name(k.as_str()))
                    .ok_or_else(missing)?;
                let val = self.typed_operand(find(Rule::typed_value).ok_or_else(missing)?)?;
                let to = parse_value_type(find(Rule::r#type).ok_or_else(missing)?)?;
                Ok((Op::Cast { op, val, to }, to))
            }
            Rule::extractelement => {
                let tv = all(Rule::typed_value);
                let [v, i] = <[_; 2]>::try_from(tv).map_err(|_| missing())?;
                let vec = self.typed_operand(v)?;
                let index = self.typed_operand(i)?;
                let Type::Vec2(elem) = vec.ty else {
                    return Err(not_a_vector(&vec));
                };
                Ok((Op::ExtractElement { vec, index }, elem.ty()))
            }
            Rule::insertelement => {
                let tv = all(Rule::typed_value);
                let [v, e, i] = <[_; 3]>::try_from(tv).map_err(|_| missing())?;
                let vec = self.typed_operand(v)?;
                let elt = self.typed_operand(e)?;
                let index = self.typed_operand(i)?;
                if !matches!(vec.ty, Type::Vec2(_)) {
                    return Err(not_a_vector(&vec));
                }
                let ty = vec.ty;
                Ok((Op::InsertElement { vec, elt, index }, ty))
            }
            Rule::phi => {
                let ty = parse_value_type(find(Rule::r#type).ok_or_else(missing)?)?;
                let mut incoming = Vec::new();
                for e in all(Rule::phi_entry) {
                    let mut ek = e.into_inner();
                    let (Some(v), Some(l)) = (ek.next(), ek.next()) else {
                        return Err(missing());
                    };
                    let val = self.operand(ty, v)?;
                    let block = BlockId(self.use_block(&l)?);
                    incoming.push(PhiIncoming {
                        val,
                        block,
                        block_span: span_of(&l),
                    });
                }
                Ok((Op::Phi { ty, incoming }, ty))
            }
            Rule::br => {
                let inner = kids
                    .iter()
                    .find(|k| matches!(k.as_rule(), Rule::cond_br | Rule::uncond_br))
                    .cloned()
                    .ok_or_else(missing)?;
                let is_cond = inner.as_rule() == Rule::cond_br;
                let bk: Vec<_> = inner.into_inner().collect();
                let labels: Vec<_> = bk
                    .iter()
                    .filter(|k| k.as_rule() == Rule::local_name)
                    .cloned()
                    .collect();
                if is_cond {
                    let tv = bk
                        .iter()
                        .find(|k| k.as_rule() == Rule::typed_value)
                        .cloned()
                        .ok_or_else(missing)?;
                    let cond = self.typed_operand(tv)?;
                    let [t, f] = <[_; 2]>::try_from(labels).map_err(|_| missing())?;
                    let on_true = BlockId(self.use_block(&t)?);
                    let on_false = BlockId(self.use_block(&f)?);
                    Ok((
                        Op::CondBr {
                            cond,
                            on_true,
                            on_false,
                        },
                        Type::Void,
                    ))
                } else {
                    let t = labels.into_iter().next().ok_or_else(missing)?;
                    let target = BlockId(self.use_block(&t)?);
                    Ok((Op::Br { target }, Type::Void))
                }
            }
            Rule::ret => {
                let val = match find(Rule::typed_value) {
                    Some(tv) => Some(self.typed_operand(tv)?),
                    None => None,
                };
                Ok((Op::Ret { val }, Type::Void))
            }
            Rule::load | Rule::store => {
                if let Some(v) = find(Rule::volatile) {
                    return Err(Diag::new(
                        "ir::unsupported-instruction",
                        format!("volatile `{}` is not in the subset", rule_name(rule)),
                        span_of(&v),
                    )
                    .label("volatile access")
                    .help("global-memory accesses in the subset are plain loads and stores"));
                }
                let align = find(Rule::align)
                    .and_then(|a| a.into_inner().find(|k| k.as_rule() == Rule::uint))
                    .and_then(|n| n.as_str().parse().ok());
                if rule == Rule::load {
                    let ty = parse_value_type(find(Rule::r#type).ok_or_else(missing)?)?;
                    let ptr = self.typed_operand(find(Rule::typed_value).ok_or_else(missing)?)?;
                    Ok((Op::Load { ty, ptr, align }, ty))
                } else {
                    let tv = all(Rule::typed_value);
                    let [v, p] = <[_; 2]>::try_from(tv).map_err(|_| missing())?;
                    let val = self.typed_operand(v)?;
                    let ptr = self.typed_operand(p)?;
                    Ok((Op::Store { val, ptr, align }, Type::Void))
                }
            }
            Rule::gep => {
                let elem = parse_gep_type(find(Rule::r#type).ok_or_else(missing)?)?;
                let base = self.typed_operand(find(Rule::typed_value).ok_or_else(missing)?)?;
                let pairs = all(Rule::gep_index);
                if pairs.is_empty() {
                    return Err(Diag::new(
                        "ir::unsupported-instruction",
                        "`getelementptr` without indices is not in the subset",
                        span,
                    )
                    .label("expected at least one index")
                    .help("`getelementptr T, ptr addrspace(1) %p, i64 %i` (more indices walk into an aggregate `T`)"));
                }
                let mut indices = Vec::with_capacity(pairs.len());
                let mut walk = elem.clone();
                for (k, pair) in pairs.into_iter().enumerate() {
                    let tv = pair
                        .into_inner()
                        .find(|c| c.as_rule() == Rule::typed_value)
                        .ok_or_else(missing)?;
                    let index = self.typed_operand(tv)?;
                    let step = if k == 0 {
                        GepStep::Scaled(elem.alloc_size())
                    } else {
                        let field = match index.constant() {
                            Some(Value::Int(i)) => i.to_u64(),
                            _ => None,
                        };
                        let (inner, step) = walk.step_into(field).map_err(|why| {
                            Diag::new(
                                "ir::unsupported-instruction",
                                format!("`getelementptr` index {} into `{walk}`: {why}", k + 1),
                                index.span.clone(),
                            )
                            .label("this index")
                            .help("indices after the first walk into vectors, arrays and structs (struct fields by constant `i32`)")
                        })?;
                        walk = inner;
                        step
                    };
                    indices.push(GepIndex { index, step });
                }
                let inbounds = find(Rule::gep_inbounds).is_some();
                Ok((
                    Op::Gep {
                        elem,
                        inbounds,
                        base,
                        indices,
                    },
                    Type::Ptr,
                ))
            }
            Rule::call => self.call(&kids, span),
            Rule::other_inst => {
                let word = kids
                    .iter()
                    .find(|k| k.as_rule() == Rule::word)
                    .cloned()
                    .ok_or_else(missing)?;
                Err(Diag::new(
                    "ir::unsupported-instruction",
                    format!("instruction `{}` is not in the subset", word.as_str()),
                    span_of(&word),
                )
                .label("unsupported instruction")
                .help(INSTRUCTIONS_HELP))
            }
            _ => Err(missing()),
        }
    }

    fn call(&mut self, kids: &[Pair<'_, Rule>], span: Span) -> Result<(Op, Type), Diag> {
        let missing = || Diag::new("ir::syntax", "malformed call", span.clone());
        let ret_pair = kids
            .iter()
            .find(|k| k.as_rule() == Rule::r#type)
            .cloned()
            .ok_or_else(missing)?;
        let ret_ty = parse_type(ret_pair)?;
        let callee = kids
            .iter()
            .find(|k| k.as_rule() == Rule::callee)
            .and_then(|c| c.clone().into_inner().next())
            .ok_or_else(missing)?;
        let callee_span = span_of(&callee);
        let named = match callee.as_rule() {
            Rule::global_name => Builtin::from_name(&name_of(&callee)),
            _ => None,
        };
        let builtin = match named {
            Some(b) => b,
            None => {
                return Err(Diag::new(
                    "ir::unsupported-call",
                    format!("call to `{}` is not in the subset", callee.as_str()),
                    callee_span,
                )
                .label("unsupported callee")
                .help(CALLS_HELP))
            }
        };
        let mut args = Vec::new();
        if let Some(list) = kids.iter().find(|k| k.as_rule() == Rule::call_args) {
            for a in list.clone().into_inner() {
                let mut ak = a.into_inner();
                let t = ak.next().ok_or_else(missing)?;
                let ty = parse_value_type(t)?;
                let v = ak
                    .find(|k| k.as_rule() == Rule::value)
                    .ok_or_else(missing)?;
                args.push(self.operand(ty, v)?);
            }
        }
        Ok((
            Op::Call {
                callee: builtin,
                ret_ty,
                args,
            },
            ret_ty,
        ))
    }
}

fn not_a_vector(o: &Operand) -> Diag {
    Diag::new(
        "ir::type-mismatch",
        format!("expected a vector, found `{}`", o.ty),
        o.span.clone(),
    )
    .label("not a vector")
}

fn fast_math(flags: &[Pair<'_, Rule>]) -> FastMath {
    let mut f = FastMath::default();
    for p in flags {
        f.add(p.as_str());
    }
    f
}

fn rule_name(r: Rule) -> &'static str {
    match r {
        Rule::load => "load",
        Rule::store => "store",
        _ => "instruction",
    }
}
