#!/usr/bin/python3
"""Imports every ONNX backend node test (package libonnx-testdata) with dist-opt.

Each case is a folder holding `model.onnx` and `test_data_set_*/input_N.pb`,
`output_N.pb`. dist compiles for static shapes, so a model input of integer
type (a shape, axes, `k`, indices) or a scalar of any type (a ratio, a range
bound, a depth, a mode flag) is bound to its value from `test_data_set_0`
with `--bind-input`; every other input stays an argument.

The outcome of each case is compared with `expected-failures.txt`, a reviewed
list of `CASE  REASON` lines: REASON is a phrase the case's diagnostic must
contain. The run fails when
  - a case that should import does not (a regression),
  - a listed case imports (an improvement: take it off the list, so the
    count can only go up),
  - a listed case fails for another reason than the one listed,
  - any case crashes, hangs, or exits non-zero without an `error:` diagnostic.

With --dist-compile, every case that imports is also compiled to an
executable, run on the remaining inputs of `test_data_set_0` (as .npy files)
and its outputs compared with the expected ones at the tolerance of ONNX's
own backend tests (rtol 1e-3, atol 1e-7; integers and booleans exactly, NaN
where NaN is expected). Cases that import but do not pass are listed in
`expected-numeric-failures.txt` the same way, and the same rules apply: a
regression, an unexpected pass, a changed reason or a crash fails the run.

  run_node_tests.py --dist-opt build/bin/dist-opt
                    [--dist-compile build/bin/dist-compile]
                    [--data DIR] [-j N] [--summary FILE] [--update]
"""

import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

DEFAULT_DATA = "/usr/share/libonnx-testdata/data/node"
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected-failures.txt")
EXPECTED_NUMERIC = os.path.join(HERE, "expected-numeric-failures.txt")
RTOL, ATOL = 1e-3, 1e-7
# Integer inputs decide shapes and are bound to their test values.
BOUND_TYPES = {onnx.TensorProto.INT32, onnx.TensorProto.INT64}
# So are the float inputs that decide shapes and interpolation weights:
# Resize's roi and scales, Upsample's scales (every input after the data).
PARAMETER_INPUTS = {"Resize", "Upsample"}
TIMEOUT_S = 60


class Case:
    """One node test: its model, and its inputs and outputs by position."""

    def __init__(self, folder):
        self.name = os.path.basename(folder.rstrip("/"))
        self.model = os.path.join(folder, "model.onnx")
        data = os.path.join(folder, "test_data_set_0")
        number = lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1))
        self.input_files = sorted(glob.glob(os.path.join(data, "input_*.pb")),
                                  key=number)
        self.output_files = sorted(
            glob.glob(os.path.join(data, "output_*.pb")), key=number)

    def graph(self):
        try:
            return onnx.load(self.model, load_external_data=False).graph
        except Exception:  # A broken model is dist-opt's to diagnose.
            return None

    def inputs(self):
        """(name, file, bound) of every graph input fed by the test data."""
        graph = self.graph()
        if graph is None:
            return []
        initializers = {t.name for t in graph.initializer}
        names = [i.name for i in graph.input if i.name not in initializers]
        parameters = {name for node in graph.node
                      if node.op_type in PARAMETER_INPUTS
                      for name in node.input[1:]}
        result = []
        for name, path in zip(names, self.input_files):
            tensor = read_tensor(path)
            size = 1
            for d in tensor.dims:
                size *= d
            bound = (tensor.data_type in BOUND_TYPES or size == 1 or
                     name in parameters)
            result.append((name, path, bound))
        return result

    def bound_inputs(self):
        """(name, file) of the integer and scalar inputs, bound as constants."""
        return [(n, p) for n, p, bound in self.inputs() if bound]


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return tensor


