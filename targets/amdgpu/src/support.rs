//! What the back end cannot compile yet, found on the IR so the error
//! points at the construct: a located [`TargetError::Unsupported`].
//!
//! The hardware facts behind each limit:
//! - A kernel finds its work-item id in `v0` and its work-group id in
//!   `s6`; a callable function gets them from its caller in other
//!   registers (LLVM 14 packs the ids into `v31`), which this back end
//!   does not model.
//! - The work-group size is in the dispatch packet (`s[4:5]` then points
//!   at it, and the kernarg pointer moves to `s[6:7]`); `get_global_id`
//!   needs it. Not lowered.

use regdesc_codegen::ir::{Builtin, Function, Op, Span};
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
            Op::Call {
                callee: Builtin::GetGlobalId { .. },
                ..
            } => Some(format!(
                "`@{}` (the work-group size is in the dispatch packet, which is not lowered)",
                Builtin::GetGlobalId { mangled: false }.name()
            )),
            Op::Call { callee, .. } if !f.cconv.is_kernel() => Some(format!(
                "`@{}` in a callable function (only kernels get their ids, in v0 and s6)",
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
