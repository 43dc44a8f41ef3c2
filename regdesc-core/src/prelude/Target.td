// regdesc built-in prelude: the register-description subset of LLVM 14's
// `llvm/Target/Target.td`, written for regdesc.
//
// regdesc uses this file when `include "llvm/Target/Target.td"` cannot be
// found on the include path. It declares the classes a register file uses
// (sub-register indices, registers, tuples, classes, HwModes, value types)
// with the field names, types and default values llvm-tblgen 14 expects, so
// the register bank computed from it is the same as with the real file.
// Instruction, scheduling and intrinsic classes are not declared.

// ---- Value types: name, size in bits, MVT number ----------------------------

class ValueType<int size, int value> {
  string Namespace = "MVT";
  int Size = size;
  int Value = value;
}

def OtherVT : ValueType<0, 1>;  def i1 : ValueType<1, 2>;  def i8 : ValueType<8, 3>;  def i16 : ValueType<16, 4>;
def i32 : ValueType<32, 5>;  def i64 : ValueType<64, 6>;  def i128 : ValueType<128, 7>;  def bf16 : ValueType<16, 8>;
def f16 : ValueType<16, 9>;  def f32 : ValueType<32, 10>;  def f64 : ValueType<64, 11>;  def f80 : ValueType<80, 12>;
def f128 : ValueType<128, 13>;  def ppcf128 : ValueType<128, 14>;  def v1i1 : ValueType<1, 15>;  def v2i1 : ValueType<2, 16>;
def v4i1 : ValueType<4, 17>;  def v8i1 : ValueType<8, 18>;  def v16i1 : ValueType<16, 19>;  def v32i1 : ValueType<32, 20>;
def v64i1 : ValueType<64, 21>;  def v128i1 : ValueType<128, 22>;  def v256i1 : ValueType<256, 23>;  def v512i1 : ValueType<512, 24>;
def v1024i1 : ValueType<1024, 25>;  def v1i8 : ValueType<8, 26>;  def v2i8 : ValueType<16, 27>;  def v4i8 : ValueType<32, 28>;
def v8i8 : ValueType<64, 29>;  def v16i8 : ValueType<128, 30>;  def v32i8 : ValueType<256, 31>;  def v64i8 : ValueType<512, 32>;
def v128i8 : ValueType<1024, 33>;  def v256i8 : ValueType<2048, 34>;  def v512i8 : ValueType<4096, 35>;  def v1024i8 : ValueType<8192, 36>;
def v1i16 : ValueType<16, 37>;  def v2i16 : ValueType<32, 38>;  def v3i16 : ValueType<48, 39>;  def v4i16 : ValueType<64, 40>;
def v8i16 : ValueType<128, 41>;  def v16i16 : ValueType<256, 42>;  def v32i16 : ValueType<512, 43>;  def v64i16 : ValueType<1024, 44>;
def v128i16 : ValueType<2048, 45>;  def v256i16 : ValueType<4096, 46>;  def v512i16 : ValueType<8192, 47>;  def v1i32 : ValueType<32, 48>;
def v2i32 : ValueType<64, 49>;  def v3i32 : ValueType<96, 50>;  def v4i32 : ValueType<128, 51>;  def v5i32 : ValueType<160, 52>;
def v6i32 : ValueType<192, 53>;  def v7i32 : ValueType<224, 54>;  def v8i32 : ValueType<256, 55>;  def v16i32 : ValueType<512, 56>;
def v32i32 : ValueType<1024, 57>;  def v64i32 : ValueType<2048, 58>;  def v128i32 : ValueType<4096, 59>;  def v256i32 : ValueType<8192, 60>;
def v512i32 : ValueType<16384, 61>;  def v1024i32 : ValueType<32768, 62>;  def v2048i32 : ValueType<65536, 63>;  def v1i64 : ValueType<64, 64>;
def v2i64 : ValueType<128, 65>;  def v3i64 : ValueType<192, 66>;  def v4i64 : ValueType<256, 67>;  def v8i64 : ValueType<512, 68>;
def v16i64 : ValueType<1024, 69>;  def v32i64 : ValueType<2048, 70>;  def v64i64 : ValueType<4096, 71>;  def v128i64 : ValueType<8192, 72>;
def v256i64 : ValueType<16384, 73>;  def v1i128 : ValueType<128, 74>;  def v1f16 : ValueType<16, 75>;  def v2f16 : ValueType<32, 76>;
def v3f16 : ValueType<48, 77>;  def v4f16 : ValueType<64, 78>;  def v8f16 : ValueType<128, 79>;  def v16f16 : ValueType<256, 80>;
def v32f16 : ValueType<512, 81>;  def v64f16 : ValueType<1024, 82>;  def v128f16 : ValueType<2048, 83>;  def v256f16 : ValueType<4096, 84>;
def v512f16 : ValueType<8192, 85>;  def v2bf16 : ValueType<32, 86>;  def v3bf16 : ValueType<48, 87>;  def v4bf16 : ValueType<64, 88>;
def v8bf16 : ValueType<128, 89>;  def v16bf16 : ValueType<256, 90>;  def v32bf16 : ValueType<512, 91>;  def v64bf16 : ValueType<1024, 92>;
def v128bf16 : ValueType<2048, 93>;  def v1f32 : ValueType<32, 94>;  def v2f32 : ValueType<64, 95>;  def v3f32 : ValueType<96, 96>;
def v4f32 : ValueType<128, 97>;  def v5f32 : ValueType<160, 98>;  def v6f32 : ValueType<192, 99>;  def v7f32 : ValueType<224, 100>;
def v8f32 : ValueType<256, 101>;  def v16f32 : ValueType<512, 102>;  def v32f32 : ValueType<1024, 103>;  def v64f32 : ValueType<2048, 104>;
def v128f32 : ValueType<4096, 105>;  def v256f32 : ValueType<8192, 106>;  def v512f32 : ValueType<16384, 107>;  def v1024f32 : ValueType<32768, 108>;
def v2048f32 : ValueType<65536, 109>;  def v1f64 : ValueType<64, 110>;  def v2f64 : ValueType<128, 111>;  def v3f64 : ValueType<192, 112>;
def v4f64 : ValueType<256, 113>;  def v8f64 : ValueType<512, 114>;  def v16f64 : ValueType<1024, 115>;  def v32f64 : ValueType<2048, 116>;
def v64f64 : ValueType<4096, 117>;  def v128f64 : ValueType<8192, 118>;  def v256f64 : ValueType<16384, 119>;  def nxv1i1 : ValueType<1, 120>;
def nxv2i1 : ValueType<2, 121>;  def nxv4i1 : ValueType<4, 122>;  def nxv8i1 : ValueType<8, 123>;  def nxv16i1 : ValueType<16, 124>;
def nxv32i1 : ValueType<32, 125>;  def nxv64i1 : ValueType<64, 126>;  def nxv1i8 : ValueType<8, 127>;  def nxv2i8 : ValueType<16, 128>;
def nxv4i8 : ValueType<32, 129>;  def nxv8i8 : ValueType<64, 130>;  def nxv16i8 : ValueType<128, 131>;  def nxv32i8 : ValueType<256, 132>;
def nxv64i8 : ValueType<512, 133>;  def nxv1i16 : ValueType<16, 134>;  def nxv2i16 : ValueType<32, 135>;  def nxv4i16 : ValueType<64, 136>;
def nxv8i16 : ValueType<128, 137>;  def nxv16i16 : ValueType<256, 138>;  def nxv32i16 : ValueType<512, 139>;  def nxv1i32 : ValueType<32, 140>;
def nxv2i32 : ValueType<64, 141>;  def nxv4i32 : ValueType<128, 142>;  def nxv8i32 : ValueType<256, 143>;  def nxv16i32 : ValueType<512, 144>;
def nxv32i32 : ValueType<1024, 145>;  def nxv1i64 : ValueType<64, 146>;  def nxv2i64 : ValueType<128, 147>;  def nxv4i64 : ValueType<256, 148>;
def nxv8i64 : ValueType<512, 149>;  def nxv16i64 : ValueType<1024, 150>;  def nxv32i64 : ValueType<2048, 151>;  def nxv1f16 : ValueType<16, 152>;
def nxv2f16 : ValueType<32, 153>;  def nxv4f16 : ValueType<64, 154>;  def nxv8f16 : ValueType<128, 155>;  def nxv16f16 : ValueType<256, 156>;
def nxv32f16 : ValueType<512, 157>;  def nxv1bf16 : ValueType<16, 158>;  def nxv2bf16 : ValueType<32, 159>;  def nxv4bf16 : ValueType<64, 160>;
def nxv8bf16 : ValueType<128, 161>;  def nxv1f32 : ValueType<32, 162>;  def nxv2f32 : ValueType<64, 163>;  def nxv4f32 : ValueType<128, 164>;
def nxv8f32 : ValueType<256, 165>;  def nxv16f32 : ValueType<512, 166>;  def nxv1f64 : ValueType<64, 167>;  def nxv2f64 : ValueType<128, 168>;
def nxv4f64 : ValueType<256, 169>;  def nxv8f64 : ValueType<512, 170>;  def x86mmx : ValueType<64, 171>;  def FlagVT : ValueType<0, 172>;
def isVoid : ValueType<0, 173>;  def untyped : ValueType<8, 174>;  def funcref : ValueType<0, 175>;  def externref : ValueType<0, 176>;
def x86amx : ValueType<8192, 177>;  def i64x8 : ValueType<512, 178>;  def token : ValueType<0, 248>;  def MetadataVT : ValueType<0, 249>;
def iPTRAny : ValueType<0, 250>;  def vAny : ValueType<0, 251>;  def fAny : ValueType<0, 252>;  def iAny : ValueType<0, 253>;
def iPTR : ValueType<0, 254>;  def Any : ValueType<0, 255>;

