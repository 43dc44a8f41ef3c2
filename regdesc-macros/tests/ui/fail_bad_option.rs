// An option value the macro does not know.
regdesc_macros::regdesc!(include "regs.td", lanes = fastest);

fn main() {}
