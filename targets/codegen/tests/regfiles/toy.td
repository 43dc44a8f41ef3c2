// A toy register file for the allocator tests: eight 32-bit registers with
// no sub-registers, a class of the low four (a class constraint narrower
// than the register file), and a status register outside every allocatable
// class that instructions can clobber implicitly.
include "llvm/Target/Target.td"

let Namespace = "Toy" in {
  foreach i = 0-7 in {
    def R#i : Register<"r"#i>;
  }
  def FLAGS : Register<"flags">;
}

def GPR : RegisterClass<"Toy", [i32], 32, (sequence "R%u", 0, 7)>;
// Allocation order: the high registers first, so the default order is not
// the numbering order.
def GPRLow : RegisterClass<"Toy", [i32], 32, (sequence "R%u", 3, 0)>;
def Status : RegisterClass<"Toy", [i32], 32, (add FLAGS)> {
  let isAllocatable = 0;
}

def ToyInstrInfo : InstrInfo;
def Toy : Target {
  let InstructionSet = ToyInstrInfo;
}
