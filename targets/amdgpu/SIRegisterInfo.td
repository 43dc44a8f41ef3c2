// AMD GCN (gfx900 / gfx90a / gfx1030): the register file as LLVM 14's
// AMDGPU back end describes it, written for regdesc. Names of registers,
// indices and classes follow LLVM; encodings are the ISA's operand numbers.
// Expanded by `regdesc!` in src/lib.rs; `regdesc check` and `regdesc doc`
// read it as it is.
include "llvm/Target/Target.td"

// Small integer lists (TableGen 14 has no !range).
defvar Idx16 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
defvar Idx32 = !listconcat(Idx16, !foreach(i, Idx16, !add(i, 16)));
defvar Idx256 = !foldl([]<int>, Idx16, acc, hi,
                       !listconcat(acc, !foreach(lo, Idx16, !add(!mul(hi, 16), lo))));

let Namespace = "AMDGPU" in {

//===-- Sub-register indices ----------------------------------------------===//

def lo16 : SubRegIndex<16, 0>;
def hi16 : SubRegIndex<16, 16>;

// The 32-bit dwords of a tuple.
foreach i = Idx32 in
  def sub#i : SubRegIndex<32, !shl(i, 5)>;

// The 16-bit halves of the dwords after the first (sub0's are lo16/hi16).
foreach i = !filter(i, Idx32, !gt(i, 0)) in {
  def sub#i#_lo16 : ComposedSubRegIndex<!cast<SubRegIndex>("sub"#i), lo16>;
  def sub#i#_hi16 : ComposedSubRegIndex<!cast<SubRegIndex>("sub"#i), hi16>;
}

// Runs of dwords inside a wider tuple (sub0_sub1, sub4_sub5_sub6_sub7, ...):
// one index per tuple size that exists and per starting dword.
foreach n = [2, 3, 4, 5, 6, 8, 16] in
  foreach first = !filter(i, Idx32, !le(i, !sub(32, n))) in {
    defvar Parts = !foreach(k, !filter(k, Idx32, !lt(k, n)), !add(first, k));
    def !interleave(!foreach(p, Parts, "sub"#p), "_")
        : SubRegIndex<!mul(n, 32), !shl(first, 5)> {
      let CoveringSubRegIndices =
        !foreach(p, Parts, !cast<SubRegIndex>("sub"#p));
    }
  }

//===-- Scalar registers --------------------------------------------------===//

// s0..s105: operand numbers 0..105.
foreach i = !filter(i, Idx256, !le(i, 105)) in
  def SGPR#i : Register<"s"#i> {
    let HWEncoding = i;
  }

def VCC_LO : Register<"vcc_lo"> { let HWEncoding = 106; }
def VCC_HI : Register<"vcc_hi"> { let HWEncoding = 107; }
def VCC : RegisterWithSubRegs<"vcc", [VCC_LO, VCC_HI]> {
  let SubRegIndices = [sub0, sub1];
  let CoveredBySubRegs = 1;
  let HWEncoding = 106;
}

def M0 : Register<"m0"> { let HWEncoding = 124; }

def EXEC_LO : Register<"exec_lo"> { let HWEncoding = 126; }
def EXEC_HI : Register<"exec_hi"> { let HWEncoding = 127; }
def EXEC : RegisterWithSubRegs<"exec", [EXEC_LO, EXEC_HI]> {
  let SubRegIndices = [sub0, sub1];
  let CoveredBySubRegs = 1;
  let HWEncoding = 126;
}

// The scalar condition code: operand 253 (src_scc).
def SCC : Register<"scc"> { let HWEncoding = 253; }

//===-- Vector registers --------------------------------------------------===//

// v0..v255: operand numbers 256..511 (bit 8 is the VGPR bit, as in LLVM);
// the 16-bit halves carry their VGPR's number.
foreach i = Idx256 in {
  def VGPR#i#_LO16 : Register<"v"#i#".l"> {
    let HWEncoding = !or(256, i);
  }
  def VGPR#i#_HI16 : Register<"v"#i#".h"> {
    let HWEncoding = !or(256, i);
  }
  def VGPR#i : RegisterWithSubRegs<"v"#i, [!cast<Register>("VGPR"#i#"_LO16"),
                                           !cast<Register>("VGPR"#i#"_HI16")]> {
    let SubRegIndices = [lo16, hi16];
    let CoveredBySubRegs = 1;
    let HWEncoding = !or(256, i);
  }
}

} // Namespace = "AMDGPU"

//===-- Base classes ------------------------------------------------------===//

defvar Types32 = [i32, f32, v2i16, v2f16];
defvar Types16 = [i16, f16];

def SGPR_32 : RegisterClass<"AMDGPU", Types32, 32, (sequence "SGPR%u", 0, 105)>;
def VGPR_32 : RegisterClass<"AMDGPU", Types32, 32, (sequence "VGPR%u", 0, 255)>;
def VGPR_LO16 : RegisterClass<"AMDGPU", Types16, 16, (sequence "VGPR%u_LO16", 0, 255)>;
def VGPR_HI16 : RegisterClass<"AMDGPU", Types16, 16, (sequence "VGPR%u_HI16", 0, 255)>;

def M0_CLASS : RegisterClass<"AMDGPU", Types32, 32, (add M0)> {
  let CopyCost = 1;
}
def SCC_CLASS : RegisterClass<"AMDGPU", [i1], 1, (add SCC)> {
  let CopyCost = -1;
  let isAllocatable = 0;
}

//===-- Tuples ------------------------------------------------------------===//

// The value types of a tuple class, by the tuple's dword count.
class TupleTypes<int n> {
  list<ValueType> ret =
    !cond(!eq(n, 2)  : [i64, f64, v2i32, v2f32, v4i16, v4f16],
          !eq(n, 3)  : [v3i32, v3f32],
          !eq(n, 4)  : [v4i32, v4f32, v2i64, v2f64, v8i16, v8f16],
          !eq(n, 5)  : [v5i32, v5f32],
          !eq(n, 6)  : [v6i32, v6f32, v3i64, v3f64],
          !eq(n, 8)  : [v8i32, v8f32, v4i64, v4f64, v16i16, v16f16],
          !eq(n, 16) : [v16i32, v16f32, v8i64, v8f64],
          !eq(n, 32) : [v32i32, v32f32, v16i64, v16f64]);
}

// `n`-dword tuples of the registers of `rc` (`count` of them, the first
// numbered 0) starting at every multiple of `stride`, named "p[first:last]".
// The k-th dword list is rc shifted by k and decimated by the stride; the
// zip stops at the shortest list, so no tuple runs past the last register.
class SITuples<RegisterClass rc, int count, int n, int stride, string p>
  : RegisterTuples<
      !foreach(k, !filter(k, Idx32, !lt(k, n)), !cast<SubRegIndex>("sub"#k)),
      !foreach(k, !filter(k, Idx32, !lt(k, n)), (decimate (shl rc, k), stride)),
      !foreach(s, !filter(s, Idx256,
                          !and(!le(!add(s, n), count),
                               !eq(!mul(!srl(s, !if(!eq(stride, 1), 0,
                                                    !if(!eq(stride, 2), 1, 2))),
                                        stride), s))),
               p#"["#s#":"#!add(s, !sub(n, 1))#"]")>;

// SGPR tuples: 64-bit pairs 2-aligned, 96 bits and wider 4-aligned (the
// scalar unit reads them so). VGPR tuples start at any register; gfx90a's
// even alignment is the classes' alternative allocation order below.
foreach n = [2, 3, 4, 5, 6, 8, 16, 32] in {
  defvar w = !mul(n, 32);
  def SGPR_#w#Regs : SITuples<SGPR_32, 106, n, !if(!eq(n, 2), 2, 4), "s">;
  def VGPR_#w#Regs : SITuples<VGPR_32, 256, n, 1, "v">;

  def SGPR_#w : RegisterClass<"AMDGPU", TupleTypes<n>.ret, 32,
                                 (add !cast<RegisterTuples>("SGPR_"#w#"Regs"))> {
    let CopyCost = !srl(!add(n, 1), 1);
  }

  // gfx90a needs even-aligned VGPR tuples. LLVM 14 gives it separate
  // VReg_N_Align2 classes; here each VReg_N keeps one class and gets a
  // second allocation order holding only its even-aligned tuples
  // (`AltOrders`), chosen by the target's `allocation_order_select` where
  // LLVM's `AltOrderSelect` would run. A HwMode cannot do it: in LLVM 14 a
  // HwMode changes a class's sizes and types (RegInfos), never its members
  // or orders.
  def VReg_#w : RegisterClass<"AMDGPU", TupleTypes<n>.ret, 32,
                                 (add !cast<RegisterTuples>("VGPR_"#w#"Regs"))> {
    let CopyCost = n;
    let AltOrders = [(decimate (add !cast<RegisterTuples>("VGPR_"#w#"Regs")), 2)];
    let AltOrderSelect = [{
      return MF.getSubtarget<GCNSubtarget>().needsAlignedVGPRs();
    }];
  }
}

//===-- Scalar classes with the special registers -------------------------===//

def SReg_32_XM0_XEXEC : RegisterClass<"AMDGPU", Types32, 32,
                                      (add SGPR_32, VCC_LO, VCC_HI)>;
def SReg_32_XM0 : RegisterClass<"AMDGPU", Types32, 32,
                                (add SReg_32_XM0_XEXEC, EXEC_LO, EXEC_HI)>;
def SReg_32 : RegisterClass<"AMDGPU", Types32, 32, (add SReg_32_XM0, M0_CLASS)>;

def SReg_64_XEXEC : RegisterClass<"AMDGPU", TupleTypes<2>.ret, 32, (add SGPR_64, VCC)> {
  let CopyCost = 1;
}
def SReg_64 : RegisterClass<"AMDGPU", TupleTypes<2>.ret, 32, (add SReg_64_XEXEC, EXEC)> {
  let CopyCost = 1;
}

foreach n = [3, 4, 5, 6, 8, 16, 32] in {
  defvar w = !mul(n, 32);
  def SReg_#w : RegisterClass<"AMDGPU", TupleTypes<n>.ret, 32,
                                 (add !cast<RegisterClass>("SGPR_"#w))> {
    let CopyCost = !srl(!add(n, 1), 1);
  }
}

def AMDGPUInstrInfo : InstrInfo;
def AMDGPU : Target {
  let InstructionSet = AMDGPUInstrInfo;
}
