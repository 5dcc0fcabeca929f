/*===- bad_interface_model.c - A model whose interface is malformed -------===*
 *
 * Well-formed JSON, but the argument 'ids' has the unknown dtype "float31".
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/model.h"

/* clang-format off */
const char dist_model_interface[] =
    "{\"format\": \"dist-model\", \"version\": 1,\n"
    " \"arguments\": [\n"
    "  {\"role\": \"input\", \"name\": \"x\", \"dtype\": \"float32\", \"shape\": [2, 3]},\n"
    "  {\"role\": \"input\", \"name\": \"ids\", \"dtype\": \"float31\", \"shape\": [4]}],\n"
    " \"outputs\": [\n"
    "  {\"name\": \"y\", \"dtype\": \"float32\", \"shape\": [2, 3]}]}";
/* clang-format on */

void dist_model_forward(void **buffers) { (void)buffers; }
