//! Why an operation of the reference interpreter (or of the machine
//! interpreter, which shares its operations and memory) has no result:
//! one enum, each kind's code, message and help in one place.

use std::fmt;

/// Why an operation has no defined result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// LLVM gives poison (a violated `nuw`/`nsw`/`exact`, a float flag).
    Poison { op: &'static str, why: &'static str },
    /// A shift by the operand's width or more (poison).
    ShiftTooFar {
        op: &'static str,
        amount: String,
        width: u16,
    },
    /// `extractelement`/`insertelement` past the vector (poison).
    VectorIndex { index: String },
    /// Operands of kinds the operation does not take (ruled out by the
    /// verifier for IR that was read).
    Operands { op: String, detail: String },
    /// A memory access outside global memory.
    OutOfBounds {
        access: &'static str,
        addr: u64,
        len: u64,
        size: usize,
    },
    /// An `i1` loaded from a byte that is neither 0 nor 1.
    BadBool { addr: u64, byte: u8 },
}

/// What a fault says.
pub struct Described {
    pub code: &'static str,
    pub message: String,
    pub help: Option<&'static str>,
}

impl Fault {
    /// The code, message and help of this fault.
    pub fn describe(&self) -> Described {
        let (code, message, help) = match self {
            Fault::Poison { op, why } => (
                "interp::poison",
                format!("`{op}` {why}: the result is poison"),
                None,
            ),
            Fault::ShiftTooFar { op, amount, width } => (
                "interp::poison",
                format!("`{op}` by {amount} with a width of {width}: shifting by the width or more is poison"),
                None,
            ),
            Fault::VectorIndex { index } => (
                "interp::poison",
                format!("vector index {index} is out of range (the vectors have 2 elements): the result is poison"),
                None,
            ),
            Fault::Operands { op, detail } => (
                "interp::operands",
                format!("`{op}` {detail}"),
                Some("the IR verifier rules this out; the IR was built by hand"),
            ),
            Fault::OutOfBounds {
                access,
                addr,
                len,
                size,
            } => (
                "interp::out-of-bounds",
                format!(
                    "{access} of {len} byte{} at address {addr} is outside global memory ({size} bytes)",
                    if *len == 1 { "" } else { "s" }
                ),
                Some("grow global memory (`--mem-size`) or check the address computation"),
            ),
            Fault::BadBool { addr, byte } => (
                "interp::bad-bool",
                format!(
                    "load of i1 at address {addr} finds the byte {byte}: an i1 in memory is 0 or 1, \
                     anything else gives an undefined value"
                ),
                None,
            ),
        };
        Described {
            code,
            message,
            help,
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe().message)
    }
}

impl std::error::Error for Fault {}
