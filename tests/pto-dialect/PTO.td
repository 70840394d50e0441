// SPDX-License-Identifier: Apache-2.0
// A checker dialect `pto`: the ops and types t2b-opt's PTO emitter writes, declared with the real
// dialect's operand groups, properties, attribute kinds and assembly formats (PTOAS 0.60, as
// ../shared/spec/pto-dialect.md §2-§4 records them), so that MLIR itself parses, verifies and
// re-prints our output. Written here from those facts; no PTOAS source is used.
#ifndef T2B_PTO_CHECK_TD
#define T2B_PTO_CHECK_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def PTO_Dialect : Dialect {
  let name = "pto";
  let cppNamespace = "::pto_check";
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  // pto.target_arch on the module and pto.kernel_kind on functions are discardable attributes.
  let hasOperationAttrVerify = 1;
}

//===--- Types (C++ parse/print in types.cpp) ---===//
class PTO_Type<string name, string mn> : TypeDef<PTO_Dialect, name> {
  let mnemonic = mn;
  let hasCustomAssemblyFormat = 1;
}

// `!pto.ptr<E[, space]>`; an empty space is the default (gm) and is not printed.
def PTO_Ptr : PTO_Type<"Ptr", "ptr"> {
  let parameters = (ins "::mlir::Type":$elementType, StringRefParameter<"memory space", "\"\"">:$space);
}
// `!pto.tensor_view<?x?xf16>` and `!pto.partition_tensor_view<16x32xf16>`.
def PTO_TensorView : PTO_Type<"TensorView", "tensor_view"> {
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
}
def PTO_PartitionTensorView : PTO_Type<"PartitionTensorView", "partition_tensor_view"> {
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType);
}
// `!pto.tile_buf<loc=..., dtype=..., rows=, cols=, v_row=, v_col=, blayout=, slayout=, fractal=,
// pad=[, compact=]>` (the fixed-order key form, printed), or the compact form
// `!pto.tile_buf<vec, 16x32xf32[, valid=RxC][, key=value]...>` (parsed). A `?` valid dim is
// ShapedType::kDynamic; compact -1 means "not written".
def PTO_TileBuf : PTO_Type<"TileBuf", "tile_buf"> {
  let parameters = (ins StringRefParameter<>:$memLoc, "::mlir::Type":$elementType, "int64_t":$rows, "int64_t":$cols,
                        "int64_t":$validRow, "int64_t":$validCol, StringRefParameter<>:$blayout,
                        StringRefParameter<>:$slayout, "int64_t":$fractal, "int64_t":$pad, "int64_t":$compact);
  let genVerifyDecl = 1;
}

//===--- Attributes ---===//
class PTO_Enum<string name, list<I32EnumAttrCase> cases> : I32EnumAttr<name, "", cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::pto_check";
}
// EnumAttr with the default syntax prints `#pto<mnemonic case>`.
class PTO_EnumAttr<I32EnumAttr e, string mnemonic> : EnumAttr<PTO_Dialect, e, mnemonic>;

class PTO_PrecisionEnum<string name> : PTO_Enum<name, [I32EnumAttrCase<"Default", 0, "default">,
                                                       I32EnumAttrCase<"HighPrecision", 1, "high_precision">]>;
def PTO_DivPrecision : PTO_PrecisionEnum<"DivPrecision">;
def PTO_DivPrecisionAttr : PTO_EnumAttr<PTO_DivPrecision, "div_precision">;
def PTO_ExpPrecision : PTO_PrecisionEnum<"ExpPrecision">;
def PTO_ExpPrecisionAttr : PTO_EnumAttr<PTO_ExpPrecision, "exp_precision">;
def PTO_LogPrecision : PTO_PrecisionEnum<"LogPrecision">;
def PTO_LogPrecisionAttr : PTO_EnumAttr<PTO_LogPrecision, "log_precision">;
def PTO_RecipPrecision : PTO_PrecisionEnum<"RecipPrecision">;
def PTO_RecipPrecisionAttr : PTO_EnumAttr<PTO_RecipPrecision, "recip_precision">;
def PTO_SqrtPrecision : PTO_PrecisionEnum<"SqrtPrecision">;
def PTO_SqrtPrecisionAttr : PTO_EnumAttr<PTO_SqrtPrecision, "sqrt_precision">;
def PTO_RsqrtPrecision : PTO_PrecisionEnum<"RsqrtPrecision">;
def PTO_RsqrtPrecisionAttr : PTO_EnumAttr<PTO_RsqrtPrecision, "rsqrt_precision">;

