"""The NumPy stepper: precision, allocation-free loop, sources, fields, divergence."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import yeefdtd as yf


def lossy_scene(steps=120, **run) -> yf.Scene:
    return yf.Scene(
        grid=yf.Grid(cells=(26, 22, 20), spacing=(1e-3, 1.1e-3, 0.9e-3)),
        materials={"m": yf.Material(eps_r=(2, 3, 4), sigma_e=(0.1, 0.2, 0.3), mu_r=1.5,
                                    sigma_m=100.0)},
        objects=[yf.Sphere(center=(0.013, 0.012, 0.009), radius=0.004, material="m"),
                 yf.Box(center=(0.006, 0.012, 0.009), size=(0.002, 0.004, 0.004),
                        material="pec")],
        boundaries={"x_min": {"cells": 6}, "x_max": "pmc", "y_min": "pec", "y_max": {"cells": 5},
                    "z_min": "periodic", "z_max": "periodic"},
        sources=[yf.PointSource(component="ez", cell=(15, 11, 10),
                                waveform=yf.DiffGaussian(tau=15e-12)),
                 yf.PointSource(component="hy", cell=(9, 7, 4), kind="hard",
                                waveform=yf.Gaussian(tau=20e-12))],
        monitors=[yf.Probe(name="p", cell=(18, 14, 12))],
        run=yf.RunSettings(steps=steps, **run),
    )


def test_float32_tracks_float64():
    """Relative L2 difference of the final fields: float32 rounding over 120 steps is
    ~1e-6; 1e-4 is the bound the GPU backends must also meet against float64."""
    s = lossy_scene()
    f64 = yf.run(s, dtype="float64", backend="numpy", keep_fields=True, progress=False).fields
    f32 = yf.run(s, dtype="float32", backend="numpy", keep_fields=True, progress=False).fields
    num = sum(np.sum((f32[c] - f64[c]) ** 2) for c in f64)
    den = sum(np.sum(f64[c] ** 2) for c in f64)
    assert 0 < np.sqrt(num / den) < 1e-4


def _loop_peak(cells, threads: int = 1) -> tuple[int, int]:
    data = lossy_scene(steps=60).model_dump()
    data["grid"]["cells"] = cells
    model = yf.build_model(yf.Scene.parse(data))
    st = yf.backends.get_stepper_class("numpy")(model, "float64", threads=threads)
    st.advance(0, 5)
    tracemalloc.start()
    st.advance(5, 20)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak, model.grid.num_nodes * 8


@pytest.mark.parametrize("threads", [1, 3])
def test_time_loop_allocates_no_field_sized_arrays(monkeypatch, threads):
    """What the loop allocates (NumPy's fixed-size iteration buffers, about 200 kB for each
    thread at work at once) does not grow with the grid: on one thread a field 10 times
    larger changes nothing; on three, a field 35 times larger takes no more than three
    times one thread's buffers. Pieces of 16 cells or more, so that both grids keep every
    thread at work."""
    from yeefdtd.backends.numpy import stepper as numpy_stepper

    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 16)
    small, _ = _loop_peak([26, 22, 20])
    large, field = _loop_peak([60, 50, 40] if threads == 1 else [90, 80, 60], threads)
    assert large < threads * (1.1 * small + 65536), (small, large)
    assert large < field / 4


def test_what_collect_gives_the_steps_after_it_do_not_change():
    """collect gives copies, in the run's dtype: a caller stepping on (or starting again from
    rest) keeps what it collected, as when the records were upcast copies."""
    stepper = yf.make_stepper(yf.build_model(lossy_scene(steps=60)), "numpy", "float32")
    stepper.advance(0, 30)
    first = stepper.collect()
    kept = first.probes[0].copy()
    assert first.probes[0].dtype == np.float32 and np.abs(kept).max() > 0
    assert len(kept) == 30   # the rows taken alone, not those of the 30 steps to come
    stepper.advance(30, 30)
    np.testing.assert_array_equal(first.probes[0], kept)
    now = stepper.collect().probes[0]
    assert len(now) == 60 and np.array_equal(now[:30], kept) and np.abs(now[30:]).max() > 0


def test_hard_source_sets_the_field():
    model = yf.build_model(lossy_scene(steps=30))
    st = yf.backends.get_stepper_class("numpy")(model, "float64")
    st.advance(0, 30)
    grp = next(g for g in model.sources if g.kind == "hard")
    hy = st.fields()["hy"].reshape(-1, order="F")
    assert hy[grp.flat[0]] == grp.values[29, 0]


def test_fields_stay_zero_in_pec_and_unused_slots():
    s = lossy_scene()
    res = yf.run(s, dtype="float64", backend="numpy", keep_fields=True, progress=False)
    m = yf.build_model(s)
    for c, f in res.fields.items():
        assert np.all(f[m.tables[c].ids == 0] == 0), c
    assert np.any(res.fields["ez"] != 0)


def test_set_field_and_divergence_keeps_partial_result():
    s = lossy_scene(steps=50, check_every=10)
    model = yf.build_model(s)
    st = yf.backends.get_stepper_class("numpy")(model, "float32")
    st._f["ex"][5, 5, 5] = np.nan   # set_field refuses values that are not finite
    with pytest.raises(yf.DivergenceError) as info:
        yf.run_model(model, st, progress=False)
    assert info.value.step == 10
    assert info.value.partial.stats["status"] == "diverged"
    assert info.value.partial.stats["steps"] == 10
    assert len(info.value.partial.probes["p"]["ez"]) == 10   # not reached by the NaN yet


def test_memory_report_counts_fields_and_coefficients():
    """The six fields at least; every array in the arithmetic's type, so float64 holds
    twice float32's bytes; float16 (float32 arithmetic) adds the rounding's scratch."""
    model = yf.build_model(lossy_scene())
    mem = {dt: yf.backends.get_stepper_class("numpy")(model, dt).memory_bytes()
           for dt in ("float32", "float64", "float16")}
    fields = 6 * model.grid.num_nodes
    assert mem["float32"] >= 4 * fields + 4 * model.grid.num_nodes   # and per-cell coefficients
    assert mem["float64"] == 2 * mem["float32"]
    assert mem["float16"] > mem["float32"]


def test_steps_past_the_models_last_are_refused_in_one_line():
    """A model's source waveforms and monitor records are laid out for its steps: a stepper
    asked to go past them says so (benchmarks build their models for the warm-up too)."""
    from yeefdtd.exceptions import SetupError

    st = yf.backends.get_stepper_class("numpy")(yf.build_model(lossy_scene(steps=10)),
                                                "float64")
    st.advance(0, 10)
    with pytest.raises(SetupError, match=r"^advance: steps 8 to 10 pass the model's 10 steps "):
        st.advance(8, 3)


def test_cuda_options_given_to_numpy_are_said_to_be_ignored(monkeypatch, capsys):
    """A variant named on the command line means nothing to NumPy: one note says so, and
    none for 'auto' (the default)."""
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")
    from yeefdtd.build.model import build_model

    monkeypatch.setattr(run_mod, "_notes_shown", set())
    model = build_model(lossy_scene(steps=2))
    run_mod.make_stepper(model, "numpy", variant="auto")
    assert "ignores" not in capsys.readouterr().err
    for _ in range(2):
        run_mod.make_stepper(model, "numpy", variant="temporal")
    err = capsys.readouterr().err
    assert err.count("note: the numpy backend ignores variant (options of another backend)") == 1


@pytest.mark.parametrize("values, says", [
    (np.ones(13), r"shape \(13,\)"), (1.0, r"shape \(\)"), (np.ones((27, 23, 1)), "node shape"),
    (None, "real numbers"), (np.ones((27, 23, 20), complex), "real numbers"),
    (np.full((27, 23, 20), np.nan), "NaN or infinity")])
def test_set_field_takes_an_array_of_the_grids_node_shape_only(values, says):
    st = yf.make_stepper(yf.build_model(lossy_scene(steps=2)), "numpy")
    with pytest.raises(yf.SetupError, match=says) as info:
        st.set_field("ez", values)
    assert "\n" not in str(info.value)
    with pytest.raises(yf.SetupError, match=r"no component 'bx'.*use one of ex"):
        st.set_field("bx", np.zeros(st.model.grid.shape))
    st.set_field("ez", np.zeros(st.model.grid.shape))   # the node shape: taken


def test_set_field_on_a_2d_grid_takes_its_two_sides():
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(6, 5), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=2))
    st = yf.make_stepper(yf.build_model(scene), "numpy")
    v = np.arange(42.0).reshape(7, 6) * ~st.held_at_zero("ez")[:, :, 0]   # the PEC walls: 0
    st.set_field("ez", v)
    assert np.array_equal(st.fields()["ez"][:, :, 0], v)
    with pytest.raises(yf.SetupError, match=r"set_field: ez values are not zero at 21 points "
                                            r"the run holds at zero .* the largest 41 at "
                                            r"\(6, 5, 0\); set them to zero"):
        st.set_field("ez", np.arange(42.0).reshape(7, 6))
    v[0, 0] = 1e-9 * v.max()   # rounding of a mode that is zero there: taken, as zero
    st.set_field("ez", v)
    for bad in ("ex", "qq", 5, None, ["ez"]):   # a bare KeyError before (TypeError for a list)
        with pytest.raises(yf.SetupError, match=r"held_at_zero: no component .* on this tmz "
                                                "grid; use one of ez, hx, hy"):
            st.held_at_zero(bad)
    assert st.fields()["ez"][0, 0, 0] == 0


def test_advance_runs_the_steps_in_order_and_not_after_one_cut_short(monkeypatch):
    """Step n drives the sources' values at n and fills record row n from the fields of
    step n - 1: a fresh stepper started at step 10, steps run twice or skipped, or a count
    whose NumPy int16 sum with start wrapped round, were taken without a word (fields and
    records of no run); and an advance cut short (here Ctrl-C within its 5th step) said
    all its steps were done."""
    model = yf.build_model(lossy_scene(steps=60))
    st = yf.make_stepper(model, "numpy")
    with pytest.raises(yf.SetupError, match=r"^advance: start 10, but this stepper has run 0 "
                                            r"steps.*continue with advance\(0, \.\.\.\)"):
        st.advance(10, 5)
    st.advance(0, 30)
    for start in (20, 40):
        with pytest.raises(yf.SetupError, match=f"advance: start {start}, but this stepper "
                                                "has run 30 steps"):
            st.advance(start, 5)
    st.advance(np.int16(30), np.int16(30))   # ints: 30 + 30 in int16 is fine, as Python's
    assert st.steps_done == 60
    big = yf.build_model(lossy_scene(steps=40000))
    st = yf.make_stepper(big, "numpy")
    st.advance(0, 30000)
    st.advance(np.int16(30000), np.int16(5000))   # their int16 sum wrapped to -30536
    assert st.steps_done == 35000
    st = yf.make_stepper(model, "numpy")
    calls, update_e = [], st.update_e

    def stop_at_the_fifth():
        calls.append(1)
        if len(calls) == 5:
            raise KeyboardInterrupt
        update_e()

    monkeypatch.setattr(st, "update_e", stop_at_the_fifth)
    with pytest.raises(KeyboardInterrupt):
        st.advance(0, 40)
    assert st.steps_done is None
    with pytest.raises(yf.SetupError, match="advance: an earlier advance stopped within its "
                                            "steps"):
        st.advance(0, 1)
    with pytest.raises(yf.SetupError, match="stepper: an advance of it stopped within"):
        yf.run_model(model, st, progress=False)


@pytest.mark.parametrize("start, count", [(0, -3), (0, 2.5), (-1, 1), (True, 1)])
def test_advance_refuses_steps_that_are_not_whole_numbers(start, count):
    st = yf.make_stepper(yf.build_model(lossy_scene(steps=5)), "numpy")
    with pytest.raises(yf.SetupError, match="advance: "):
        st.advance(start, count)


@pytest.mark.parametrize("steps", [0, -5, 2.5, True, 1e10, float("nan"), float("inf")])
def test_run_and_build_model_refuse_a_step_count_that_is_not_one(steps):
    with pytest.raises(yf.ValidationError, match=r"^steps: a whole number from 1 to"):
        yf.run(lossy_scene(steps=2), steps=steps, progress=False)
    with pytest.raises(yf.ValidationError, match=r"^steps: "):
        yf.build_model(lossy_scene(steps=2), steps=steps)


def test_a_step_count_written_as_a_whole_float_is_taken_as_a_scene_file_takes_it():
    """steps = 1e3 or 100.0 in a scene file ran; yf.run(scene, steps=10.0) was refused."""
    for steps in (3.0, np.float32(3), 3e0):
        m = yf.build_model(lossy_scene(steps=2), steps=steps)
        assert type(m.steps) is int and m.steps == 3
    res = yf.run(lossy_scene(steps=2), steps=3.0, progress=False)
    assert res.stats["steps"] == 3 and res.scene.run.steps == 3


def test_a_step_count_of_a_small_numpy_integer_type_is_taken_as_a_number():
    """np.int16(300) gave a negative speed and np.uint8(250) an OverflowError after the
    run (the result lost): counts made from them overflowed their few bits."""
    m = yf.build_model(lossy_scene(steps=2), steps=np.uint8(250))
    assert type(m.steps) is int and m.steps == 250
    res = yf.run(lossy_scene(steps=2), steps=np.int16(300), progress=False)
    assert res.stats["steps"] == 300 and res.stats["mcells_per_s"] > 0


@pytest.mark.parametrize("call", [lambda: yf.run({}), lambda: yf.run("scene.json"),
                                  lambda: yf.Scene.load(None), lambda: yf.Scene.from_toml(None),
                                  lambda: yf.load(None)])
def test_the_api_says_in_one_line_what_it_takes_in_place_of_a_scene(call):
    with pytest.raises(yf.ValidationError) as info:
        call()
    assert "\n" not in str(info.value) and " not " in str(info.value)


def test_a_diverged_runs_records_stop_just_before_the_first_that_is_not_finite():
    """Per monitor, record r is taken after step (r + 1) every - 1: the partial result keeps
    the most steps before any monitor's first bad record (a monitor with no record yet
    counts for nothing)."""
    import importlib
    import types

    run_mod = importlib.import_module("yeefdtd.run")
    model = types.SimpleNamespace(probes=[types.SimpleNamespace(every=1),
                                          types.SimpleNamespace(every=3)],
                                  snapshots=[types.SimpleNamespace(every=6),
                                             types.SimpleNamespace(every=50)])
    p1, p3 = np.zeros((20, 2)), np.zeros((6, 1))
    s6, s50 = np.zeros((3, 4, 4)), np.zeros((0, 4, 4))
    p1[14, 1] = np.nan   # taken after step 14: up to 14 steps
    p3[3, 0] = np.inf    # after step 11: up to 11
    s6[2, 1, 1] = np.nan  # after step 17: up to 17
    rec = types.SimpleNamespace(probes=[p1, p3], snapshots=[s6, s50])
    assert run_mod._finite_steps(model, rec, 20) == 11
    p3[3, 0] = 0.0
    assert run_mod._finite_steps(model, rec, 20) == 14
    p1[14, 1] = 0.0
    assert run_mod._finite_steps(model, rec, 20) == 17
    s6[2, 1, 1] = 0.0
    assert run_mod._finite_steps(model, rec, 20) == 20


@pytest.mark.parametrize("dtype, value, says", [
    ("float32", 1e300, "more than this run's float32 fields hold"), ("float32", 1e30, None),
    ("float64", 1e300, None),
    # stored as zeros without a word before
    ("float32", 1e-50, r"below the smallest normal number of this run's float32 fields"),
    ("float32", 1e-30, None), ("float64", 1e-50, None),
    ("float64", 1e-320, "float64 fields")])
def test_set_field_refuses_values_its_storage_cannot_hold(dtype, value, says):
    st = yf.make_stepper(yf.build_model(lossy_scene(steps=2)), "numpy", dtype)
    v = np.zeros(st.model.grid.shape)
    v[3, 3, 3] = value
    if says is None:
        st.set_field("ez", v)
        assert st.fields()["ez"][3, 3, 3] == np.asarray(value, dtype)
    else:
        with pytest.raises(yf.SetupError, match=says):
            st.set_field("ez", v)


def test_set_field_in_float16_takes_what_its_scale_holds():
    """float16's scale follows the sources' strength: values far past it would overflow."""
    st = yf.make_stepper(yf.build_model(lossy_scene(steps=2)), "numpy", "float16")
    most = 65504.0 * st.storage.scale("ez")
    v = np.zeros(st.model.grid.shape)
    v[3, 3, 3] = 0.5 * most
    st.set_field("ez", v)
    v[3, 3, 3] = 2 * most
    with pytest.raises(yf.SetupError, match="or float32"):
        st.set_field("ez", v)


def test_set_field_in_float16_without_sources_refuses_values_below_its_scale():
    """With no sources float16's scale stays 1, where an initial field of 1e-6 V/m was kept
    as subnormals and came back with errors of twice its size: refused in one line. With
    sources the scale is theirs, and a weaker field is small beside what they drive."""
    quiet = yf.Scene(grid=yf.Grid(cells=(10, 8, 6), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=2))
    st = yf.make_stepper(yf.build_model(quiet), "numpy", "float16")
    v = np.zeros(st.model.grid.shape)
    v[3, 3, 3] = 1e-6
    with pytest.raises(yf.SetupError, match="ez values peak at 1e-06, below the 1 that this "
                                            "run's float16 fields are scaled to"):
        st.set_field("ez", v)
    v[3, 3, 3] = 1.0
    st.set_field("ez", v)
    for dtype in ("bfloat16", "float32"):
        yf.make_stepper(yf.build_model(quiet), "numpy", dtype).set_field("ez", 1e-6 * v)
    loud = yf.make_stepper(yf.build_model(lossy_scene(steps=2)), "numpy", "float16")
    w = np.zeros(loud.model.grid.shape)
    w[3, 3, 3] = 1e-6 * loud.storage.scale("ez")
    loud.set_field("ez", w)


def test_a_ctrl_c_as_a_step_ends_keeps_no_fields_ahead_of_the_step_count(monkeypatch):
    """Ctrl-C after an advance of the steps returned, before the step count took them in:
    the fields were kept as those of the count before, though a later step's. Here it
    comes as the run reads the clock after its fourth advance: no fields, and the note."""
    import sys
    import types

    from yeefdtd.run import INTERRUPTED_FIELDS

    run_module = sys.modules["yeefdtd.run"]   # (yeefdtd.run is the function)

    calls = []

    def perf_counter():
        calls.append(1)
        if len(calls) == 8:   # t0, then the reading after each advance
            raise KeyboardInterrupt
        return len(calls) * 1e-3   # each advance quick: chunks of 1, 2, 4, 8 steps

    monkeypatch.setattr(run_module, "time", types.SimpleNamespace(perf_counter=perf_counter))
    scene = yf.Scene(grid=yf.Grid(cells=(8, 8, 8), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(4, 4, 4),
                                             waveform=yf.DiffGaussian(tau=10e-12))],
                     run=yf.RunSettings(steps=100, dtype="float64", backend="numpy"))
    with pytest.raises(yf.RunInterrupted) as info:
        yf.run(scene, progress=False, keep_fields=True)
    part = info.value.partial
    assert part.stats["steps"] == 7   # chunks of 1, 2, 4 counted; the fourth's 8 were not
    assert part.fields is None and part.stats["notes"][-1] == INTERRUPTED_FIELDS
    # a run without monitors that asked for its fields is not told to keep them
    assert not any(n.startswith("monitors: the scene has none") for n in part.stats["notes"])


def test_an_interrupted_run_keeps_no_fields(monkeypatch):
    """Ctrl-C within a step: the partial result's records are those of its steps, but the
    stepper's fields are of no whole step (they were saved as those of the step count,
    and equalled a later step's, or mixed two on threads), so keep_fields leaves them out
    and a note says why. A diverged run keeps them, at stats.fields_at_step."""
    from yeefdtd.backends.numpy.stepper import NumpyStepper
    from yeefdtd.run import INTERRUPTED_FIELDS

    scene = yf.Scene(grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(6, 6, 6),
                                             waveform=yf.DiffGaussian(tau=10e-12))],
                     monitors=[yf.Probe(name="p", cell=(4, 6, 6))],
                     run=yf.RunSettings(steps=200, dtype="float64", backend="numpy"))
    inject = NumpyStepper.inject_e

    def ctrl_c(self, n):
        if n == 100:
            raise KeyboardInterrupt
        return inject(self, n)

    monkeypatch.setattr(NumpyStepper, "inject_e", ctrl_c)
    with pytest.raises(yf.RunInterrupted) as info:
        yf.run(scene, progress=False, keep_fields=True)
    part = info.value.partial
    assert part.fields is None and part.stats["notes"][-1] == INTERRUPTED_FIELDS
    k = part.stats["steps"]
    monkeypatch.setattr(NumpyStepper, "inject_e", inject)
    whole = yf.run(scene, steps=k, progress=False)
    assert 0 < k < 100 and np.array_equal(part.probes["p"]["ez"], whole.probes["p"]["ez"])
