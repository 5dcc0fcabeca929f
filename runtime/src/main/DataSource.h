//===- DataSource.h - Where a trainer's batches come from -------*- C++ -*-===//
//
// The data options of a trainer (docs/trainer-abi.md): the same .npy batch
// every step, windows of a token file, slices of a sample file, or seeded
// synthetic values. Every file is read and checked (sizes, dtypes, shapes,
// value ranges) when the source is opened, before the run writes anything.
//
//===----------------------------------------------------------------------===//

#ifndef DISTRT_MAIN_DATASOURCE_H
#define DISTRT_MAIN_DATASOURCE_H

#include "ModelInterface.h"
#include "TrainOptions.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace distrt::model {

/// A data source as a checkpoint records it: enough to open it again and
/// continue where it was.
struct DataState {
  enum Kind { None, Inputs, Tokens, Samples, Synthetic };
  Kind kind = None;
  /// Inputs: each input's .npy file, by input name.
  std::vector<std::pair<std::string, std::string>> files;
  std::string file;                     // Tokens, Samples
  distrt_dtype tokenDtype = DISTRT_U16; // Tokens: uint16 or int32
  uint64_t count = 0;    // Tokens: tokens in the file; Samples: samples (N)
  uint64_t position = 0; // Tokens, Samples: where the next batch starts
  uint64_t seed = 0;     // Synthetic
};

/// "inputs", "tokens", ... as the manifest spells the kind; and back.
const char *dataKindName(DataState::Kind kind);
bool parseDataKind(const std::string &text, DataState::Kind &kind);

/// What the driver fills each step's inputs from.
class DataSource {
public:
  virtual ~DataSource() = default;
  /// Writes the batch of `step` (1-based) into the model's input buffers
  /// (`pointers` holds one per argument) and moves on to the next batch.
  virtual void next(int64_t step, std::vector<void *> &pointers) = 0;
  /// The state to record in a checkpoint: the next batch's position.
  const DataState &state() const { return current; }

protected:
  DataState current;
};

/// Opens the source the options name; with no data option on a resume,
/// `resumed` (the checkpoint's source, or nullptr on a fresh run). A source
/// given on a resume must be the checkpoint's (same kind, seed, token dtype
/// and size; files may have moved), and continues at its position. On
/// failure returns false and sets `error`.
bool openDataSource(const Interface &model, const TrainOptions &options,
                    const DataState *resumed, std::unique_ptr<DataSource> &out,
                    std::string &error);

/// What throughput counts: "tokens" (B x T per step) when the model has two
/// integer inputs of one shape, else "samples" (dimension 0 of the first
/// input, or 1). Sets `perStep`.
const char *throughputUnit(const Interface &model, int64_t &perStep);

} // namespace distrt::model

#endif // DISTRT_MAIN_DATASOURCE_H
