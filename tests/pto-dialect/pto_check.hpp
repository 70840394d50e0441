// SPDX-License-Identifier: Apache-2.0
// The checker dialect's C++ side: the generated declarations plus the few helpers that the type
// and op verifiers share.
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"

#include "PTODialect.h.inc"
#include "PTOEnums.h.inc"
#define GET_ATTRDEF_CLASSES
#include "PTOAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "PTOTypes.h.inc"
#define GET_OP_CLASSES
#include "PTOOps.h.inc"

namespace pto_check {

/// Bytes per element, 0 for a type without a whole byte size (i1, index, non-numeric).
unsigned elementBytes(mlir::Type t);
/// A5 rules when the module says `pto.target_arch = "a5"`; A2/A3 rules otherwise (ptoas's default).
bool isA5(mlir::Operation* op);
/// The value of `pto.target_arch` on the enclosing module, or "".
llvm::StringRef targetArch(mlir::Operation* op);
/// The level the driver was asked to check (`--pto-level`): 1, 2 or 3.
int checkedLevel();
/// The tile_buf layout constraints PTOAS checks on alloc_tile results (pto-dialect.md §2).
mlir::LogicalResult verifyLayout(mlir::Operation* op, TileBufType t);
/// The box (rows x cols) of a boxed layout, {0, 0} for none_box.
std::pair<int64_t, int64_t> boxOf(TileBufType t);

}  // namespace pto_check