// A pointer type for GlobalISel patterns: an integer type's size and number
// plus an address space (targets define e.g. `def p0 : PtrValueType<i64, 0>;`).
class PtrValueType<ValueType scalar, int addrspace>
    : ValueType<scalar.Size, scalar.Value> {
  int AddrSpace = addrspace;
}

// ---- Hardware modes -----------------------------------------------------------

// A mode is selected by subtarget features ("+a,-b").
class HwMode<string FS> {
  string Features = FS;
}
// The mode in force when no other is: mode 0.
def DefaultMode : HwMode<"">;

// Chooses one object per mode; subclasses add `Objects`.
class HwModeSelect<list<HwMode> Ms> {
  list<HwMode> Modes = Ms;
}

class ValueTypeByHwMode<list<HwMode> Ms, list<ValueType> Ts>
    : HwModeSelect<Ms>, ValueType<0, 0> {
  list<ValueType> Objects = Ts;
}

// Register size, spill size and spill alignment, in bits.
class RegInfo<int RS, int SS, int SA> {
  int RegSize = RS;
  int SpillSize = SS;
  int SpillAlignment = SA;
}

class RegInfoByHwMode<list<HwMode> Ms = [], list<RegInfo> Ts = []>
    : HwModeSelect<Ms> {
  list<RegInfo> Objects = Ts;
}

