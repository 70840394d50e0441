// SPDX-License-Identifier: Apache-2.0
// The checker dialect's ops: generated definitions plus the verifier rules that
// ../shared/spec/pto-dialect.md §4 records for PTOAS 0.60, written here from those facts.
#include "pto_check.hpp"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <optional>
#include <string>

using namespace mlir;
using namespace pto_check;

namespace {

std::optional<int64_t> constantOf(Value v) {
  APInt value;
  if (v && matchPattern(v, m_ConstantInt(&value))) return value.getSExtValue();
  return std::nullopt;
}
TileBufType tileOf(Value v) { return cast<TileBufType>(v.getType()); }
bool known(int64_t dim) { return !ShapedType::isDynamic(dim) && dim >= 0; }

std::string spelled(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}
bool elementIn(Type t, std::initializer_list<StringRef> names) { return llvm::is_contained(names, spelled(t)); }
// i8 for ui8 and si8 too: the load/store tables take any signedness.
std::string signless(Type t) {
  std::string s = spelled(t);
  if (s.rfind("ui", 0) == 0 || s.rfind("si", 0) == 0) s.erase(0, 1);
  return s;
}

bool rowMajor(TileBufType t) { return t.getBlayout() == "row_major"; }
bool layoutIs(TileBufType t, StringRef b, StringRef s) { return t.getBlayout() == b && t.getSlayout() == s; }

LogicalResult sameValid(Operation* op, TileBufType a, TileBufType b, StringRef what) {
  if ((known(a.getValidRow()) && known(b.getValidRow()) && a.getValidRow() != b.getValidRow()) ||
      (known(a.getValidCol()) && known(b.getValidCol()) && a.getValidCol() != b.getValidCol()))
    return op->emitOpError(what) << " must have equal valid shapes";
  return success();
}

// The level3 implicit-tmp rule (pto-dialect.md §5, PTOAS 0.57+): at --pto-level=level3 on a2/a3
// PTOAS does not materialize the scratch of these ops (PTOMaterializeImplicitTmp runs at level2
// only), so leaving `tmp` out is an error there.
bool implicitTmpForbidden(Operation* op) { return checkedLevel() == 3 && !isA5(op); }
LogicalResult missingTmp(Operation* op, const Twine& what) {
  return op->emitOpError(what) << " needs tmp at --pto-level=level3 on a2/a3: PTOAS materializes the implicit tmp "
                                  "only at level2 (pto-dialect.md §5)";
}

// The elementwise rule shared by the binary, scalar and unary families: vector tiles of one
// element type, equal static valid shapes, the op's element table per target.
LogicalResult verifyElementwise(Operation* op, ArrayRef<Value> tiles, bool needRowMajor, std::initializer_list<StringRef> a3,
                                std::initializer_list<StringRef> a5extra) {
  TileBufType dst = tileOf(tiles.back());
  for (Value v : tiles) {
    TileBufType t = tileOf(v);
    if (t.getMemLoc() != "vec") return op->emitOpError("operates on vec tiles, not ") << t.getMemLoc();
    if (t.getElementType() != dst.getElementType()) return op->emitOpError("tiles must share one element type");
    if (needRowMajor && !rowMajor(t)) return op->emitOpError("tiles must be blayout=row_major");
    if (failed(sameValid(op, t, dst, "source and destination"))) return failure();
  }
  Type e = dst.getElementType();
  if (elementIn(e, a3) || (isA5(op) && elementIn(e, a5extra))) return success();
  return op->emitOpError("element type ") << e << " is not supported on " << (isA5(op) ? "a5" : "a2/a3");
}

}  // namespace

// `: !pto.tensor_view<...xE>` stands for the pointer type !pto.ptr<E> too.
static ParseResult parsePtrFromView(OpAsmParser& p, Type& ptr, Type& result) {
  if (p.parseType(result)) return failure();
  auto view = dyn_cast<TensorViewType>(result);
  if (!view) return p.emitError(p.getCurrentLocation(), "make_tensor_view's result must be a !pto.tensor_view");
  ptr = PtrType::get(p.getContext(), view.getElementType(), "");
  return success();
}
static void printPtrFromView(OpAsmPrinter& p, Operation*, Type, Type result) { p.printType(result); }

#define GET_OP_CLASSES
#include "PTOOps.cpp.inc"

