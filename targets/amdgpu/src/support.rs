//! What the back end cannot compile yet, found on the IR so the error
//! points at the construct: a located [`TargetError::Unsupported`].
//!
//! The hardware facts behind each limit:
//! - Global memory and work-item ids reach a function through the
//!   kernel ABI (kernarg pointer in `s[4:5]`, work-item ids in `v0..v2`);
//!   kernels are not lowered yet ([`crate::abi`]).

use regdesc_codegen::ir::{Function, Op, Span};
use regdesc_codegen::target::TargetError;

fn unsupported(f: &Function, what: &str, span: &Span) -> TargetError {
    TargetError::Unsupported {
        what: format!("@{}: {what}", f.name),
        span: Some(span.clone()),
    }
}

/// `Ok` when every construct of `f` is one the back end compiles.
pub fn check(f: &Function) -> Result<(), TargetError> {
    for inst in f.insts.iter() {
        let what = match &inst.op {
            Op::Load { .. } | Op::Store { .. } | Op::Gep { .. } if !f.cconv.is_kernel() => {
                Some("global memory in a plain function (no kernel ABI yet)".to_string())
            }
            Op::Call { callee, .. } => Some(format!(
                "`@{}` (work-item ids need the kernel ABI, not lowered yet)",
                callee.name()
            )),
            _ => None,
        };
        if let Some(w) = what {
            return Err(unsupported(f, &w, &inst.span));
        }
    }
    Ok(())
}