// ---- Sub-register indices -------------------------------------------------------

// Names a part of a register: `size` bits at bit `offset` (-1: varies).
class SubRegIndex<int size, int offset = 0> {
  string Namespace = "";
  int Size = size;
  int Offset = offset;
  // [A, B]: this index is A followed by B.
  list<SubRegIndex> ComposedOf = [];
  // Two or more indices whose concatenation this index covers.
  list<SubRegIndex> CoveringSubRegIndices = [];
}

// B within A; the offset adds up unless either is unknown.
class ComposedSubRegIndex<SubRegIndex A, SubRegIndex B>
  : SubRegIndex<B.Size, !cond(!eq(A.Offset, -1): -1,
                              !eq(B.Offset, -1): -1,
                              true:              !add(A.Offset, B.Offset))> {
  let ComposedOf = [A, B];
}

// ---- Registers --------------------------------------------------------------------

// Selects one of a register's alternate names.
class RegAltNameIndex {
  string Namespace = "";
  // Used when a register has no name for this index.
  RegAltNameIndex FallbackRegAltNameIndex = ?;
}
def NoRegAltName : RegAltNameIndex;

class Register<string n, list<string> altNames = []> {
  string Namespace = "";
  string AsmName = n;
  list<string> AltNames = altNames;
  // Registers that overlap this one outside the sub-register structure.
  list<Register> Aliases = [];
  // Explicit sub-registers, named by SubRegIndices (same length).
  list<Register> SubRegs = [];
  list<SubRegIndex> SubRegIndices = [];
  list<RegAltNameIndex> RegAltNameIndices = [];
  // DWARF register numbers, one per flavour; -1 when absent, -2 invalid.
  list<int> DwarfNumbers = [];
  // Extra cost of an instruction using this register, per cost model.
  list<int> CostPerUse = [0];
  // The sub-registers cover every bit of the register.
  bit CoveredBySubRegs = false;
  bits<16> HWEncoding = 0;
  // Exists only to describe the structure; never allocated or printed.
  bit isArtificial = false;
}

