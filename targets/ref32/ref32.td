// ref32: the reference target's register file. 64 32-bit general
// registers, even-aligned 64-bit pairs and 4-aligned 128-bit quads over
// them, and a carry flag outside every allocatable class. Expanded by
// `regdesc!` in src/lib.rs.
include "llvm/Target/Target.td"

let Namespace = "Ref32" in {
  def sub0 : SubRegIndex<32, 0>;
  def sub1 : SubRegIndex<32, 32>;
  def sub2 : SubRegIndex<32, 64>;
  def sub3 : SubRegIndex<32, 96>;
  foreach i = 0-63 in {
    def R#i : Register<"r"#i> {
      let HWEncoding = i;
    }
  }
  def CF : Register<"cf">;
}

def GPR32 : RegisterClass<"Ref32", [i32, f32], 32, (sequence "R%u", 0, 63)>;

def PAIRS : RegisterTuples<[sub0, sub1],
                           [(decimate (sequence "R%u", 0, 62), 2),
                            (decimate (sequence "R%u", 1, 63), 2)]>;
def QUADS : RegisterTuples<[sub0, sub1, sub2, sub3],
                           [(decimate (sequence "R%u", 0, 60), 4),
                            (decimate (sequence "R%u", 1, 61), 4),
                            (decimate (sequence "R%u", 2, 62), 4),
                            (decimate (sequence "R%u", 3, 63), 4)]>;

def GPR64 : RegisterClass<"Ref32", [i64], 32, (add PAIRS)>;
def GPR128 : RegisterClass<"Ref32", [i128], 32, (add QUADS)>;
def FLAGS : RegisterClass<"Ref32", [i1], 32, (add CF)> {
  let isAllocatable = 0;
}

def Ref32InstrInfo : InstrInfo;
def Ref32 : Target {
  let InstructionSet = Ref32InstrInfo;
}