LogicalResult AllocTileOp::verify() {
  TileBufType t = getResult().getType();
  if (ShapedType::isDynamic(t.getValidRow()) != static_cast<bool>(getValidRow()))
    return emitOpError("takes a valid_row operand exactly when the type's v_row is ?");
  if (ShapedType::isDynamic(t.getValidCol()) != static_cast<bool>(getValidCol()))
    return emitOpError("takes a valid_col operand exactly when the type's v_col is ?");
  const int level = checkedLevel();
  if (level == 3 && !getAddr()) return emitOpError("needs addr at --pto-level=level3");
  if (level != 3 && getAddr()) return emitOpError("takes no addr at --pto-level=level") << level;
  if (std::optional<int64_t> addr = constantOf(getAddr())) {
    const bool cube = llvm::is_contained({"left", "right", "acc"}, t.getMemLoc());
    const int64_t align = cube ? 512 : 32;
    if (*addr < 0 || *addr % align != 0)
      return emitOpError("addr ") << *addr << " must be non-negative and aligned to " << align << " bytes for a " << t.getMemLoc()
                                  << " tile";
  }
  return verifyLayout(*this, t);
}

LogicalResult MakeTensorViewOp::verify() {
  auto view = cast<TensorViewType>(getResult().getType());
  if (getPtr().getType().getElementType() != view.getElementType())
    return emitOpError("pointer element type must equal the view's");
  if (getShape().size() != view.getShape().size() || getStrides().size() != view.getShape().size())
    return emitOpError("takes one shape and one stride operand per view dimension");
  return success();
}

LogicalResult PartitionViewOp::verify() {
  TensorViewType src = getSource().getType();
  auto dst = cast<PartitionTensorViewType>(getResult().getType());
  if (src.getElementType() != dst.getElementType()) return emitOpError("source and result element types differ");
  const size_t rank = src.getShape().size();
  if (getOffsets().size() != rank || getSizes().size() != rank || dst.getShape().size() != rank)
    return emitOpError("takes one offset and one size per source dimension, and keeps the rank");
  for (size_t i = 0; i < rank; ++i) {
    std::optional<int64_t> off = constantOf(getOffsets()[i]), size = constantOf(getSizes()[i]);
    if (off && *off < 0) return emitOpError("offset ") << i << " is negative";
    if (size && *size <= 0) return emitOpError("size ") << i << " must be positive";
    if (size && !ShapedType::isDynamic(dst.getShape()[i]) && *size != dst.getShape()[i])
      return emitOpError("size ") << i << " (" << *size << ") differs from the result dim " << dst.getShape()[i];
    if (off && size && !ShapedType::isDynamic(src.getShape()[i]) && *off + *size > src.getShape()[i])
      return emitOpError("offset + size past source dim ") << i;
  }
  return success();
}

LogicalResult SubviewOp::verify() {
  TileBufType src = getSource().getType(), dst = cast<TileBufType>(getResult().getType());
  if (getOffsets().size() != 2 || getSizes().size() != 2) return emitOpError("takes two offsets and two sizes");
  int64_t sizes[2];
  for (int i = 0; i < 2; ++i) {
    sizes[i] = cast<IntegerAttr>(getSizes()[i]).getInt();
    if (sizes[i] <= 0) return emitOpError("sizes must be positive");
    if (std::optional<int64_t> off = constantOf(getOffsets()[i]); off && *off < 0)
      return emitOpError("offsets must be non-negative");
  }
  if (dst.getRows() != sizes[0] || dst.getCols() != sizes[1]) return emitOpError("result shape must equal sizes");
  if (dst.getElementType() != src.getElementType() || dst.getMemLoc() != src.getMemLoc() ||
      dst.getBlayout() != src.getBlayout() || dst.getSlayout() != src.getSlayout() || dst.getFractal() != src.getFractal() ||
      dst.getPad() != src.getPad() || dst.getCompact() != src.getCompact())
    return emitOpError("result must keep the source's element type, loc and layout config");
  if (static_cast<bool>(getValidRow()) != static_cast<bool>(getValidCol()))
    return emitOpError("takes both valid operands or neither");
  const int64_t resultValid[2] = {dst.getValidRow(), dst.getValidCol()};
  if (getValidRow()) {
    Value valid[2] = {getValidRow(), getValidCol()};
    for (int i = 0; i < 2; ++i) {
      std::optional<int64_t> v = constantOf(valid[i]);
      if (v && (*v < 0 || *v > sizes[i])) return emitOpError("constant valid operand outside [0, size]");
      const int64_t expected = v ? std::min(*v, sizes[i]) : ShapedType::kDynamic;
      if (resultValid[i] != expected)
        return emitOpError("result valid dim must be min(valid operand, size) or ? for a non-constant operand");
    }
  } else {
    for (int i = 0; i < 2; ++i)
      if (ShapedType::isDynamic(resultValid[i]) || resultValid[i] < 0 || resultValid[i] > sizes[i])
        return emitOpError("without valid operands the result valid dims must be static, within the sizes");
  }
  if (auto [h, w] = boxOf(src); h != 0) {
    if (sizes[0] % h != 0 || sizes[1] % w != 0) return emitOpError("sizes must be multiples of the box");
    std::optional<int64_t> r = constantOf(getOffsets()[0]), c = constantOf(getOffsets()[1]);
    if ((r && *r % h != 0) || (c && *c % w != 0)) return emitOpError("offsets must be multiples of the box");
  }
  return success();
}

