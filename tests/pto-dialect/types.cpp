// SPDX-License-Identifier: Apache-2.0
// The checker dialect, its types (C++ parse/print/verify) and attributes.
#include "pto_check.hpp"

#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <set>
#include <string>

using namespace mlir;
using namespace pto_check;

#include "PTODialect.cpp.inc"
#include "PTOEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "PTOAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "PTOTypes.cpp.inc"

void PTODialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "PTOTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "PTOAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "PTOOps.cpp.inc"
      >();
}

LogicalResult PTODialect::verifyOperationAttribute(Operation* op, NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == "pto.target_arch") {
    auto arch = dyn_cast<StringAttr>(attribute.getValue());
    if (!isa<ModuleOp>(op) || !arch) return op->emitError("pto.target_arch must be a string attribute on the module");
    if (arch.getValue() != "a2" && arch.getValue() != "a3" && arch.getValue() != "a5")
      return op->emitError("pto.target_arch \"") << arch.getValue() << "\" is not one of a2, a3, a5";
    return success();
  }
  if (name == "pto.kernel_kind") {
    if (!isa<KernelKindAttr>(attribute.getValue())) return op->emitError("pto.kernel_kind must be #pto.kernel_kind<cube|vector>");
    return success();
  }
  return op->emitError("unknown PTO attribute '") << name << "'";
}

unsigned pto_check::elementBytes(Type t) {
  if (!t.isIntOrFloat()) return 0;
  return t.getIntOrFloatBitWidth() / 8;
}

StringRef pto_check::targetArch(Operation* op) {
  auto module = isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  if (!module) return "";
  if (auto arch = module->getAttrOfType<StringAttr>("pto.target_arch")) return arch.getValue();
  return "";
}

bool pto_check::isA5(Operation* op) { return targetArch(op) == "a5"; }

//===--- !pto.ptr<E[, space]> ---===//
Type PtrType::parse(AsmParser& p) {
  Type element;
  std::string space;
  if (p.parseLess() || p.parseType(element)) return {};
  if (succeeded(p.parseOptionalComma())) {
    if (p.parseKeywordOrString(&space)) return {};
    static const char* const known[] = {"gm",  "ub",  "vec", "mat",  "l1", "left",    "l0a", "right",
                                        "l0b", "acc", "l0c", "bias", "bt", "scaling", "fb"};
    if (llvm::none_of(known, [&](const char* k) { return space == k; })) {
      p.emitError(p.getCurrentLocation(), "unknown pointer memory space '") << space << "'";
      return {};
    }
  }
  if (p.parseGreater()) return {};
  return PtrType::get(p.getContext(), element, space);
}
void PtrType::print(AsmPrinter& p) const {
  p << '<' << getElementType();
  if (!getSpace().empty()) p << ", " << getSpace();
  p << '>';
}

//===--- !pto.tensor_view<...>, !pto.partition_tensor_view<...> ---===//
template <class View>
static Type parseShapedView(AsmParser& p) {
  SmallVector<int64_t> shape;
  Type element;
  if (p.parseLess() || p.parseDimensionList(shape, /*allowDynamic=*/true, /*withTrailingX=*/true) || p.parseType(element) ||
      p.parseGreater())
    return {};
  return View::get(p.getContext(), shape, element);
}
static void printShapedView(AsmPrinter& p, ArrayRef<int64_t> shape, Type element) {
  p << '<';
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d)) p << '?';
    else p << d;
    p << 'x';
  }
  p << element << '>';
}
Type TensorViewType::parse(AsmParser& p) { return parseShapedView<TensorViewType>(p); }
void TensorViewType::print(AsmPrinter& p) const { printShapedView(p, getShape(), getElementType()); }
Type PartitionTensorViewType::parse(AsmParser& p) { return parseShapedView<PartitionTensorViewType>(p); }
void PartitionTensorViewType::print(AsmPrinter& p) const { printShapedView(p, getShape(), getElementType()); }

