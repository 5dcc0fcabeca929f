//===- DistEnums.td - Enumerated attributes of the dist dialect -----------===//

#ifndef DIST_IR_DISTENUMS_TD
#define DIST_IR_DISTENUMS_TD

include "mlir/IR/EnumAttr.td"

def Dist_ComparePredicateAttr : I64EnumAttr<
    "ComparePredicate", "elementwise comparison predicate", [
      I64EnumAttrCase<"eq", 0>, I64EnumAttrCase<"ne", 1>,
      I64EnumAttrCase<"lt", 2>, I64EnumAttrCase<"le", 3>,
      I64EnumAttrCase<"gt", 4>, I64EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::dist";
}

def Dist_LossReductionAttr : I64EnumAttr<
    "LossReduction", "how a loss combines its per-sample values", [
      I64EnumAttrCase<"none", 0>, I64EnumAttrCase<"sum", 1>,
      I64EnumAttrCase<"mean", 2>]> {
  let cppNamespace = "::mlir::dist";
}

def Dist_CollectiveKindAttr : I64EnumAttr<
    "CollectiveKind", "how a collective combines the ranks' values", [
      I64EnumAttrCase<"sum", 0>, I64EnumAttrCase<"max", 1>,
      I64EnumAttrCase<"min", 2>, I64EnumAttrCase<"mean", 3>]> {
  let cppNamespace = "::mlir::dist";
}

#endif // DIST_IR_DISTENUMS_TD