def PTO_AccPhase : PTO_Enum<"AccPhase", [I32EnumAttrCase<"Unspecified", 0, "unspecified">,
    I32EnumAttrCase<"Partial", 1, "partial">, I32EnumAttrCase<"Final", 2, "final">]>;
def PTO_AccPhaseAttr : PTO_EnumAttr<PTO_AccPhase, "acc_phase">;
def PTO_StPhase : PTO_Enum<"StPhase", [I32EnumAttrCase<"Unspecified", 0, "unspecified">,
    I32EnumAttrCase<"Partial", 1, "partial">, I32EnumAttrCase<"Final", 2, "final">]>;
def PTO_StPhaseAttr : PTO_EnumAttr<PTO_StPhase, "st_phase">;
// round_mode and saturation_mode (pto-dialect.md §2): upper-case spellings, values 0-7 and 0-1.
def PTO_RoundMode : PTO_Enum<"RoundMode", [I32EnumAttrCase<"None", 0, "NONE">, I32EnumAttrCase<"Rint", 1, "RINT">,
    I32EnumAttrCase<"Round", 2, "ROUND">, I32EnumAttrCase<"Floor", 3, "FLOOR">, I32EnumAttrCase<"Ceil", 4, "CEIL">,
    I32EnumAttrCase<"Trunc", 5, "TRUNC">, I32EnumAttrCase<"Odd", 6, "ODD">, I32EnumAttrCase<"CastRint", 7, "CAST_RINT">]>;
def PTO_RoundModeAttr : PTO_EnumAttr<PTO_RoundMode, "round_mode">;
def PTO_SaturationMode : PTO_Enum<"SaturationMode", [I32EnumAttrCase<"On", 0, "ON">, I32EnumAttrCase<"Off", 1, "OFF">]>;
def PTO_SaturationModeAttr : PTO_EnumAttr<PTO_SaturationMode, "saturation_mode">;
def PTO_AtomicType : PTO_Enum<"AtomicType", [I32EnumAttrCase<"AtomicNone", 0, "atomic_none">,
    I32EnumAttrCase<"AtomicAdd", 1, "atomic_add">]>;
def PTO_AtomicTypeAttr : PTO_EnumAttr<PTO_AtomicType, "atomic_type">;
def PTO_ReluPreMode : PTO_Enum<"ReluPreMode", [I32EnumAttrCase<"NoRelu", 0, "no_relu">,
    I32EnumAttrCase<"NormalRelu", 1, "normal_relu">, I32EnumAttrCase<"ScalarRelu", 2, "scalar_relu">,
    I32EnumAttrCase<"VectorRelu", 3, "vector_relu">, I32EnumAttrCase<"Pwl", 4, "pwl">]>;
def PTO_ReluPreModeAttr : PTO_EnumAttr<PTO_ReluPreMode, "relu_pre_mode">;

// AttrDefs with `<params>` syntax: `#pto.kernel_kind<cube>`, `#pto.layout<nd>`.
def PTO_KernelKind : PTO_Enum<"KernelKind", [I32EnumAttrCase<"Cube", 0, "cube">,
    I32EnumAttrCase<"Vector", 1, "vector">]>;
def PTO_KernelKindAttr : PTO_EnumAttr<PTO_KernelKind, "kernel_kind"> { let assemblyFormat = "`<` $value `>`"; }
def PTO_Layout : PTO_Enum<"Layout", [I32EnumAttrCase<"ND", 0, "nd">, I32EnumAttrCase<"DN", 1, "dn">,
    I32EnumAttrCase<"NZ", 2, "nz">]>;
def PTO_LayoutAttr : PTO_EnumAttr<PTO_Layout, "layout"> { let assemblyFormat = "`<` $value `>`"; }

