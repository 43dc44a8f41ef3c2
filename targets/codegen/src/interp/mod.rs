//! The reference interpreter: runs a function over N lanes with LLVM IR's
//! semantics, for comparing target simulators against.
//!
//! - **Lanes.** A launch runs one invocation per lane, lane 0 first, each to
//!   completion, all on the same [`GlobalMemory`]. Lane `k` has work-item id
//!   `first_workitem + k`, every lane has work-group id `workgroup_id`, and
//!   `get_global_id(0)` is `workgroup_id * workgroup_size + workitem id`
//!   (`get_global_id(1|2)` and other dimensions are 0: launches are 1-D).
//!   The subset has no barriers, so lanes that do not race (one writing
//!   what another reads or writes) give the same results in any order;
//!   racing programs have no defined result in OpenCL or HSA, and the
//!   interpreter's sequential order is just one possible outcome.
//! - **Values.** Integers wrap at their width; see [`ops`] for the integer,
//!   floating-point and NaN rules.
//! - **Poison.** The subset is poison-free: where LLVM's result would be
//!   poison (a shift by the width or more, a violated `nuw`/`nsw`/`exact`,
//!   `nnan`/`ninf` meeting a NaN/infinity, a vector index out of range)
//!   the run stops with an [`ExecError`] located at the instruction, rather
//!   than inventing a value.
//! - **Memory.** `addrspace(1)` pointers are byte addresses into one
//!   little-endian [`GlobalMemory`] starting at 0; out-of-bounds accesses
//!   are errors. `getelementptr` adds `sext(index) * alloc_size(T)` (and struct field
//!   offsets for further indices, see [`crate::ir::gep`]) with 64-bit wrapping; `inbounds` is not checked (there are no allocations
//!   to be in bounds of). Alignment is not checked either.
//! - **Termination.** Each lane may execute at most `max_steps`
//!   instructions; past that the run stops with an error, never hangs.

pub mod fault;
pub mod memory;
pub mod ops;

use crate::diag::Diag;
use crate::ir::types::Type;
use crate::ir::{BlockId, Builtin, Function, GepStep, Op, Operand, OperandKind, Span};
use crate::value::{IntValue, Value};

pub use fault::Fault;
pub use memory::GlobalMemory;

/// One argument of a launch: the same for every lane, or one per lane.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneArg {
    Uniform(Value),
    PerLane(Vec<Value>),
}

impl LaneArg {
    /// The value lane `lane` gets.
    pub fn for_lane(&self, lane: u32) -> Option<Value> {
        match self {
            LaneArg::Uniform(v) => Some(*v),
            LaneArg::PerLane(vs) => vs.get(lane as usize).copied(),
        }
    }
}

/// How to run a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Number of invocations.
    pub lanes: u32,
    /// One per parameter.
    pub args: Vec<LaneArg>,
    /// The work-item id of lane 0 (lane `k` has `first_workitem + k`).
    pub first_workitem: u32,
    pub workgroup_id: u32,
    /// For `get_global_id`; `None` means `lanes`.
    pub workgroup_size: Option<u32>,
    /// The most instructions one lane may execute.
    pub max_steps: u64,
}

/// The default per-lane instruction limit.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

impl Launch {
    /// One lane with these arguments.
    pub fn single(args: Vec<Value>) -> Self {
        Self::lanes(1, args.into_iter().map(LaneArg::Uniform).collect())
    }

    /// `lanes` lanes with these arguments, ids from 0.
    pub fn lanes(lanes: u32, args: Vec<LaneArg>) -> Self {
        Launch {
            lanes,
            args,
            first_workitem: 0,
            workgroup_id: 0,
            workgroup_size: None,
            max_steps: DEFAULT_MAX_STEPS,
        }
    }
}

/// What one lane produced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneResult {
    pub lane: u32,
    pub workitem_id: u32,
    /// The returned value (`None` for `ret void`).
    pub ret: Option<Value>,
    /// Instructions executed.
    pub steps: u64,
}

