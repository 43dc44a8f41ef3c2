// Intel Gen (Gen9-style) register file for one hardware thread, written for
// the `regdesc!` macro (crate `regdesc-intel`) and `regdesc check`.
//
// The llvm-dev thread "How to describe the RegisterInfo?" (seed 004) ran out
// of lane-mask bits; the advice was to model one hardware thread, with
// uniform and per-lane (SIMD) registers aliasing each other. This file does
// that for the 128 GRFs r0..r127 of 32 bytes each (4 KiB):
//
//   uniform scalars   r5.3<0;1,0>:b  r5.3<0;1,0>:w  r5.2<0;1,0>:d  r5.1<0;1,0>:q
//   SIMD8  :w         r5.0 / r5.8 (half a GRF, 128 bits)
//   SIMD8  :d, SIMD16 :w   one GRF   (r5, 256 bits)
//   SIMD8  :q, SIMD16 :d   two GRFs  (r4_r5, 512 bits, even-aligned)
//   SIMD16 :q              four GRFs (r4_r5_r6_r7, 1024 bits, 4-aligned: a
//                          pair of SIMD8 :q vectors)
//
// Unit design. The widest register (SIMD16 :q) is 1024 bits. With byte
// units (examples/intel_grf_bytes_simd16.td) every byte of it needs a lane:
// 128 lanes, over the 64-bit budget. Here the sub-register hierarchy stops
// at 16-bit words: GRF = 2 halves (h0, h1) = 4 qwords (q0..q3) = 8 dwords
// (d0..d7) = 16 words (w0..w15), all indices relative to the GRF, so a
// SIMD16 :q register has 64 word positions: 64 lanes in both modes.
// Byte registers are not sub-registers (they have no index and cost no
// lane): each byte is an ad hoc alias (`Aliases`) of the word holding it,
// and llvm-tblgen gives every alias edge a register unit shared by the byte
// and the word. So a word has two units (its low and its high byte), every
// register containing the word inherits both, and r5.3:b overlaps r5.1:w,
// r5.0:d, r5 and every vector over r5, but not r5.2:b. Lane masks stay at
// word granularity: a byte write is a partial write of a word lane.
//
// Encoding: GRF registers carry their byte offset in the register file
// (r5.2:d = 5*32 + 2*4); architecture registers set bit 15 with the Intel
// ARF number in bits 11-4 and the sub-register number in bits 3-0.
include "llvm/Target/Target.td"

