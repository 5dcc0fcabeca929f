// RUN: not dist-opt %s --dist-remat="mode=sometimes" 2>&1 | FileCheck %s
// CHECK: error: dist-remat: unknown mode 'sometimes' (none, full, selective, auto or cheap)
module {
}

// RUN: not dist-opt %s --dist-remat="mode=auto" 2>&1 | FileCheck %s --check-prefix=NO-BUDGET
// NO-BUDGET: error: dist-remat: auto needs memory-budget (MiB, > 0)
// RUN: not dist-opt %s --dist-remat="mode=full memory-budget=2" 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: error: dist-remat: memory-budget is for mode auto
