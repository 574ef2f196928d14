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
    """dipole-cpml 96 (rows of 97 nodes, padded to 112 by 'fused' and 104 by 'temporal'):
    the estimate lays the arrays out as the stepper does and leaves out only the small
    tables (coefficients, source and probe indices, a few kB): within 1% below."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    scene = bench_scene("dipole-cpml", 96, 20)
    model = yf.build_model(scene)
    st = CudaStepper(model, dtype, variant=variant, tune=False)
    est = gpu_memory(scene, model.grid, model.steps, dtype, face_kinds(scene))
    got = est[variant]
    assert 0.99 * st.memory_bytes() <= got <= st.memory_bytes(), (got, st.memory_bytes())
