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


def _alone(model, variant, steps=STEPS):
    from yeefdtd.backends.cuda.stepper import CudaStepper

    st = CudaStepper(model, "float32", variant=variant)
    st.advance(0, steps)
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


@pytest.mark.parametrize("variant", ["indexed", "temporal"])
def test_a_stepper_dropped_with_steps_queued_leaves_the_next_its_constants(variant):
    """A stepper dropped while its steps are still queued on the GPU frees its modules; the
    next stepper of the same instances takes them, and writes its constants only once the
    device has run the queued steps (else those would run with the new stepper's
    coefficients and write into its auxiliary arrays)."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    def scene(eps, steps):
        return yf.Scene(grid=yf.Grid(cells=(256, 256, 256), spacing=1e-3), boundaries="cpml",
                        materials={"m": yf.Material(eps_r=eps, sigma_e=0.01)},
                        objects=[yf.Sphere(center=(0.1, 0.12, 0.13), radius=0.04,
                                           material="m")],
                        sources=[yf.PointSource(component="ez", cell=(128, 128, 128),
                                                waveform=yf.Ricker(frequency=20e9))],
                        run=yf.RunSettings(steps=steps, dtype="float32"))

    first, second = yf.build_model(scene(4.0, 3000)), yf.build_model(scene(2.0, 100))
    want = _alone(second, variant, 100)
    a = CudaStepper(first, "float32", variant=variant)
    a.advance(0, 3000)   # about a second of steps queued, not waited for
    del a
    b = CudaStepper(second, "float32", variant=variant)
    assert set(b._module.copies) == {0}
    b.advance(0, 100)
    got = b.fields()
    for c, v in want.items():
        assert np.abs(got[c] - v).max() <= 1e-6 * np.abs(v).max(), c
