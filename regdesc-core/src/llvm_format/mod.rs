//! The LLVM-format printers, after every stage they print: the records as
//! `llvm-tblgen --print-records` prints them, and the register bank as
//! `-gen-register-info -register-info-debug` dumps it. Both are compared
//! byte for byte with llvm-tblgen by the parity tests.

mod inc;
mod records;
mod register_info;

pub use inc::{register_info_inc, IncError, IncWriter};
pub use records::{print_records, write_records};
pub use register_info::{debug_dump, write_debug_dump};
