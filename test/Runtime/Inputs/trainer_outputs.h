/*===- trainer_outputs.h - The outputs member every trainer has -----------===*
 *
 * A trainer's outputs are loss, grad_norm and lr, float32 scalars in this
 * order (docs/trainer-abi.md): the "outputs" member of the hand-written
 * trainers' interface JSON, followed by ",\n" for the next member.
 *
 *===----------------------------------------------------------------------===*/

#ifndef TRAINER_OUTPUTS_H
#define TRAINER_OUTPUTS_H

/* clang-format off */
#define TRAINER_OUTPUTS                                                     \
  " \"outputs\": [\n"                                                       \
  "  {\"name\": \"loss\", \"dtype\": \"float32\", \"shape\": []},\n"        \
  "  {\"name\": \"grad_norm\", \"dtype\": \"float32\", \"shape\": []},\n"   \
  "  {\"name\": \"lr\", \"dtype\": \"float32\", \"shape\": []}],\n"
/* clang-format on */

#endif /* TRAINER_OUTPUTS_H */
