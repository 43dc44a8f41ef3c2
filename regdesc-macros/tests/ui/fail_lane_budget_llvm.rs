// 65 sub-register indices need 65 lanes in LLVM's assignment: over the
// 64-bit lane mask.
regdesc_macros::regdesc! {
    #![lanes = llvm]
    include "llvm/Target/Target.td"
    foreach i = 0-64 in def ix # i : SubRegIndex<8, !mul(i, 8)>;
    def R0 : Register<"r0">;
    def GPR : RegisterClass<"X", [i32], 32, (add R0)>;
    def XI : InstrInfo;
    def X : Target { let InstructionSet = XI; }
}

fn main() {}