//===--- Ops ---===//
class PTO_Op<string mnemonic, list<Trait> traits = []> : Op<PTO_Dialect, mnemonic, traits> {
  let hasVerifier = 1;
}
def PTO_Scalar : AnyTypeOf<[AnySignlessInteger, AnyFloat]>;

def PTO_AllocTileOp : PTO_Op<"alloc_tile", [AttrSizedOperandSegments]> {
  let arguments = (ins Optional<I64>:$addr, Optional<Index>:$valid_row, Optional<Index>:$valid_col);
  let results = (outs PTO_TileBuf:$result);
  let assemblyFormat = [{ (`addr` `=` $addr^)? (`valid_row` `=` $valid_row^)? (`valid_col` `=` $valid_col^)?
                          attr-dict `:` qualified(type($result)) }];
}

def PTO_MakeTensorViewOp : PTO_Op<"make_tensor_view", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_Ptr:$ptr, Variadic<Index>:$shape, Variadic<Index>:$strides,
                       OptionalAttr<PTO_LayoutAttr>:$layout);
  let results = (outs PTO_TensorView:$result);
  // The pointer's type is not written: it is !pto.ptr<E> with E the view's element type.
  let assemblyFormat = [{ $ptr `,` `shape` `=` `[` $shape `]` `,` `strides` `=` `[` $strides `]` attr-dict `:`
                          custom<PtrFromView>(type($ptr), qualified(type($result))) }];
}

def PTO_PartitionViewOp : PTO_Op<"partition_view", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_TensorView:$source, Variadic<Index>:$offsets, Variadic<Index>:$sizes);
  let results = (outs PTO_PartitionTensorView:$result);
  let assemblyFormat = [{ $source `,` `offsets` `=` `[` $offsets `]` `,` `sizes` `=` `[` $sizes `]` attr-dict `:`
                          qualified(type($source)) `->` qualified(type($result)) }];
}

def PTO_SubviewOp : PTO_Op<"subview", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_TileBuf:$source, Variadic<Index>:$offsets, I64ArrayAttr:$sizes,
                       Optional<Index>:$valid_row, Optional<Index>:$valid_col);
  let results = (outs PTO_TileBuf:$result);
  let assemblyFormat = [{ $source `[` $offsets `]` `sizes` $sizes (`valid` `[` $valid_row^ `,` $valid_col `]`)?
                          attr-dict `:` qualified(type($source)) `->` qualified(type($result)) }];
}

def PTO_SetValidShapeOp : PTO_Op<"set_validshape"> {
  let arguments = (ins PTO_TileBuf:$source, Index:$valid_row, Index:$valid_col);
  let assemblyFormat = [{ $source `,` $valid_row `,` $valid_col attr-dict `:` qualified(type($source)) }];
}

def PTO_TReshapeOp : PTO_Op<"treshape"> {
  let arguments = (ins PTO_TileBuf:$src);
  let results = (outs PTO_TileBuf:$result);
  let assemblyFormat = [{ $src attr-dict `:` qualified(type($src)) `->` qualified(type($result)) }];
}

def PTO_TLoadOp : PTO_Op<"tload", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_PartitionTensorView:$src, PTO_TileBuf:$dst, Optional<AnyType>:$pad_value,
                       Optional<Index>:$left_padding_num, Optional<Index>:$right_padding_num,
                       Optional<I1>:$init_condition);
  let assemblyFormat = [{ `ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)`
                          (`pad_value` `=` $pad_value^ `:` type($pad_value))?
                          (`left_padding_num` `=` $left_padding_num^)? (`right_padding_num` `=` $right_padding_num^)?
                          (`init_condition` `=` $init_condition^)? attr-dict }];
}

def PTO_TStoreOp : PTO_Op<"tstore", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_TileBuf:$src, PTO_PartitionTensorView:$dst, Optional<AnyType>:$fp,
                       Optional<AnyType>:$preQuantScalar,
                       DefaultValuedAttr<PTO_AtomicTypeAttr, "::pto_check::AtomicType::AtomicNone">:$atomicType,
                       DefaultValuedAttr<PTO_ReluPreModeAttr, "::pto_check::ReluPreMode::NoRelu">:$reluPreMode,
                       DefaultValuedAttr<PTO_StPhaseAttr, "::pto_check::StPhase::Unspecified">:$stPhase);
  let assemblyFormat = [{ `ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)`
                          (`fp` `=` $fp^ `:` type($fp))? (`pre_quant` `=` $preQuantScalar^ `:` type($preQuantScalar))?
                          attr-dict }];
}

