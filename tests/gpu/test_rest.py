"""A CUDA stepper put back to rest runs again from step 0 as a new one does."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf


@pytest.mark.parametrize("variant", ["indexed", "fused", "temporal"])
def test_a_stepper_at_rest_runs_again_as_a_new_one(variant):
    """rest() zeroes the fields and the CPML values and now the records and their counts of
    rows flushed too (a second run's records went into the rows after the first's): the
    same fields, probes and snapshots, bit for bit, as a new stepper's."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    scene = yf.Scene(grid=yf.Grid(cells=(24, 20, 18), spacing=1e-3),
                     boundaries={"z_min": "pec", "z_max": "pec", "x_min": {"cells": 5},
                                 "x_max": {"cells": 5}, "y_min": {"cells": 5},
                                 "y_max": {"cells": 5}},
                     sources=[yf.PointSource(component="ez", cell=(12, 10, 9),
                                             waveform=yf.Gaussian(tau=8e-12))],
                     monitors=[yf.Probe(name="p", cell=(15, 11, 9), every=3),
                               yf.Snapshot(name="s", component="ez", every=7)],
                     run=yf.RunSettings(steps=40))
    model = yf.build_model(scene)
    fresh = CudaStepper(model, "float32", variant=variant, tune=False)
    fresh.advance(0, 40)
    want = fresh.collect()
    again = CudaStepper(model, "float32", variant=variant, tune=False)
    again.advance(0, 25)
    again.collect()   # rows flushed to the host, as a run's progress does
    again.rest()
    assert all(not r.any() for r in again.collect().probes)
    again.advance(0, 40)
    got = again.collect()
    for a, b in zip(got.probes + got.snapshots, want.probes + want.snapshots, strict=True):
        assert np.array_equal(a, b)
    for c, v in fresh.fields().items():
        assert np.array_equal(again.fields()[c], v), c
