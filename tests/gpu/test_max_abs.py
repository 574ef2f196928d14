"""The divergence check's max |field| on the GPU (support.cu's max_abs, compiled with the
stepper's kernels): the largest |value| of the fields in SI units, NaN where one is NaN or
infinite, for every storage type and for the marching steppers' swapped field sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yeefdtd as yf

from .test_parity import BOUNDARIES_3D, random_scene


@pytest.mark.parametrize("variant", ["indexed", "temporal"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_max_abs_is_the_largest_field_value_and_sees_nan_and_infinity(variant, dtype):
    from yeefdtd.backends.cuda.stepper import CudaStepper

    model = yf.build_model(random_scene("3d", 3, BOUNDARIES_3D[0]))
    st = CudaStepper(model, dtype, variant=variant)
    assert st.max_abs() == 0.0
    for done, n in ((0, 30), (30, 3), (33, 1)):   # odd counts: the marching sets swap
        st.advance(done, n)
        want = max(float(np.max(np.abs(f))) for f in st.fields().values())
        assert want > 0
        # float16 fields come back widened and scaled by a power of two: the same values
        assert st.max_abs() == pytest.approx(want, rel=1e-15), (done, n)
    comp = "hy"
    for bad in (math.nan, math.inf, -math.inf):
        with st._stream:   # in order with the stepper's kernels
            field = st._f[comp]
            keep = field[5, 6, 7].copy()
            field[5, 6, 7] = bad
        assert math.isnan(st.max_abs()), bad
        with st._stream:
            field[5, 6, 7] = keep
    assert st.max_abs() == pytest.approx(want, rel=1e-15)


def test_a_cuda_run_that_diverges_stops_with_its_partial_result():
    from yeefdtd.backends.cuda.stepper import CudaStepper

    scene = random_scene("3d", 3, BOUNDARIES_3D[0]).model_copy(
        update={"run": yf.RunSettings(steps=60, check_every=20)})
    model = yf.build_model(scene)
    st = CudaStepper(model, "float32", variant="indexed")
    with st._stream:
        st._f["ez"][4, 4, 4] = np.nan
    with pytest.raises(yf.DivergenceError) as info:
        yf.run_model(model, st, progress=False)
    assert info.value.step == 20
    assert info.value.partial.stats["status"] == "diverged"
