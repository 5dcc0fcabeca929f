// RUN: not dist-opt %s --dist-remat="mode=sometimes" 2>&1 | FileCheck %s
// CHECK: error: dist-remat: unknown mode 'sometimes' (none, full or selective)
module {
}
