//===- oracle.h - interface between the oracle's two translation units ----===//
//
// The oracle is built from two objects:
//  - harness.cpp (target-independent; compiled once and cached) asks LLVM's
//    MCRegisterInfo and TargetRegisterInfo every question and prints the
//    canonical text described in README.md;
//  - target.cpp (compiled once per .td) includes llvm-tblgen's
//    -gen-register-info output for one target and fills in oracle::Target.
//
//===----------------------------------------------------------------------===//

#ifndef REGDESC_ORACLE_H
#define REGDESC_ORACLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"

#include <cstdint>

namespace oracle {

/// What the per-target object provides.
struct Target {
  /// The Target record's name, e.g. "AMDGPU".
  const char *Name;
  /// HW modes: 0 is "Default", then the HwMode records in LLVM's order.
  unsigned NumHwModes;
  const char *const *HwModeNames;
  /// Number of CostPerUse tables (TargetRegisterInfoDesc::NumCosts).
  unsigned NumCostTables;
  /// Calls the generated Init<Target>MCRegisterInfo.
  void (*InitMC)(llvm::MCRegisterInfo &MCRI);
  /// Builds the <Target>GenRegisterInfo subclass for one HW mode. It lives
  /// until the process exits (TargetRegisterInfo's destructor is protected).
  const llvm::TargetRegisterInfo *(*MakeTRI)(unsigned HwMode);
  /// The protected getRegClassInfo(RC): sizes and alignment in bits for the
  /// TRI's HW mode (getSpillAlign would assert on alignments under 8 bits).
  const llvm::TargetRegisterInfo::RegClassInfo &(*ClassInfo)(
      const llvm::TargetRegisterInfo &TRI, const llvm::TargetRegisterClass &RC);
  /// getRegisterCosts(MF) with getRegisterCostTableIndex(MF) == Table.
  llvm::ArrayRef<uint8_t> (*RegisterCosts)(const llvm::TargetRegisterInfo &TRI,
                                           unsigned Table);
};

/// Defined by target.cpp.
const Target &target();

/// The allocation order every patched <Class>AltOrderSelect returns (set by
/// the harness before it calls getRawAllocationOrder) ...
extern unsigned AltOrderRequest;
/// ... and the number of orders the class has, stored by the patched
/// function (1 when the class has no AltOrderSelect function).
extern unsigned AltOrderCount;

/// A MachineFunction reference for the hooks that take one but, in the
/// generated code (with AltOrderSelect patched), never read it:
/// getRawAllocationOrder, getRegPressureSetLimit, getRegisterCosts. Nothing
/// may access it.
const llvm::MachineFunction &unusedMachineFunction();

/// The body of every patched <Class>AltOrderSelect: records NumOrders and
/// returns AltOrderRequest.
unsigned selectAltOrder(unsigned NumOrders);

} // namespace oracle

#endif // REGDESC_ORACLE_H
