"""The tuner's timing: candidates that cannot launch are left out, and the ones kept really
run, whether launched one by one or replayed as a CUDA graph (as the stepper runs steps)."""

from __future__ import annotations

import pytest

from yeefdtd.backends.cuda import tuning

SRC = r'''extern "C" __global__ void bump(float* a) {
    a[blockIdx.x * blockDim.x + threadIdx.x] += 1.f;
}'''


@pytest.mark.parametrize("graph", [False, True])
def test_a_sweep_leaves_out_shapes_that_cannot_launch_and_runs_the_others(graph):
    import cupy as cp

    kernel = cp.RawKernel(SRC, "bump")
    a = cp.zeros(4096, dtype=cp.float32)

    def plan(cfg):
        return [(kernel, (a.size // cfg[0],), (cfg[0],), (a,), 0)]

    out = tuning.sweep(cp, plan, [(128,), (2048,), (256,)], repeats=2, finalists=3,
                       final_repeats=2, graph=graph)
    assert [c for c, _ in out] == [(128,), (256,)]   # 2048 threads a block: no launch
    assert all(ms > 0 for _, ms in out)
    # each kept shape ran 1 + 2 times in the first round and again as a finalist: every
    # element was bumped 2 x 2 x 3 times; a graph that was not replayed would leave zeros
    cp.cuda.Device().synchronize()
    assert float(a.min()) == float(a.max()) == 12.0


def test_a_graph_timing_runs_in_order_with_the_callers_stream():
    """The graph is replayed on the caller's stream, after what it queued there (the tuner
    fills the fields with random values before it times)."""
    import cupy as cp

    kernel = cp.RawKernel(SRC, "bump")
    a = cp.zeros(1 << 20, dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        a.fill(5.0)
        tuning.time_launches(cp, [(kernel, (a.size // 256,), (256,), (a,), 0)], repeats=1,
                             graph=True)
    s.synchronize()
    assert float(a.min()) == float(a.max()) == 7.0
