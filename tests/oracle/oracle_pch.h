//===- oracle_pch.h - what target.cpp includes before the generated .inc --===//
//
// Every header target.cpp needs, in one place, so that the build step
// (tests/common/oracle.rs) can precompile them once (oracle_pch.h.gch in the
// oracle cache, found first on the include path) instead of parsing LLVM's
// CodeGen headers again for every .td. Without the precompiled form this is
// an ordinary header.
//
//===----------------------------------------------------------------------===//

#ifndef REGDESC_ORACLE_PCH_H
#define REGDESC_ORACLE_PCH_H

#include "oracle.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetFrameLowering.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/MC/MCRegisterInfo.h"

#endif // REGDESC_ORACLE_PCH_H
