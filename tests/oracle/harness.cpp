//===- harness.cpp - LLVM 14's register-info answers as canonical text ----===//
//
// The C++ half of the regdesc oracle. Linked with target.cpp (one target's
// llvm-tblgen -gen-register-info output) and libLLVM-14, it builds the
// target's MCRegisterInfo and its TargetRegisterInfo (one per HW mode), asks
// them every question listed in README.md, and prints the answers in the
// canonical text that README.md specifies byte for byte. The Rust half
// (dump.rs) prints the same text from regdesc's tables; the two must be
// identical.
//
// Usage: oracle            print the canonical text
//        oracle --bench N  time the query benchmark loops (README.md,
//                          "Benchmark mode"), best of N rounds
//
// Exit status: 0 on success, 1 on a bad command line, 2 when LLVM's answers
// break an invariant the text format relies on (the message says which).
//
//===----------------------------------------------------------------------===//

#include "oracle.h"

#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/MC/LaneBitmask.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace llvm;

#include "hooks.h"

namespace {

//===----------------------------------------------------------------------===//
// Text output
//===----------------------------------------------------------------------===//

[[noreturn]] void fatal(const std::string &Message) {
  std::fflush(stdout);
  std::fprintf(stderr, "oracle: %s\n", Message.c_str());
  std::exit(2);
}

std::string hex16(uint64_t Value) {
  char Buf[17];
  std::snprintf(Buf, sizeof(Buf), "%016" PRIX64, Value);
  return Buf;
}

std::string mask(LaneBitmask M) { return hex16(M.getAsInteger()); }

/// The text format's version (README.md); bump it with every change.
const unsigned FormatVersion = 2;

const char *boolean(bool B) { return B ? "true" : "false"; }

/// Writes the text to stdout in large blocks: sections ("== NAME"), and in
/// them head lines, each followed by continuation lines indented by two
/// spaces.
class Printer {
public:
  void section(const char *Name) {
    Out += "== ";
    Out += Name;
    Out += '\n';
  }

  void head(const std::string &Line) {
    Out += Line;
    Out += '\n';
    maybeFlush();
  }

  void line(const std::string &Line) {
    Out += "  ";
    Out += Line;
    Out += '\n';
    maybeFlush();
  }

  void finish() { flush(); }

private:
  void maybeFlush() {
    if (Out.size() > (1u << 20))
      flush();
  }

  void flush() {
    if (!Out.empty() &&
        std::fwrite(Out.data(), 1, Out.size(), stdout) != Out.size())
      fatal("cannot write the output");
    Out.clear();
  }

