/*===- bad_interface_model.c - A model whose interface text is malformed --===*/

#include "distrt/model.h"

const char dist_model_interface[] = "dist-model 1\n"
                                    "input float32 2x3 x\n"
                                    "input float31 4 ids\n"
                                    "output float32 2x3 y\n";

void dist_model_forward(void **buffers) { (void)buffers; }
