"""16-bit field storage: the scales, the rounding, and the emulation on the NumPy backend."""

from __future__ import annotations

import math

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.backends.numpy.stepper import _round16
from yeefdtd.build.model import build_model
from yeefdtd.build.storage import H_SHIFT, Storage, compute_dtype, field_bound, storage_for
from yeefdtd.exceptions import SetupError, ValidationError


def _scene(dtype="float16", amp=1.0):
    return yf.Scene(
        grid=yf.Grid(cells=(16, 14, 12), spacing=1e-3),
        boundaries={"x_min": {"cells": 4}, "x_max": "pec", "y_min": "pmc", "y_max": "pec",
                    "z_min": "periodic", "z_max": "periodic"},
        materials={"d": yf.Material(eps_r=3.0, sigma_e=0.02)},
        objects=[yf.Box(center=(0.009, 0.007, 0.006), size=(0.004, 0.004, 0.004),
                        material="d")],
        sources=[yf.PointSource(component="ez", cell=(8, 7, 6), amplitude=amp,
                                waveform=yf.DiffGaussian(tau=8e-12))],
        run=yf.RunSettings(steps=120, dtype=dtype, backend="numpy"))


def test_compute_dtype_of_each_storage():
    assert compute_dtype("float16") == np.float32
    assert compute_dtype("bfloat16") == np.float32
    assert compute_dtype("float64") == np.float64
    with pytest.raises(ValidationError, match="dtype: 'int8' is not one of"):
        compute_dtype("int8")


def test_float16_scales_are_powers_of_two_set_by_the_sources():
    for amp in (1.0, 3e4, 2e-6):
        model = build_model(_scene(amp=amp))
        st = storage_for(model, "float16")
        bound = field_bound(model)
        assert math.log2(st.scale_e).is_integer()
        assert st.scale_e / st.scale_h == 2.0**H_SHIFT
        # the bound lands in (2^11, 2^12] stored units
        assert 2.0**11 < bound / st.scale_e <= 2.0**12
    assert storage_for(model, "float32") == Storage("float32")


def test_round16_matches_the_formats():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(4096) * 10.0 ** rng.uniform(-6, 4, 4096)).astype(np.float32)
    t16, t32 = np.empty(a.size, np.float16), np.empty(a.size, np.uint32)
    # float16, scaled by a power of two: the same as casting the scaled value
    x = a.copy()
    _round16(x, Storage("float16", 4.0, 4.0 / 512), 4.0, t16, t32)
    assert np.array_equal(x, (a / 4.0).astype(np.float16).astype(np.float32) * 4.0)
    # bfloat16: the low 16 bits are zero, and it is the nearer of the two neighbours
    y = a.copy()
    _round16(y, Storage("bfloat16"), 1.0, t16, t32)
    bits = y.view(np.uint32)
    assert np.all(bits & 0xFFFF == 0)
    down = (a.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    up = ((a.view(np.uint32) & np.uint32(0xFFFF0000)) + np.uint32(0x10000)).view(np.float32)
    nearer = np.where(np.abs(a - down) <= np.abs(up - a), down, up)
    tie = np.abs(a - down) == np.abs(up - a)
    assert np.array_equal(y[~tie], nearer[~tie])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_numpy_fields_are_what_16_bits_hold(dtype):
    res = yf.run(_scene(dtype), keep_fields=True, progress=False)
    model = build_model(_scene(dtype))
    st = storage_for(model, dtype)
    assert res.stats["dtype"] == dtype
    for c, a in res.fields.items():
        assert a.dtype == np.float32
        if dtype == "float16":
            s = st.scale(c)
            assert np.array_equal(a, (a / s).astype(np.float16).astype(np.float32) * s), c
        else:
            assert np.all(a.view(np.uint32) & 0xFFFF == 0), c
        assert np.any(a != 0), c


def test_16_bit_storage_stays_close_to_float64():
    """Relative L2 over the fields after 120 steps: float16 ~1e-3, bfloat16 ~1e-2 (the
    formats' 11 and 8 significant bits); a missing rounding would give float32's 1e-7."""
    ref = yf.run(_scene("float64"), keep_fields=True, progress=False).fields

    def err(d):
        got = yf.run(_scene(d), keep_fields=True, progress=False).fields
        return math.sqrt(sum(float(np.sum((got[c] - ref[c]) ** 2)) for c in ref)
                         / sum(float(np.sum(ref[c] ** 2)) for c in ref))

    e16, eb16 = err("float16"), err("bfloat16")
    assert 1e-5 < e16 < 1e-2, e16
    assert e16 < eb16 < 1e-1, eb16


def test_the_cuda_backend_says_in_one_line_what_it_does_not_store():
    """bfloat16 storage is emulated on NumPy only, and only 'indexed', 'fused' and 'temporal'
    store float16; both
    refusals come before CuPy is needed."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    model = build_model(_scene())
    with pytest.raises(SetupError, match=r"bfloat16 runs on the numpy backend only; on cuda "
                                         r"use float16"):
        CudaStepper(model, "bfloat16")
    with pytest.raises(SetupError, match=r"variant 'seed-xyz' stores float32 or float64 fields "
                                         r"only; use variant 'indexed', 'fused' or "
                                         r"'temporal' for dtype float16"):
        CudaStepper(model, "float16", variant="seed-xyz")


def test_float16_fields_that_outgrow_its_range_are_said_to_and_not_blamed_on_the_scene(
        tmp_path, capsys):
    """A PEC cavity driven at resonance by a hard source of 1 V/m is stable (float32 runs
    it; its fields stay bounded, eta0 H up to 18 V/m), but its H outgrows float16's range at
    the scale the source sets: the run stops as any whose fields stop being finite, and the
    line says so, not that the source, the CPML or the Courant number is to blame."""
    from yeefdtd.cli import main

    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3),
                     boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(1, 10), kind="hard",
                                             waveform=yf.Sine(frequency=16.96e9))],
                     monitors=[yf.Probe(name="p", cell=(10, 10))],
                     run=yf.RunSettings(steps=2000, backend="numpy"))
    path = scene.save(tmp_path / "cavity.json")
    assert main(["run", str(path), "-o", str(tmp_path / "a.h5"), "-q"]) == 0
    assert main(["run", str(path), "-o", str(tmp_path / "b.h5"), "-q",
                 "--dtype", "float16"]) == 1
    err = capsys.readouterr().err
    assert "in float16 most likely they outgrew what it holds at the scale the sources set " \
           "(E up to 16 V/m, H up to 0.0312 A/m)" in err and "CPML" not in err