class RegisterWithSubRegs<string n, list<Register> subregs> : Register<n> {
  let SubRegs = subregs;
}

// Base of register classes and operands usable as DAG operand types.
class DAGOperand {
  string OperandNamespace = "MCOI";
  string DecoderMethod = "";
}

// A set of registers with common types; regList is a set expression.
class RegisterClass<string namespace, list<ValueType> regTypes, int alignment,
                    dag regList, RegAltNameIndex idx = NoRegAltName>
  : DAGOperand {
  string Namespace = namespace;
  // Sizes per HwMode; overrides Size and Alignment when set.
  RegInfoByHwMode RegInfos;
  list<ValueType> RegTypes = regTypes;
  // Spill size in bits; 0 takes the size of the first type.
  int Size = 0;
  // Spill alignment in bits.
  int Alignment = alignment;
  // Cost of a copy between registers of the class; negative: expensive.
  int CopyCost = 1;
  dag MemberList = regList;
  RegAltNameIndex altNameIndex = idx;
  bit isAllocatable = true;
  // Alternative allocation orders, chosen by AltOrderSelect.
  list<dag> AltOrders = [];
  code AltOrderSelect = [{}];
  // 0..63; higher is allocated first.
  int AllocationPriority = 0;
  bit GeneratePressureSet = true;
  // Register pressure weight of the members.
  int Weight = ?;
  string DiagnosticType = "";
  string DiagnosticString = "";
  bits<8> TSFlags = 0;
}

// Set operators understood in register lists (the DAG operator's name is
// what counts): (add A, B), (sub A, B), (and A, B), (shl S, N),
// (trunc S, N), (rotl S, N), (rotr S, N), (decimate S, N),
// (interleave A, B, ...), (sequence "Fmt%u", From, To[, Step]).
def add;
def sub;
def and;
def shl;
def trunc;
def rotl;
def rotr;
def sequence;
def decimate;
def interleave;

// Super-registers made by zipping N lists of registers.
class RegisterTuples<list<SubRegIndex> Indices, list<dag> Regs,
                     list<string> RegNames = []> {
  list<dag> SubRegs = Regs;
  list<SubRegIndex> SubRegIndices = Indices;
  list<string> RegAsmNames = RegNames;
}

class DwarfRegNum<list<int> Numbers> {
  list<int> DwarfNumbers = Numbers;
}

// Use another register's DWARF numbers.
class DwarfRegAlias<Register reg> {
  Register DwarfAlias = reg;
}

// Callee-saved registers (a set expression).
class CalleeSavedRegs<dag saves> {
  dag SaveList = saves;
  dag OtherPreserved;
}

// ---- Operands ---------------------------------------------------------------------

// DAG operators of operand lists.
def ops;
def outs;
def ins;
def variable_ops;

// An assembly-parser operand kind.
class AsmOperandClass {
  string Name = ?;
  list<AsmOperandClass> SuperClasses = [];
  string PredicateMethod = ?;
  string RenderMethod = ?;
  string ParserMethod = ?;
  string DiagnosticType = "";
  string DiagnosticString = "";
  bit IsOptional = false;
  string DefaultMethod = ?;
}
def ImmAsmOperand : AsmOperandClass {
  let Name = "Imm";
}

// An instruction operand of value type `ty`.
class Operand<ValueType ty> : DAGOperand {
  ValueType Type = ty;
  string PrintMethod = "printOperand";
  string EncoderMethod = "";
  bit hasCompleteDecoder = true;
  string OperandType = "OPERAND_UNKNOWN";
  dag MIOperandInfo = (ops);
  code MCOperandPredicate;
  AsmOperandClass ParserMatchClass = ImmAsmOperand;
}

// A register class used as an operand, with its printing and parsing.
class RegisterOperand<RegisterClass regclass, string pm = "printOperand">
  : DAGOperand {
  RegisterClass RegClass = regclass;
  string PrintMethod = pm;
  string EncoderMethod = "";
  AsmOperandClass ParserMatchClass;
  string OperandType = "OPERAND_REGISTER";
  // A register that reads as zero (for GlobalISel).
  Register GIZeroRegister = ?;
}

// ---- Selection DAG leaves ---------------------------------------------------------------
//
// Just enough of TargetSelectionDAG.td for register files whose operands
// carry an immediate predicate (AArch64's vector-index operands).

// A selection DAG node kind (declared without its profile here).
class SDNode;
def imm : SDNode;
def timm : SDNode;