def PTO_TMovOp : PTO_Op<"tmov", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_TileBuf:$src, PTO_TileBuf:$dst, Optional<AnyType>:$fp, Optional<AnyType>:$preQuantScalar,
                       DefaultValuedAttr<PTO_ReluPreModeAttr, "::pto_check::ReluPreMode::NoRelu">:$reluPreMode);
  let assemblyFormat = [{ `ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)`
                          (`fp` `=` $fp^ `:` type($fp))? (`pre_quant` `=` $preQuantScalar^ `:` type($preQuantScalar))?
                          attr-dict }];
}

def PTO_TExtractOp : PTO_Op<"textract", [AttrSizedOperandSegments]> {
  let arguments = (ins PTO_TileBuf:$src, Index:$indexRow, Index:$indexCol, PTO_TileBuf:$dst, Optional<AnyType>:$fp,
                       Optional<AnyType>:$preQuantScalar,
                       DefaultValuedAttr<PTO_ReluPreModeAttr, "::pto_check::ReluPreMode::NoRelu">:$reluPreMode);
  let assemblyFormat = [{ `ins` `(` $src `,` $indexRow `,` $indexCol `:` qualified(type($src)) `,` type($indexRow) `,`
                          type($indexCol) `)` `outs` `(` $dst `:` qualified(type($dst)) `)`
                          (`fp` `=` $fp^ `:` type($fp))? (`pre_quant` `=` $preQuantScalar^ `:` type($preQuantScalar))?
                          attr-dict }];
}

