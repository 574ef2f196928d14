"""The NumPy stepper on threads: the same bits as one thread, and its thread count checked."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.backends.numpy import stepper as numpy_stepper
from yeefdtd.exceptions import ValidationError

from .test_numpy_stepper import lossy_scene


def two_d_scene(mode: str) -> yf.Scene:
    source = "ez" if mode == "tmz" else "hz"
    return yf.Scene(
        grid=yf.Grid(mode=mode, cells=(40, 34), spacing=1e-3),
        materials={"m": yf.Material(eps_r=(2, 3, 4), sigma_e=0.2)},
        objects=[yf.Cylinder(center=(0.022, 0.017), radius=0.006, material="m")],
        boundaries={"x_min": {"cells": 6}, "x_max": "pec", "y_min": {"cells": 5},
                    "y_max": "pmc"},
        sources=[yf.PointSource(component=source, cell=(12, 20),
                                waveform=yf.DiffGaussian(tau=15e-12))],
        monitors=[yf.Probe(name="p", cell=(30, 9))],
        run=yf.RunSettings(steps=60),
    )


def _stepped(scene, dtype: str, threads: int):
    st = numpy_stepper.NumpyStepper(yf.build_model(scene), dtype, threads=threads)
    st.advance(0, scene.run.steps)
    return st


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("make", [lambda: lossy_scene(steps=60), lambda: two_d_scene("tmz"),
                                  lambda: two_d_scene("tez")], ids=["3d", "tmz", "tez"])
def test_pieces_on_threads_give_one_threads_bits(monkeypatch, make, dtype):
    """Every value is computed by the same operations in the same order whatever the
    pieces and chunks (the module's docstring), so the fields, CPML values and probes must
    be equal bit for bit, not within a tolerance. One thread updating each component whole
    against three threads with pieces of at least 16 cells, cut into chunks of at most
    about 3 x 16, so that every update, CPML term and rounding of these small grids is cut into
    three pieces, each of several chunks."""
    scene = make()
    monkeypatch.setattr(numpy_stepper, "CHUNK_CELLS", 1 << 30)
    one = _stepped(scene, dtype, 1)
    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 16)
    monkeypatch.setattr(numpy_stepper, "CHUNK_CELLS", 16)
    three = _stepped(scene, dtype, 3)
    comps = {kind: sum(c[0] == kind for c in one.grid.components) for kind in "eh"}
    for kind in "eh":   # the test means nothing unless the work was cut
        assert len(one._updates[kind]) == 1 and len(one._updates[kind][0]) == comps[kind]
        assert len(three._updates[kind]) == 3
        assert all(len(task) > 2 * comps[kind] for task in three._updates[kind])
        assert three._cpml[kind]
        assert all(len(tasks) == 3 and all(len(t) > 1 for t in tasks)
                   for tasks in three._cpml[kind])
        if one.storage.is16:
            assert len(three._rounds[kind]) == 3
            assert all(len(t) > 2 * comps[kind] for t in three._rounds[kind])
    f1, f3 = one.fields(), three.fields()
    assert any(np.abs(f1[c]).max() > 0 for c in f1)
    for c in f1:
        np.testing.assert_array_equal(f3[c], f1[c], err_msg=c)
    for a, b in zip(one._psi, three._psi, strict=True):
        np.testing.assert_array_equal(b, a)
    for a, b in zip(one.collect().probes, three.collect().probes, strict=True):
        np.testing.assert_array_equal(b, a)


def test_a_thread_holds_scratch_of_one_chunk(monkeypatch):
    """The update's scratch is an array of the largest chunk a thread, whatever the grid's
    length: 60 x 64 x L cells on 4 threads, in chunks of about 4 x 2^10 cells (one z layer
    of a component, at most 61 x 65 nodes, or a few layers of a CPML slab), hold 4 such
    arrays of one or two layers' size for L = 70 and for L = 140; each update's chunk is
    one layer or two (as even as 17 or 18 layers a thread cut into about 2^12 cells allow)."""
    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 1 << 12)
    monkeypatch.setattr(numpy_stepper, "CHUNK_CELLS", 1 << 10)
    sizes = set()
    for length in (70, 140):
        data = lossy_scene(steps=2).model_dump()
        data["grid"]["cells"] = [60, 64, length]
        st = numpy_stepper.NumpyStepper(yf.build_model(yf.Scene.parse(data)), threads=4)
        assert len(st._scratch) == 4
        sizes |= {pair[0].size for pair in st._scratch}
        assert all(pair[1].size < pair[0].size for pair in st._scratch)
        assert all(len(st._updates[kind]) == 4 for kind in "eh")
        assert {p.target.shape[2] for kind in "eh" for task in st._updates[kind]
                for p in task} == {1, 2}
    assert all(61 * 65 <= n <= 2 * 61 * 65 for n in sizes), sizes


def test_pieces_keep_at_least_min_cells():
    """A 26 x 22 x 20 grid (11 440 cells) is below MIN_CELLS: it runs as one piece on any
    number of threads; a piece of a larger grid holds MIN_CELLS cells or more."""
    small = numpy_stepper.NumpyStepper(yf.build_model(lossy_scene(steps=2)), threads=8)
    assert all(len(small._updates[kind]) == 1 for kind in "eh")
    data = lossy_scene(steps=2).model_dump()
    data["grid"]["cells"] = [60, 64, 70]
    big = numpy_stepper.NumpyStepper(yf.build_model(yf.Scene.parse(data)), threads=8)
    tasks = big._updates["e"]
    assert 1 < len(tasks) <= 8
    for c in ("ex", "ey", "ez"):   # a thread's chunks of a component: its piece
        cells = [sum(p.target.size for p in task if p.target.base is big._f[c])
                 for task in tasks]
        assert all(n >= numpy_stepper.MIN_CELLS for n in cells), (c, cells)


def test_threads_run_without_numpys_warnings(monkeypatch):
    """Overflow on the pool's threads is left to the run's divergence check, as on the
    calling thread (NumPy's error state is each thread's own)."""
    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 16)
    st = numpy_stepper.NumpyStepper(yf.build_model(lossy_scene(steps=3)), "float32",
                                    threads=3)
    st.set_field("ex", np.where(st.held_at_zero("ex"), 0, 3e38).astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        st.advance(0, 3)
    assert not np.isfinite(st.max_abs())


@pytest.mark.parametrize("threads", [0, -2, 2.5, "4", True, None.__class__, 4097, 10**9])
def test_threads_of_the_wrong_kind_are_one_line(threads):
    with pytest.raises(ValidationError, match=r"^threads: a whole number from 1 to 4096, not "):
        numpy_stepper.NumpyStepper(yf.build_model(lossy_scene(steps=2)), threads=threads)


def test_more_threads_than_processors_are_noted_once(monkeypatch, capsys):
    """Threads past the processors take turns and slow the run (a third of its speed at
    four times as many), which the run said nothing of; it says so in one note, and says
    nothing at as many threads as processors."""
    import importlib

    monkeypatch.setattr(numpy_stepper, "processors", lambda: 2)
    monkeypatch.setattr(importlib.import_module("yeefdtd.run"), "_notes_shown", set())
    scene = lossy_scene(steps=4)
    yf.run(scene, backend="numpy", progress=False, stepper_options={"threads": 2})
    assert "threads" not in capsys.readouterr().err
    for _ in range(2):
        yf.run(scene, backend="numpy", progress=False, stepper_options={"threads": 5})
    err = capsys.readouterr().err
    assert err == ("note: the numpy backend runs 5 threads on 2 processors; they take turns, "
                   "which slows the run: give 2 threads or fewer (--threads, "
                   "YEEFDTD_THREADS)\n")
    monkeypatch.setenv("YEEFDTD_THREADS", "4097")
    with pytest.raises(ValidationError, match=r"^YEEFDTD_THREADS: '4097' is not a whole number "
                                              r"from 1 to 4096; "):
        numpy_stepper.default_threads()


def test_run_takes_threads_and_refuses_bad_ones_in_one_line():
    scene = lossy_scene(steps=60)
    a = yf.run(scene, backend="numpy", progress=False, stepper_options={"threads": 2})
    b = yf.run(scene, backend="numpy", progress=False, stepper_options={"threads": 1})
    assert a.probes["p"] == b.probes["p"] and np.abs(a.probes["p"]["ez"]).max() > 0
    with pytest.raises(ValidationError, match=r"^threads: "):
        yf.run(scene, backend="numpy", progress=False, stepper_options={"threads": 0})


@pytest.mark.parametrize("text, threads", [("3", 3), (" 1 ", 1), ("", None)])
def test_yeefdtd_threads_sets_the_default(monkeypatch, text, threads):
    monkeypatch.setenv("YEEFDTD_THREADS", text)
    got = numpy_stepper.default_threads()
    assert got == threads if threads else got >= 1


@pytest.mark.parametrize("text", ["0", "two", "-1", "1.5"])
def test_a_bad_yeefdtd_threads_is_one_line(monkeypatch, text):
    monkeypatch.setenv("YEEFDTD_THREADS", text)
    with pytest.raises(ValidationError, match=r"^YEEFDTD_THREADS: .* is not a whole number"):
        numpy_stepper.NumpyStepper(yf.build_model(lossy_scene(steps=2)))


def _stepper_of_three(monkeypatch):
    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 16)
    return numpy_stepper.NumpyStepper(yf.build_model(lossy_scene(steps=2)), threads=3)


@pytest.mark.parametrize("second", [False, True])
def test_pieces_are_done_before_ctrl_c_leaves_a_half_step(monkeypatch, second):
    """Ctrl-C on the calling thread's piece (and, with ``second``, again while it waits for
    the others): the half step raises it only once no piece still runs, so that the partial
    result read after it is not being written."""
    import threading
    import time

    st = _stepper_of_three(monkeypatch)
    done = []

    def work(piece):
        if threading.current_thread() is threading.main_thread():
            raise KeyboardInterrupt
        time.sleep(0.2)
        done.append(piece)

    if second:
        real = numpy_stepper.wait_task
        calls = []

        def interrupted_once(task):
            calls.append(1)
            if len(calls) == 1:
                raise KeyboardInterrupt
            return real(task)

        monkeypatch.setattr(numpy_stepper, "wait_task", interrupted_once)
    with pytest.raises(KeyboardInterrupt):
        st._each(work, [[0], [1], [2]])
    assert sorted(done) == [1, 2]


def test_a_forked_process_makes_its_own_pool(monkeypatch):
    """A child forked from a process whose stepper has a pool inherits it without its
    threads, and would wait on them for ever: the stepper makes a new one where the
    process id is not the pool's."""
    st = _stepper_of_three(monkeypatch)
    st.advance(0, 1)
    first = st._pool()
    assert st._pool() is first
    monkeypatch.setattr(numpy_stepper.os, "getpid", lambda: -1)
    assert st._pool() is not first
    st.advance(1, 1)