// A node transformation applied to a matched operand.
class SDNodeXForm<SDNode opc, code xformFunction> {
  SDNode Opcode = opc;
  code XFormFunction = xformFunction;
}
def NOOP_SDNodeXForm : SDNodeXForm<?, [{}]>;

// Fragments matching with C++ predicates.
class PatFrags<dag ops, list<dag> frags, code pred = [{}], SDNodeXForm xform = NOOP_SDNodeXForm> {
  dag Operands = ops;
  list<dag> Fragments = frags;
  code PredicateCode = pred;
  code GISelPredicateCode = [{}];
  code ImmediateCode = [{}];
  SDNodeXForm OperandTransform = xform;
  bit PredicateCodeUsesOperands = false;
  bit IsLoad = ?;
  bit IsStore = ?;
  bit IsAtomic = ?;
  bit IsUnindexed = ?;
  bit IsNonExtLoad = ?;
  bit IsAnyExtLoad = ?;
  bit IsSignExtLoad = ?;
  bit IsZeroExtLoad = ?;
  bit IsTruncStore = ?;
  bit IsAtomicOrderingMonotonic = ?;
  bit IsAtomicOrderingAcquire = ?;
  bit IsAtomicOrderingRelease = ?;
  bit IsAtomicOrderingAcquireRelease = ?;
  bit IsAtomicOrderingSequentiallyConsistent = ?;
  bit IsAtomicOrderingAcquireOrStronger = ?;
  bit IsAtomicOrderingWeakerThanAcquire = ?;
  bit IsAtomicOrderingReleaseOrStronger = ?;
  bit IsAtomicOrderingWeakerThanRelease = ?;
  ValueType MemoryVT = ?;
  ValueType ScalarMemoryVT = ?;
  list<int> AddressSpaces = ?;
  int MinAlignment = ?;
  bit IsAPInt = false;
  bit IsAPFloat = false;
  bit IsFP = false;
  bit FastIselShouldIgnore = false;
}
class PatFrag<dag ops, dag frag, code pred = [{}], SDNodeXForm xform = NOOP_SDNodeXForm>
  : PatFrags<ops, [frag], pred, xform>;
class PatLeaf<dag frag, code pred = [{}], SDNodeXForm xform = NOOP_SDNodeXForm>
  : PatFrag<(ops), frag, pred, xform>;
class ImmLeaf<ValueType vt, code pred, SDNodeXForm xform = NOOP_SDNodeXForm,
              SDNode ImmNode = imm>
  : PatFrag<(ops), (vt ImmNode), [{}], xform> {
  let ImmediateCode = pred;
  bit FastIselShouldIgnore = false;
  bit IsAPInt = false;
}
class TImmLeaf<ValueType vt, code pred, SDNodeXForm xform = NOOP_SDNodeXForm,
               SDNode ImmNode = timm>
  : ImmLeaf<vt, pred, xform, ImmNode>;

// ---- The target -------------------------------------------------------------------

class InstrInfo {
  bit isLittleEndianEncoding = false;
  bit guessInstructionProperties = true;
  bit decodePositionallyEncodedOperands = false;
  bit noNamedPositionallyEncodedOperands = false;
}

class AsmParser {
  string AsmParserClassName  = "AsmParser";
  string AsmParserInstCleanup  = "";
  bit ShouldEmitMatchRegisterName = true;
  bit ShouldEmitMatchRegisterAltName = false;
  bit AllowDuplicateRegisterNames = false;
  bit HasMnemonicFirst = true;
  bit ReportMultipleNearMisses = false;
}
def DefaultAsmParser : AsmParser;

class AsmParserVariant {
  int Variant = 0;
  string Name = "";
  string CommentDelimiter = "";
  string RegisterPrefix = "";
  string TokenizingCharacters = "[]*!";
  string SeparatorCharacters = " \t,";
  string BreakCharacters = "";
}
def DefaultAsmParserVariant : AsmParserVariant;

class AsmWriter {
  string AsmWriterClassName  = "InstPrinter";
  int PassSubtarget = 0;
  int Variant = 0;
}
def DefaultAsmWriter : AsmWriter;

class Target {
  InstrInfo InstructionSet;
  list<AsmParser> AssemblyParsers = [DefaultAsmParser];
  list<AsmParserVariant> AssemblyParserVariants = [DefaultAsmParserVariant];
  list<AsmWriter> AssemblyWriters = [DefaultAsmWriter];
  int AllowRegisterRenaming = 0;
}