  std::string Out;
};

/// Appends " WORD" to a line.
void word(std::string &Line, const std::string &Word) {
  Line += ' ';
  Line += Word;
}

/// Numbers in the given order, each maximal run of consecutive numbers
/// (N, N+1, ..., M with M > N) written "N-M", space-separated, each with a
/// leading space.
std::string runs(const std::vector<unsigned> &Numbers) {
  std::string Out;
  for (size_t I = 0; I < Numbers.size();) {
    size_t J = I;
    while (J + 1 < Numbers.size() && Numbers[J + 1] == Numbers[J] + 1)
      ++J;
    word(Out, std::to_string(Numbers[I]));
    if (J > I)
      Out += "-" + std::to_string(Numbers[J]);
    I = J + 1;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// The questions
//===----------------------------------------------------------------------===//

class Oracle {
public:
  explicit Oracle(const oracle::Target &T) : T(T) {
    T.InitMC(MCRI);
    for (unsigned M = 0; M < T.NumHwModes; ++M)
      TRIs.push_back(T.MakeTRI(M));
    NumRegs = MCRI.getNumRegs();
    NumUnits = MCRI.getNumRegUnits();
    NumIndices = MCRI.getNumSubRegIndices();
    NumClasses = TRI().getNumRegClasses();
    NumPressureSets = TRI().getNumRegPressureSets();
    if (MCRI.getNumRegClasses() != NumClasses)
      fatal("MCRegisterInfo and TargetRegisterInfo count classes differently");
  }

  void print() {
    summary();
    hwModes();
    subRegIndices();
    composeSubRegIndices();
    laneMaskCompose();
    registers();
    registerUnits();
    matchingSuperRegisters();
    registerClasses();
    commonSubClasses();
    matchingSuperRegClasses();
    pressureSets();
    P.finish();
  }

  void bench(unsigned Rounds);

private:
  const TargetRegisterInfo &TRI() const { return *TRIs[0]; }
  const TargetRegisterClass *RC(unsigned C) const {
    return TRI().getRegClass(C);
  }

  std::string reg(MCRegister R) const { return MCRI.getName(R); }
  std::string index(unsigned I) const {
    return I ? TRI().getSubRegIndexName(I) : "-";
  }
  std::string cls(const TargetRegisterClass *C) const {
    return TRI().getRegClassName(C);
  }
  static std::string pressureSets(const int *Sets) {
    std::vector<unsigned> Out;
    for (; *Sets != -1; ++Sets)
      Out.push_back(unsigned(*Sets));
    return runs(Out);
  }

  void summary() {
    P.section("summary");
    P.head("format " + std::to_string(FormatVersion));
    P.head(std::string("target ") + T.Name);
    P.head("registers " + std::to_string(NumRegs - 1));
    P.head("register-units " + std::to_string(NumUnits));
    P.head("sub-register-indices " + std::to_string(NumIndices - 1));
    P.head("register-classes " + std::to_string(NumClasses));
    P.head("hw-modes " + std::to_string(T.NumHwModes));
    P.head("cost-tables " + std::to_string(T.NumCostTables));
    P.head("covering-lanes " + mask(TRI().getCoveringLanes()));
  }

  void hwModes() {
    P.section("hw-modes");
    for (unsigned M = 0; M < T.NumHwModes; ++M)
      P.head("hw-mode " + std::to_string(M) + " " + T.HwModeNames[M]);
  }

  void indexHead(unsigned I) {
    P.head("index " + std::to_string(I) + " " + index(I));
  }

  void subRegIndices() {
    P.section("sub-register-indices");
    for (unsigned I = 1; I < NumIndices; ++I) {
      indexHead(I);
      P.line("size " + std::to_string(MCRI.getSubRegIdxSize(I)));
      P.line("offset " + std::to_string(MCRI.getSubRegIdxOffset(I)));
      P.line("lane-mask " + mask(TRI().getSubRegIndexLaneMask(I)));
    }
  }

  /// For each index A, the indices B with R:A:B existing for some register
  /// R (the compositions LLVM defines: composeSubRegIndices "does not tell
  /// you about illegal compositions"), ascending. Registers with the same
  /// sub-register indices are looked at once.
  std::vector<std::vector<unsigned>> legalCompositions() const {
    std::vector<std::vector<unsigned>> Shapes; // sorted index lists
    std::map<std::vector<unsigned>, unsigned> ShapeIds;
    std::vector<unsigned> ShapeOf(NumRegs, 0);
    for (unsigned R = 1; R < NumRegs; ++R) {
      std::vector<unsigned> Indices;
      for (MCSubRegIndexIterator It(R, &MCRI); It.isValid(); ++It)
        Indices.push_back(It.getSubRegIndex());
      std::sort(Indices.begin(), Indices.end());
      auto Ins = ShapeIds.emplace(Indices, unsigned(Shapes.size()));
      if (Ins.second)
        Shapes.push_back(Indices);
      ShapeOf[R] = Ins.first->second;
    }
    std::vector<std::set<unsigned>> ShapesAt(NumIndices);
    for (unsigned R = 1; R < NumRegs; ++R)
      for (MCSubRegIndexIterator It(R, &MCRI); It.isValid(); ++It)
        ShapesAt[It.getSubRegIndex()].insert(ShapeOf[It.getSubReg()]);
    std::vector<std::vector<unsigned>> Out(NumIndices);
    for (unsigned A = 1; A < NumIndices; ++A) {
      std::set<unsigned> Bs;
      for (unsigned Shape : ShapesAt[A])
        Bs.insert(Shapes[Shape].begin(), Shapes[Shape].end());
      Out[A].assign(Bs.begin(), Bs.end());
    }
    return Out;
  }

  void composeSubRegIndices() {
    P.section("compose-sub-register-indices");
    const std::vector<std::vector<unsigned>> Legal = legalCompositions();
    for (unsigned A = 1; A < NumIndices; ++A) {
      indexHead(A);
      for (unsigned B : Legal[A])
        P.line(index(B) + " " + index(TRI().composeSubRegIndices(A, B)));
    }
  }

  /// Each lane of Mask alone (lowest first), then Mask itself.
  static std::vector<LaneBitmask> lanesThenAll(LaneBitmask Mask) {
    std::vector<LaneBitmask> Out;
    for (unsigned Bit = 0; Bit < LaneBitmask::BitWidth; ++Bit) {
      LaneBitmask Lane = LaneBitmask::getLane(Bit);
      if ((Mask & Lane).any())
        Out.push_back(Lane);
    }
    if (Mask.any())
      Out.push_back(Mask);
    return Out;
  }

  /// The lane masks composeSubRegIndexLaneMask(I, X) is defined on, for
  /// each index I, as LLVM defines them (the "valid bits" its transform is
  /// built from): the lanes of the leaf indices A (no register has
  /// sub-registers under A) with R:I:A existing. A leaf index I moves the
  /// one lane of a register without sub-registers, lane 0. (Where no leaf
  /// composes with I, LLVM calls the composition invalid and answers
  /// anything: nothing is asked.)
  std::vector<LaneBitmask>
  composeDomains(const std::vector<std::vector<unsigned>> &Legal) const {
    std::vector<LaneBitmask> Domain(NumIndices);
    for (unsigned I = 1; I < NumIndices; ++I) {
      if (Legal[I].empty())
        Domain[I] = LaneBitmask::getLane(0);
      for (unsigned A : Legal[I])
        if (Legal[A].empty())
          Domain[I] |= TRI().getSubRegIndexLaneMask(A);
    }
    return Domain;
  }

  /// composeSubRegIndexLaneMask(I, X) for X in I's domain (each lane alone,
  /// then all of them); reverseComposeSubRegIndexLaneMask(I, Y) for each
  /// answer Y, where LLVM documents it as the inverse (it gives X back).
  /// The reverse answer is printed within I's domain. Where I's transform
  /// has several steps, LLVM 14's reverse rotates the whole mask by every
  /// step's amount and answers a strict superset of X: the text then has
  /// the documented answer X, and the run reports it on stderr.
  void laneMaskCompose() {
    P.section("lane-mask-compose");
    const std::vector<LaneBitmask> Domain = composeDomains(legalCompositions());
    unsigned Imprecise = 0;
    std::string First;
    for (unsigned I = 1; I < NumIndices; ++I) {
      indexHead(I);
      std::vector<std::pair<LaneBitmask, LaneBitmask>> Answers; // (X, Y)
      for (LaneBitmask Probe : lanesThenAll(Domain[I])) {
        LaneBitmask R = TRI().composeSubRegIndexLaneMask(I, Probe);
        Answers.emplace_back(Probe, R);
        P.line("compose " + mask(Probe) + " " + mask(R));
      }
      for (auto XY : Answers) {
        LaneBitmask X = XY.first, Y = XY.second;
        LaneBitmask R = TRI().reverseComposeSubRegIndexLaneMask(I, Y) & Domain[I];
        if (Y.any() && R != X && (R & X) == X) {
          if (!Imprecise++)
            First = "index " + index(I) + ": reverse " + mask(Y) + " = " +
                    mask(R) + ", documented " + mask(X);
          R = X;
        }
        P.line("reverse " + mask(Y) + " " + mask(R));
      }
    }
    if (Imprecise)
      std::fprintf(stderr,
                   "note: LLVM 14's reverseComposeSubRegIndexLaneMask answers "
                   "a strict superset of its documented inverse on %u probes "
                   "(first: %s); the text has the documented answers\n",
                   Imprecise, First.c_str());
  }

  void registerHead(unsigned R) {
    P.head("register " + std::to_string(R) + " " + reg(R));
  }

  void registers() {
    P.section("registers");
    std::vector<ArrayRef<uint8_t>> Costs;
    for (unsigned K = 0; K < T.NumCostTables; ++K)
      Costs.push_back(T.RegisterCosts(TRI(), K));
    for (unsigned R = 1; R < NumRegs; ++R) {
      registerHead(R);
      P.line("encoding " + std::to_string(MCRI.getEncodingValue(R)));
      std::string Line = "cost-per-use";
      for (ArrayRef<uint8_t> Table : Costs)
        word(Line, std::to_string(Table[R]));
      P.line(Line);
      P.line(std::string("in-allocatable-class ") +
             boolean(TRI().isInAllocatableClass(R)));
      P.line("sub-registers" + subRegisters(R));
      P.line("super-registers" + superRegisters(R));
      P.line("units" + units(R));
      P.line("aliases" + aliases(R));
      std::vector<unsigned> Overlaps;
      for (unsigned S = 1; S < NumRegs; ++S)
        if (TRI().regsOverlap(R, S))
          Overlaps.push_back(S);
      P.line("overlaps" + runs(Overlaps));
      Line = "sub-register-by-index";
      for (unsigned I = 1; I < NumIndices; ++I)
        if (MCRegister S = MCRI.getSubReg(R, I))
          word(Line, index(I) + ":" + std::to_string(S));
      P.line(Line);
    }
  }

  /// MCSubRegIterator without self, each as REG:INDEX (getSubRegIndex).
  /// Checks that the with-self iterator yields R first and then the same
  /// list, and that MCSubRegIndexIterator walks the same list with the same
  /// indices.
  std::string subRegisters(MCRegister R) const {
    std::vector<MCRegister> Subs;
    for (MCSubRegIterator It(R, &MCRI); It.isValid(); ++It)
      Subs.push_back(*It);
    std::vector<MCRegister> WithSelf;
    for (MCSubRegIterator It(R, &MCRI, true); It.isValid(); ++It)
      WithSelf.push_back(*It);
    if (WithSelf.empty() || WithSelf[0] != R ||
        !std::equal(Subs.begin(), Subs.end(), WithSelf.begin() + 1,
                    WithSelf.end()))
      fatal("MCSubRegIterator with self is not " + reg(R) +
            " followed by its sub-registers");
    std::string Out;
    size_t N = 0;
    for (MCSubRegIndexIterator It(R, &MCRI); It.isValid(); ++It, ++N) {
      unsigned I = MCRI.getSubRegIndex(R, It.getSubReg());
      if (N >= Subs.size() || It.getSubReg() != Subs[N] ||
          It.getSubRegIndex() != I)
        fatal("MCSubRegIndexIterator disagrees with MCSubRegIterator and "
              "getSubRegIndex on " +
              reg(R));
      word(Out, std::to_string(Subs[N]) + ":" + index(I));
    }
    if (N != Subs.size())
      fatal("MCSubRegIndexIterator is shorter than MCSubRegIterator on " +
            reg(R));
    return Out;
  }

  /// MCSuperRegIterator without self; checks the with-self iterator.
  std::string superRegisters(MCRegister R) const {
    std::vector<unsigned> Supers;
    for (MCSuperRegIterator It(R, &MCRI); It.isValid(); ++It)
      Supers.push_back(*It);
    std::vector<unsigned> WithSelf;
    for (MCSuperRegIterator It(R, &MCRI, true); It.isValid(); ++It)
      WithSelf.push_back(*It);
    if (WithSelf.empty() || WithSelf[0] != R ||
        !std::equal(Supers.begin(), Supers.end(), WithSelf.begin() + 1,
                    WithSelf.end()))
      fatal("MCSuperRegIterator with self is not " + reg(R) +
            " followed by its super-registers");
    return runs(Supers);
  }

  /// MCRegUnitMaskIterator as UNIT:MASK; checks MCRegUnitIterator yields the
  /// same units in the same order.
  std::string units(MCRegister R) const {
    std::vector<unsigned> Units;
    for (MCRegUnitIterator It(R, &MCRI); It.isValid(); ++It)
      Units.push_back(*It);
    std::string Out;
    size_t N = 0;
    for (MCRegUnitMaskIterator It(R, &MCRI); It.isValid(); ++It, ++N) {
      std::pair<unsigned, LaneBitmask> UM = *It;
      if (N >= Units.size() || UM.first != Units[N])
        fatal("MCRegUnitMaskIterator disagrees with MCRegUnitIterator on " +
              reg(R));
      word(Out, std::to_string(UM.first) + ":" + mask(UM.second));
    }
    if (N != Units.size())
      fatal("MCRegUnitMaskIterator is shorter than MCRegUnitIterator on " +
            reg(R));
    return Out;
  }

  /// MCRegAliasIterator with self, as a set (each register once,
  /// ascending): the iterator walks units, their roots and the roots'
  /// super-registers, so it yields some registers several times, and that
  /// order is not part of its contract. Checks that R is among them and that
  /// the iterator without self yields the same set less R.
  std::string aliases(MCRegister R) const {
    auto collect = [&](bool IncludeSelf) {
      std::vector<unsigned> Out;
      for (MCRegAliasIterator It(R, &MCRI, IncludeSelf); It.isValid(); ++It)
        Out.push_back(*It);
      std::sort(Out.begin(), Out.end());
      Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
      return Out;
    };
    std::vector<unsigned> Aliases = collect(true);
    std::vector<unsigned> Others = collect(false);
    if (!std::binary_search(Aliases.begin(), Aliases.end(), unsigned(R)))
      fatal("MCRegAliasIterator with self does not yield " + reg(R));
    std::vector<unsigned> Expected;
    for (unsigned A : Aliases)
      if (A != R)
        Expected.push_back(A);
    if (Others != Expected)
      fatal("MCRegAliasIterator without self is not the set with self less " +
            reg(R));
    return runs(Aliases);
  }

  void registerUnits() {
    P.section("register-units");
    for (unsigned U = 0; U < NumUnits; ++U) {
      P.head("unit " + std::to_string(U));
      std::vector<unsigned> Roots;
      for (MCRegUnitRootIterator It(U, &MCRI); It.isValid(); ++It)
        Roots.push_back(*It);
      P.line("roots" + runs(Roots));
    }
  }

  /// getMatchingSuperReg(R, Idx, RC) for every register, index and class;
  /// prints the non-null answers as INDEX SUPER CLASSES. LLVM's answer is
  /// the first super-register S of R (MCSuperRegIterator order) with
  /// RC->contains(S) and getSubReg(S, Idx) == R, so only (Idx, RC) with Idx =
  /// getSubRegIndex(S, R) and RC containing S for some such S can be
  /// non-null: those are asked. On small targets every triple is asked and
  /// the others checked null.
  void matchingSuperRegisters() {
    P.section("matching-super-registers");
    std::vector<std::vector<unsigned>> ClassesOf(NumRegs);
    for (unsigned C = 0; C < NumClasses; ++C)
      for (unsigned R = 1; R < NumRegs; ++R)
        if (RC(C)->contains(R))
          ClassesOf[R].push_back(C);
    const bool Exhaustive =
        uint64_t(NumRegs) * NumIndices * NumClasses <= (uint64_t(1) << 22);
    for (unsigned R = 1; R < NumRegs; ++R) {
      registerHead(R);
      // (index, class) pairs that may answer, sorted and unique.
      std::vector<std::pair<unsigned, unsigned>> Candidates;
      for (MCSuperRegIterator It(R, &MCRI); It.isValid(); ++It) {
        for (MCSubRegIndexIterator SI(*It, &MCRI); SI.isValid(); ++SI)
          if (SI.getSubReg() == R)
            for (unsigned C : ClassesOf[*It])
              Candidates.emplace_back(SI.getSubRegIndex(), C);
      }
      std::sort(Candidates.begin(), Candidates.end());
      Candidates.erase(std::unique(Candidates.begin(), Candidates.end()),
                       Candidates.end());
      // Answers grouped by (index, super-register), each with its classes.
      std::vector<std::tuple<unsigned, unsigned, unsigned>> Answers;
      for (auto IC : Candidates)
        if (MCRegister S =
                MCRI.getMatchingSuperReg(R, IC.first, &MCRI.getRegClass(IC.second)))
          Answers.emplace_back(IC.first, S, IC.second);
      std::sort(Answers.begin(), Answers.end());
      for (size_t K = 0; K < Answers.size();) {
        unsigned I = std::get<0>(Answers[K]), S = std::get<1>(Answers[K]);
        std::vector<unsigned> Classes;
        for (; K < Answers.size() && std::get<0>(Answers[K]) == I &&
               std::get<1>(Answers[K]) == S;
             ++K)
          Classes.push_back(std::get<2>(Answers[K]));
        P.line(index(I) + " " + std::to_string(S) + runs(Classes));
      }
      if (!Exhaustive)
        continue;
      size_t K = 0;
      for (unsigned I = 1; I < NumIndices; ++I)
        for (unsigned C = 0; C < NumClasses; ++C) {
          while (K < Candidates.size() && Candidates[K] < std::make_pair(I, C))
            ++K;
          if (K < Candidates.size() && Candidates[K] == std::make_pair(I, C))
            continue;
          if (MCRI.getMatchingSuperReg(R, I, &MCRI.getRegClass(C)))
            fatal("getMatchingSuperReg(" + reg(R) + ", " + index(I) + ", " +
                  cls(RC(C)) + ") answers outside the candidates");
        }
    }
  }

  void classHead(unsigned C) {
    P.head("class " + std::to_string(C) + " " + cls(RC(C)));
  }

  void registerClasses() {
    P.section("register-classes");
    const MachineFunction &MF = oracle::unusedMachineFunction();
    for (unsigned C = 0; C < NumClasses; ++C) {
      const TargetRegisterClass *A = RC(C);
      classHead(C);
      std::vector<unsigned> Members;
      for (unsigned R = 1; R < NumRegs; ++R)
        if (A->contains(R))
          Members.push_back(R);
      P.line("contains" + runs(Members));
      oracle::AltOrderRequest = 0;
      oracle::AltOrderCount = 1;
      unsigned NumOrders = 1;
      for (unsigned K = 0; K < NumOrders; ++K) {
        oracle::AltOrderRequest = K;
        ArrayRef<MCPhysReg> Order = A->getRawAllocationOrder(MF);
        if (K == 0)
          NumOrders = oracle::AltOrderCount;
        P.line("order " + std::to_string(K) +
               runs(std::vector<unsigned>(Order.begin(), Order.end())));
      }
      oracle::AltOrderRequest = 0;
      P.line("lane-mask " + mask(A->getLaneMask()));
      P.line("copy-cost " + std::to_string(A->getCopyCost()));
      P.line(std::string("allocatable ") + boolean(A->isAllocatable()));
      P.line("allocation-priority " + std::to_string(A->AllocationPriority));
      for (unsigned M = 0; M < T.NumHwModes; ++M) {
        const TargetRegisterInfo::RegClassInfo &Info =
            T.ClassInfo(*TRIs[M], *A);
        P.line("mode " + std::to_string(M) + " reg-size " +
               std::to_string(Info.RegSize) + " spill-size " +
               std::to_string(Info.SpillSize) + " spill-align " +
               std::to_string(Info.SpillAlignment));
      }
      std::vector<unsigned> Supers;
      for (auto S = A->getSuperClasses(); *S; ++S)
        Supers.push_back((*S)->getID());
      P.line("super-classes" + runs(Supers));
      std::vector<unsigned> Subs;
      for (unsigned B = 0; B < NumClasses; ++B)
        if (A->hasSubClassEq(RC(B)))
          Subs.push_back(B);
      P.line("sub-classes" + runs(Subs));
      std::string Line = "sub-class-with-sub-reg";
      for (unsigned I = 1; I < NumIndices; ++I)
        if (const TargetRegisterClass *S = TRI().getSubClassWithSubReg(A, I))
          word(Line, index(I) + ":" + std::to_string(S->getID()));
      P.line(Line);
    }
  }

  void commonSubClasses() {
    P.section("common-sub-classes");
    for (unsigned C = 0; C < NumClasses; ++C) {
      classHead(C);
      for (unsigned B = 0; B < NumClasses; ++B)
        if (const TargetRegisterClass *S =
                TRI().getCommonSubClass(RC(C), RC(B)))
          P.line(std::to_string(B) + " " + std::to_string(S->getID()));
    }
  }

  /// getMatchingSuperRegClass(A, B, Idx) for every class pair and index:
  /// one line per (B, answer) with the indices giving it.
  void matchingSuperRegClasses() {
    P.section("matching-super-reg-classes");
    for (unsigned C = 0; C < NumClasses; ++C) {
      classHead(C);
      for (unsigned B = 0; B < NumClasses; ++B) {
        std::vector<std::pair<unsigned, unsigned>> Answers; // (class, index)
        for (unsigned I = 1; I < NumIndices; ++I)
          if (const TargetRegisterClass *S =
                  TRI().getMatchingSuperRegClass(RC(C), RC(B), I))
            Answers.emplace_back(S->getID(), I);
        std::sort(Answers.begin(), Answers.end());
        for (size_t K = 0; K < Answers.size();) {
          unsigned S = Answers[K].first;
          std::string Line = std::to_string(B) + " " + std::to_string(S);
          for (; K < Answers.size() && Answers[K].first == S; ++K)
            word(Line, index(Answers[K].second));
          P.line(Line);
        }
      }
    }
  }

  /// Everything LLVM derives from its RegUnitSets, in one section so that
  /// it can be compared on its own.
  void pressureSets() {
    P.section("pressure-sets");
    const MachineFunction &MF = oracle::unusedMachineFunction();
    P.head("pressure-sets " + std::to_string(NumPressureSets));
    for (unsigned S = 0; S < NumPressureSets; ++S) {
      P.head("pressure-set " + std::to_string(S) + " " +
             TRI().getRegPressureSetName(S));
      P.line("limit " + std::to_string(TRI().getRegPressureSetLimit(MF, S)));
    }
    for (unsigned U = 0; U < NumUnits; ++U) {
      P.head("unit " + std::to_string(U));
      P.line("weight " + std::to_string(TRI().getRegUnitWeight(U)));
      P.line("pressure-sets" + pressureSets(TRI().getRegUnitPressureSets(U)));
    }
    for (unsigned C = 0; C < NumClasses; ++C) {
      classHead(C);
      const RegClassWeight &W = TRI().getRegClassWeight(RC(C));
      P.line("weight " + std::to_string(W.RegWeight) + " " +
             std::to_string(W.WeightLimit));
      P.line("pressure-sets" +
             pressureSets(TRI().getRegClassPressureSets(RC(C))));
    }
  }

  const oracle::Target &T;
  Printer P;
  MCRegisterInfo MCRI;
  std::vector<const TargetRegisterInfo *> TRIs;
  unsigned NumRegs, NumUnits, NumIndices, NumClasses, NumPressureSets;
};

//===----------------------------------------------------------------------===//
// Benchmark mode
//===----------------------------------------------------------------------===//

/// Keeps a value alive so that the optimizer cannot drop the loop making it.
template <typename T> void keep(const T &Value) {
  asm volatile("" : : "r,m"(Value) : "memory");
}

/// Times Body (which returns how many queries it asked) Rounds times and
/// prints "bench NAME NS_PER_QUERY QUERIES" for the best round.
template <typename F> void timeLoop(const char *Name, unsigned Rounds, F Body) {
  double Best = 0;
  uint64_t Queries = 0;
  for (unsigned K = 0; K < Rounds; ++K) {
    auto Start = std::chrono::steady_clock::now();
    Queries = Body();
    std::chrono::duration<double, std::nano> Took =
        std::chrono::steady_clock::now() - Start;
    double PerQuery = Took.count() / double(Queries ? Queries : 1);
    if (K == 0 || PerQuery < Best)
      Best = PerQuery;
  }
  std::printf("bench %s %.3f %" PRIu64 "\n", Name, Best, Queries);
}

void Oracle::bench(unsigned Rounds) {
  // The same loops as benches/queries.rs; README.md, "Benchmark mode".
  timeLoop("sub_reg", Rounds, [&] {
    uint64_t Sum = 0;
    for (unsigned R = 1; R < NumRegs; ++R)
      for (unsigned I = 1; I < NumIndices; ++I)
        Sum += MCRI.getSubReg(R, I);
    keep(Sum);
    return uint64_t(NumRegs - 1) * (NumIndices - 1);
  });
  timeLoop("reg_units", Rounds, [&] {
    uint64_t Sum = 0;
    for (unsigned R = 1; R < NumRegs; ++R)
      for (MCRegUnitIterator It(R, &MCRI); It.isValid(); ++It)
        Sum += *It;
    keep(Sum);
    return uint64_t(NumRegs - 1);
  });
  timeLoop("regs_overlap", Rounds, [&] {
    uint64_t Sum = 0, N = 0;
    for (unsigned R = 1; R < NumRegs; ++R)
      for (unsigned S = 1 + R % 7; S < NumRegs; S += 7, ++N)
        Sum += TRI().regsOverlap(R, S);
    keep(Sum);
    return N;
  });
  timeLoop("class_contains", Rounds, [&] {
    uint64_t Sum = 0;
    for (unsigned C = 0; C < NumClasses; ++C) {
      const MCRegisterClass &MC = MCRI.getRegClass(C);
      for (unsigned R = 1; R < NumRegs; ++R)
        Sum += MC.contains(R);
    }
    keep(Sum);
    return uint64_t(NumClasses) * (NumRegs - 1);
  });
}

const char *const Usage =
    "usage: oracle [--bench ROUNDS]\n"
    "Prints LLVM 14's register-info answers for the linked target as the\n"
    "canonical text of tests/oracle/README.md, or times the query loops.\n";

} // namespace

int main(int argc, char **argv) {
  unsigned BenchRounds = 0;
  for (int I = 1; I < argc; ++I) {
    if (!std::strcmp(argv[I], "--bench") && I + 1 < argc) {
      BenchRounds = unsigned(std::strtoul(argv[++I], nullptr, 10));
      if (BenchRounds == 0) {
        std::fprintf(stderr, "oracle: --bench needs a positive count\n");
        return 1;
      }
    } else if (!std::strcmp(argv[I], "--help")) {
      std::fputs(Usage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "oracle: unknown argument '%s'\n%s", argv[I], Usage);
      return 1;
    }
  }
  Oracle O(oracle::target());
  if (BenchRounds)
    O.bench(BenchRounds);
  else
    O.print();
  if (std::fflush(stdout) != 0)
    fatal("cannot write the output");
  return 0;
}
