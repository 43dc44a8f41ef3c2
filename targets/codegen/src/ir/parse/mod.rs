//! The reader: pest parses the text (`ir/grammar.pest`), and a builder turns
//! the parse tree into [`Function`]s, resolving names as LLVM's `LLParser`
//! does: forward references to values and labels are allowed, numbered
//! names (`%0`, `%1`, `5:`) must come in sequence, and unnamed values and
//! blocks get the next number. Everything outside the subset is reported
//! here, located, with a help line; types are checked by [`crate::ir::verify`].

use std::collections::HashMap;

use pest::iterators::Pair;
use pest::Parser as _;

use crate::diag::{Diag, Diagnostics};
use crate::ir::literals::{
    parse_constant, parse_type, parse_value_type, span_of, ConstOptions, TYPES_HELP,
};
use crate::ir::syntax_error::syntax_error;

mod inst;
use crate::ir::types::Type;
use crate::ir::{
    Block, BlockId, CallingConv, Function, Inst, InstId, Module, Op, Operand, OperandKind,
    ParamAttrs, Source, Span, ValueDef, ValueId, ValueKind,
};

#[derive(pest_derive::Parser)]
#[grammar = "ir/grammar.pest"]
pub(crate) struct IrParser;

/// Deepest bracket nesting accepted (pest recurses once per level).
const MAX_NESTING: usize = 64;

/// Parses a module. Returns every error found: the syntax error, or the
/// first error of each function.
pub fn parse_module(source: Source) -> Result<Module, Diagnostics> {
    let text = source.text.clone();
    if let Some(d) = check_nesting(&text) {
        return Err(Diagnostics::new(source, vec![d]));
    }
    let pairs = match IrParser::parse(Rule::module, &text) {
        Ok(p) => p,
        Err(e) => {
            let d = syntax_error(Rule::module, &text, &e);
            return Err(Diagnostics::new(source, vec![d]));
        }
    };
    let mut functions: Vec<Function> = Vec::new();
    let mut diags = Vec::new();
    let items = pairs.flat_map(|p| p.into_inner());
    for item in items {
        match item.as_rule() {
            Rule::define => match FnBuilder::build(item) {
                Ok(f) => {
                    if let Some(prev) = functions.iter().find(|g| g.name == f.name) {
                        diags.push(
                            Diag::new(
                                "ir::redefinition",
                                format!("invalid redefinition of function '@{}'", f.name),
                                f.span.clone(),
                            )
                            .label("defined again here")
                            .note(prev.span.clone(), "first defined here"),
                        );
                    } else {
                        functions.push(f);
                    }
                }
                Err(d) => diags.push(d),
            },
            Rule::global_def => diags.push(
                Diag::new(
                    "ir::unsupported-global",
                    "global variables are not in the subset",
                    first_child_span(&item),
                )
                .label("global variable")
                .help("pass global memory to the function as a `ptr addrspace(1)` argument"),
            ),
            Rule::type_def => diags.push(
                Diag::new(
                    "ir::unsupported-type",
                    "named types are not in the subset",
                    first_child_span(&item),
                )
                .label("type definition")
                .help(TYPES_HELP),
            ),
            Rule::unknown_top => diags.push(
                Diag::new(
                    "ir::syntax",
                    format!(
                        "expected `define`, `declare`, `target`, `attributes` or metadata, found `{}`",
                        first_word(item.as_str())
                    ),
                    first_child_span(&item),
                )
                .label("not understood at the top level")
                .help("the accepted LLVM IR subset is listed in the documentation of `regdesc_codegen`"),
            ),
            // `declare`, `target ...`, `source_filename`, `attributes #N`,
            // metadata: accepted and ignored.
            _ => {}
        }
    }
    if diags.is_empty() {
        Ok(Module { source, functions })
    } else {
        Err(Diagnostics::new(source, diags))
    }
}

fn first_word(s: &str) -> &str {
    s.split_whitespace().next().unwrap_or(s)
}

fn first_child_span(p: &Pair<'_, Rule>) -> Span {
    p.clone()
        .into_inner()
        .next()
        .map_or_else(|| span_of(p), |c| span_of(&c))
}

