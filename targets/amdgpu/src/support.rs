//! What the back end cannot compile yet, found on the IR so the error
//! points at the construct: a located [`TargetError::Unsupported`].
//!
//! The hardware facts behind each limit:
//! - Global memory and work-item ids reach a function through the
//!   kernel ABI (kernarg pointer in `s[4:5]`, work-item ids in `v0..v2`);
//!   kernels are not lowered yet ([`crate::abi`]).
//! - A branch on a divergent condition must run both sides under `EXEC`
//!   masks (`s_and_saveexec`, `s_cbranch_execz`); only uniform branches
//!   (`s_cbranch_scc1`) are lowered.

use regdesc_codegen::ir::{Function, Op, Span};
use regdesc_codegen::target::TargetError;
use regdesc_codegen::uniformity::Uniformity;

fn unsupported(f: &Function, what: &str, span: &Span) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{}: {what}", f.name),
        span: Some(span.clone()),
    }
}

/// `Ok` when every construct of `f` is one the back end compiles.
pub fn check(f: &Function) -> Result<(), TargetError> {
    let mut uni: Option<Uniformity> = None;
    for (id, inst) in f.insts.iter_enumerated() {
        let what = match &inst.op {
            Op::Load { .. } | Op::Store { .. } | Op::Gep { .. } if !f.cconv.is_kernel() => {
                Some("global memory in a plain function (no kernel ABI yet)".to_string())
            }
            Op::Call { callee, .. } => Some(format!(
                "`@{}` (work-item ids need the kernel ABI, not lowered yet)",
                callee.name()
            )),
            Op::CondBr { .. } => {
                let u = uni.get_or_insert_with(|| Uniformity::analyze(f));
                u.is_divergent_inst(id).then(|| {
                    "a branch on a divergent condition (EXEC masking is not lowered yet)"
                        .to_string()
                })
            }
            _ => None,
        };
        if let Some(w) = what {
            return Err(unsupported(f, &w, &inst.span));
        }
    }
    Ok(())
}
