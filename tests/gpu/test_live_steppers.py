"""Steppers alive at once keep their own constants (coefficient table, pointers to their
auxiliary arrays, sources and probes), though they ask for the same kernel instances: CuPy
hands out one module per source and instances in a process, so the second gets copies."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import yeefdtd as yf

from .test_parity import BOUNDARIES_3D, random_scene

STEPS = 40


def _alone(model, variant):
    from yeefdtd.backends.cuda.stepper import CudaStepper

    st = CudaStepper(model, "float32", variant=variant)
    st.advance(0, STEPS)
    out = st.fields()
    del st
    gc.collect()
    return out


@pytest.mark.parametrize("variant", ["indexed", "temporal"])
def test_two_live_steppers_of_the_same_kernels_keep_their_own_constants(variant):
    from yeefdtd.backends.cuda.stepper import CudaStepper

    models = [yf.build_model(random_scene("3d", seed, BOUNDARIES_3D[0])) for seed in (3, 4)]
    want = [_alone(m, variant) for m in models]
    a = CudaStepper(models[0], "float32", variant=variant)
    b = CudaStepper(models[1], "float32", variant=variant)
    assert a._names() == b._names()                  # the same instances ...
    assert set(a._module.copies) == {0} and 0 not in b._module.copies   # ... in other modules
    for st in (a, b):
        st.advance(0, STEPS)
    for st, ref in zip((a, b), want, strict=True):
        got = st.fields()
        for c, v in ref.items():
            assert np.abs(v).max() > 0
            assert np.abs(got[c] - v).max() <= 1e-6 * np.abs(v).max(), c
    del a, b
    gc.collect()
    c = CudaStepper(models[0], "float32", variant=variant)   # the copies are free again
    assert set(c._module.copies) == {0}
