// SPDX-License-Identifier: Apache-2.0
// pto-check-opt: mlir-opt with the checker `pto` dialect and the func, arith and scf dialects our
// PTO-AS uses; `--pto-level=level1|level2|level3` is ptoas's level rule for pto.alloc_tile's addr.
#include "pto_check.hpp"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

// Why an enum option: any other spelling is a usage error instead of a silent level2.
namespace {
enum ptoLevel { level1 = 1, level2 = 2, level3 = 3 };
}  // namespace
static llvm::cl::opt<ptoLevel> level(
    "pto-level", llvm::cl::desc("ptoas level (docs/pto-as.md, \"Level\")"),
    llvm::cl::values(clEnumVal(level1, "no addr on any pto.alloc_tile"),
                     clEnumVal(level2, "no addr on any pto.alloc_tile (the default)"),
                     clEnumVal(level3, "addr on every pto.alloc_tile (an addressed planner: pypto, dsa_rp)")),
    llvm::cl::init(level2));

int pto_check::checkedLevel() { return static_cast<int>(level.getValue()); }

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect, mlir::scf::SCFDialect, pto_check::PTODialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "pto-check-opt: the checker PTO dialect\n", registry));
}
