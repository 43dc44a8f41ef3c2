// Intel GPU general register file, byte-based (the thread's first attempt,
// made to work): 4096 8-bit registers Rb0..Rb4095 (128 GRFs of 32 bytes),
// word, dword and qword tuples over them, and SIMD8 and SIMD16 qword tuples.
// Byte granularity with 1024-bit SIMD16 qwords needs 128 coverage lanes.
include "llvm/Target/Target.td"

let Namespace = "IntelGPU" in {
  foreach Index = 0-7 in {
    def b#Index : SubRegIndex<8, !shl(Index, 3)>;
  }
  foreach Index = 0-15 in {
    def subq#Index : SubRegIndex<64, !shl(Index, 6)>;
  }
}

class IntelGPUReg<string n, bits<13> regIdx> : Register<n> {
  let Namespace = "IntelGPU";
  let HWEncoding{12-0} = regIdx;
}

foreach Index = 0-4095 in {
  def Rb#Index : IntelGPUReg<"Rb"#Index, Index>;
}

def gpr_b : RegisterClass<"IntelGPU", [i8], 8, (sequence "Rb%u", 0, 4095)>;

def gpr_w : RegisterTuples<[b0, b1],
                          [(add (decimate gpr_b, 2)),
                           (add (decimate (shl gpr_b, 1), 2))]>;
def gpr_d : RegisterTuples<[b0, b1, b2, b3],
                          [(add (decimate gpr_b, 4)),
                           (add (decimate (shl gpr_b, 1), 4)),
                           (add (decimate (shl gpr_b, 2), 4)),
                           (add (decimate (shl gpr_b, 3), 4))]>;
def gpr_q : RegisterTuples<[b0, b1, b2, b3, b4, b5, b6, b7],
                          [(add (decimate gpr_b, 8)),
                           (add (decimate (shl gpr_b, 1), 8)),
                           (add (decimate (shl gpr_b, 2), 8)),
                           (add (decimate (shl gpr_b, 3), 8)),
                           (add (decimate (shl gpr_b, 4), 8)),
                           (add (decimate (shl gpr_b, 5), 8)),
                           (add (decimate (shl gpr_b, 6), 8)),
                           (add (decimate (shl gpr_b, 7), 8))]>;
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

def RegW_Uniform : RegisterClass<"IntelGPU", [i16], 16, (add gpr_w)>;
def RegD_Uniform : RegisterClass<"IntelGPU", [i32, f32], 32, (add gpr_d)>;
def RegQ_Uniform : RegisterClass<"IntelGPU", [i64, f64], 64, (add gpr_q)>;
def RegQ_SIMD8 : RegisterClass<"IntelGPU", [v8i64, v8f64], 64, (add gpr_q_simd8)>;
def RegQ_SIMD16 : RegisterClass<"IntelGPU", [v16i64, v16f64], 64, (add gpr_q_simd16)>;

def IntelGPUInstrInfo : InstrInfo;
def IntelGPU : Target {
  let InstructionSet = IntelGPUInstrInfo;
}