def test_cpml_terms_share_rounds_where_their_cells_do_not_meet():
    """CPML on all six faces: the E half step's 12 terms run in 2 rounds, not 12. Those of
    the x faces (Ey, Ez) and the y faces' Ex come first; the y faces' Ez, which meets the x
    faces' at the x-y edges, and the z faces' Ex and Ey come after, as in the slabs' order.
    A face's term never shares a round with a term of the same component whose cells meet
    its own and comes before it."""
    scene = yf.Scene(grid=yf.Grid(cells=(40, 36, 32), spacing=1e-3),
                     sources=[yf.PointSource(component="ez", cell=(20, 18, 16),
                                             waveform=yf.Gaussian(tau=20e-12))],
                     run=yf.RunSettings(steps=2))
    model = yf.build_model(scene)
    rounds = numpy_stepper.cpml_rounds(model.grid, model.slabs, "e", 4)
    terms = [(slab, comp) for slab in model.slabs
             for comp, _, _ in slab.terms(model.grid.components) if comp[0] == "e"]
    assert len(terms) == 12 and len(rounds) == 2
    of = {i: r for r, tasks in enumerate(rounds) for task in tasks for i, *_ in task}
    named = {(f"{'xyz'[s.axis]}_{s.side}", c): of[i] for i, (s, c) in enumerate(terms)}
    assert {k for k, r in named.items() if r == 0} == {
        ("x_min", "ey"), ("x_min", "ez"), ("x_max", "ey"), ("x_max", "ez"),
        ("y_min", "ex"), ("y_max", "ex")}
    for i, (slab, comp) in enumerate(terms):
        for j in range(i):
            if terms[j][1] == comp and numpy_stepper._meet(terms[j][0], slab, "e"):
                assert of[j] < of[i]
    assert all(len(tasks) == 4 for tasks in rounds)   # the threads at work in each


