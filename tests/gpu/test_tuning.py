"""The tuner's timing: candidates that cannot launch are left out, and the ones kept really
run, whether launched one by one or replayed as a CUDA graph (as the stepper runs steps)."""

from __future__ import annotations

import numpy as np
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
                       final_repeats=2, graph=graph, give_up=None)   # runs of microseconds
    assert [c for c, _ in out] == [(128,), (256,)]   # 2048 threads a block: no launch
    assert all(ms > 0 for _, ms in out)
    # each kept shape ran 1 + 2 times in the first round and again as a finalist: every
    # element was bumped 2 x 2 x 3 times; a graph that was not replayed would leave zeros
    cp.cuda.Device().synchronize()
    assert float(a.min()) == float(a.max()) == 12.0


def test_a_graph_timing_runs_in_order_with_the_callers_stream():
    """The graph is replayed on the caller's stream, after what it queued there (the tuner
    fills the fields with random values before it times): a kernel that spins about 20 ms
    before it sets every value to 5 is queued first, so bumps replayed on any other stream
    would land before it and be overwritten."""
    import cupy as cp

    spin = cp.RawKernel(r'''extern "C" __global__ void spin_then_set(float* a, long long n,
                                                           long long cycles) {
        const long long t0 = clock64();
        while (clock64() - t0 < cycles) {}
        for (long long i = threadIdx.x; i < n; i += blockDim.x) a[i] = 5.f;
    }''', "spin_then_set")
    kernel = cp.RawKernel(SRC, "bump")
    a = cp.zeros(1 << 16, dtype=cp.float32)
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        spin((1,), (256,), (a, cp.int64(a.size), cp.int64(40_000_000)))
        tuning.time_launches(cp, [(kernel, (a.size // 256,), (256,), (a,), 0)], repeats=1,
                             graph=True)
    s.synchronize()
    assert float(a.min()) == float(a.max()) == 7.0


def test_each_stepper_is_tuned_the_way_it_runs_its_steps(tmp_path, monkeypatch):
    """'indexed' replays its steps as a CUDA graph and is tuned so; the marching variants
    launch their passes from Python and are tuned so (the cache key names the timing)."""
    import json

    import yeefdtd as yf

    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    scene = yf.Scene(grid=yf.Grid(cells=(24, 20, 16), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(12, 10, 8),
                                             waveform=yf.Gaussian(tau=3e-12, t0=6e-12))],
                     run=yf.RunSettings(steps=4, dtype="float32"))
    for variant in ("indexed", "temporal"):
        yf.run(scene, backend="cuda", progress=False,
               stepper_options={"variant": variant, "tune": True})
    keys = list(json.loads((tmp_path / "tuning.json").read_text()))
    timing = {(k.split("|")[3], k.rsplit("|", 1)[1]) for k in keys}
    assert timing == {("indexed", "graph"), ("temporal", "launches")}


def test_a_marching_stepper_compiles_the_pass_of_its_known_shape_only(tmp_path, monkeypatch):
    """A grid too small to tune (or a forced shape) compiles the one pass shape it runs, and
    runs as before; one that is swept compiles every candidate, and so does the run that
    finds its shape in the tuning cache where CuPy (14.2 or later) keeps such modules on
    disk: the same instances in the same modules, which CuPy's cache holds since the
    sweep (else it compiles its one shape)."""
    from yeefdtd.backends.cuda.compile import cupy_caches_modules
    from yeefdtd.backends.cuda.stepper import CudaStepper
    from yeefdtd.build.model import build_model
    from yeefdtd.exceptions import KernelError

    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    model = build_model(_cpml_scene())
    small = CudaStepper(model, "float32", variant="temporal")
    assert small.compiled_configs() == [small.configs["pass"]]
    kernels = [n for n in small._names() if n.startswith("march3")]
    every = small.variant.configs("pass", small.shape)
    swept = CudaStepper(model, "float32", variant="temporal", tune=True)
    assert swept.known_configs is None and swept.compiled_configs() == every
    assert len([n for n in swept._names() if n.startswith("march3")]) > len(kernels)
    other = next(c for c in every if c[:3] != small.configs["pass"][:3])
    with pytest.raises(KernelError, match=r"launch shape .* not compiled"):
        small._pass_kernel(other)
    with pytest.raises(KernelError, match="kernel march3x<float> was not compiled"):
        small._fn("march3x<float>")
    for st in (small, swept):
        st.advance(0, 6)
    assert swept.cached_roles == small.cached_roles == set()
    ref, names, configs = swept.fields(), swept._names(), swept.configs
    del st, swept   # its modules are free for the next stepper: those the sweep compiled
    cached = CudaStepper(model, "float32", variant="temporal", tune=True)   # from the cache
    assert cached.cached_roles == {"pass"} and cached.configs == configs
    if cupy_caches_modules():
        assert cached.compiled_configs() == every
        assert cached._names() == names and set(cached._module.copies) == {0}
    else:
        assert cached.compiled_configs() == [configs["pass"]]
    cached.advance(0, 6)
    for st in (small, cached):
        got = st.fields()
        for c in ("ez", "hx", "hy"):   # what an ez source drives (ex, hz stay at rounding)
            assert np.abs(ref[c]).max() > 0
            assert np.abs(got[c] - ref[c]).max() <= 1e-6 * np.abs(ref[c]).max()


def _cpml_scene():
    import yeefdtd as yf

    return yf.Scene(grid=yf.Grid(cells=(40, 36, 44), spacing=1e-3),
                    boundaries="cpml",
                    sources=[yf.PointSource(component="ez", cell=(20, 18, 22),
                                            waveform=yf.Gaussian(tau=3e-12, t0=6e-12))],
                    run=yf.RunSettings(steps=6, dtype="float32"))


@pytest.mark.parametrize("variant", ["fused", "temporal"])
def test_a_2d_sweep_refines_the_pass_its_full_passes_run(variant, tmp_path, monkeypatch):
    """A 2D sweep times each shape's instance for passes of all its steps (FULL; a pass of
    1 step has no other), and the whole-wave refinement after it works out that instance's
    launch grid and occupancy. On 4096 x 4096 cells (9 tiles across) segments of 36 rows
    or more make nearly whole waves of blocks, so the refinement has candidates to offer;
    on 512 x 512 (2 tiles across) it had none (H100: 5 blocks per SM for 'fused', 3 for
    'temporal')."""
    import yeefdtd as yf
    from yeefdtd.backends.cuda.stepper import CudaStepper
    from yeefdtd.build.model import build_model

    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(4096, 4096), spacing=1e-3),
                     boundaries="periodic",
                     sources=[yf.PointSource(component="ez", cell=(2048, 2048),
                                             waveform=yf.Gaussian(tau=3e-12, t0=6e-12))],
                     run=yf.RunSettings(steps=8, dtype="float32"))
    st = CudaStepper(build_model(scene), "float32", variant=variant, tune=True)
    assert st.known_configs is None   # swept
    shape = next(c for c in st.variant.configs("pass", st.shape) if c[3])   # with segments
    assert st.full_pass(shape)
    assert st.occupancy(shape)["blocks_per_sm"] > 0
    refined = st._refinements("pass", shape)
    assert refined
    for cfg in refined:
        assert cfg[:3] == shape[:3] and cfg[3] > 0
    st.advance(0, 8)
    assert np.abs(st.fields()["ez"]).max() > 0