//===--- !pto.tile_buf<...> ---===//
namespace {
// A valid dim: `?` (dynamic) or an integer (-1 is a value of its own).
ParseResult parseValidDim(AsmParser& p, int64_t& v) {
  if (succeeded(p.parseOptionalQuestion())) {
    v = ShapedType::kDynamic;
    return success();
  }
  return p.parseInteger(v);
}
ParseResult parseKey(AsmParser& p, StringRef key) { return failure(p.parseKeyword(key) || p.parseEqual()); }
struct TileBufFields {
  std::string loc, blayout = "row_major", slayout = "none_box";
  Type element;
  int64_t rows = 0, cols = 0, vrow = 0, vcol = 0, fractal = 512, pad = 0, compact = -1;
};
// Legacy form: every key in its fixed order, then an optional `, compact=N`.
ParseResult parseLegacy(AsmParser& p, TileBufFields& f) {
  if (p.parseEqual() || p.parseKeywordOrString(&f.loc) || p.parseComma() || parseKey(p, "dtype") || p.parseType(f.element) ||
      p.parseComma() || parseKey(p, "rows") || p.parseInteger(f.rows) || p.parseComma() || parseKey(p, "cols") ||
      p.parseInteger(f.cols) || p.parseComma() || parseKey(p, "v_row") || parseValidDim(p, f.vrow) || p.parseComma() ||
      parseKey(p, "v_col") || parseValidDim(p, f.vcol) || p.parseComma() || parseKey(p, "blayout") ||
      p.parseKeywordOrString(&f.blayout) || p.parseComma() || parseKey(p, "slayout") || p.parseKeywordOrString(&f.slayout) ||
      p.parseComma() || parseKey(p, "fractal") || p.parseInteger(f.fractal) || p.parseComma() || parseKey(p, "pad") ||
      p.parseInteger(f.pad))
    return failure();
  if (succeeded(p.parseOptionalComma()) && (parseKey(p, "compact") || p.parseInteger(f.compact))) return failure();
  return success();
}
// Compact form: `vec, 16x32xf32` then `, key=value` in any order, each at most once.
ParseResult parseCompact(AsmParser& p, TileBufFields& f) {
  SmallVector<int64_t> shape;
  if (p.parseComma() || p.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) || p.parseType(f.element))
    return failure();
  if (shape.size() != 2) return p.emitError(p.getCurrentLocation(), "a tile_buf shape has two dims");
  f.rows = f.vrow = shape[0];
  f.cols = f.vcol = shape[1];
  std::set<std::string> seen;
  while (succeeded(p.parseOptionalComma())) {
    std::string key;
    if (p.parseKeywordOrString(&key) || p.parseEqual()) return failure();
    if (!seen.insert(key).second) return p.emitError(p.getCurrentLocation(), "tile_buf key '") << key << "' given twice";
    if (key == "valid") {
      if (parseValidDim(p, f.vrow) || p.parseXInDimensionList() || parseValidDim(p, f.vcol)) return failure();
    } else if (key == "blayout") {
      if (p.parseKeywordOrString(&f.blayout)) return failure();
    } else if (key == "slayout") {
      if (p.parseKeywordOrString(&f.slayout)) return failure();
    } else if (key == "fractal") {
      if (p.parseInteger(f.fractal)) return failure();
    } else if (key == "pad") {
      if (p.parseInteger(f.pad)) return failure();
    } else if (key == "compact") {
      if (p.parseInteger(f.compact)) return failure();
    } else {
      return p.emitError(p.getCurrentLocation(), "unknown tile_buf key '") << key << "'";
    }
  }
  return success();
}
}  // namespace

Type TileBufType::parse(AsmParser& p) {
  TileBufFields f;
  std::string first;
  if (p.parseLess() || p.parseKeywordOrString(&first)) return {};
  if (first == "loc") {
    if (parseLegacy(p, f)) return {};
  } else {
    f.loc = first;
    if (parseCompact(p, f)) return {};
  }
  if (p.parseGreater()) return {};
  return TileBufType::getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(), f.loc, f.element, f.rows, f.cols,
                                 f.vrow, f.vcol, f.blayout, f.slayout, f.fractal, f.pad, f.compact);
}