LogicalResult SetValidShapeOp::verify() {
  TileBufType t = getSource().getType();
  if (!ShapedType::isDynamic(t.getValidRow()) || !ShapedType::isDynamic(t.getValidCol()))
    return emitOpError("source type must have v_row=? and v_col=?");
  Value root = getSource();
  while (auto reshape = root.getDefiningOp<TReshapeOp>()) root = reshape.getSrc();
  if (!root.getDefiningOp<AllocTileOp>()) return emitOpError("source must come from pto.alloc_tile (or a treshape of one)");
  std::optional<int64_t> r = constantOf(getValidRow()), c = constantOf(getValidCol());
  if ((r && (*r < 0 || *r > t.getRows())) || (c && (*c < 0 || *c > t.getCols())))
    return emitOpError("constant valid shape outside the tile");
  return success();
}

LogicalResult TReshapeOp::verify() {
  TileBufType a = getSrc().getType(), b = cast<TileBufType>(getResult().getType());
  if (a.getMemLoc() != b.getMemLoc()) return emitOpError("source and result must share loc");
  if (a.getRows() * a.getCols() * elementBytes(a.getElementType()) !=
      b.getRows() * b.getCols() * elementBytes(b.getElementType()))
    return emitOpError("source and result must have the same byte size");
  if ((a.getSlayout() == "none_box") != (b.getSlayout() == "none_box"))
    return emitOpError("source and result must be both boxed or both none_box");
  for (TileBufType t : {a, b})
    if ((known(t.getValidRow()) && t.getValidRow() > t.getRows()) || (known(t.getValidCol()) && t.getValidCol() > t.getCols()))
      return emitOpError("valid shape exceeds the tile");
  return success();
}

LogicalResult TLoadOp::verify() {
  PartitionTensorViewType src = getSrc().getType();
  TileBufType dst = getDst().getType();
  for (int64_t d : src.getShape())
    if (!ShapedType::isDynamic(d) && d <= 0) return emitOpError("partition view dims must be positive");
  if (elementBytes(src.getElementType()) != elementBytes(dst.getElementType()))
    return emitOpError("view and tile element types must have the same byte width");
  if (isA5(*this)) {
    if (dst.getMemLoc() == "vec" && !layoutIs(dst, "row_major", "none_box") && !layoutIs(dst, "col_major", "none_box") &&
        !layoutIs(dst, "col_major", "row_major"))
      return emitOpError("a5 vec destination must be ND, DN or NZ");
    return success();
  }
  if (dst.getMemLoc() != "vec" && dst.getMemLoc() != "mat") return emitOpError("a2/a3 loads into vec or mat tiles only");
  if (!llvm::is_contained({"i8", "i16", "i32", "i64", "f16", "bf16", "f32"}, signless(dst.getElementType())))
    return emitOpError("a2/a3 load element type ") << dst.getElementType() << " is not supported";
  return success();
}

LogicalResult TStoreOp::verify() {
  TileBufType src = getSrc().getType();
  PartitionTensorViewType dst = getDst().getType();
  int64_t count = 1;
  bool fullyStatic = known(src.getValidRow()) && known(src.getValidCol());
  for (int64_t d : dst.getShape()) {
    if (ShapedType::isDynamic(d)) fullyStatic = false;
    else if (d <= 0) return emitOpError("partition view dims must be positive");
    else count *= d;
  }
  if (fullyStatic && count != src.getValidRow() * src.getValidCol())
    return emitOpError("view holds ") << count << " elements but the tile's valid shape "
                                      << src.getValidRow() * src.getValidCol();
  if (isA5(*this)) return success();
  if (src.getMemLoc() == "acc") {
    if (!elementIn(src.getElementType(), {"i32", "f32"}) || !elementIn(dst.getElementType(), {"i32", "f32", "f16", "bf16"}))
      return emitOpError("acc store element types not supported");
    if (src.getCols() > 4095 || (known(src.getValidCol()) && src.getValidCol() > 4095))
      return emitOpError("acc store columns exceed 4095");
    return success();
  }
  if (src.getMemLoc() != "vec" && src.getMemLoc() != "mat") return emitOpError("a2/a3 stores from vec, mat or acc only");
  if (!llvm::is_contained({"i8", "i16", "i32", "i64", "f16", "bf16", "f32"}, signless(src.getElementType())) ||
      elementBytes(src.getElementType()) != elementBytes(dst.getElementType()))
    return emitOpError("store element types not supported or of different byte width");
  return success();
}

