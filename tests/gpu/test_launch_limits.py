"""The marching variants at CUDA's launch limits and on grids thinner than their tiles, and
what their steppers hold against validate's estimate (build/memory.gpu_memory)."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf


def rel_l2(a: dict, b: dict) -> float:
    num = sum(np.sum((a[c] - b[c]) ** 2) for c in b)
    den = sum(np.sum(b[c] ** 2) for c in b)
    return float(np.sqrt(num / den))


#: a source's row past 4 x 65 535 = 262 140, so that the x layers' rows that only a launch
#: of more than 65 535 blocks along y reaches hold fields (a launch that left them out would
#: leave zeros there, as the reference has without this source)
TOP = 269000


def _tall_2d_scene(mode: str) -> yf.Scene:
    """More than 4 x 65 535 rows along y with CPML on the x faces: the 2D marching variants'
    x boxes run segments of 4 rows, which took ceil(270 001 / 4) = 67 501 blocks along y,
    past CUDA's 65 535 (a launch error untuned, no launch shape at all tuned; 'auto' picks
    'temporal' for it)."""
    grid = yf.Grid(mode=mode, cells=(16, 270000), spacing=1e-3)
    comp = grid.components[0]
    return yf.Scene(grid=grid,
                    boundaries={"x_min": {"cells": 4}, "x_max": {"cells": 4},
                                "y_min": "pec", "y_max": "pec"},
                    sources=[yf.PointSource(component=comp, cell=(8, y),
                                            waveform=yf.Gaussian(tau=10e-12))
                             for y in (135000, TOP)],
                    monitors=[yf.Probe(name="p", cell=(6, 135004)),
                              yf.Probe(name="q", cell=(6, TOP + 4))],
                    run=yf.RunSettings(steps=30))


@pytest.mark.parametrize("variant, mode, tune", [
    ("temporal", "tmz", False), ("fused", "tez", False), ("temporal", "tez", True)])
def test_2d_marching_cpml_boxes_on_grids_of_more_than_262140_rows(variant, mode, tune,
                                                                  tmp_path, monkeypatch):
    """float64, against 'indexed' on the same device: fields within 1e-10 (the order of
    operations alone differs) and the probe within 1e-9 of its peak."""
    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    scene = _tall_2d_scene(mode)
    ref = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": "indexed", "tune": False})
    got = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": variant, "tune": tune})
    assert rel_l2(got.fields, ref.fields) < 1e-10
    for c, f in ref.fields.items():   # the x layers past row 262 140 hold fields
        assert np.abs(f[:4, 262140:]).max() > 0 or np.abs(f[-4:, 262140:]).max() > 0, c
        assert np.abs(got.fields[c][:, 262140:] - f[:, 262140:]).max() <= 1e-9 * np.abs(
            f[:, 262140:]).max(), c
    for name in ("p", "q"):
        for comp, want in ref.probes[name].data.items():
            assert np.max(np.abs(got.probes[name][comp] - want)) <= 1e-9 * np.max(np.abs(want))


def test_describe_gives_the_segment_launched():
    """The 2D pass's segments grow past CUDA's limit; describe says what ran."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    st = CudaStepper(yf.build_model(_tall_2d_scene("tmz")), "float32", variant="temporal",
                     tune=False, launch={"pass": (4, 4, 4, 2)})
    seg = st.describe()["tile"]["y_segment"]
    assert seg >= 5 and -(-270001 // seg) <= 65535


def test_auto_runs_a_tall_2d_scene_with_x_cpml(tmp_path, monkeypatch):
    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    got = yf.run(_tall_2d_scene("tmz"), backend="cuda", dtype="float32", keep_fields=True,
                 progress=False)
    assert np.isfinite(got.fields["ez"]).all() and np.abs(got.fields["ez"]).max() > 0


def _many_sources_scene(mode: str) -> yf.Scene:
    if mode == "3d":
        cells, pts = (40, 40, 40), [(12 + i % 16, 12 + i // 16, 20) for i in range(200)]
    else:
        cells, pts = (200, 200), [(15 + i % 30, 15 + i // 30) for i in range(200)]
    return yf.Scene(grid=yf.Grid(mode=mode, cells=cells, spacing=1e-3), boundaries="cpml",
                    sources=[yf.PointSource(component="ez", cell=p,
                                            waveform=yf.Gaussian(tau=10e-12)) for p in pts],
                    monitors=[yf.Probe(name="a", cell=pts[0])],
                    run=yf.RunSettings(steps=5000))


@pytest.mark.parametrize("mode", ["3d", "tmz"])
@pytest.mark.parametrize("variant", ["indexed", "fused", "temporal"])
def test_the_gpu_estimate_with_many_sources_is_what_the_steppers_hold(variant, mode):
    """200 point sources over 5000 steps: the marching steppers held every source value
    twice (CudaStepper's per-group tables, which no launch of theirs reads, beside their
    event tables), 15.9 MB against the estimate's 11.9 in 3D. The bound of
    test_memory_estimate: the estimate within 1% below what is held."""
    from yeefdtd.backends.cuda.stepper import CudaStepper
    from yeefdtd.build.memory import gpu_memory
    from yeefdtd.build.model import face_kinds

    scene = _many_sources_scene(mode)
    model = yf.build_model(scene)
    st = CudaStepper(model, "float32", variant=variant, tune=False)
    est = gpu_memory(scene, model.grid, model.steps, "float32", face_kinds(scene))[variant]
    assert 0.99 * st.memory_bytes() <= est <= st.memory_bytes(), (est, st.memory_bytes())


THIN = [((40, 33, 1), {"z_min": "periodic", "z_max": "periodic", "x_min": {"cells": 5},
                        "x_max": {"cells": 6}, "y_min": "pec", "y_max": {"cells": 4}}),
        ((40, 2, 30), {"y_min": "periodic", "y_max": "periodic", "x_min": {"cells": 5},
                       "x_max": "pmc", "z_min": {"cells": 4}, "z_max": {"cells": 4}}),
        ((3, 30, 25), {"x_min": "pec", "x_max": "pec", "y_min": {"cells": 5},
                       "y_max": {"cells": 5}, "z_min": {"cells": 3}, "z_max": "pec"}),
        ((5, 6, 7), {"x_min": {"cells": 1}, "x_max": {"cells": 1}, "y_min": {"cells": 2},
                     "y_max": {"cells": 2}, "z_min": {"cells": 2}, "z_max": {"cells": 2}})]


@pytest.mark.parametrize("variant", ["fused", "temporal", "temporal:steps=4"])
@pytest.mark.parametrize("case", range(len(THIN)))
def test_march_on_grids_thinner_than_a_tile_or_the_pipeline(case, variant):
    """Sides of 1 to 7 cells, thinner than the tiles' overlap of 2 NT and the z pipeline,
    which benchmarks/parity_fuzz.py (20 to 71 cells a side) never draws: float64 against
    float64 NumPy, 61 steps (passes of every length), within the parity tests' 1e-10."""
    cells, bnd = THIN[case]
    centre = tuple(n // 2 for n in cells)
    scene = yf.Scene(grid=yf.Grid(cells=cells, spacing=1e-3), boundaries=bnd,
                     sources=[yf.PointSource(component="ez", cell=centre,
                                             waveform=yf.Gaussian(tau=8e-12)),
                              yf.PointSource(component="hx", cell=(1, 1, 0), kind="hard",
                                             waveform=yf.Gaussian(tau=10e-12))],
                     monitors=[yf.Probe(name="p", cell=centre, every=2)],
                     run=yf.RunSettings(steps=61))
    ref = yf.run(scene, backend="numpy", dtype="float64", keep_fields=True, progress=False)
    got = yf.run(scene, backend="cuda", dtype="float64", keep_fields=True, progress=False,
                 stepper_options={"variant": variant})
    assert rel_l2(got.fields, ref.fields) < 1e-10
    for comp, want in ref.probes["p"].data.items():
        assert np.max(np.abs(got.probes["p"][comp] - want)) <= 1e-9 * np.max(np.abs(want))