/// Reports bracket nesting deeper than [`MAX_NESTING`] before pest recurses.
fn check_nesting(text: &str) -> Option<Diag> {
    let mut depth = 0usize;
    let mut in_comment = false;
    let mut in_string = false;
    for (i, b) in text.bytes().enumerate() {
        match b {
            b'\n' => in_comment = false,
            _ if in_comment => {}
            b'"' => in_string = !in_string,
            _ if in_string => {}
            b';' => in_comment = true,
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(
                        Diag::new(
                            "ir::nesting",
                            format!("brackets nested deeper than {MAX_NESTING} levels"),
                            i..i + 1,
                        )
                        .label("too deep")
                        .help("the subset's types and constants nest at most a few levels"),
                    );
                }
            }
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Reads the text of a `local_name`/`global_name` pair without its sigil
/// (and without quotes).
fn name_of(p: &Pair<'_, Rule>) -> String {
    let s = &p.as_str()[1..];
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

fn label_text(p: &Pair<'_, Rule>) -> String {
    let s = p.as_str().trim_end_matches(':');
    s.strip_prefix('"')
        .and_then(|x| x.strip_suffix('"'))
        .unwrap_or(s)
        .to_string()
}

fn is_number(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

/// A name in a function's namespace (values and labels share it).
#[derive(Clone, Copy)]
enum Named {
    Value(ValueId),
    Block(u32),
}

struct ValueSlot {
    name: String,
    ty: Type,
    kind: Option<ValueKind>,
    span: Span,
    first_use: Option<Span>,
}

struct BlockSlot {
    name: String,
    span: Span,
    /// Position among the defined blocks; `None` while only referenced.
    order: Option<usize>,
    first_use: Option<Span>,
    insts: Vec<InstId>,
}

/// Builds one function.
struct FnBuilder {
    values: Vec<ValueSlot>,
    blocks: Vec<BlockSlot>,
    names: HashMap<String, Named>,
    insts: Vec<Inst>,
    next_number: u64,
    defined_blocks: usize,
    /// The block instructions go to; `None` after a terminator.
    current: Option<u32>,
}

const CCONV_HELP: &str =
    "functions are plain (callable), `amdgpu_kernel` or `spir_kernel` (`spir_func` is plain)";

fn calling_convention(word: &str) -> Option<Result<CallingConv, ()>> {
    match word {
        "amdgpu_kernel" => Some(Ok(CallingConv::AmdgpuKernel)),
        "spir_kernel" => Some(Ok(CallingConv::SpirKernel)),
        "spir_func" | "ccc" => Some(Ok(CallingConv::Plain)),
        "fastcc" | "coldcc" | "tailcc" | "swiftcc" | "swifttailcc" | "ghccc" | "anyregcc"
        | "cc" | "webkit_jscc" | "win64cc" | "hhvmcc" | "hhvm_ccc" | "intel_ocl_bicc" => {
            Some(Err(()))
        }
        w if [
            "amdgpu_",
            "x86_",
            "arm_",
            "aarch64_",
            "ptx_",
            "msp430_",
            "avr_",
            "riscv_",
            "preserve_",
            "cxx_",
            "cfguard_",
        ]
        .iter()
        .any(|p| w.starts_with(p)) =>
        {
            Some(Err(()))
        }
        _ => None,
    }
}

impl FnBuilder {
    fn build(def: Pair<'_, Rule>) -> Result<Function, Diag> {
        let mut b = FnBuilder {
            values: Vec::new(),
            blocks: Vec::new(),
            names: HashMap::new(),
            insts: Vec::new(),
            next_number: 0,
            defined_blocks: 0,
            current: None,
        };
        let mut cconv = CallingConv::Plain;
        let mut ret_ty = Type::Void;
        let mut name = String::new();
        let mut name_span = 0..0;
        let mut params = Vec::new();
        let mut param_attrs = Vec::new();
        let mut body = Vec::new();
        let mut body_start = span_of(&def).end;
        for p in def.into_inner() {
            match p.as_rule() {
                Rule::fn_prefix => {
                    let w = p
                        .clone()
                        .into_inner()
                        .next()
                        .map(|w| w.as_str().to_string());
                    match w.as_deref().and_then(calling_convention) {
                        Some(Ok(c)) => cconv = c,
                        Some(Err(())) => {
                            return Err(Diag::new(
                                "ir::unsupported-cconv",
                                format!(
                                    "calling convention `{}` is not in the subset",
                                    p.as_str().trim()
                                ),
                                span_of(&p),
                            )
                            .label("unsupported calling convention")
                            .help(CCONV_HELP))
                        }
                        None => {}
                    }
                }
                Rule::r#type => ret_ty = parse_type(p)?,
                Rule::global_name => {
                    name = name_of(&p);
                    name_span = span_of(&p);
                }
                Rule::params => {
                    for param in p.into_inner() {
                        let (id, attrs) = b.param(param)?;
                        params.push(id);
                        param_attrs.push(attrs);
                    }
                }
                Rule::label_def | Rule::instruction => {
                    body_start = body_start.min(span_of(&p).start);
                    body.push(p);
                }
                _ => {}
            }
        }
        if body.is_empty() {
            return Err(Diag::new(
                "ir::empty-function",
                "function body requires at least one basic block",
                name_span,
            )
            .label("no instructions"));
        }
        for item in body {
            if item.as_rule() == Rule::label_def {
                b.label(item)?;
            } else {
                b.instruction(item)?;
            }
        }
        b.finish(name, name_span, cconv, ret_ty, (params, param_attrs))
    }

    fn param(&mut self, p: Pair<'_, Rule>) -> Result<(ValueId, ParamAttrs), Diag> {
        let span = span_of(&p);
        let index = self.values.len() as u32;
        let mut ty = None;
        let mut name: Option<(String, Span)> = None;
        let mut attrs = ParamAttrs::default();
        for k in p.into_inner() {
            match k.as_rule() {
                Rule::param_attr if k.as_str().trim() == "inreg" => attrs.inreg = true,
                Rule::varargs => {
                    return Err(Diag::new(
                        "ir::unsupported-varargs",
                        "variadic functions are not in the subset",
                        span,
                    )
                    .label("`...`"))
                }
                Rule::r#type => ty = Some(parse_value_type(k)?),
                Rule::local_name => name = Some((name_of(&k), span_of(&k))),
                _ => {}
            }
        }
        let ty = ty.unwrap_or(Type::Void);
        let (name, def_span) = match name {
            Some((n, s)) => (n, s),
            None => (String::new(), span),
        };
        let id = self.define_value(name, ty, ValueKind::Arg(index), def_span, "argument")?;
        Ok((id, attrs))
    }

    /// Names an unnamed value or block, or checks a numbered name's number.
    fn number(&mut self, name: String, span: &Span, what: &str) -> Result<String, Diag> {
        if name.is_empty() {
            let n = self.next_number;
            self.next_number += 1;
            return Ok(n.to_string());
        }
        if is_number(&name) {
            let expected = self.next_number.to_string();
            if name != expected {
                return Err(Diag::new(
                    "ir::numbering",
                    format!("{what} expected to be numbered '%{expected}'"),
                    span.clone(),
                )
                .label(format!("the next unnamed number is {expected}"))
                .help("numbered names must count up from 0 in order of appearance (unnamed values and blocks take numbers too)"));
            }
            self.next_number += 1;
        }
        Ok(name)
    }

    fn define_value(
        &mut self,
        name: String,
        ty: Type,
        kind: ValueKind,
        span: Span,
        what: &str,
    ) -> Result<ValueId, Diag> {
        let name = self.number(name, &span, what)?;
        match self.names.get(&name).copied() {
            Some(Named::Value(v)) => {
                let slot = &mut self.values[v.index()];
                if slot.kind.is_some() {
                    return Err(redefinition(&name, span, slot.span.clone()));
                }
                slot.kind = Some(kind);
                slot.ty = ty;
                slot.span = span;
                Ok(v)
            }
            Some(Named::Block(b)) => Err(Diag::new(
                "ir::redefinition",
                format!("'%{name}' is a basic block label and cannot also name a value"),
                span,
            )
            .label("defined as a value here")
            .note(
                self.blocks[b as usize]
                    .first_use
                    .clone()
                    .unwrap_or_else(|| self.blocks[b as usize].span.clone()),
                "used as a label here",
            )),
            None => {
                let v = ValueId(self.values.len() as u32);
                self.values.push(ValueSlot {
                    name: name.clone(),
                    ty,
                    kind: Some(kind),
                    span,
                    first_use: None,
                });
                self.names.insert(name, Named::Value(v));
                Ok(v)
            }
        }
    }

    /// A use of `%name` as a value (possibly before its definition).
    fn use_value(&mut self, p: &Pair<'_, Rule>, ty: Type) -> Result<Operand, Diag> {
        let name = name_of(p);
        let span = span_of(p);
        let v = match self.names.get(&name).copied() {
            Some(Named::Value(v)) => v,
            Some(Named::Block(_)) => {
                return Err(Diag::new(
                    "ir::type-mismatch",
                    format!("'%{name}' is a basic block, not a value"),
                    span,
                )
                .label("a label used as a value"))
            }
            None => {
                let v = ValueId(self.values.len() as u32);
                self.values.push(ValueSlot {
                    name: name.clone(),
                    ty,
                    kind: None,
                    span: span.clone(),
                    first_use: Some(span.clone()),
                });
                self.names.insert(name, Named::Value(v));
                v
            }
        };
        Ok(Operand {
            ty,
            kind: OperandKind::Value(v),
            span,
        })
    }

    /// A use of `%label` as a branch target or phi predecessor.
    fn use_block(&mut self, p: &Pair<'_, Rule>) -> Result<u32, Diag> {
        let name = name_of(p);
        let span = span_of(p);
        match self.names.get(&name).copied() {
            Some(Named::Block(b)) => Ok(b),
            Some(Named::Value(_)) => Err(Diag::new(
                "ir::type-mismatch",
                format!("'%{name}' is a value, not a basic block"),
                span,
            )
            .label("a value used as a label")),
            None => {
                let b = self.blocks.len() as u32;
                self.blocks.push(BlockSlot {
                    name: name.clone(),
                    span: span.clone(),
                    order: None,
                    first_use: Some(span),
                    insts: Vec::new(),
                });
                self.names.insert(name, Named::Block(b));
                Ok(b)
            }
        }
    }

    /// Starts a block: at a label, or implicitly before an instruction that
    /// follows a terminator (or opens the body).
    fn start_block(&mut self, name: String, span: Span) -> Result<(), Diag> {
        let name = self.number(name, &span, "label")?;
        let b = match self.names.get(&name).copied() {
            Some(Named::Block(b)) => {
                let slot = &mut self.blocks[b as usize];
                if slot.order.is_some() {
                    return Err(redefinition(&name, span, slot.span.clone()));
                }
                slot.span = span;
                b
            }
            Some(Named::Value(v)) => {
                return Err(redefinition(
                    &name,
                    span,
                    self.values[v.index()].span.clone(),
                ))
            }
            None => {
                let b = self.blocks.len() as u32;
                self.blocks.push(BlockSlot {
                    name: name.clone(),
                    span,
                    order: None,
                    first_use: None,
                    insts: Vec::new(),
                });
                self.names.insert(name, Named::Block(b));
                b
            }
        };
        self.blocks[b as usize].order = Some(self.defined_blocks);
        self.defined_blocks += 1;
        self.current = Some(b);
        Ok(())
    }

    fn label(&mut self, p: Pair<'_, Rule>) -> Result<(), Diag> {
        let name = label_text(&p);
        let span = span_of(&p);
        let span = span.start..span.end.saturating_sub(1).max(span.start);
        self.start_block(name, span)
    }

    fn instruction(&mut self, p: Pair<'_, Rule>) -> Result<(), Diag> {
        let span = span_of(&p);
        if self.current.is_none() {
            self.start_block(String::new(), span.clone())?;
        }
        let block = self.current.unwrap_or(0);
        let mut result_name = None;
        let mut op_pair = None;
        for k in p.into_inner() {
            match k.as_rule() {
                Rule::local_name if op_pair.is_none() => {
                    result_name = Some((name_of(&k), span_of(&k)))
                }
                Rule::md_attach => {}
                _ => op_pair = Some(k),
            }
        }
        let Some(op_pair) = op_pair else {
            return Err(Diag::new("ir::syntax", "expected an instruction", span));
        };
        let (op, result_ty) = self.op(op_pair)?;
        let id = InstId(self.insts.len() as u32);
        let result = match (result_ty, result_name) {
            (Type::Void, Some((n, s))) => {
                return Err(Diag::new(
                    "ir::void-name",
                    format!("instructions returning void cannot have a name ('%{n}')"),
                    s,
                )
                .label("this instruction has no result"))
            }
            (Type::Void, None) => None,
            (ty, named) => {
                let (n, s) = named.unwrap_or_else(|| (String::new(), span.clone()));
                Some(self.define_value(n, ty, ValueKind::Inst(id), s, "instruction")?)
            }
        };
        let is_term = op.is_terminator();
        self.insts.push(Inst {
            op,
            result,
            block: BlockId(block),
            span,
        });
        self.blocks[block as usize].insts.push(id);
        if is_term {
            self.current = None;
        }
        Ok(())
    }

    /// `type value` pair.
    fn typed_operand(&mut self, p: Pair<'_, Rule>) -> Result<Operand, Diag> {
        let mut kids = p.into_inner();
        let (Some(t), Some(v)) = (kids.next(), kids.next()) else {
            return Err(Diag::unlocated("ir::syntax", "expected a typed value"));
        };
        let ty = parse_value_type(t)?;
        self.operand(ty, v)
    }

    /// A `value` pair of a known type.
    fn operand(&mut self, ty: Type, p: Pair<'_, Rule>) -> Result<Operand, Diag> {
        let span = span_of(&p);
        let Some(inner) = p.into_inner().next() else {
            return Err(Diag::new("ir::syntax", "expected a value", span));
        };
        match inner.as_rule() {
            Rule::local_name => self.use_value(&inner, ty),
            Rule::global_name => Err(Diag::new(
                "ir::unsupported-global",
                format!(
                    "global `{}` cannot be used as a value in the subset",
                    inner.as_str()
                ),
                span,
            )
            .label("global reference")
            .help("pass global memory to the function as a `ptr addrspace(1)` argument")),
            _ => Ok(Operand {
                ty,
                kind: OperandKind::Const(Box::new(parse_constant(
                    ty,
                    inner,
                    ConstOptions::default(),
                )?)),
                span,
            }),
        }
    }

    fn finish(
        mut self,
        name: String,
        span: Span,
        cconv: CallingConv,
        ret_ty: Type,
        (params, param_attrs): (Vec<ValueId>, Vec<ParamAttrs>),
    ) -> Result<Function, Diag> {
        if let Some(v) = self.values.iter().find(|v| v.kind.is_none()) {
            return Err(Diag::new(
                "ir::undefined-value",
                format!("use of undefined value '%{}'", v.name),
                v.first_use.clone().unwrap_or_else(|| v.span.clone()),
            )
            .label("never defined in this function"));
        }
        if let Some(b) = self.blocks.iter().find(|b| b.order.is_none()) {
            return Err(Diag::new(
                "ir::undefined-value",
                format!("use of undefined label '%{}'", b.name),
                b.first_use.clone().unwrap_or_else(|| b.span.clone()),
            )
            .label("no block has this label"));
        }
        // Blocks in definition order: slot -> final id.
        let map: Vec<BlockId> = self
            .blocks
            .iter()
            .map(|b| BlockId(b.order.unwrap_or(0) as u32))
            .collect();
        let remap = |b: &mut BlockId| *b = map[b.index()];
        for inst in &mut self.insts {
            remap(&mut inst.block);
            match &mut inst.op {
                Op::Br { target } => remap(target),
                Op::CondBr {
                    on_true, on_false, ..
                } => {
                    remap(on_true);
                    remap(on_false);
                }
                Op::Phi { incoming, .. } => incoming.iter_mut().for_each(|i| remap(&mut i.block)),
                _ => {}
            }
        }
        let mut slots: Vec<BlockSlot> = self.blocks;
        slots.sort_by_key(|b| b.order);
        let blocks = slots
            .into_iter()
            .map(|b| Block {
                name: b.name,
                insts: b.insts,
                span: b.span,
            })
            .collect();
        let values = self
            .values
            .into_iter()
            .map(|v| ValueDef {
                name: v.name,
                ty: v.ty,
                kind: v.kind.unwrap_or(ValueKind::Arg(0)),
                span: v.span,
            })
            .collect();
        Ok(Function {
            name,
            cconv,
            ret_ty,
            params,
            param_attrs,
            values,
            blocks,
            insts: self.insts.into(),
            span,
        })
    }
}

fn redefinition(name: &str, span: Span, first: Span) -> Diag {
    Diag::new(
        "ir::redefinition",
        format!("multiple definition of local value named '%{name}'"),
        span,
    )
    .label("defined again here")
    .note(first, "first defined here")
}
