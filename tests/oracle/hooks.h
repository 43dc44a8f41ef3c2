//===- hooks.h - what target.cpp calls back, for every oracle program -----===//
//
// Defines the hooks oracle.h declares. Included by exactly one source file
// of each program linked with target.cpp (harness.cpp, lanes.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef REGDESC_ORACLE_HOOKS_H
#define REGDESC_ORACLE_HOOKS_H

#include "oracle.h"

#include "llvm/CodeGen/MachineFunction.h"

//===----------------------------------------------------------------------===//
// Hooks shared with target.cpp
//===----------------------------------------------------------------------===//

namespace oracle {

unsigned AltOrderRequest = 0;
unsigned AltOrderCount = 1;

unsigned selectAltOrder(unsigned NumOrders) {
  AltOrderCount = NumOrders;
  return AltOrderRequest;
}

const llvm::MachineFunction &unusedMachineFunction() {
  // Storage of the right size and alignment, never constructed or read: the
  // functions it is passed to ignore their MachineFunction argument.
  alignas(llvm::MachineFunction) static unsigned char Storage[sizeof(llvm::MachineFunction)];
  return *reinterpret_cast<const llvm::MachineFunction *>(Storage);
}

} // namespace oracle

#endif // REGDESC_ORACLE_HOOKS_H
