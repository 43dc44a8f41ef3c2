//! The LLVM-format printers, after every stage they print: the records as
//! `llvm-tblgen --print-records` prints them, and the register bank as
//! `-gen-register-info -register-info-debug` dumps it. Both are compared
//! byte for byte with llvm-tblgen by the parity tests.

mod inc;
mod records;
mod register_info;

/// How much text the streaming printers (records, the register-info dump,
/// the `.inc`) gather before handing it to their writer: a few reused
/// pages instead of the whole output (AMDGPU's records are 140 MB).
const CHUNK: usize = 1 << 16;

pub use inc::{register_info_inc, IncError, IncWriter};
pub use records::{print_records, write_records};
pub use register_info::{debug_dump, write_debug_dump};