void TileBufType::print(AsmPrinter& p) const {
  const auto dim = [&](int64_t v) {
    if (ShapedType::isDynamic(v)) p << '?';
    else p << v;
  };
  p << "<loc=" << getMemLoc() << ", dtype=" << getElementType() << ", rows=" << getRows() << ", cols=" << getCols() << ", v_row=";
  dim(getValidRow());
  p << ", v_col=";
  dim(getValidCol());
  p << ", blayout=" << getBlayout() << ", slayout=" << getSlayout() << ", fractal=" << getFractal() << ", pad=" << getPad();
  if (getCompact() >= 0) p << ", compact=" << getCompact();
  p << '>';
}

LogicalResult TileBufType::verify(function_ref<InFlightDiagnostic()> emitError, StringRef loc, Type, int64_t rows, int64_t cols,
                                  int64_t vrow, int64_t vcol, StringRef blayout, StringRef slayout, int64_t fractal, int64_t pad,
                                  int64_t compact) {
  if (!llvm::is_contained({"vec", "mat", "left", "right", "acc", "bias", "scaling"}, loc))
    return emitError() << "tile_buf loc '" << loc << "' is not one of vec, mat, left, right, acc, bias, scaling";
  if (rows <= 0 || cols <= 0) return emitError() << "tile_buf rows and cols must be positive";
  const auto validOk = [](int64_t v, int64_t dim) { return ShapedType::isDynamic(v) || v == -1 || (v >= 0 && v <= dim); };
  if (!validOk(vrow, rows) || !validOk(vcol, cols))
    return emitError() << "tile_buf v_row/v_col must be ?, -1 or within 0..rows/cols";
  if (blayout != "row_major" && blayout != "col_major")
    return emitError() << "tile_buf blayout '" << blayout << "' is not row_major or col_major";
  if (slayout != "none_box" && slayout != "row_major" && slayout != "col_major")
    return emitError() << "tile_buf slayout '" << slayout << "' is not none_box, row_major or col_major";
  if (fractal != 32 && fractal != 512 && fractal != 1024) return emitError() << "tile_buf fractal must be 32, 512 or 1024";
  if (pad < 0 || pad > 3) return emitError() << "tile_buf pad is an integer code 0..3";
  if (compact < -1 || compact > 2) return emitError() << "tile_buf compact is an integer code 0..2";
  return success();
}

std::pair<int64_t, int64_t> pto_check::boxOf(TileBufType t) {
  if (t.getSlayout() == "none_box") return {0, 0};
  const int64_t esize = elementBytes(t.getElementType());
  if (t.getFractal() == 1024) return {16, 16};
  if (t.getFractal() == 32) return {16, 2};
  if (esize == 0) return {0, 0};
  if (t.getSlayout() == "row_major") return {16, 32 / esize};
  return {32 / esize, 16};
}

LogicalResult pto_check::verifyLayout(Operation* op, TileBufType t) {
  const int64_t esize = elementBytes(t.getElementType());
  if (esize == 0) return op->emitOpError("tile element type ") << t.getElementType() << " has no whole byte size";
  if (t.getSlayout() == "none_box") {
    if (t.getBlayout() == "row_major" && t.getCols() * esize % 32 != 0)
      return op->emitOpError("row_major none_box tile rows must be a multiple of 32 bytes (cols * element size = ")
             << t.getCols() * esize << ")";
    if (t.getBlayout() == "col_major" && t.getRows() * esize % 32 != 0)
      return op->emitOpError("col_major none_box tile columns must be a multiple of 32 bytes (rows * element size = ")
             << t.getRows() * esize << ")";
    return success();
  }
  const auto [h, w] = boxOf(t);
  if (w == 0 || t.getCols() % w != 0)
    return op->emitOpError("tile cols ") << t.getCols() << " are not a multiple of the box width " << w;
  const bool rowsFree = t.getMemLoc() == "vec" || t.getFractal() == 32 || t.getRows() == 1;
  if (!rowsFree && t.getRows() % h != 0)
    return op->emitOpError("tile rows ") << t.getRows() << " are not a multiple of the box height " << h;
  return success();
}