def _run_with_layout(monkeypatch, scene, dtype, layout):
    """The fields, CPML values and probes of ``scene`` with update_box replaced by
    ``layout`` (None: as it is), on two threads in small pieces."""
    monkeypatch.setattr(numpy_stepper, "MIN_CELLS", 16)
    monkeypatch.setattr(numpy_stepper, "CHUNK_CELLS", 32)
    if layout is not None:
        monkeypatch.setattr(numpy_stepper, "update_box", layout)
    st = _stepped(scene, dtype, 2)
    monkeypatch.undo()
    return st


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("make", [lambda: lossy_scene(steps=60), lambda: two_d_scene("tmz"),
                                  lambda: two_d_scene("tez")], ids=["3d", "tmz", "tez"])
def test_the_box_and_the_walls_give_per_point_coefficients_bits(monkeypatch, make, dtype):
    """The update takes the background's coefficients as numbers, arrays only over the
    objects' box, and sets the PEC and CPML walls back to zero after each half step. Bit for
    bit the same as arrays over the whole extent (a layout of no walls and a box of
    everything), and as a layout whose box misses the objects (the stepper then finds the
    box from the ids)."""
    scene = make()

    def everywhere(scene, grid, c, faces):
        return [], [(0, n) for n in grid.extent(c)]

    def nowhere(scene, grid, c, faces):
        return [], None

    base = _run_with_layout(monkeypatch, scene, dtype, None)
    assert base._zero["e"]   # PEC or CPML walls held at zero after the half step
    cells = {c: math.prod(hi - lo for lo, hi in lay[1])
             for c, lay in base._layouts.items() if lay[1] is not None}
    assert cells and all(n < math.prod(base.grid.extent(c)) for c, n in cells.items())
    for layout in (everywhere, nowhere):
        other = _run_with_layout(monkeypatch, scene, dtype, layout)
        if layout is nowhere:   # the ids disagree with the layout: the box is found there
            assert any(box is not None for _, box, _ in other._layouts.values())
        f1, f2 = base.fields(), other.fields()
        assert any(np.abs(f1[c]).max() > 0 for c in f1)
        for c in f1:
            assert f1[c].tobytes() == f2[c].tobytes(), (layout.__name__, c)
        for a, b in zip(base._psi, other._psi, strict=True):
            np.testing.assert_array_equal(b, a)
        for a, b in zip(base.collect().probes, other.collect().probes, strict=True):
            np.testing.assert_array_equal(b, a)


def test_coefficient_arrays_only_over_the_objects_box():
    """dipole-cpml 64: the arrays of coefficients cover the objects' box (about a tenth of
    the grid), not the grid, and hold under 8 bytes a cell of it in float32 (72 before)."""
    from yeefdtd.bench import bench_scene

    model = yf.build_model(bench_scene("dipole-cpml", 64, 2))
    st = numpy_stepper.NumpyStepper(model, "float32", threads=1)
    held = sum(c.nbytes for c in st._coefs) / model.grid.num_cells
    assert 0 < held < 8, held
    for c, (zero, box, _) in st._layouts.items():
        assert len(zero) == (4 if c[0] == "e" else 0)
        assert math.prod(hi - lo for lo, hi in box) < 0.15 * math.prod(model.grid.extent(c))
