//===- target.cpp - one target's generated register tables for the oracle -===//
//
// Compiled once per .td file. Includes llvm-tblgen's -gen-register-info
// output (every GET_REGINFO_* part), adds what the generated target part
// needs to compile and link (a <Target>FrameLowering declaration and a
// concrete <Target>GenRegisterInfo subclass), and describes the result
// through oracle::Target.
//
// The build step (tests/common/oracle.rs) writes `oracle_target.h` beside the
// patched .inc; it defines:
//   ORACLE_TARGET          the Target record's name, as a bare identifier
//   ORACLE_TARGET_NAME     the same, as a string literal
//   ORACLE_NUM_HW_MODES    number of HW modes (1 + HwMode records)
//   ORACLE_HW_MODE_NAMES   their names, comma-separated string literals
//   ORACLE_INC             the patched .inc file, as a string literal
//
//===----------------------------------------------------------------------===//

// First, so that its precompiled form can be used (see oracle_pch.h).
#include "oracle_pch.h"

#include "oracle_target.h"

#define ORACLE_CAT2(A, B) A##B
#define ORACLE_CAT(A, B) ORACLE_CAT2(A, B)

#define GET_REGINFO_ENUM
#include ORACLE_INC
#define GET_REGINFO_MC_DESC
#include ORACLE_INC
#define GET_REGINFO_HEADER
#include ORACLE_INC

namespace llvm {
// The generated getFrameLowering() casts to this type; nothing creates one.
class ORACLE_CAT(ORACLE_TARGET, FrameLowering) : public TargetFrameLowering {
public:
  using TargetFrameLowering::TargetFrameLowering;
};
} // namespace llvm

#define GET_REGINFO_TARGET_DESC
#include ORACLE_INC

namespace {

using GenRegisterInfo = llvm::ORACLE_CAT(ORACLE_TARGET, GenRegisterInfo);

// Every RegClassInfos row is one class in one HW mode.
static_assert(sizeof(llvm::RegClassInfos) / sizeof(llvm::RegClassInfos[0]) ==
                  ORACLE_NUM_HW_MODES *
                      (sizeof(llvm::RegisterClasses) /
                       sizeof(llvm::RegisterClasses[0])),
              "ORACLE_NUM_HW_MODES does not match the generated RegClassInfos");

/// The smallest concrete subclass: the pure virtual hooks a real target
/// implements by hand are answered with empty values; the harness never asks
/// them.
class OracleRegisterInfo final : public GenRegisterInfo {
public:
  explicit OracleRegisterInfo(unsigned HwMode)
      : GenRegisterInfo(/*RA=*/0, /*DwarfFlavour=*/0, /*EHFlavour=*/0,
                        /*PC=*/0, HwMode) {}

  /// The table getRegisterCosts() reads.
  mutable unsigned CostTable = 0;

  const llvm::MCPhysReg *
  getCalleeSavedRegs(const llvm::MachineFunction *) const override {
    return nullptr;
  }
  llvm::BitVector getReservedRegs(const llvm::MachineFunction &) const override {
    return llvm::BitVector(getNumRegs());
  }
  void eliminateFrameIndex(llvm::MachineBasicBlock::iterator, int, unsigned,
                           llvm::RegScavenger *) const override {}
  llvm::Register getFrameRegister(const llvm::MachineFunction &) const override {
    return llvm::Register();
  }
  using GenRegisterInfo::getRegClassInfo;

  unsigned
  getRegisterCostTableIndex(const llvm::MachineFunction &) const override {
    return CostTable;
  }
};

const char *const HwModeNames[] = {ORACLE_HW_MODE_NAMES};
static_assert(sizeof(HwModeNames) / sizeof(HwModeNames[0]) ==
                  ORACLE_NUM_HW_MODES,
              "ORACLE_HW_MODE_NAMES and ORACLE_NUM_HW_MODES disagree");

void initMC(llvm::MCRegisterInfo &MCRI) {
  llvm::ORACLE_CAT(ORACLE_CAT(Init, ORACLE_TARGET), MCRegisterInfo)(&MCRI,
                                                                    /*RA=*/0);
}

const llvm::TargetRegisterInfo *makeTRI(unsigned HwMode) {
  return new OracleRegisterInfo(HwMode);
}

const llvm::TargetRegisterInfo::RegClassInfo &
classInfo(const llvm::TargetRegisterInfo &TRI,
          const llvm::TargetRegisterClass &RC) {
  return static_cast<const OracleRegisterInfo &>(TRI).getRegClassInfo(RC);
}

llvm::ArrayRef<uint8_t> registerCosts(const llvm::TargetRegisterInfo &TRI,
                                      unsigned Table) {
  const auto &RI = static_cast<const OracleRegisterInfo &>(TRI);
  RI.CostTable = Table;
  return RI.getRegisterCosts(oracle::unusedMachineFunction());
}

} // namespace

const oracle::Target &oracle::target() {
  static const Target T = {
      ORACLE_TARGET_NAME,
      ORACLE_NUM_HW_MODES,
      HwModeNames,
      llvm::ORACLE_CAT(ORACLE_TARGET, RegInfoDesc).NumCosts,
      initMC,
      makeTRI,
      classInfo,
      registerCosts,
  };
  return T;
}