def compare(name, actual, expected):
    """None if `actual` matches `expected`, else what differs."""
    if actual.shape != expected.shape:
        return "output %s has shape %s, expected %s" % (name, actual.shape,
                                                        expected.shape)
    if actual.dtype != expected.dtype:
        return "output %s has dtype %s, expected %s" % (name, actual.dtype,
                                                        expected.dtype)
    if expected.dtype.kind in "biu" or expected.dtype == np.bool_:
        bad = actual != expected
    else:
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~((np.abs(a - e) <= ATOL + RTOL * np.abs(e)) |
                    (np.isnan(a) & np.isnan(e)) | (a == e))
    if bad.any():
        return "mismatch in output %s at %d of %d elements" % (
            name, int(bad.sum()), bad.size)
    return None


def execute_case(case, dist_compile):
    """Compiles and runs an imported case: (status, message), status is
    pass, fail (compile, run or mismatch) or crash."""
    graph = case.graph()
    with tempfile.TemporaryDirectory(prefix="dist-node-") as tmp:
        exe = os.path.join(tmp, "model")
        command = [dist_compile, case.model, "-o", exe, "--cpu=generic"]
        run_args = [exe, "--output-dir", os.path.join(tmp, "out")]
        for i, (name, path, bound) in enumerate(case.inputs()):
            if bound:
                command.append("--bind-input=%s=%s" % (name, path))
                continue
            npy = os.path.join(tmp, "input_%d.npy" % i)
            np.save(npy, numpy_helper.to_array(read_tensor(path)))
            run_args += ["--input", "%s=%s" % (name, npy)]
        for stage, args in (("compile", command), ("run", run_args)):
            try:
                run = subprocess.run(args, capture_output=True, text=True,
                                     timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return "crash", "%s timed out after %d s" % (stage, TIMEOUT_S)
            if run.returncode != 0:
                errors = [l for l in run.stderr.splitlines() if "error" in l]
                if run.returncode != 1 or not errors:
                    return "crash", "%s: exit code %d, stderr: %s" % (
                        stage, run.returncode, run.stderr[-2000:])
                return "fail", "%s: %s" % (
                    stage, errors[0].split("error:", 1)[-1].strip())
        for out, path in zip(graph.output, case.output_files):
            expected = numpy_helper.to_array(read_tensor(path))
            produced = os.path.join(tmp, "out", out.name.replace("/", "_") +
                                    ".npy")
            if not os.path.exists(produced):
                return "fail", "output %s was not written" % out.name
            problem = compare(out.name, np.load(produced), expected)
            if problem:
                return "fail", problem
    return "pass", ""


def import_case(case, dist_opt):
    """Returns (status, message): status is ok, error or crash."""
    command = [dist_opt, case.model, "-o", os.devnull]
    for name, path in case.bound_inputs():
        command.append("--bind-input=%s=%s" % (name, path))
    try:
        run = subprocess.run(command, capture_output=True, text=True,
                             timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "crash", "timed out after %d s" % TIMEOUT_S
    if run.returncode == 0:
        return "ok", ""
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    if run.returncode != 1 or not errors:
        return "crash", "exit code %d, stderr: %s" % (run.returncode,
                                                      run.stderr[-2000:])
    return "error", errors[0].split("error:", 1)[1].strip()


def read_expected(path):
    expected = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, _, reason = line.partition(" ")
            expected[name] = reason.strip()
    return expected


def normalize(message):
    """The diagnostic without the test data's folder."""
    return re.sub(r"=\S*/(input_\d+\.pb)", r"=\1", message)


def reason_of(message):
    """The phrase of a diagnostic that a listed failure pins."""
    message = re.sub(r" at node '.*", "", normalize(message))
    message = re.sub(r"node '[^']*'", "node", message)
    return message[:100]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist-opt", required=True)
    parser.add_argument("--dist-compile",
                        help="also compile, run and compare imported cases")
    parser.add_argument("--expected-numeric", default=EXPECTED_NUMERIC)
    parser.add_argument("--data", default=DEFAULT_DATA)
    parser.add_argument("--expected", default=EXPECTED)
    parser.add_argument("-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--summary", help="also write the count line here")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the expected-failure list from this run")
    args = parser.parse_args()

    folders = sorted(glob.glob(os.path.join(args.data, "test_*/")))
    if not folders:
        sys.exit("run_node_tests.py: no test cases under %s (install "
                 "libonnx-testdata)" % args.data)
    cases = [Case(f) for f in folders]
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        results = dict(zip((c.name for c in cases),
                           pool.map(lambda c: import_case(c, args.dist_opt),
                                    cases)))

    expected = read_expected(args.expected)
    problems = []
    for name, (status, message) in results.items():
        if status == "crash":
            problems.append("CRASH %s: %s" % (name, message))
        elif status == "ok" and name in expected:
            problems.append("UNEXPECTED PASS %s: remove it from %s" %
                            (name, os.path.basename(args.expected)))
        elif status == "error" and name not in expected:
            problems.append("REGRESSION %s: %s" % (name, message))
        elif status == "error" and expected[name] not in normalize(message):
            problems.append("NEW REASON %s: expected '%s', got '%s'" %
                            (name, expected[name], message))
    for name in expected:
        if name not in results:
            problems.append("STALE %s: listed but not a test case" % name)

    if args.update:
        with open(args.expected, "w") as f:
            f.write(HEADER)
            for name, (status, message) in sorted(results.items()):
                if status != "ok":
                    f.write("%s %s\n" % (name, reason_of(message)))

    imported = sum(status == "ok" for status, _ in results.values())
    summary = "imported %d / %d ONNX node tests" % (imported, len(results))
    if args.dist_compile:
        ok = [c for c in cases if results[c.name][0] == "ok"]
        with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
            numeric = dict(zip((c.name for c in ok),
                               pool.map(lambda c: execute_case(
                                   c, args.dist_compile), ok)))
        problems += check_numeric(numeric, args)
        passed = sum(status == "pass" for status, _ in numeric.values())
        summary += "\npassed %d / %d ONNX node tests" % (passed, len(results))
    for line in problems:
        print(line)
    print(summary)
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(summary + "\n")
    return 1 if problems and not args.update else 0


def check_numeric(numeric, args):
    expected = read_expected(args.expected_numeric)
    problems = []
    for name, (status, message) in sorted(numeric.items()):
        if status == "crash":
            problems.append("CRASH %s: %s" % (name, message))
        elif status == "pass" and name in expected:
            problems.append("UNEXPECTED PASS %s: remove it from %s" %
                            (name, os.path.basename(args.expected_numeric)))
        elif status == "fail" and name not in expected:
            problems.append("NUMERIC REGRESSION %s: %s" % (name, message))
        elif status == "fail" and expected[name] not in message:
            problems.append("NEW REASON %s: expected '%s', got '%s'" %
                            (name, expected[name], message))
    for name in expected:
        if name not in numeric:
            problems.append("STALE %s: listed in %s but not executed" %
                            (name, os.path.basename(args.expected_numeric)))
    if args.update:
        with open(args.expected_numeric, "w") as f:
            f.write(NUMERIC_HEADER)
            for name, (status, message) in sorted(numeric.items()):
                if status != "pass":
                    f.write("%s %s\n" % (name, message[:100]))
    return problems


NUMERIC_HEADER = """\
# ONNX node tests that import but do not compute the expected outputs (rtol
# 1e-3, atol 1e-7), each with a phrase the failure must contain. Reviewed;
# regenerate with run_node_tests.py --dist-compile ... --update and review the
# diff. The groups and why they fail are in docs/cpu-backend.md.
"""

HEADER = """\
# ONNX node tests that dist-opt does not import, each with a phrase its
# diagnostic must contain. Reviewed; regenerate with run_node_tests.py --update
# and review the diff. The groups and why they fail are in docs/onnx-import.md.
"""

if __name__ == "__main__":
    sys.exit(main())
