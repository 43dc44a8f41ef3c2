// A syntax error in an inline body points at the offending token.
regdesc_macros::regdesc! {
    include "llvm/Target/Target.td"
    def R0 : Register<"r0">
    def R1 : Register<"r1">;
}

fn main() {}
