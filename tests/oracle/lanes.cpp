//===- lanes.cpp - are a target's lane masks consistent, by LLVM's answers ===//
//
// Linked with target.cpp (one target's GenRegisterInfo.inc, llvm-tblgen's or
// regdesc's) and libLLVM-14. Asks LLVM 14's own TargetRegisterInfo about
// lane masks and checks that its answers are consistent with its answers
// about registers, for every register and every sub-register index:
//
//  overlap   two sub-registers of a register have overlapping index lane
//            masks exactly when they overlap (share a register unit);
//  compose   for R:A = S and S:B = T, composeSubRegIndices(A, B) = C names T
//            in R, and, T being a leaf (LLVM composes masks leaf by leaf),
//            composeSubRegIndexLaneMask(A, mask(B)) = mask(C);
//  reverse   reverseComposeSubRegIndexLaneMask(A, mask(C)) holds mask(B)
//            (LLVM's reverse rotates the whole mask by every step, so it
//            may give more);
//  units     a unit's lane mask in R meets mask(A) exactly when the unit is
//            in R:A (units with lanes), and the units of a leaf R:A carry
//            all of mask(A);
//  covering  a register whose sub-registers do not cover its units keeps
//            its indices' lanes out of getCoveringLanes();
//  classes   a class's lane mask holds the mask of every index the class
//            has a sub-class for (getSubClassWithSubReg).
//
// Prints one line per failure (at most 50) on stderr and a summary on
// stdout; exit status 2 when a check fails.
//
//===----------------------------------------------------------------------===//

#include "oracle.h"

#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/MC/LaneBitmask.h"
#include "llvm/MC/MCRegisterInfo.h"

#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace llvm;

#include "hooks.h"

namespace {

struct Checker {
  const TargetRegisterInfo &TRI;
  unsigned long long Checks = 0;
  unsigned long long Failures = 0;
  std::map<std::string, unsigned long long> ByKind;

  void expect(bool OK, const char *Kind, const std::string &What) {
    ++Checks;
    if (OK)
      return;
    ++Failures;
    if (++ByKind[Kind] <= 5)
      std::fprintf(stderr, "FAIL %s: %s\n", Kind, What.c_str());
  }

  std::string reg(MCRegister R) const { return TRI.getName(R); }
  std::string idx(unsigned I) const { return TRI.getSubRegIndexName(I); }
  static std::string hex(LaneBitmask M) {
    char Buf[32];
    std::snprintf(Buf, sizeof Buf, "%016" PRIX64, M.getAsInteger());
    return Buf;
  }

  std::set<unsigned> units(MCRegister R) const {
    std::set<unsigned> U;
    for (MCRegUnitIterator I(R, &TRI); I.isValid(); ++I)
      U.insert(*I);
    return U;
  }

