//===- RuntimeTypesTest.cpp - The compiler's view of distrt_dtype ---------===//
//
// Every element type the dist dialect has maps to the runtime's number,
// and the compiler's name for it is the runtime library's own
// (distrt_dtype_name, compiled in libdistrt from the same list), so the
// interface text, weights files and runtime calls agree.

#include "dialects/Dist/Runtime/RuntimeTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;

TEST(RuntimeTypes, EveryElementTypeHasItsRuntimeNumberAndName) {
  MLIRContext context;
  Builder b(&context);
  auto unsignedInt = [&](unsigned bits) {
    return IntegerType::get(&context, bits, IntegerType::Unsigned);
  };
  auto signedInt = [&](unsigned bits) {
    return IntegerType::get(&context, bits, IntegerType::Signed);
  };
  struct Case {
    Type type;
    distrt_dtype dtype;
  } cases[] = {
      {b.getF32Type(), DISTRT_F32},  {b.getF64Type(), DISTRT_F64},
      {b.getF16Type(), DISTRT_F16},  {b.getBF16Type(), DISTRT_BF16},
      {b.getI64Type(), DISTRT_I64},  {signedInt(64), DISTRT_I64},
      {b.getI32Type(), DISTRT_I32},  {b.getI16Type(), DISTRT_I16},
      {b.getI8Type(), DISTRT_I8},    {unsignedInt(64), DISTRT_U64},
      {unsignedInt(32), DISTRT_U32}, {unsignedInt(16), DISTRT_U16},
      {unsignedInt(8), DISTRT_U8},   {b.getI1Type(), DISTRT_BOOL},
  };
  for (const Case &c : cases) {
    std::optional<distrt_dtype> got = dist::runtimeDtype(c.type);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(*got, c.dtype);
    EXPECT_EQ(dist::runtimeDtypeName(c.type).str(),
              std::string(distrt_dtype_name(c.dtype)));
  }
}

TEST(RuntimeTypes, TypesTheRuntimeLacksHaveNone) {
  MLIRContext context;
  Builder b(&context);
  for (Type t : {Type(b.getTF32Type()), Type(b.getIntegerType(4)),
                 Type(b.getIndexType()), Type(b.getType<Float8E4M3FNType>())}) {
    EXPECT_FALSE(dist::runtimeDtype(t).has_value());
    EXPECT_TRUE(dist::runtimeDtypeName(t).empty());
  }
}
