//===- ParameterServer.h - Parameter-server mode's run ----------*- C++ -*-===//
//
// A program compiled with `dist-compile --parallel=ps --mesh=W --servers=K`
// holds the workers' gradient function (dist_model_forward) and one update
// per server (dist_ps_server, distrt/model.h). It runs as `mpirun -np W+K`:
// ranks 0..W-1 are workers, W..W+K-1 servers. Each worker computes the
// gradient of its rows of the batch and pushes each server the gradients of
// the parameters that server owns; the servers apply their optimizer and
// send the new parameters back (docs/parallelism.md,
// "Parameter servers").
//
// Synchronous (default): every server sums the W pushes in worker order
// and averages them, one update per step, as data parallelism does.
// Asynchronous (--sync async --staleness S): server 0 takes the pushes in
// the order they arrive (or, with --replay LOG, in the order a previous
// run logged) and every server applies each as one update; a worker starts
// its next step only while it is at most S steps ahead of the slowest
// (stale synchronous parallel). Every update's line says which worker it
// came from and how many updates were applied since that worker's
// parameters (its staleness).
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_PARAMETERSERVER_H
#define DISTRT_MAIN_PARAMETERSERVER_H

#include "ModelInterface.h"

namespace distrt::model {

/// Whether this program was compiled for parameter-server mode.
bool isParameterServerProgram();

/// main() of such a program; `worker` is the workers' interface
/// (dist_model_interface).
int parameterServerMain(int argc, char **argv, const Interface &worker);

} // namespace distrt::model

#endif // DISTRT_MAIN_PARAMETERSERVER_H