/// Why a run stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ExecError {
    pub message: String,
    /// The instruction (or argument) at fault, in the module's source.
    pub span: Option<Span>,
    pub lane: Option<u32>,
    pub help: Option<String>,
}

impl ExecError {
    fn new(message: impl Into<String>, span: Option<Span>) -> Self {
        ExecError {
            message: message.into(),
            span,
            lane: None,
            help: None,
        }
    }

    /// As a located diagnostic.
    pub fn to_diag(&self) -> Diag {
        let message = match self.lane {
            Some(l) => format!("lane {l}: {}", self.message),
            None => self.message.clone(),
        };
        let mut d = match &self.span {
            Some(s) => Diag::new("interp::error", message, s.clone()).label("while executing this"),
            None => Diag::unlocated("interp::error", message),
        };
        if let Some(h) = &self.help {
            d = d.help(h.clone());
        }
        d
    }
}

/// Runs `f` once per lane of `launch`, sharing `mem`.
pub fn run(
    f: &Function,
    launch: &Launch,
    mem: &mut GlobalMemory,
) -> Result<Vec<LaneResult>, ExecError> {
    if launch.args.len() != f.params.len() {
        return Err(ExecError {
            help: Some(format!(
                "the signature is `{}`",
                crate::ir::print::signature(f)
            )),
            ..ExecError::new(
                format!(
                    "@{} takes {} argument{}, {} given",
                    f.name,
                    f.params.len(),
                    if f.params.len() == 1 { "" } else { "s" },
                    launch.args.len()
                ),
                Some(f.span.clone()),
            )
        });
    }
    let mut out = Vec::with_capacity(launch.lanes as usize);
    for lane in 0..launch.lanes {
        let mut args = Vec::with_capacity(f.params.len());
        for (n, (a, p)) in launch.args.iter().zip(&f.params).enumerate() {
            let def = f.value(*p);
            let v = a.for_lane(lane).ok_or_else(|| {
                ExecError::new(
                    format!("argument {} has no value for lane {lane}", n + 1),
                    Some(def.span.clone()),
                )
            })?;
            if v.ty() != def.ty {
                return Err(ExecError::new(
                    format!(
                        "argument {} (%{}) has type `{}`, given `{v}`",
                        n + 1,
                        def.name,
                        def.ty
                    ),
                    Some(def.span.clone()),
                ));
            }
            args.push(v);
        }
        let ids = Ids {
            workitem: launch.first_workitem.wrapping_add(lane),
            workgroup: launch.workgroup_id,
            workgroup_size: launch.workgroup_size.unwrap_or(launch.lanes),
        };
        let r = Lane::new(f, ids, launch.max_steps)
            .run(&args, mem)
            .map_err(|e| ExecError {
                lane: Some(lane),
                ..e
            })?;
        out.push(LaneResult {
            lane,
            workitem_id: ids.workitem,
            ret: r.0,
            steps: r.1,
        });
    }
    Ok(out)
}

#[derive(Clone, Copy)]
struct Ids {
    workitem: u32,
    workgroup: u32,
    workgroup_size: u32,
}

/// One invocation's state.
struct Lane<'f> {
    f: &'f Function,
    regs: Vec<Option<Value>>,
    ids: Ids,
    max_steps: u64,
}

impl<'f> Lane<'f> {
    fn new(f: &'f Function, ids: Ids, max_steps: u64) -> Self {
        Lane {
            f,
            regs: vec![None; f.values.len()],
            ids,
            max_steps,
        }
    }

    fn get(&self, o: &Operand) -> Result<Value, ExecError> {
        match &o.kind {
            OperandKind::Const(c) => Ok(**c),
            OperandKind::Value(v) => self.regs.get(v.index()).copied().flatten().ok_or_else(|| {
                ExecError::new("use of a value before its definition", Some(o.span.clone()))
            }),
        }
    }

    fn int(&self, o: &Operand) -> Result<IntValue, ExecError> {
        self.get(o)?
            .as_int()
            .ok_or_else(|| ExecError::new("expected an integer", Some(o.span.clone())))
    }