  void visit(unsigned R) {
    std::vector<std::pair<unsigned, MCRegister>> Subs;
    for (MCSubRegIndexIterator I(R, &TRI); I.isValid(); ++I)
      Subs.push_back({I.getSubRegIndex(), I.getSubReg()});
    if (Subs.empty())
      return;
    std::string Name = reg(R);

    for (size_t X = 0; X < Subs.size(); ++X)
      for (size_t Y = X + 1; Y < Subs.size(); ++Y) {
        auto [A, SA] = Subs[X];
        auto [B, SB] = Subs[Y];
        bool Lanes = (TRI.getSubRegIndexLaneMask(A) &
                      TRI.getSubRegIndexLaneMask(B)).any();
        expect(Lanes == TRI.regsOverlap(SA, SB), "overlap",
               Name + ": " + idx(A) + " (" + reg(SA) + ") and " + idx(B) +
                   " (" + reg(SB) + "): lanes " + (Lanes ? "" : "do not ") +
                   "overlap, registers " +
                   (TRI.regsOverlap(SA, SB) ? "do" : "do not"));
      }

    for (auto [A, SA] : Subs)
      for (MCSubRegIndexIterator I(SA, &TRI); I.isValid(); ++I) {
        unsigned B = I.getSubRegIndex();
        MCRegister T = I.getSubReg();
        unsigned C = TRI.composeSubRegIndices(A, B);
        std::string What = Name + ": " + idx(A) + " then " + idx(B);
        expect(C != 0 && TRI.getSubReg(R, C) == T, "compose",
               What + " composes to " + (C ? idx(C) : "nothing") +
                   ", not to the index of " + reg(T));
        // LLVM composes lane masks step by step from the leaves: the
        // composition of a lane mask is exact for leaf sub-registers.
        if (!C || MCSubRegIterator(T, &TRI).isValid())
          continue;
        LaneBitmask Got = TRI.composeSubRegIndexLaneMask(
            A, TRI.getSubRegIndexLaneMask(B));
        expect(Got == TRI.getSubRegIndexLaneMask(C), "compose",
               What + ": composeSubRegIndexLaneMask gives " + hex(Got) +
                   ", mask of " + idx(C) + " is " +
                   hex(TRI.getSubRegIndexLaneMask(C)));
        LaneBitmask Back = TRI.reverseComposeSubRegIndexLaneMask(
            A, TRI.getSubRegIndexLaneMask(C));
        expect((TRI.getSubRegIndexLaneMask(B) & ~Back).none(), "reverse",
               What + ": reverseComposeSubRegIndexLaneMask gives " +
                   hex(Back) + ", without all of " + idx(B) + "'s " +
                   hex(TRI.getSubRegIndexLaneMask(B)));
      }

    std::vector<std::pair<unsigned, LaneBitmask>> UnitMasks;
    for (MCRegUnitMaskIterator I(R, &TRI); I.isValid(); ++I)
      UnitMasks.push_back(*I);
    std::set<unsigned> Covered;
    for (auto [A, SA] : Subs) {
      LaneBitmask M = TRI.getSubRegIndexLaneMask(A);
      std::set<unsigned> In = units(SA);
      Covered.insert(In.begin(), In.end());
      bool Leaf = !MCSubRegIterator(SA, &TRI).isValid();
      for (auto [U, UM] : UnitMasks) {
        if (Leaf && In.count(U))
          expect((M & ~UM).none(), "units",
                 Name + ": unit " + std::to_string(U) + " of " + reg(SA) +
                     " carries lanes " + hex(UM) + ", not all of " + idx(A) +
                     "'s " + hex(M));
        if (UM.none())
          continue;
        expect((UM & M).any() == (In.count(U) != 0), "units",
               Name + ": unit " + std::to_string(U) + " (lanes " + hex(UM) +
                   ") and " + idx(A) + " (lanes " + hex(M) + ", " +
                   reg(SA) + (In.count(U) ? ", which has the unit)" : ")"));
      }
    }
    if (Covered != units(R))
      for (auto [A, SA] : Subs)
        expect((TRI.getSubRegIndexLaneMask(A) & TRI.getCoveringLanes()).none(),
               "covering",
               Name + " is not covered by its sub-registers, yet " + idx(A) +
                   "'s lanes " + hex(TRI.getSubRegIndexLaneMask(A)) +
                   " are in getCoveringLanes() " +
                   hex(TRI.getCoveringLanes()));
  }

  void classes() {
    for (const TargetRegisterClass *RC : TRI.regclasses()) {
      LaneBitmask M = RC->getLaneMask();
      for (MCPhysReg R : *RC)
        for (MCSubRegIndexIterator I(R, &TRI); I.isValid(); ++I) {
          // LLVM's class mask: the indices some member has a sub-class for.
          if (!TRI.getSubClassWithSubReg(RC, I.getSubRegIndex()))
            continue;
          LaneBitmask IM = TRI.getSubRegIndexLaneMask(I.getSubRegIndex());
          expect((IM & ~M).none(), "classes",
                 std::string(TRI.getRegClassName(RC)) + " (lanes " + hex(M) +
                     ") holds " + reg(R) + ", whose " +
                     idx(I.getSubRegIndex()) + " has lanes " + hex(IM));
        }
    }
  }
};

} // namespace

int main() {
  const oracle::Target &T = oracle::target();
  const TargetRegisterInfo &TRI = *T.MakeTRI(0);
  Checker C{TRI};
  for (unsigned R = 1, E = TRI.getNumRegs(); R != E; ++R)
    C.visit(R);
  C.classes();
  std::printf("lanes: %u registers, %u indices, %u classes, %llu checks, "
              "%llu failed\n",
              TRI.getNumRegs() - 1, TRI.getNumSubRegIndices() - 1,
              TRI.getNumRegClasses(), C.Checks, C.Failures);
  for (auto &[Kind, N] : C.ByKind)
    std::fprintf(stderr, "%s: %llu failed\n", Kind.c_str(), N);
  return C.Failures ? 2 : 0;
}