let Namespace = "Intel" in {
  // Halves, qwords, dwords and words of a GRF, named after their position
  // in the GRF (the subregnum of r5.2:d is 2: index d2).
  def h0 : SubRegIndex<128, 0>;
  def h1 : SubRegIndex<128, 128>;
  def q0 : SubRegIndex<64, 0>;
  def q1 : SubRegIndex<64, 64>;
  def q2 : SubRegIndex<64, 128> { let ComposedOf = [h1, q0]; }
  def q3 : SubRegIndex<64, 192> { let ComposedOf = [h1, q1]; }
  def d0 : SubRegIndex<32, 0>;
  def d1 : SubRegIndex<32, 32>;
  foreach k = 2-7 in {
    def d#k : SubRegIndex<32, !shl(k, 5)> {
      let ComposedOf = [!cast<SubRegIndex>("q"#!srl(k, 1)),
                        !cast<SubRegIndex>("d"#!and(k, 1))];
    }
  }
  def w0 : SubRegIndex<16, 0>;
  def w1 : SubRegIndex<16, 16>;
  foreach k = 2-15 in {
    def w#k : SubRegIndex<16, !shl(k, 4)> {
      let ComposedOf = [!cast<SubRegIndex>("d"#!srl(k, 1)),
                        !cast<SubRegIndex>("w"#!and(k, 1))];
    }
  }
  // The GRFs of a multi-GRF vector, and the GRF pairs of a GRF quad.
  def g0 : SubRegIndex<256, 0>;
  def g1 : SubRegIndex<256, 256>;
  def p0 : SubRegIndex<512, 0>;
  def p1 : SubRegIndex<512, 512>;
  def g2 : SubRegIndex<256, 512> { let ComposedOf = [p1, g0]; }
  def g3 : SubRegIndex<256, 768> { let ComposedOf = [p1, g1]; }
}

class IntelReg<string n, int enc> : Register<n> {
  let Namespace = "Intel";
  let HWEncoding = enc;
}

foreach n = 0-127 in {
  // Words: the leaves of the sub-register hierarchy.
  foreach k = 0-15 in {
    def R#n#_W#k : IntelReg<"r"#n#"."#k#"<0;1,0>:w", !add(!shl(n, 5), !shl(k, 1))>;
  }
  // Bytes: ad hoc aliases of their word (one shared unit per byte).
  foreach k = 0-31 in {
    def R#n#_B#k : IntelReg<"r"#n#"."#k#"<0;1,0>:b", !add(!shl(n, 5), k)> {
      let Aliases = [!cast<Register>("R"#n#"_W"#!srl(k, 1))];
    }
  }
  foreach k = 0-7 in {
    def R#n#_D#k : IntelReg<"r"#n#"."#k#"<0;1,0>:d", !add(!shl(n, 5), !shl(k, 2))> {
      let SubRegs = [!cast<Register>("R"#n#"_W"#!shl(k, 1)),
                     !cast<Register>("R"#n#"_W"#!add(!shl(k, 1), 1))];
      let SubRegIndices = [w0, w1];
      let CoveredBySubRegs = 1;
    }
  }
  foreach k = 0-3 in {
    def R#n#_Q#k : IntelReg<"r"#n#"."#k#"<0;1,0>:q", !add(!shl(n, 5), !shl(k, 3))> {
      let SubRegs = [!cast<Register>("R"#n#"_D"#!shl(k, 1)),
                     !cast<Register>("R"#n#"_D"#!add(!shl(k, 1), 1))];
      let SubRegIndices = [d0, d1];
      let CoveredBySubRegs = 1;
    }
  }
  // Half a GRF: a SIMD8 word vector, r5.0<8;8,1>:w or r5.8<8;8,1>:w.
  foreach k = 0-1 in {
    def R#n#_H#k : IntelReg<"r"#n#"."#!shl(k, 3)#"<8;8,1>:w", !add(!shl(n, 5), !shl(k, 4))> {
      let SubRegs = [!cast<Register>("R"#n#"_Q"#!shl(k, 1)),
                     !cast<Register>("R"#n#"_Q"#!add(!shl(k, 1), 1))];
      let SubRegIndices = [q0, q1];
      let CoveredBySubRegs = 1;
    }
  }
  // The GRF: a SIMD8 dword or SIMD16 word vector.
  def R#n : IntelReg<"r"#n, !shl(n, 5)> {
    let SubRegs = [!cast<Register>("R"#n#"_H0"), !cast<Register>("R"#n#"_H1")];
    let SubRegIndices = [h0, h1];
    let CoveredBySubRegs = 1;
  }
}

// Architecture registers (not allocatable).
def NULL : IntelReg<"null", 0x8000>;
def A0 : IntelReg<"a0", 0x8100>;
def ACC0 : IntelReg<"acc0", 0x8200>;
def ACC1 : IntelReg<"acc1", 0x8210>;
foreach f = 0-1 in {
  foreach s = 0-1 in {
    def F#f#_#s : IntelReg<"f"#f#"."#s, !add(0x8300, !shl(f, 4), s)>;
  }
  // The flag register: two 16-bit halves f0.0 and f0.1 (indices w0, w1).
  def F#f : IntelReg<"f"#f, !add(0x8300, !shl(f, 4))> {
    let SubRegs = [!cast<Register>("F"#f#"_0"), !cast<Register>("F"#f#"_1")];
    let SubRegIndices = [w0, w1];
    let CoveredBySubRegs = 1;
  }
}

// Uniform scalars, in GRF order (r0.0, r0.1, ..., r1.0, ...).
def GRF_B : RegisterClass<"Intel", [i8], 8,
    (interleave (sequence "R%u_B0", 0, 127), (sequence "R%u_B1", 0, 127),
                (sequence "R%u_B2", 0, 127), (sequence "R%u_B3", 0, 127),
                (sequence "R%u_B4", 0, 127), (sequence "R%u_B5", 0, 127),
                (sequence "R%u_B6", 0, 127), (sequence "R%u_B7", 0, 127),
                (sequence "R%u_B8", 0, 127), (sequence "R%u_B9", 0, 127),
                (sequence "R%u_B10", 0, 127), (sequence "R%u_B11", 0, 127),
                (sequence "R%u_B12", 0, 127), (sequence "R%u_B13", 0, 127),
                (sequence "R%u_B14", 0, 127), (sequence "R%u_B15", 0, 127),
                (sequence "R%u_B16", 0, 127), (sequence "R%u_B17", 0, 127),
                (sequence "R%u_B18", 0, 127), (sequence "R%u_B19", 0, 127),
                (sequence "R%u_B20", 0, 127), (sequence "R%u_B21", 0, 127),
                (sequence "R%u_B22", 0, 127), (sequence "R%u_B23", 0, 127),
                (sequence "R%u_B24", 0, 127), (sequence "R%u_B25", 0, 127),
                (sequence "R%u_B26", 0, 127), (sequence "R%u_B27", 0, 127),
                (sequence "R%u_B28", 0, 127), (sequence "R%u_B29", 0, 127),
                (sequence "R%u_B30", 0, 127), (sequence "R%u_B31", 0, 127))>;
def GRF_W : RegisterClass<"Intel", [i16, f16], 16,
    (interleave (sequence "R%u_W0", 0, 127), (sequence "R%u_W1", 0, 127),
                (sequence "R%u_W2", 0, 127), (sequence "R%u_W3", 0, 127),
                (sequence "R%u_W4", 0, 127), (sequence "R%u_W5", 0, 127),
                (sequence "R%u_W6", 0, 127), (sequence "R%u_W7", 0, 127),
                (sequence "R%u_W8", 0, 127), (sequence "R%u_W9", 0, 127),
                (sequence "R%u_W10", 0, 127), (sequence "R%u_W11", 0, 127),
                (sequence "R%u_W12", 0, 127), (sequence "R%u_W13", 0, 127),
                (sequence "R%u_W14", 0, 127), (sequence "R%u_W15", 0, 127))>;
def GRF_D : RegisterClass<"Intel", [i32, f32], 32,
    (interleave (sequence "R%u_D0", 0, 127), (sequence "R%u_D1", 0, 127),
                (sequence "R%u_D2", 0, 127), (sequence "R%u_D3", 0, 127),
                (sequence "R%u_D4", 0, 127), (sequence "R%u_D5", 0, 127),
                (sequence "R%u_D6", 0, 127), (sequence "R%u_D7", 0, 127))>;
def GRF_Q : RegisterClass<"Intel", [i64, f64], 64,
    (interleave (sequence "R%u_Q0", 0, 127), (sequence "R%u_Q1", 0, 127),
                (sequence "R%u_Q2", 0, 127), (sequence "R%u_Q3", 0, 127))>;

// SIMD vectors.
def SIMD8_W : RegisterClass<"Intel", [v8i16, v8f16], 128,
    (interleave (sequence "R%u_H0", 0, 127), (sequence "R%u_H1", 0, 127))>;
def GRF : RegisterClass<"Intel", [v8i32, v8f32, v16i16, v16f16], 256,
    (sequence "R%u", 0, 127)>;
def GRF2 : RegisterTuples<[g0, g1],
                          [(decimate GRF, 2), (decimate (shl GRF, 1), 2)]>;
// A GRF quad is a pair of GRF pairs: a SIMD16 qword vector is two SIMD8
// qword vectors (p0, p1).
def GRF4 : RegisterTuples<[p0, p1],
                          [(decimate GRF2, 2), (decimate (shl GRF2, 1), 2)]>;
def SIMD8_D : RegisterClass<"Intel", [v8i32, v8f32], 256, (add GRF)>;
def SIMD16_W : RegisterClass<"Intel", [v16i16, v16f16], 256, (add GRF)>;
def SIMD8_Q : RegisterClass<"Intel", [v8i64, v8f64], 256, (add GRF2)>;
def SIMD16_D : RegisterClass<"Intel", [v16i32, v16f32], 256, (add GRF2)>;
def SIMD16_Q : RegisterClass<"Intel", [v16i64, v16f64], 256, (add GRF4)>;


// The back end's per-lane 32-bit values: the lane view of a SIMD8 dword
// vector (one GRF, `L8_R5` = r5 read as r5.0<8;8,1>:ud) and of a SIMD16
// dword vector (an even-aligned GRF pair, `L16_R4` = r4..r5). A lane of
// the machine interpreter sees 32 bits in it; the emitter writes the whole
// vector. Each is an ad hoc alias of every word it covers, so it shares a
// register unit with every uniform scalar, vector and GRF of those GRFs:
// the allocator keeps uniform scalars and SIMD vectors apart through the
// generated tables alone. No lanes are spent (no sub-register index).
foreach n = 0-127 in {
  def L8_R#n : IntelReg<"r"#n#"<8>", !shl(n, 5)> {
    let Aliases = !foreach(k, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
                           !cast<Register>("R"#n#"_W"#k));
  }
}
foreach m = 0-63 in {
  def L16_R#!shl(m, 1) : IntelReg<"r"#!shl(m, 1)#"<16>", !shl(m, 6)> {
    let Aliases = !listconcat(
      !foreach(k, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
               !cast<Register>("R"#!shl(m, 1)#"_W"#k)),
      !foreach(k, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
               !cast<Register>("R"#!add(!shl(m, 1), 1)#"_W"#k)));
  }
}
def SIMD8_LANE : RegisterClass<"Intel", [i32], 32, (sequence "L8_R%u", 0, 127)>;
def SIMD16_LANE : RegisterClass<"Intel", [i32], 32,
    (add
         L16_R0, L16_R2, L16_R4, L16_R6, L16_R8, L16_R10, L16_R12, L16_R14,
         L16_R16, L16_R18, L16_R20, L16_R22, L16_R24, L16_R26, L16_R28, L16_R30,
         L16_R32, L16_R34, L16_R36, L16_R38, L16_R40, L16_R42, L16_R44, L16_R46,
         L16_R48, L16_R50, L16_R52, L16_R54, L16_R56, L16_R58, L16_R60, L16_R62,
         L16_R64, L16_R66, L16_R68, L16_R70, L16_R72, L16_R74, L16_R76, L16_R78,
         L16_R80, L16_R82, L16_R84, L16_R86, L16_R88, L16_R90, L16_R92, L16_R94,
         L16_R96, L16_R98, L16_R100, L16_R102, L16_R104, L16_R106, L16_R108, L16_R110,
         L16_R112, L16_R114, L16_R116, L16_R118, L16_R120, L16_R122, L16_R124, L16_R126)>;

// Architecture registers: outside every allocatable class.
def NULLREG : RegisterClass<"Intel", [i32], 32, (add NULL)> { let isAllocatable = 0; }
def ADDR : RegisterClass<"Intel", [v16i16], 256, (add A0)> { let isAllocatable = 0; }
def ACC : RegisterClass<"Intel", [v8i32, v8f32], 256, (add ACC0, ACC1)> { let isAllocatable = 0; }
def FLAG : RegisterClass<"Intel", [i32], 32, (add F0, F1)> { let isAllocatable = 0; }
def FLAG16 : RegisterClass<"Intel", [i16], 16, (add F0_0, F0_1, F1_0, F1_1)> { let isAllocatable = 0; }

def IntelInstrInfo : InstrInfo;
def Intel : Target {
  let InstructionSet = IntelInstrInfo;
}
