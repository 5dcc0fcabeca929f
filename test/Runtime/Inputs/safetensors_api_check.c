/*===- safetensors_api_check.c - The safetensors calls no tool makes -------===*
 *
 *   distrt-safetensors-api-check DIR
 *
 * Writes and reads back files in DIR (which must exist and be empty) and
 * prints one line per check: the result of each lookup, and the message of
 * each call that must fail. Written in C to check distrt.h is a C header.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static void expectError(const char *what, int status) {
  printf("%s: %s\n", what, status == 0 ? "ACCEPTED" : distrt_last_error());
}

static distrt_tensor hostTensor(distrt_dtype dtype, int32_t rank,
                                const int64_t *shape, void *data) {
  distrt_tensor tensor;
  memset(&tensor, 0, sizeof(tensor));
  tensor.dtype = dtype;
  tensor.rank = rank;
  for (int32_t i = 0; i < rank; ++i)
    tensor.shape[i] = shape[i];
  tensor.device.kind = DISTRT_HOST;
  tensor.data = data;
  return tensor;
}

/* Prints the directory's entries (but . and ..), to show no temporary file is
 * left behind. */
static void listDirectory(const char *dir) {
  DIR *handle = opendir(dir);
  struct dirent *entry;
  int count = 0;
  while (handle && (entry = readdir(handle)))
    if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
      printf("file %d: %s\n", ++count, entry->d_name);
  if (handle)
    closedir(handle);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: distrt-safetensors-api-check DIR\n");
    return 2;
  }
  char path[4096], missing[4096];
  snprintf(path, sizeof(path), "%s/a.safetensors", argv[1]);
  snprintf(missing, sizeof(missing), "%s/no-such-dir/a.safetensors", argv[1]);

  float weights[6] = {1, 2, 3, 4, 5, 6};
  int64_t ids[2] = {-7, 1LL << 40};
  double scalar = 0.25;
  int64_t shape23[2] = {2, 3}, shape2[1] = {2};
  distrt_tensor tensors[3] = {hostTensor(DISTRT_F32, 2, shape23, weights),
                              hostTensor(DISTRT_I64, 1, shape2, ids),
                              hostTensor(DISTRT_F64, 0, NULL, &scalar)};
  const char *names[3] = {"layer.0/w", "ids", "s"};
  const char *keys[2] = {"format", "note"};
  const char *values[2] = {"pt", "quote \" and \\ and \xc3\xa9"};
  if (distrt_safetensors_write(path, 3, names, tensors, 2, keys, values)) {
    printf("write failed: %s\n", distrt_last_error());
    return 1;
  }
  distrt_safetensors *file = distrt_safetensors_open(path);
  if (!file) {
    printf("open failed: %s\n", distrt_last_error());
    return 1;
  }
  printf("count %lld\n", (long long)distrt_safetensors_count(file));
  for (int64_t i = 0; i < distrt_safetensors_count(file); ++i) {
    distrt_tensor info;
    const char *name = distrt_safetensors_name(file, i);
    distrt_safetensors_info(file, name, &info);
    printf("tensor %s: %s rank %d data %s\n", name,
           distrt_dtype_name(info.dtype), info.rank,
           info.data ? "set" : "null");
  }
  float readWeights[6];
  int64_t readIds[2];
  double readScalar;
  int same =
      !distrt_safetensors_read(file, "layer.0/w", readWeights,
                               sizeof(readWeights)) &&
      !distrt_safetensors_read(file, "ids", readIds, sizeof(readIds)) &&
      !distrt_safetensors_read(file, "s", &readScalar, sizeof(readScalar)) &&
      !memcmp(readWeights, weights, sizeof(weights)) &&
      !memcmp(readIds, ids, sizeof(ids)) && readScalar == scalar;
  printf("read back: %s\n", same ? "same" : "DIFFERENT");
  printf("metadata format: %s\n", distrt_safetensors_metadata(file, "format"));
  printf("metadata note: %s\n", distrt_safetensors_metadata(file, "note"));
  printf("metadata absent: %s\n",
         distrt_safetensors_metadata(file, "absent") ? "FOUND" : "null");
  printf("metadata keys: %lld, first %s\n",
         (long long)distrt_safetensors_metadata_count(file),
         distrt_safetensors_metadata_key(file, 0));

  expectError("read size", distrt_safetensors_read(file, "ids", readIds, 8));
  expectError("read absent",
              distrt_safetensors_read(file, "nope", readIds, 16));
  distrt_tensor info;
  expectError("info absent", distrt_safetensors_info(file, "nope", &info));
  printf("name 3: %s (%s)\n",
         distrt_safetensors_name(file, 3) ? "FOUND" : "null",
         distrt_last_error());
  printf("metadata key 2: %s (%s)\n",
         distrt_safetensors_metadata_key(file, 2) ? "FOUND" : "null",
         distrt_last_error());
  distrt_safetensors_close(file);
  distrt_safetensors_close(NULL);

  /* Overwriting replaces the file whole, through a temporary file that does
   * not remain. */
  if (distrt_safetensors_write(path, 1, names + 2, tensors + 2, 0, NULL,
                               NULL)) {
    printf("rewrite failed: %s\n", distrt_last_error());
    return 1;
  }
  file = distrt_safetensors_open(path);
  printf("after rewrite: %lld tensor(s), first %s, %lld metadata\n",
         (long long)distrt_safetensors_count(file),
         distrt_safetensors_name(file, 0),
         (long long)distrt_safetensors_metadata_count(file));
  distrt_safetensors_close(file);

  /* Bad arguments: nothing is written. */
  const char *twice[2] = {"a", "a"};
  expectError("duplicate name", distrt_safetensors_write(
                                    missing, 2, twice, tensors, 0, NULL, NULL));
  const char *reserved[1] = {"__metadata__"};
  expectError(
      "reserved name",
      distrt_safetensors_write(missing, 1, reserved, tensors, 0, NULL, NULL));
  const char *notUtf8[1] = {"bad\xff"};
  expectError(
      "invalid UTF-8",
      distrt_safetensors_write(missing, 1, notUtf8, tensors, 0, NULL, NULL));
  distrt_tensor onGpu = tensors[0];
  onGpu.device.kind = DISTRT_CUDA;
  expectError("device tensor", distrt_safetensors_write(missing, 1, names,
                                                        &onGpu, 0, NULL, NULL));
  distrt_tensor noData = tensors[0];
  noData.data = NULL;
  expectError("null data", distrt_safetensors_write(missing, 1, names, &noData,
                                                    0, NULL, NULL));
  distrt_tensor negative = tensors[0];
  negative.shape[1] = -3;
  expectError(
      "negative dimension",
      distrt_safetensors_write(missing, 1, names, &negative, 0, NULL, NULL));
  const char *sameKeys[2] = {"k", "k"};
  expectError("duplicate metadata",
              distrt_safetensors_write(missing, 1, names, tensors, 2, sameKeys,
                                       values));
  expectError(
      "missing directory",
      distrt_safetensors_write(missing, 1, names, tensors, 0, NULL, NULL));
  printf("open null: %s (%s)\n",
         distrt_safetensors_open(NULL) ? "FOUND" : "null", distrt_last_error());
  listDirectory(argv[1]);
  return 0;
}