def PTO_TMatmulOp : PTO_Op<"tmatmul"> {
  let arguments = (ins PTO_TileBuf:$lhs, PTO_TileBuf:$rhs, PTO_TileBuf:$dst,
                       DefaultValuedAttr<PTO_AccPhaseAttr, "::pto_check::AccPhase::Unspecified">:$accPhase);
  let assemblyFormat = [{ `ins` `(` $lhs `,` $rhs `:` qualified(type($lhs)) `,` qualified(type($rhs)) `)`
                          `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}
def PTO_TMatmulAccOp : PTO_Op<"tmatmul.acc"> {
  let arguments = (ins PTO_TileBuf:$acc_in, PTO_TileBuf:$lhs, PTO_TileBuf:$rhs, PTO_TileBuf:$dst,
                       DefaultValuedAttr<PTO_AccPhaseAttr, "::pto_check::AccPhase::Unspecified">:$accPhase);
  let assemblyFormat = [{ `ins` `(` $acc_in `,` $lhs `,` $rhs `:` qualified(type($acc_in)) `,` qualified(type($lhs)) `,`
                          qualified(type($rhs)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}

def PTO_TExpandsOp : PTO_Op<"texpands"> {
  let arguments = (ins PTO_Scalar:$scalar, PTO_TileBuf:$dst);
  let assemblyFormat = [{ `ins` `(` $scalar `:` type($scalar) `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}

// Elementwise families: the verifier (ops.cpp) holds each op's element-type table.
class PTO_BinaryOp<string mnemonic, dag extra = (ins)> : PTO_Op<mnemonic> {
  let arguments = !con((ins PTO_TileBuf:$src0, PTO_TileBuf:$src1, PTO_TileBuf:$dst), extra);
  let assemblyFormat = [{ `ins` `(` $src0 `,` $src1 `:` qualified(type($src0)) `,` qualified(type($src1)) `)`
                          `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}
def PTO_TAddOp : PTO_BinaryOp<"tadd">;
def PTO_TSubOp : PTO_BinaryOp<"tsub">;
def PTO_TMulOp : PTO_BinaryOp<"tmul">;
def PTO_TMaxOp : PTO_BinaryOp<"tmax">;
def PTO_TMinOp : PTO_BinaryOp<"tmin">;
def PTO_TDivOp : PTO_BinaryOp<"tdiv",
    (ins DefaultValuedAttr<PTO_DivPrecisionAttr, "::pto_check::DivPrecision::Default">:$precisionType)>;

class PTO_UnaryOp<string mnemonic, dag extra = (ins)> : PTO_Op<mnemonic> {
  let arguments = !con((ins PTO_TileBuf:$src, PTO_TileBuf:$dst), extra);
  let assemblyFormat = [{ `ins` `(` $src `:` qualified(type($src)) `)` `outs` `(` $dst `:` qualified(type($dst)) `)`
                          attr-dict }];
}
def PTO_TAbsOp : PTO_UnaryOp<"tabs">;
def PTO_TNegOp : PTO_UnaryOp<"tneg">;
def PTO_TReluOp : PTO_UnaryOp<"trelu">;
def PTO_TExpOp : PTO_UnaryOp<"texp",
    (ins DefaultValuedAttr<PTO_ExpPrecisionAttr, "::pto_check::ExpPrecision::Default">:$precisionType)>;
def PTO_TLogOp : PTO_UnaryOp<"tlog",
    (ins DefaultValuedAttr<PTO_LogPrecisionAttr, "::pto_check::LogPrecision::Default">:$precisionType)>;
def PTO_TRecipOp : PTO_UnaryOp<"trecip",
    (ins DefaultValuedAttr<PTO_RecipPrecisionAttr, "::pto_check::RecipPrecision::Default">:$precisionType)>;
def PTO_TSqrtOp : PTO_UnaryOp<"tsqrt",
    (ins DefaultValuedAttr<PTO_SqrtPrecisionAttr, "::pto_check::SqrtPrecision::Default">:$precisionType)>;

class PTO_ScalarOp<string mnemonic, Type scalar = PTO_Scalar, dag extra = (ins)> : PTO_Op<mnemonic> {
  let arguments = !con((ins PTO_TileBuf:$src, scalar:$scalar, PTO_TileBuf:$dst), extra);
  let assemblyFormat = [{ `ins` `(` $src `,` $scalar `:` qualified(type($src)) `,` type($scalar) `)`
                          `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}
def PTO_TAddsOp : PTO_ScalarOp<"tadds">;
def PTO_TSubsOp : PTO_ScalarOp<"tsubs">;
def PTO_TMulsOp : PTO_ScalarOp<"tmuls">;
def PTO_TMaxsOp : PTO_ScalarOp<"tmaxs">;
def PTO_TMinsOp : PTO_ScalarOp<"tmins">;
def PTO_TDivsOp : PTO_ScalarOp<"tdivs", PTO_Scalar,
    (ins DefaultValuedAttr<PTO_DivPrecisionAttr, "::pto_check::DivPrecision::Default">:$precisionType)>;
def PTO_TLReluOp : PTO_ScalarOp<"tlrelu", F32>;

// Row reductions (pto-dialect.md §5): `tmp` optional since 0.58, no properties, no segments.
class PTO_RowReduceOp<string mnemonic> : PTO_Op<mnemonic> {
  let arguments = (ins PTO_TileBuf:$src, Optional<PTO_TileBuf>:$tmp, PTO_TileBuf:$dst);
  let assemblyFormat = [{ `ins` `(` $src (`,` $tmp^)? `:` qualified(type($src)) (`,` qualified(type($tmp))^)? `)`
                          `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}
def PTO_TRowSumOp : PTO_RowReduceOp<"trowsum">;
def PTO_TRowMaxOp : PTO_RowReduceOp<"trowmax">;
def PTO_TRowMinOp : PTO_RowReduceOp<"trowmin">;

// trsqrt: generic operand order (%x, %d, %tmp?), the native form lists tmp in `ins`.
def PTO_TRsqrtOp : PTO_Op<"trsqrt"> {
  let arguments = (ins PTO_TileBuf:$src, PTO_TileBuf:$dst, Optional<PTO_TileBuf>:$tmp,
                       DefaultValuedAttr<PTO_RsqrtPrecisionAttr, "::pto_check::RsqrtPrecision::Default">:$precisionType);
  let assemblyFormat = [{ `ins` `(` $src (`,` $tmp^)? `:` qualified(type($src)) (`,` qualified(type($tmp))^)? `)`
                          `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}

def PTO_TRowExpandOp : PTO_UnaryOp<"trowexpand">;
// Row-broadcast arithmetic (pto-dialect.md §5): generic (%x, %v, %tmp?, %d); only trowexpanddiv
// has a property.
class PTO_RowExpandBinOp<string mnemonic, dag extra = (ins)> : PTO_Op<mnemonic> {
  let arguments = !con((ins PTO_TileBuf:$src0, PTO_TileBuf:$src1, Optional<PTO_TileBuf>:$tmp, PTO_TileBuf:$dst), extra);
  let assemblyFormat = [{ `ins` `(` $src0 `,` $src1 (`,` $tmp^)? `:` qualified(type($src0)) `,` qualified(type($src1))
                          (`,` qualified(type($tmp))^)? `)` `outs` `(` $dst `:` qualified(type($dst)) `)` attr-dict }];
}
def PTO_TRowExpandSubOp : PTO_RowExpandBinOp<"trowexpandsub">;
def PTO_TRowExpandMulOp : PTO_RowExpandBinOp<"trowexpandmul">;
def PTO_TRowExpandDivOp : PTO_RowExpandBinOp<"trowexpanddiv",
    (ins DefaultValuedAttr<PTO_DivPrecisionAttr, "::pto_check::DivPrecision::Default">:$precisionType)>;

// tcvt (pto-dialect.md §5): attributes inside `ins`; rmode defaults to CAST_RINT. Saturation is
// where this dialect is stricter than PTOAS: its default changed (0.60 OFF, 0.63 ON, §0), so text
// that leaves it out means two things and is rejected (verifier). The custom form spells the
// property `sat_mode` as `satmode` (C++ parser and printer in ops.cpp).
def PTO_TCvtOp : PTO_Op<"tcvt"> {
  let arguments = (ins PTO_TileBuf:$src, Optional<PTO_TileBuf>:$tmp, PTO_TileBuf:$dst,
                       DefaultValuedAttr<PTO_RoundModeAttr, "::pto_check::RoundMode::CastRint">:$rmode,
                       OptionalAttr<PTO_SaturationModeAttr>:$sat_mode);
  let hasCustomAssemblyFormat = 1;
}

// Column reductions (pto-dialect.md §5): tcolsum's attributes sit inside `ins`, before the colon;
// isBinary only when written.
def PTO_TColSumOp : PTO_Op<"tcolsum"> {
  let arguments = (ins PTO_TileBuf:$src, Optional<PTO_TileBuf>:$tmp, PTO_TileBuf:$dst, OptionalAttr<BoolAttr>:$isBinary);
  let assemblyFormat = [{ `ins` `(` $src (`,` $tmp^)? attr-dict `:` qualified(type($src)) (`,` qualified(type($tmp))^)? `)`
                          `outs` `(` $dst `:` qualified(type($dst)) `)` }];
}
def PTO_TColMaxOp : PTO_UnaryOp<"tcolmax">;
def PTO_TColMinOp : PTO_UnaryOp<"tcolmin">;

// Column broadcasts (extended-rollout.md §3.5, §3.5b): no properties.
def PTO_TColExpandOp : PTO_UnaryOp<"tcolexpand">;
def PTO_TColExpandAddOp : PTO_BinaryOp<"tcolexpandadd">;
def PTO_TColExpandSubOp : PTO_BinaryOp<"tcolexpandsub">;
def PTO_TColExpandMulOp : PTO_BinaryOp<"tcolexpandmul">;
def PTO_TColExpandDivOp : PTO_BinaryOp<"tcolexpanddiv">;
def PTO_TColExpandMaxOp : PTO_BinaryOp<"tcolexpandmax">;
def PTO_TColExpandMinOp : PTO_BinaryOp<"tcolexpandmin">;
def PTO_TColExpandExpdifOp : PTO_BinaryOp<"tcolexpandexpdif">;

#endif  // T2B_PTO_CHECK_TD
