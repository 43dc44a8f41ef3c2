// Inline TableGen: a pair of 32-bit registers, queried at run time.
use regdesc_runtime::RegisterInfo;

regdesc_macros::regdesc! {
    #![lanes = llvm]
    include "llvm/Target/Target.td"
    def lo : SubRegIndex<32>;
    def hi : SubRegIndex<32, 32>;
    def R0 : Register<"r0">;
    def R1 : Register<"r1">;
    def D0 : RegisterWithSubRegs<"d0", [R0, R1]> {
        let SubRegIndices = [lo, hi];
        let CoveredBySubRegs = 1;
    }
    def GPR : RegisterClass<"Toy", [i32], 32, (add R0, R1)>;
    def DPR : RegisterClass<"Toy", [i64], 64, (add D0)>;
    def ToyInstrInfo : InstrInfo;
    def Toy : Target { let InstructionSet = ToyInstrInfo; }
}

fn main() {
    let t = Toy.tables();
    assert_eq!(t.sub_reg(regs::D0, sub_regs::hi), Some(regs::R1));
    assert!(t.regs_overlap(regs::D0, regs::R0));
    assert!(t.contains(classes::DPR, regs::D0));
    assert_eq!(t.name(regs::R1), "R1");
}