LogicalResult TMovOp::verify() {
  TileBufType s = getSrc().getType(), d = getDst().getType();
  const StringRef from = s.getMemLoc(), to = d.getMemLoc();
  const bool pair = (from == "mat" && llvm::is_contained({"left", "right", "bias", "scaling"}, to)) ||
                    (from == "vec" && to == "vec") || (from == "acc" && (to == "mat" || to == "vec")) ||
                    (isA5(*this) && from == "vec" && to == "mat");
  if (!pair) return emitOpError("cannot move a ") << from << " tile to " << to;
  if ((from == "mat" || !isA5(*this)) && (s.getRows() != d.getRows() || s.getCols() != d.getCols()))
    return emitOpError("source and destination shapes differ");
  if (!isA5(*this) && from == "acc" && to == "mat" && d.getFractal() != 512)
    return emitOpError("a2/a3 acc to mat needs a fractal 512 destination");
  return success();
}

LogicalResult TExtractOp::verify() {
  TileBufType s = getSrc().getType(), d = getDst().getType();
  std::optional<int64_t> r = constantOf(getIndexRow()), c = constantOf(getIndexCol());
  if ((r && *r < 0) || (c && *c < 0)) return emitOpError("indices must be non-negative");
  if ((r && *r + d.getRows() > s.getRows()) || (c && *c + d.getCols() > s.getCols()))
    return emitOpError("extracted window past the source");
  if (s.getMemLoc() != "acc" && s.getElementType() != d.getElementType()) return emitOpError("element types differ");
  if (isA5(*this)) {
    if (d.getMemLoc() == "left" && !layoutIs(d, "col_major", "row_major"))
      return emitOpError("a5 left destination must be (col_major, row_major)");
    if (d.getMemLoc() == "right" && !layoutIs(d, "row_major", "col_major"))
      return emitOpError("a5 right destination must be (row_major, col_major)");
    return success();
  }
  if (!elementIn(s.getElementType(), {"i8", "f16", "bf16", "f32"})) return emitOpError("a2/a3 element type not supported");
  if (s.getMemLoc() == "mat") {
    if (d.getMemLoc() != "left" && d.getMemLoc() != "right")
      return emitOpError("a2/a3 extracts from mat into left or right only");
    if (!rowMajor(s) && s.getSlayout() != "row_major")
      return emitOpError("a2/a3 mat source needs a row_major blayout or slayout");
  }
  if (d.getMemLoc() == "left" && !layoutIs(d, "row_major", "row_major"))
    return emitOpError("a2/a3 left destination must be (row_major, row_major)");
  if (d.getMemLoc() == "right" && !layoutIs(d, "row_major", "col_major"))
    return emitOpError("a2/a3 right destination must be (row_major, col_major)");
  return success();
}

static LogicalResult verifyMatmul(Operation* op, Value accIn, TileBufType l, TileBufType r, TileBufType d) {
  if (l.getMemLoc() != "left" || r.getMemLoc() != "right" || d.getMemLoc() != "acc" ||
      (accIn && tileOf(accIn).getMemLoc() != "acc"))
    return op->emitOpError("operands must be left, right and acc tiles");
  const auto logical = [](int64_t valid, int64_t dim) { return known(valid) ? valid : dim; };
  const int64_t m = logical(l.getValidRow(), l.getRows()), k = logical(l.getValidCol(), l.getCols());
  if (logical(r.getValidRow(), r.getRows()) != k || logical(d.getValidRow(), d.getRows()) != m ||
      logical(d.getValidCol(), d.getCols()) != logical(r.getValidCol(), r.getCols()))
    return op->emitOpError("M, K, N of left, right and acc disagree");
  for (int64_t v : {l.getValidRow(), l.getValidCol(), r.getValidCol()})
    if (known(v) && v > 4095) return op->emitOpError("M, K, N must not exceed 4095");
  const std::string triple = spelled(d.getElementType()) + "," + spelled(l.getElementType()) + "," + spelled(r.getElementType());
  const bool checkTriple = isA5(op) || !accIn;
  if (checkTriple && !llvm::is_contained({"i32,i8,i8", "f32,f16,f16", "f32,bf16,bf16", "f32,f32,f32"}, triple))
    return op->emitOpError("element types (acc, left, right) = (") << triple << ") not supported";
  if (isA5(op) && (!layoutIs(l, "col_major", "row_major") || !layoutIs(r, "row_major", "col_major") ||
                   !layoutIs(d, "col_major", "row_major")))
    return op->emitOpError("a5 layouts: left (col_major, row_major), right (row_major, col_major), acc (col_major, row_major)");
  return success();
}
LogicalResult TMatmulOp::verify() { return verifyMatmul(*this, {}, getLhs().getType(), getRhs().getType(), getDst().getType()); }
LogicalResult TMatmulAccOp::verify() {
  return verifyMatmul(*this, getAccIn(), getLhs().getType(), getRhs().getType(), getDst().getType());
}

