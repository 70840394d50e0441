// SPDX-License-Identifier: Apache-2.0
// pto-check-opt: mlir-opt with the checker `pto` dialect and the func, arith and scf dialects our
// PTO-AS uses; `--pto-level=level1|level2|level3` is ptoas's level rule for pto.alloc_tile's addr.
#include "pto_check.hpp"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

static llvm::cl::opt<std::string> level("pto-level", llvm::cl::desc("ptoas level: level1, level2 (default) or level3"),
                                        llvm::cl::init("level2"));

int pto_check::checkedLevel() {
  if (level == "level1") return 1;
  if (level == "level3") return 3;
  return 2;
}

int main(int argc, char** argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect, mlir::scf::SCFDialect, pto_check::PTODialect>();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "pto-check-opt: the checker PTO dialect\n", registry));
}
