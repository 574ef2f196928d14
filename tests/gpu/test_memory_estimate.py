"""validate's estimate of a run's GPU memory (build/memory.gpu_memory) against what the
cuda backend's steppers hold (memory_bytes)."""

from __future__ import annotations

import pytest

import yeefdtd as yf
from yeefdtd.bench import bench_scene
from yeefdtd.build.memory import gpu_memory
from yeefdtd.build.model import face_kinds


@pytest.mark.parametrize("variant", ["indexed", "fused", "temporal"])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_the_gpu_estimate_is_what_the_steppers_hold(variant, dtype):
    """dipole-cpml 96: the estimate leaves out the rows' padding to whole sectors (97 nodes
    a row held as up to 104: 7% of the fields) and the small tables, so it may be up to a
    tenth below what the stepper holds, never more than 1% above."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    scene = bench_scene("dipole-cpml", 96, 20)
    model = yf.build_model(scene)
    st = CudaStepper(model, dtype, variant=variant, tune=False)
    est = gpu_memory(scene, model.grid, model.steps, dtype, face_kinds(scene))
    got = est["indexed" if variant == "indexed" else "marching"]
    assert 0.9 * st.memory_bytes() <= got <= 1.01 * st.memory_bytes(), (got, st.memory_bytes())