LogicalResult TExpandsOp::verify() {
  TileBufType d = getDst().getType();
  if (getScalar().getType() != d.getElementType()) return emitOpError("scalar type must equal the tile's element type");
  if (d.getMemLoc() != "vec" && d.getMemLoc() != "mat") return emitOpError("destination must be a vec or mat tile");
  if (!isA5(*this) && d.getMemLoc() == "vec" && !rowMajor(d)) return emitOpError("a2/a3 vec destination must be row_major");
  if (elementIn(d.getElementType(), {"i16", "i32", "f16", "bf16", "f32"}) ||
      (isA5(*this) && elementIn(d.getElementType(), {"i8"})))
    return success();
  return emitOpError("element type not supported");
}

// Element tables (pto-dialect.md §4): A2/A3 list, then what A5 adds.
#define T2B_BINARY(Op, a5extra)                                                                                     \
  LogicalResult Op::verify() {                                                                                      \
    return verifyElementwise(*this, {getSrc0(), getSrc1(), getDst()}, true, {"i16", "i32", "f16", "f32"}, a5extra); \
  }
T2B_BINARY(TAddOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
T2B_BINARY(TSubOp, (std::initializer_list<StringRef>{"i8"}))
T2B_BINARY(TMulOp, (std::initializer_list<StringRef>{}))
T2B_BINARY(TMaxOp, (std::initializer_list<StringRef>{"i8"}))
T2B_BINARY(TMinOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
#undef T2B_BINARY
LogicalResult TDivOp::verify() {
  return verifyElementwise(*this, {getSrc0(), getSrc1(), getDst()}, true, {"f16", "f32"}, {"i16", "i32"});
}

LogicalResult TAbsOp::verify() { return verifyElementwise(*this, {getSrc(), getDst()}, true, {"f16", "f32"}, {}); }
LogicalResult TNegOp::verify() {
  return verifyElementwise(*this, {getSrc(), getDst()}, false, {"i16", "i32", "f16", "f32"}, {"i8", "bf16"});
}
LogicalResult TReluOp::verify() { return verifyElementwise(*this, {getSrc(), getDst()}, true, {"i32", "f16", "f32"}, {}); }
LogicalResult TExpOp::verify() { return verifyElementwise(*this, {getSrc(), getDst()}, true, {"f16", "f32"}, {}); }
LogicalResult TLogOp::verify() { return verifyElementwise(*this, {getSrc(), getDst()}, true, {"f16", "f32"}, {}); }
LogicalResult TSqrtOp::verify() { return verifyElementwise(*this, {getSrc(), getDst()}, true, {"f16", "f32"}, {}); }
LogicalResult TRecipOp::verify() {
  if (targetArch(*this) == "a3" && getSrc() == getDst()) return emitOpError("in place is not supported on a3");
  return verifyElementwise(*this, {getSrc(), getDst()}, true, {"f16", "f32"}, {});
}

#define T2B_SCALAR(Op, a5extra)                                                                          \
  LogicalResult Op::verify() {                                                                           \
    return verifyElementwise(*this, {getSrc(), getDst()}, false, {"i16", "i32", "f16", "f32"}, a5extra); \
  }
T2B_SCALAR(TAddsOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
T2B_SCALAR(TSubsOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
T2B_SCALAR(TMulsOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
T2B_SCALAR(TMaxsOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
T2B_SCALAR(TMinsOp, (std::initializer_list<StringRef>{"i8", "bf16"}))
T2B_SCALAR(TDivsOp, (std::initializer_list<StringRef>{"i8"}))
#undef T2B_SCALAR
LogicalResult TLReluOp::verify() { return verifyElementwise(*this, {getSrc(), getDst()}, false, {"f16", "f32"}, {}); }

// Row reductions (pto-dialect.md §5): a row-major unboxed vec source, an unboxed vec destination
// (column-major only as one column) of the same element, valid rows equal, one valid column,
// a nonzero source valid shape; on a2/a3 a vec scratch of the element of at least 32 bytes.
static LogicalResult verifyRowReduce(Operation* op, Value srcV, Value tmpV, Value dstV) {
  TileBufType x = tileOf(srcV), d = tileOf(dstV);
  if (x.getMemLoc() != "vec" || d.getMemLoc() != "vec") return op->emitOpError("operates on vec tiles");
  if (!layoutIs(x, "row_major", "none_box")) return op->emitOpError("source must be row_major, none_box");
  if (d.getSlayout() != "none_box") return op->emitOpError("destination must be none_box");
  if (d.getBlayout() == "col_major" && d.getCols() != 1) return op->emitOpError("a col_major destination must have one column");
  if (x.getElementType() != d.getElementType()) return op->emitOpError("source and destination must share one element type");
  if (!elementIn(x.getElementType(), {"i16", "i32", "f16", "f32"})) return op->emitOpError("element type not supported");
  if ((known(x.getValidRow()) && x.getValidRow() == 0) || (known(x.getValidCol()) && x.getValidCol() == 0))
    return op->emitOpError("source valid shape must be non-zero");
  if (known(x.getValidRow()) && known(d.getValidRow()) && x.getValidRow() != d.getValidRow())
    return op->emitOpError("valid rows of source and destination must be equal");
  if (known(d.getValidCol()) && d.getValidCol() != 1) return op->emitOpError("destination must have one valid column");
  if (!isA5(op)) {
    if (!tmpV && implicitTmpForbidden(op)) return missingTmp(op, "a row reduction");
    if (!tmpV) return success();
    TileBufType t = tileOf(tmpV);
    const int64_t esize = (x.getElementType().getIntOrFloatBitWidth() + 7) / 8;
    if (t.getMemLoc() != "vec" || t.getElementType() != x.getElementType() || t.getRows() * t.getCols() * esize < 32)
      return op->emitOpError("a2/a3 scratch must be a vec tile of the element type of at least 32 bytes");
  }
  return success();
}
LogicalResult TRowSumOp::verify() { return verifyRowReduce(*this, getSrc(), getTmp(), getDst()); }
LogicalResult TRowMaxOp::verify() { return verifyRowReduce(*this, getSrc(), getTmp(), getDst()); }
LogicalResult TRowMinOp::verify() { return verifyRowReduce(*this, getSrc(), getTmp(), getDst()); }

// trowexpand (pto-dialect.md §5): v vec none_box (either blayout), d ND vec, one element, valid
// rows equal, no zero valid dims.
LogicalResult TRowExpandOp::verify() {
  TileBufType v = tileOf(getSrc()), d = tileOf(getDst());
  if (v.getMemLoc() != "vec" || d.getMemLoc() != "vec") return emitOpError("operates on vec tiles");
  if (v.getSlayout() != "none_box" || !layoutIs(d, "row_major", "none_box"))
    return emitOpError("source must be none_box and the destination row_major, none_box");
  if (v.getElementType() != d.getElementType()) return emitOpError("source and destination must share one element type");
  if (!elementIn(d.getElementType(), {"i8", "i16", "i32", "f16", "bf16", "f32"}))
    return emitOpError("element type not supported");
  if (known(v.getValidRow()) && known(d.getValidRow()) && v.getValidRow() != d.getValidRow())
    return emitOpError("valid rows of source and destination must be equal");
  for (int64_t e : {v.getValidRow(), v.getValidCol(), d.getValidRow(), d.getValidCol()})
    if (known(e) && e == 0) return emitOpError("valid dims must be non-zero");
  return success();
}

// trowexpand{sub,mul,div} (pto-dialect.md §5): x row_major with x/d valid equal; the per-row
// operand has d's valid rows and, row_major, 32/esize valid columns (mode 2) or, col_major, one.
static LogicalResult verifyRowExpandBin(Operation* op, Value xV, Value vV, Value dV) {
  TileBufType x = tileOf(xV), v = tileOf(vV), d = tileOf(dV);
  if (x.getMemLoc() != "vec" || v.getMemLoc() != "vec" || d.getMemLoc() != "vec") return op->emitOpError("operates on vec tiles");
  if (!rowMajor(x) || !rowMajor(d)) return op->emitOpError("source and destination must be row_major");
  if (x.getElementType() != d.getElementType() || v.getElementType() != d.getElementType())
    return op->emitOpError("tiles must share one element type");
  if (!elementIn(d.getElementType(), {"i16", "i32", "f16", "f32"})) return op->emitOpError("element type not supported");
  if (failed(sameValid(op, x, d, "source and destination"))) return failure();
  if (known(v.getValidRow()) && known(d.getValidRow()) && v.getValidRow() != d.getValidRow())
    return op->emitOpError("the per-row operand must have the destination's valid rows");
  const int64_t esize = (d.getElementType().getIntOrFloatBitWidth() + 7) / 8;
  const int64_t want = rowMajor(v) ? 32 / esize : 1;
  if (known(v.getValidCol()) && v.getValidCol() != want)
    return op->emitOpError("the per-row operand must have ") << want << " valid columns";
  return success();
}
LogicalResult TRowExpandSubOp::verify() { return verifyRowExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TRowExpandMulOp::verify() { return verifyRowExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TRowExpandDivOp::verify() { return verifyRowExpandBin(*this, getSrc0(), getSrc1(), getDst()); }

// trsqrt (pto-dialect.md §5): vec row_major, f16|f32, valid equal; high_precision needs tmp.
LogicalResult TRsqrtOp::verify() {
  if (getPrecisionType() == RsqrtPrecision::HighPrecision && !getTmp()) return emitOpError("high_precision requires tmp");
  return verifyElementwise(*this, {getSrc(), getDst()}, true, {"f16", "f32"}, {});
}

// tcolexpand (pto-dialect.md §5): ND vec both, one element, valid columns equal.
LogicalResult TColExpandOp::verify() {
  TileBufType w = tileOf(getSrc()), d = tileOf(getDst());
  if (w.getMemLoc() != "vec" || d.getMemLoc() != "vec") return emitOpError("operates on vec tiles");
  if (!layoutIs(w, "row_major", "none_box") || !layoutIs(d, "row_major", "none_box"))
    return emitOpError("tiles must be ND (row_major, none_box)");
  if (w.getElementType() != d.getElementType()) return emitOpError("source and destination must share one element type");
  if (known(w.getValidCol()) && known(d.getValidCol()) && w.getValidCol() != d.getValidCol())
    return emitOpError("valid columns of source and destination must be equal");
  return success();
}

// tcolexpand<op> (extended-rollout.md §3.5b): ND vec, x and d valid equal, the row w one value per
// valid column, f16|f32.
static LogicalResult verifyColExpandBin(Operation* op, Value xV, Value wV, Value dV) {
  TileBufType x = tileOf(xV), w = tileOf(wV), d = tileOf(dV);
  if (x.getMemLoc() != "vec" || w.getMemLoc() != "vec" || d.getMemLoc() != "vec") return op->emitOpError("operates on vec tiles");
  if (!rowMajor(x) || !rowMajor(w) || !rowMajor(d)) return op->emitOpError("tiles must be row_major");
  if (x.getElementType() != d.getElementType() || w.getElementType() != d.getElementType())
    return op->emitOpError("tiles must share one element type");
  if (!elementIn(d.getElementType(), {"f16", "f32"})) return op->emitOpError("element type not supported");
  if (failed(sameValid(op, x, d, "source and destination"))) return failure();
  if (known(w.getValidCol()) && known(d.getValidCol()) && w.getValidCol() != d.getValidCol())
    return op->emitOpError("the row must have the destination's valid columns");
  return success();
}
LogicalResult TColExpandAddOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TColExpandSubOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TColExpandMulOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TColExpandDivOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TColExpandMaxOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TColExpandMinOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }
LogicalResult TColExpandExpdifOp::verify() { return verifyColExpandBin(*this, getSrc0(), getSrc1(), getDst()); }

// tcolsum / tcolmax / tcolmin (pto-dialect.md §5): ND vec tiles of one element, valid columns
// equal; tcolsum with tmp needs isBinary written; isBinary = true bounds the scratch.
static LogicalResult verifyColReduce(Operation* op, Value srcV, Value tmpV, Value dstV) {
  TileBufType x = tileOf(srcV), d = tileOf(dstV);
  for (TileBufType t : {x, d}) {
    if (t.getMemLoc() != "vec" || !layoutIs(t, "row_major", "none_box"))
      return op->emitOpError("tiles must be ND vec (row_major, none_box)");
  }
  if (x.getElementType() != d.getElementType()) return op->emitOpError("source and destination must share one element type");
  if (!elementIn(x.getElementType(), {"i16", "i32", "f16", "f32"})) return op->emitOpError("element type not supported");
  if (known(x.getValidCol()) && known(d.getValidCol()) && x.getValidCol() != d.getValidCol())
    return op->emitOpError("valid columns of source and destination must be equal");
  if (tmpV) {
    TileBufType t = tileOf(tmpV);
    if (t.getMemLoc() != "vec" || !layoutIs(t, "row_major", "none_box") || t.getElementType() != x.getElementType())
      return op->emitOpError("tmp must be an ND vec tile of the element type");
  }
  return success();
}
LogicalResult TColSumOp::verify() {
  if (getTmp() && !getIsBinaryAttr()) return emitOpError("with tmp, isBinary must be present");
  if (!getTmp() && getIsBinary().value_or(false) && implicitTmpForbidden(*this)) return missingTmp(*this, "isBinary = true");
  if (getTmp() && getIsBinary() && *getIsBinary()) {
    TileBufType x = tileOf(getSrc()), t = tileOf(getTmp());
    if (known(x.getValidCol()) && t.getCols() < x.getValidCol())
      return emitOpError("isBinary needs tmp cols >= source valid cols");
  }
  return verifyColReduce(*this, getSrc(), getTmp(), getDst());
}
LogicalResult TColMaxOp::verify() { return verifyColReduce(*this, getSrc(), {}, getDst()); }
LogicalResult TColMinOp::verify() { return verifyColReduce(*this, getSrc(), {}, getDst()); }

// tcvt (pto-dialect.md §5): vec tiles of one physical shape and one valid shape; saturation
// written (its default changed between PTOAS versions, §0); the narrowing pairs with saturation
// OFF under the level3 implicit-tmp rule.
LogicalResult TCvtOp::verify() {
  if (!getSatModeAttr())
    return emitOpError("needs sat_mode (custom form: `satmode`): PTOAS 0.60 defaults saturation to OFF and 0.63 to ON, "
                       "so a tcvt without it means two things (pto-dialect.md §0)");
  TileBufType x = tileOf(getSrc()), d = tileOf(getDst());
  if (x.getMemLoc() != "vec" || d.getMemLoc() != "vec") return emitOpError("operates on vec tiles");
  if (x.getRows() != d.getRows() || x.getCols() != d.getCols())
    return emitOpError("source and destination must have one physical shape");
  if (failed(sameValid(*this, x, d, "source and destination"))) return failure();
  const std::string pair = spelled(x.getElementType()) + "->" + spelled(d.getElementType());
  if (!getTmp() && *getSatMode() == SaturationMode::Off && implicitTmpForbidden(*this) &&
      llvm::is_contained({"f32->i16", "f16->i16", "f16->i8"}, pair))
    return missingTmp(*this, "narrowing " + pair + " with saturation OFF");
  return success();
}

// tcvt's custom form: `ins(%x[, %tmp] {rmode = ..., satmode = ...} : Tx[, Ttmp]) outs(%d : Td)`.
// The dictionary's `satmode` is the property `sat_mode`; the custom form must write it.
ParseResult TCvtOp::parse(OpAsmParser& p, OperationState& result) {
  OpAsmParser::UnresolvedOperand src, tmp, dst;
  Type srcType, tmpType, dstType;
  bool hasTmp = false;
  if (p.parseKeyword("ins") || p.parseLParen() || p.parseOperand(src)) return failure();
  if (succeeded(p.parseOptionalComma())) {
    if (p.parseOperand(tmp)) return failure();
    hasTmp = true;
  }
  const llvm::SMLoc dictLoc = p.getCurrentLocation();
  NamedAttrList attrs;
  if (p.parseOptionalAttrDict(attrs)) return failure();
  if (attrs.get("sat_mode"))
    return p.emitError(dictLoc, "spells saturation `satmode` in its custom form, not `sat_mode` (the property's name)");
  Attribute sat = attrs.erase("satmode");
  if (!sat)
    return p.emitError(dictLoc, "needs `satmode = #pto<saturation_mode ON|OFF>` inside ins(...): PTOAS 0.60 defaults "
                                "saturation to OFF and 0.63 to ON (pto-dialect.md §0)");
  attrs.set("sat_mode", sat);
  if (p.parseColon() || p.parseType(srcType)) return failure();
  if (hasTmp && (p.parseComma() || p.parseType(tmpType))) return failure();
  if (p.parseRParen() || p.parseKeyword("outs") || p.parseLParen() || p.parseOperand(dst) || p.parseColon() ||
      p.parseType(dstType) || p.parseRParen())
    return failure();
  if (p.resolveOperand(src, srcType, result.operands) || (hasTmp && p.resolveOperand(tmp, tmpType, result.operands)) ||
      p.resolveOperand(dst, dstType, result.operands))
    return failure();
  result.addAttributes(attrs);
  return success();
}

void TCvtOp::print(OpAsmPrinter& p) {
  p << " ins(" << getSrc();
  if (getTmp()) p << ", " << getTmp();
  Builder b(getContext());
  SmallVector<NamedAttribute> attrs{b.getNamedAttr("rmode", getRmodeAttr())};
  if (getSatModeAttr()) attrs.push_back(b.getNamedAttr("satmode", getSatModeAttr()));
  for (NamedAttribute a : (*this)->getDiscardableAttrs()) attrs.push_back(a);
  p.printOptionalAttrDict(attrs);
  p << " : " << getSrc().getType();
  if (getTmp()) p << ", " << getTmp().getType();
  p << ") outs(" << getDst() << " : " << getDst().getType() << ")";
}
