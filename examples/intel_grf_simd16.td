// Intel GPU general register file, word-based (from the llvm-dev thread
// "How to describe the RegisterInfo?"): 2048 16-bit registers Rw0..Rw2047,
// dword and qword tuples over them, SIMD8 dword and qword tuples, and
// SIMD16 qword tuples (16 x 64 bits = 1024 bits: more than 64 LLVM lanes).
include "llvm/Target/Target.td"

let Namespace = "IntelGPU" in {
  foreach Index = 0-3 in {
    def w#Index : SubRegIndex<16, !shl(Index, 4)>;
  }
  foreach Index = 0-7 in {
    def subd#Index : SubRegIndex<32, !shl(Index, 5)>;
  }
  foreach Index = 0-15 in {
    def subq#Index : SubRegIndex<64, !shl(Index, 6)>;
  }
}

class IntelGPUReg<string n, bits<13> regIdx> : Register<n> {
  bits<1> regFile;
  let Namespace = "IntelGPU";
  let HWEncoding{12-0} = regIdx;
  let HWEncoding{15} = regFile;
}

foreach Index = 0-2047 in {
  def Rw#Index : IntelGPUReg<"Rw"#Index, !shl(Index, 1)> {
    let regFile = 0;
  }
}

def gpr_w : RegisterClass<"IntelGPU", [i16], 16, (sequence "Rw%u", 0, 2047)> {
  let AllocationPriority = 1;
}

def gpr_d : RegisterTuples<[w0, w1],
                           [(add (decimate gpr_w, 2)),
                            (add (decimate (shl gpr_w, 1), 2))]>;

def gpr_q : RegisterTuples<[w0, w1, w2, w3],
                           [(add (decimate gpr_w, 4)),
                            (add (decimate (shl gpr_w, 1), 4)),
                            (add (decimate (shl gpr_w, 2), 4)),
                            (add (decimate (shl gpr_w, 3), 4))]>;

def gpr_d_simd8 : RegisterTuples<[subd0, subd1, subd2, subd3, subd4, subd5, subd6, subd7],
                                 [(add (decimate gpr_d, 8)),
                                  (add (decimate (shl gpr_d, 1), 8)),
                                  (add (decimate (shl gpr_d, 2), 8)),
                                  (add (decimate (shl gpr_d, 3), 8)),
                                  (add (decimate (shl gpr_d, 4), 8)),
                                  (add (decimate (shl gpr_d, 5), 8)),
                                  (add (decimate (shl gpr_d, 6), 8)),
                                  (add (decimate (shl gpr_d, 7), 8))]>;

def gpr_q_simd8 : RegisterTuples<[subq0, subq1, subq2, subq3, subq4, subq5, subq6, subq7],
                                 [(add (decimate gpr_q, 8)),
                                  (add (decimate (shl gpr_q, 1), 8)),
                                  (add (decimate (shl gpr_q, 2), 8)),
                                  (add (decimate (shl gpr_q, 3), 8)),
                                  (add (decimate (shl gpr_q, 4), 8)),
                                  (add (decimate (shl gpr_q, 5), 8)),
                                  (add (decimate (shl gpr_q, 6), 8)),
                                  (add (decimate (shl gpr_q, 7), 8))]>;

def gpr_q_simd16 : RegisterTuples<[subq0, subq1, subq2, subq3, subq4, subq5, subq6, subq7, subq8, subq9, subq10, subq11, subq12, subq13, subq14, subq15],
                                 [(add (decimate gpr_q, 16)),
                                  (add (decimate (shl gpr_q, 1), 16)),
                                  (add (decimate (shl gpr_q, 2), 16)),
                                  (add (decimate (shl gpr_q, 3), 16)),
                                  (add (decimate (shl gpr_q, 4), 16)),
                                  (add (decimate (shl gpr_q, 5), 16)),
                                  (add (decimate (shl gpr_q, 6), 16)),
                                  (add (decimate (shl gpr_q, 7), 16)),
                                  (add (decimate (shl gpr_q, 8), 16)),
                                  (add (decimate (shl gpr_q, 9), 16)),
                                  (add (decimate (shl gpr_q, 10), 16)),
                                  (add (decimate (shl gpr_q, 11), 16)),
                                  (add (decimate (shl gpr_q, 12), 16)),
                                  (add (decimate (shl gpr_q, 13), 16)),
                                  (add (decimate (shl gpr_q, 14), 16)),
                                  (add (decimate (shl gpr_q, 15), 16))]>;

def RegD_Uniform : RegisterClass<"IntelGPU", [i32, f32], 32, (add gpr_d)>;
def RegD_SIMD8 : RegisterClass<"IntelGPU", [v8i32, v8f32], 32, (add gpr_d_simd8)>;
def RegQ_Uniform : RegisterClass<"IntelGPU", [i64, f64], 64, (add gpr_q)>;
def RegQ_SIMD8 : RegisterClass<"IntelGPU", [v8i64, v8f64], 64, (add gpr_q_simd8)>;
def RegQ_SIMD16 : RegisterClass<"IntelGPU", [v16i64, v16f64], 64, (add gpr_q_simd16)>;

def IntelGPUInstrInfo : InstrInfo;
def IntelGPU : Target {
  let InstructionSet = IntelGPUInstrInfo;
}
