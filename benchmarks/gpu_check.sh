#!/usr/bin/env bash
# The whole GPU check in one call, for a machine with a GPU and no network:
# GPU tests (parity of every variant with NumPy, large index, the physics tests on the
# cuda backend), the benchmark table, the physics tests' float16 figures and the parity
# report.
# Uses the machine's own python3; pydantic comes from wheels in .whl/ when it is missing.
# Usage: benchmarks/gpu_check.sh OUTDIR [--steps N] [--quick]   (the last two for the bench
# suite, as `yeefdtd bench --suite table` takes them)
# GPU_CHECK_PARTS picks parts (default all: "tests bench report"), so that a machine whose
# commands are time-limited can run the check in several calls; GPU_TESTS_SHARD=K/N runs
# only share K of N (K from 0, the suite's --shard option in tests/conftest.py) of the GPU
# tests and the physics tests on cuda, so that N calls with K = 0 .. N-1 run them all.
set -uo pipefail
out=${1:-out}; shift || true
mkdir -p "$out" && out=$(cd "$out" && pwd)   # absolute: the check runs from the checkout
here=$(cd "$(dirname "$0")/.." && pwd)
if ! python3 -c "import pydantic" 2>/dev/null; then
  if ls "$here"/.whl/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/yeefdtd-site \
      "$here"/.whl/*.whl || exit 1
    export PYTHONPATH=/tmp/yeefdtd-site${PYTHONPATH:+:$PYTHONPATH}
  else
    echo "pydantic is missing: put its wheels in .whl/ (python3 -m pip download --only-binary=:all: --python-version 3.12 -d .whl pydantic, where there is network)" >&2
    exit 2
  fi
fi
export PYTHONPATH=$here/src${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
cd "$here"
parts=" ${GPU_CHECK_PARTS:-tests bench report} "
status=0
if [[ $parts == *" tests "* ]]; then
  nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.mem --format=csv \
    | tee "$out/gpu_tests.log"
  shard=()
  [[ -n ${GPU_TESTS_SHARD:-} ]] && shard=(--shard "$GPU_TESTS_SHARD")
  python3 -m pytest -q -p no:cacheprovider "${shard[@]}" tests/gpu 2>&1 \
    | tee -a "$out/gpu_tests.log" || status=1
  python3 -m pytest -q -p no:cacheprovider "${shard[@]}" tests/physics -k cuda 2>&1 \
    | tee -a "$out/gpu_tests.log" || status=1
fi
if [[ $parts == *" bench "* ]]; then
  suite=${BENCH_SUITE:-table}
  plots=()   # the studies' plots: the table has none
  [[ $suite != table ]] && plots=(--plots "$out")
  python3 -m yeefdtd bench --suite "$suite" --json "$out/bench.json" "${plots[@]}" "$@" 2>&1 \
    | tee "$out/bench.log" || status=1
fi
if [[ $parts == *" report "* ]]; then
  python3 benchmarks/storage_errors.py --backend cuda --dtype float16 2>&1 \
    | tee "$out/storage_errors.log" || status=1
  python3 benchmarks/storage_errors.py --backend cuda --dtype float16 --energy 2>&1 \
    | tee -a "$out/storage_errors.log" || status=1
  python3 benchmarks/parity_report.py 2>&1 | tee "$out/parity.log" || status=1
fi
exit $status
