// An AMD-like register file for the allocator tests: twelve 32-bit VGPRs,
// each made of 16-bit lo/hi halves, 64-bit tuples of two consecutive VGPRs
// (any pair, and the even-aligned pairs as a class of their own, as
// AMDGPU's VReg_64_Align2), and a 96-bit triple class. The scalar condition
// register SCC is not allocatable.
include "llvm/Target/Target.td"

let Namespace = "AMDLike" in {
  def lo16 : SubRegIndex<16, 0>;
  def hi16 : SubRegIndex<16, 16>;
  def sub0 : SubRegIndex<32, 0>;
  def sub1 : SubRegIndex<32, 32>;
  def sub2 : SubRegIndex<32, 64>;
}

class Half<string n> : Register<n> {
  let Namespace = "AMDLike";
}

class VGPR<int i, Register lo, Register hi> : RegisterWithSubRegs<"v"#i, [lo, hi]> {
  let Namespace = "AMDLike";
  let SubRegIndices = [lo16, hi16];
  let CoveredBySubRegs = 1;
  let HWEncoding = i;
}

foreach i = 0-11 in {
  def V#i#_LO16 : Half<"v"#i#".l">;
  def V#i#_HI16 : Half<"v"#i#".h">;
  def V#i : VGPR<i, !cast<Register>("V"#i#"_LO16"), !cast<Register>("V"#i#"_HI16")>;
}

def SCC : Register<"scc"> {
  let Namespace = "AMDLike";
}

def VGPR_LO16 : RegisterClass<"AMDLike", [i16, f16], 16, (sequence "V%u_LO16", 0, 11)>;
def VGPR_HI16 : RegisterClass<"AMDLike", [i16, f16], 16, (sequence "V%u_HI16", 0, 11)>;
def VGPR_16 : RegisterClass<"AMDLike", [i16, f16], 16, (add VGPR_LO16, VGPR_HI16)>;
def VGPR_32 : RegisterClass<"AMDLike", [i32, f32], 32, (sequence "V%u", 0, 11)>;

def VGPR_64_TUPLES : RegisterTuples<[sub0, sub1],
                                    [(sequence "V%u", 0, 10),
                                     (sequence "V%u", 1, 11)]>;
def VGPR_96_TUPLES : RegisterTuples<[sub0, sub1, sub2],
                                    [(sequence "V%u", 0, 9),
                                     (sequence "V%u", 1, 10),
                                     (sequence "V%u", 2, 11)]>;

def VReg_64 : RegisterClass<"AMDLike", [i64, v2i32], 32, (add VGPR_64_TUPLES)>;
def VReg_64_Align2 : RegisterClass<"AMDLike", [i64, v2i32], 32,
                                   (add (decimate VGPR_64_TUPLES, 2))>;
def VReg_96 : RegisterClass<"AMDLike", [v3i32], 32, (add VGPR_96_TUPLES)>;

def SReg_SCC : RegisterClass<"AMDLike", [i1], 32, (add SCC)> {
  let isAllocatable = 0;
}

def AMDLikeInstrInfo : InstrInfo;
def AMDLike : Target {
  let InstructionSet = AMDLikeInstrInfo;
}
