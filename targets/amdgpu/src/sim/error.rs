//! Why a simulation could not run or stopped: one typed enum whose every
//! variant says its code, message, label and help in one place
//! ([`SimError::info`]), rendered as a located diagnostic into the
//! assembly text.

use regdesc_codegen::source::{Source, Span};
use regdesc_codegen::{Diag, Diagnostics};

/// A simulator error, located in the assembly text where it has a place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A line that is not an instruction, label or directive.
    Syntax { span: Span, what: String },
    /// A mnemonic the simulator does not model.
    UnknownInstruction { span: Span, mnemonic: String },
    /// An operand of the wrong kind, size or value.
    BadOperand { span: Span, what: String },
    /// A modifier the simulator does not model on this instruction.
    Unsupported { span: Span, what: String },
    /// A branch to a label the file does not define.
    UnknownLabel { span: Span, label: String },
    /// The function's label is missing.
    NoFunction { name: String },
    /// A register read (or overwritten) while the load writing it is
    /// still outstanding: no `s_waitcnt` waited for it.
    ReadBeforeWait {
        span: Span,
        reg: String,
        counter: &'static str,
        load: Span,
    },
    /// A memory access outside the memory, or in no known segment.
    Memory {
        span: Span,
        lane: Option<u32>,
        detail: String,
    },
    /// Control ran past the last instruction, or jumped nowhere.
    BadControl { span: Option<Span>, what: String },
    /// The step limit was reached.
    Steps { span: Span, limit: u64 },
    /// The launch does not fit the function (types, lane counts).
    Launch { what: String },
}

/// What a diagnostic shows for an error.
pub struct Info {
    pub code: &'static str,
    pub message: String,
    pub label: String,
    pub help: String,
}

impl SimError {
    /// The code, message, label and help of each error.
    pub fn info(&self) -> Info {
        let i = |code, message: String, label: &str, help: &str| Info {
            code,
            message,
            label: label.to_string(),
            help: help.to_string(),
        };
        match self {
            SimError::Syntax { what, .. } => i(
                "sim::syntax",
                format!("cannot read the assembly: {what}"),
                "here",
                "write one instruction, label (`name:`) or directive (`.name`) per line",
            ),
            SimError::UnknownInstruction { mnemonic, .. } => i(
                "sim::unknown-instruction",
                format!("the simulator does not model `{mnemonic}`"),
                "unknown instruction",
                "see `regdesc_amdgpu::sim` for the instructions it models",
            ),
            SimError::BadOperand { what, .. } => i(
                "sim::bad-operand",
                format!("bad operand: {what}"),
                "this operand",
                "operands are registers (`v1`, `s[4:5]`, `vcc`, `exec_lo`), constants and labels, as llvm-mc writes them",
            ),
            SimError::Unsupported { what, .. } => i(
                "sim::unsupported",
                format!("not modelled: {what}"),
                "not modelled",
                "the simulator models the subset llc and regdesc emit; see `regdesc_amdgpu::sim`",
            ),
            SimError::UnknownLabel { label, .. } => i(
                "sim::unknown-label",
                format!("no label `{label}` in the file"),
                "branch target",
                "define the label as `name:` on a line of its own",
            ),
            SimError::NoFunction { name } => i(
                "sim::no-function",
                format!("the assembly has no label `{name}:` where function @{name} starts"),
                "",
                "pass the assembly compiled from the IR function given with --fn",
            ),
            SimError::ReadBeforeWait { reg, counter, .. } => i(
                "sim::read-before-waitcnt",
                format!("`{reg}` is used before the load writing it was waited for"),
                "read here",
                &format!("insert `s_waitcnt {counter}(0)` (or a count that retires the load) before this instruction"),
            ),
            SimError::Memory { lane, detail, .. } => i(
                "sim::memory",
                match lane {
                    Some(l) => format!("lane {l}: {detail}"),
                    None => detail.clone(),
                },
                "this access",
                "global memory starts at address 0 (--mem-size bytes); the kernarg segment is read-only",
            ),
            SimError::BadControl { what, .. } => i(
                "sim::control",
                what.clone(),
                "here",
                "functions return with `s_setpc_b64` to the address in s[30:31]; kernels end with `s_endpgm`",
            ),
            SimError::Steps { limit, .. } => i(
                "sim::steps",
                format!("the wave executed {limit} instructions without finishing"),
                "still running here",
                "raise --max-steps, or look for a loop whose exit condition is never met",
            ),
            SimError::Launch { what } => i(
                "sim::launch",
                what.clone(),
                "",
                "the arguments must match the IR function's signature",
            ),
        }
    }

    /// Where the error is, if it has a place.
    pub fn span(&self) -> Option<&Span> {
        match self {
            SimError::Syntax { span, .. }
            | SimError::UnknownInstruction { span, .. }
            | SimError::BadOperand { span, .. }
            | SimError::Unsupported { span, .. }
            | SimError::UnknownLabel { span, .. }
            | SimError::ReadBeforeWait { span, .. }
            | SimError::Memory { span, .. }
            | SimError::Steps { span, .. } => Some(span),
            SimError::BadControl { span, .. } => span.as_ref(),
            SimError::NoFunction { .. } | SimError::Launch { .. } => None,
        }
    }

    /// As a located diagnostic in the assembly text.
    pub fn to_diag(&self) -> Diag {
        let info = self.info();
        let mut d = match self.span() {
            Some(s) => Diag::new(info.code, info.message, s.clone()).label(info.label),
            None => Diag::unlocated(info.code, info.message),
        };
        if let SimError::ReadBeforeWait { load, .. } = self {
            d = d.note(load.clone(), "the load");
        }
        d.help(info.help)
    }

    /// Renders the error against the assembly source.
    pub fn render(&self, asm: &Source, color: bool) -> String {
        Diagnostics::new(asm.clone(), vec![self.to_diag()]).render(color)
    }
}

impl std::fmt::Display for SimError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.info().message)
    }
}

impl std::error::Error for SimError {}