    fn ptr(&self, o: &Operand) -> Result<u64, ExecError> {
        match self.get(o)? {
            Value::Ptr(p) => Ok(p),
            _ => Err(ExecError::new("expected a pointer", Some(o.span.clone()))),
        }
    }

    /// Runs to `ret`: the returned value and the number of instructions executed.
    fn run(
        mut self,
        args: &[Value],
        mem: &mut GlobalMemory,
    ) -> Result<(Option<Value>, u64), ExecError> {
        let f = self.f;
        for (p, a) in f.params.iter().zip(args) {
            self.regs[p.index()] = Some(*a);
        }
        let mut steps = 0u64;
        let mut block = f.entry();
        let mut prev: Option<BlockId> = None;
        'blocks: loop {
            let Some(blk) = f.blocks.get(block) else {
                return Err(ExecError::new(
                    "branch to a block that does not exist",
                    None,
                ));
            };
            // Phis read their incoming values together, before any is written.
            let mut phis = Vec::new();
            let mut first = 0;
            for &i in &blk.insts {
                let inst = f.inst(i);
                let Op::Phi { incoming, .. } = &inst.op else {
                    break;
                };
                first += 1;
                let entry = prev.and_then(|p| incoming.iter().find(|e| e.block == p));
                let Some(e) = entry else {
                    return Err(ExecError::new(
                        "phi has no entry for the block control came from",
                        Some(inst.span.clone()),
                    ));
                };
                phis.push((inst.result, self.get(&e.val)?));
            }
            for (r, v) in phis {
                if let Some(r) = r {
                    self.regs[r.index()] = Some(v);
                }
            }
            steps += first as u64;
            for &i in &blk.insts[first..] {
                steps += 1;
                let inst = f.inst(i);
                if steps > self.max_steps {
                    return Err(ExecError {
                        help: Some(
                            "raise the limit (`--max-steps`) if the function really runs this long"
                                .into(),
                        ),
                        ..ExecError::new(
                            format!(
                                "more than {} instructions executed: stopped",
                                self.max_steps
                            ),
                            Some(inst.span.clone()),
                        )
                    });
                }
                let at = || Some(inst.span.clone());
                let value = match &inst.op {
                    Op::Br { target } => {
                        prev = Some(block);
                        block = *target;
                        continue 'blocks;
                    }
                    Op::CondBr {
                        cond,
                        on_true,
                        on_false,
                    } => {
                        prev = Some(block);
                        block = if self.int(cond)?.is_zero() {
                            *on_false
                        } else {
                            *on_true
                        };
                        continue 'blocks;
                    }
                    Op::Ret { val } => {
                        let v = match val {
                            Some(o) => Some(self.get(o)?),
                            None => None,
                        };
                        return Ok((v, steps));
                    }
                    op => self.exec(op, mem).map_err(|fault| {
                        let d = fault.describe();
                        ExecError {
                            help: d.help.map(str::to_string),
                            ..ExecError::new(d.message, at())
                        }
                    })?,
                };
                if let (Some(r), Some(v)) = (inst.result, value) {
                    self.regs[r.index()] = Some(v);
                }
            }
            return Err(ExecError::new(
                format!("block %{} ends without a terminator", blk.name),
                Some(blk.span.clone()),
            ));
        }
    }

    /// A non-terminator instruction: its result, if any.
    fn exec(&self, op: &Op, mem: &mut GlobalMemory) -> Result<Option<Value>, Fault> {
        let lost = |e: ExecError| Fault::Operands {
            op: op.opcode().to_string(),
            detail: e.message,
        };
        let get = |o: &Operand| self.get(o).map_err(lost);
        Ok(Some(match op {
            Op::Bin {
                op,
                flags,
                lhs,
                rhs,
            } => ops::bin(*op, *flags, &get(lhs)?, &get(rhs)?)?,
            Op::FBin { op, fmf, lhs, rhs } => ops::fbin(*op, *fmf, &get(lhs)?, &get(rhs)?)?,
            Op::ICmp { pred, lhs, rhs } => Value::bool(ops::icmp(*pred, &get(lhs)?, &get(rhs)?)?),
            Op::Select {
                cond,
                on_true,
                on_false,
            } => {
                let c = get(cond)?.as_int().ok_or_else(|| Fault::Operands {
                    op: "select".into(),
                    detail: "needs an i1 condition".into(),
                })?;
                if c.is_zero() {
                    get(on_false)?
                } else {
                    get(on_true)?
                }
            }
            Op::Cast { op, val, to } => ops::cast(*op, &get(val)?, *to)?,
            Op::ExtractElement { vec, index } => match get(vec)? {
                Value::Vec2(e) => e[ops::vector_index(&get(index)?)?].value(),
                _ => {
                    return Err(Fault::Operands {
                        op: "extractelement".into(),
                        detail: "needs a vector".into(),
                    })
                }
            },
            Op::InsertElement { vec, elt, index } => match (get(vec)?, get(elt)?.as_scalar()) {
                (Value::Vec2(mut e), Some(s)) => {
                    e[ops::vector_index(&get(index)?)?] = s;
                    Value::Vec2(e)
                }
                _ => {
                    return Err(Fault::Operands {
                        op: "insertelement".into(),
                        detail: "needs a vector and an element".into(),
                    })
                }
            },
            Op::Load { ty, ptr, .. } => {
                let addr = self.ptr(ptr).map_err(lost)?;
                mem.load(*ty, addr)?
            }
            Op::Store { val, ptr, .. } => {
                let addr = self.ptr(ptr).map_err(lost)?;
                mem.store(&get(val)?, addr)?;
                return Ok(None);
            }
            Op::Gep { base, indices, .. } => {
                let mut addr = self.ptr(base).map_err(lost)?;
                for i in indices {
                    addr = match i.step {
                        GepStep::Scaled(size) => {
                            ops::gep(addr, self.int(&i.index).map_err(lost)?, size)
                        }
                        GepStep::Field(off) => addr.wrapping_add(off),
                    };
                }
                Value::Ptr(addr)
            }
            Op::Call {
                callee,
                ret_ty,
                args,
            } => {
                if let Builtin::MulHi { signed, bits } = callee {
                    let [x, y] = args.as_slice() else {
                        return Err(Fault::Operands {
                            op: "call".into(),
                            detail: "`mul_hi` takes two operands".into(),
                        });
                    };
                    let (x, y) = (self.int(x).map_err(lost)?, self.int(y).map_err(lost)?);
                    return Ok(Some(ops::mul_hi(&x, &y, *signed, *bits)?));
                }
                let ids = self.ids;
                let id = match callee {
                    Builtin::MulHi { .. } => 0,
                    Builtin::WorkitemIdX => u64::from(ids.workitem),
                    Builtin::WorkgroupIdX => u64::from(ids.workgroup),
                    Builtin::GetGlobalId { .. } => {
                        let dim = match args.first() {
                            Some(a) => self.int(a).map_err(lost)?,
                            None => {
                                return Err(Fault::Operands {
                                    op: "call".into(),
                                    detail: "`get_global_id` needs a dimension".into(),
                                })
                            }
                        };
                        if dim.is_zero() {
                            u64::from(ids.workgroup) * u64::from(ids.workgroup_size)
                                + u64::from(ids.workitem)
                        } else {
                            0
                        }
                    }
                };
                match ret_ty {
                    Type::Int(w) => Value::Int(IntValue::from_u64(*w, id)),
                    _ => {
                        return Err(Fault::Operands {
                            op: "call".into(),
                            detail: format!("`@{}` must return an integer", callee.name()),
                        })
                    }
                }
            }
            Op::Phi { .. } => {
                return Err(Fault::Operands {
                    op: "phi".into(),
                    detail: "after a non-phi instruction".into(),
                })
            }
            Op::Br { .. } | Op::CondBr { .. } | Op::Ret { .. } => {
                return Err(Fault::Operands {
                    op: op.opcode().into(),
                    detail: "in the middle of a block".into(),
                })
            }
        }))
    }
}
