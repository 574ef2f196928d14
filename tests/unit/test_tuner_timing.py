"""The tuner's timing against a stand-in for CuPy that records what happens on which stream:
a graph is captured on a stream of its own and replayed on the caller's, launched kernels
run on the caller's stream, a failed launch ends its capture, and a sweep leaves out only
the shapes a kernel cannot take (a fault is raised)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from yeefdtd.backends.cuda import tuning


class DriverError(Exception):
    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


class RuntimeError_(DriverError):
    pass


class FakeCupy:
    def __init__(self):
        self.log: list[tuple] = []
        self.current = None
        cp = self

        class Stream:
            def __init__(self, non_blocking=False, name="side"):
                self.name, self.capturing, self.captured = name, False, []

            def __enter__(self):
                self.prev, cp.current = cp.current, self
                return self

            def __exit__(self, *exc):
                cp.current = self.prev

            def begin_capture(self):
                self.capturing = True
                cp.log.append(("begin", self.name))

            def end_capture(self):
                cp.log.append(("end", self.name))
                was, self.capturing = self.capturing, False
                if not was:
                    raise RuntimeError_(901)
                launches, self.captured = self.captured, []
                return Graph(launches)

        class Graph:
            def __init__(self, launches):
                self.launches = launches

            def launch(self, stream):
                cp.log.append(("replay", stream.name, len(self.launches)))

        class Event:
            def record(self, stream=None):
                cp.log.append(("record", (stream or cp.current).name))

            def synchronize(self):
                pass

        self.default = Stream(name="caller")
        self.current = self.default
        self.cuda = types.SimpleNamespace(
            Stream=Stream, Event=Event, get_current_stream=lambda: cp.current,
            get_elapsed_time=lambda a, b: 1.0,
            driver=types.SimpleNamespace(CUDADriverError=DriverError),
            runtime=types.SimpleNamespace(CUDARuntimeError=RuntimeError_))

    def kernel(self, fail=None):
        def fn(grid, block, args, shared_mem=0):
            s = self.current
            if fail is not None:
                if s.capturing:
                    s.capturing = False   # a failed launch invalidates the capture
                raise DriverError(fail)
            if s.capturing:
                s.captured.append(block)
            else:
                self.log.append(("run", s.name))
        return fn


def test_a_graph_is_captured_aside_and_replayed_on_the_callers_stream():
    cp = FakeCupy()
    tuning.time_launches(cp, [(cp.kernel(), (1,), (32,), (), 0)] * 3, repeats=4, graph=True)
    assert ("begin", "side") in cp.log and ("end", "side") in cp.log
    assert not any(e[0] == "run" for e in cp.log)              # nothing ran outside the graph
    assert cp.log.count(("replay", "caller", 3)) == 5          # warm-up and 4 timed
    assert {e[1] for e in cp.log if e[0] == "record"} == {"caller"}


def test_launched_one_by_one_everything_runs_on_the_callers_stream():
    cp = FakeCupy()
    tuning.time_launches(cp, [(cp.kernel(), (1,), (32,), (), 0)] * 3, repeats=4)
    assert not any(e[0] in ("begin", "replay") for e in cp.log)
    assert cp.log.count(("run", "caller")) == 15


def test_a_launch_that_fails_in_a_capture_ends_it_and_raises_its_own_error():
    cp = FakeCupy()
    with pytest.raises(DriverError) as info:
        tuning.time_launches(cp, [(cp.kernel(fail=701), (1,), (2048,), (), 0)], graph=True)
    assert info.value.status == 701 and ("end", "side") in cp.log
    assert cp.current is cp.default


@pytest.mark.parametrize("graph", [False, True])
def test_a_sweep_leaves_out_shapes_a_kernel_cannot_take_and_raises_faults(graph):
    cp = FakeCupy()
    plans = {(64,): 0, (2048,): 1, (999,): 701, (128,): 0}

    def plan(c):
        return [(cp.kernel(fail=plans[c] or None), (1,), c, (), 0)]

    out = tuning.sweep(cp, plan, list(plans), repeats=2, final_repeats=2, graph=graph)
    assert [c for c, _ in out] == [(64,), (128,)]
    plans[(256,)] = 700   # an illegal address: the context is lost, nothing is left out
    with pytest.raises(DriverError, match="700"):
        tuning.sweep(cp, plan, list(plans), repeats=2, final_repeats=2, graph=graph)


def test_a_sweep_times_its_finalists_again_on_the_graphs_it_captured():
    """Each candidate is captured once: the finalists' second timing replays their graphs."""
    cp = FakeCupy()
    shapes = [(32,), (64,), (128,), (256,), (512,)]

    def plan(c):
        return [(cp.kernel(), (1,), c, (), 0)]

    out = tuning.sweep(cp, plan, shapes, repeats=2, finalists=3, final_repeats=4, graph=True)
    assert [c for c, _ in out] == shapes
    assert cp.log.count(("begin", "side")) == len(shapes)
    # every candidate: one warm-up and 2 timed replays; the 3 finalists: one and 4 more
    assert cp.log.count(("replay", "caller", 1)) == 3 * len(shapes) + 5 * 3


def _choosing(monkeypatch, first, second, refined):
    """A stand-in stepper whose first sweep gives ``first`` and whose refinement sweep gives
    ``second`` ((shape, ms) pairs), with ``refined`` offered after the first."""
    from yeefdtd.backends.cuda.stepper import CudaStepper

    sweeps, saved, scales = [first, second], {}, []

    def sweep(cp, plan, cands, graph=False, scale=None):
        scales.append({tuple(c): scale(c) for c in cands})
        return sweeps.pop(0)

    monkeypatch.setattr(tuning, "sweep", sweep)
    monkeypatch.setattr(tuning, "save_entry", lambda key, entry: saved.update({key: entry}))
    st = types.SimpleNamespace(
        _cp=None, _sweeps={"pass": ("k", [c for c, _ in first])}, _randomise=lambda: None,
        _update_plan=lambda role, c: [], _refinements=lambda role, best: refined,
        _tune_scale=lambda role, c: 12 / c[-1],
        configs={}, tuning={}, rest=lambda: None, roles=("pass",), _plans={},
        variant=types.SimpleNamespace(name="temporal"), tune_as_graph=False)
    CudaStepper._choose_configs(st)
    st.scales = scales   # what each sweep's scale gave its candidates
    return st, saved


def test_a_refinement_sweep_is_timed_beside_the_best(monkeypatch):
    """The refined shapes are timed in a second sweep with the first sweep's best, and the
    faster of that sweep wins; the results keep every shape once."""
    first = [((4, 2, 4, 128), 2.0), ((4, 2, 4, 64), 2.1)]
    second = [((4, 2, 4, 128), 2.02), ((4, 2, 4, 144), 1.95)]
    st, saved = _choosing(monkeypatch, first, second, [(4, 2, 4, 144), (4, 2, 4, 64)])
    assert st.configs["pass"] == (4, 2, 4, 144) and saved["k"]["best"] == [4, 2, 4, 144]
    # both sweeps scale their candidates' times by the stepper's _tune_scale
    assert st.scales == [{(4, 2, 4, 128): 12 / 128, (4, 2, 4, 64): 12 / 64},
                         {(4, 2, 4, 128): 12 / 128, (4, 2, 4, 144): 12 / 144}]
    shapes = [tuple(c) for c, _ in st.tuning["pass"]]
    assert sorted(shapes) == sorted({(4, 2, 4, 128), (4, 2, 4, 64), (4, 2, 4, 144)})


def test_a_refinement_sweep_that_loses_the_best_keeps_the_first(monkeypatch):
    """Where the second sweep does not time the first's best (it failed to launch there),
    the first sweep's choice and times stand."""
    first = [((4, 2, 4, 128), 2.0)]
    st, _ = _choosing(monkeypatch, first, [], [(4, 2, 4, 144)])
    assert st.configs["pass"] == (4, 2, 4, 128) and st.tuning["pass"] == [([4, 2, 4, 128], 2.0)]


def test_a_sweep_times_a_slow_candidate_twice():
    """A candidate whose first two timed runs are past GIVE_UP times the fastest so far keeps
    the faster; one slow run alone (a hiccup) does not cut it; the others are timed in full,
    and a candidate cut short can still be a finalist."""
    cp = FakeCupy()
    steady = {(32,): 3.0, (64,): 1.0, (128,): 1.4, (256,): 4.0, (512,): 1.6}
    runs: dict = {}

    def plan(c):
        def fn(grid, block, args, shared_mem=0):
            runs[c] = runs.get(c, 0) + 1
            first = c == (128,) and runs[c] == 2   # its first timed run: a hiccup
            cp.cost = 5.0 if first else steady[c] + (1.0 if c == (256,) and runs[c] == 2
                                                    else 0.0)
        return [(fn, (1,), c, (), 0)]

    cp.cuda.get_elapsed_time = lambda a, b: cp.cost
    out = dict(tuning.sweep(cp, plan, list(steady), repeats=5, finalists=3, final_repeats=7))
    assert out == steady
    # warm-up and 5 timed; past 1.5 x the fastest so far (1.0) twice: warm-up and 2 timed,
    # the faster kept (256: 5.0 then 4.0); the finalists 64, 128 and 512 (cut short) a
    # warm-up and 7 more
    assert runs == {(32,): 6, (64,): 6 + 8, (128,): 6 + 8, (256,): 3, (512,): 3 + 8}
    assert tuning.GIVE_UP == 1.5
    runs.clear()
    out = dict(tuning.sweep(cp, plan, list(steady), repeats=5, finalists=3, final_repeats=7,
                            give_up=None))
    assert out == steady and runs == {(32,): 6, (64,): 14, (128,): 14, (256,): 6, (512,): 14}


def _costed(cost: dict):
    """A stand-in CuPy whose runs of candidate c take cost[c] ms (read at each run), the
    runs counted per candidate, and a plan_for that gives each its one launch."""
    cp, runs = FakeCupy(), {}

    def plan(c):
        def fn(grid, block, args, shared_mem=0):
            runs[c] = runs.get(c, 0) + 1
            cp.cost = cost[c]
        return [(fn, (1,), c, (), 0)]

    cp.cuda.get_elapsed_time = lambda a, b: cp.cost
    return cp, runs, plan


def test_long_runs_are_timed_fewer_times():
    """Runs of 40 ms: the first round stops after 3 (120 ms >= ROUND_MS), the finalists
    after 5 (200 ms >= FINAL_MS); runs of 1 ms are timed ``repeats`` and ``final_repeats``
    times; with budget=False every candidate is timed in full."""
    cost = {(32,): 40.0, (64,): 41.0, (128,): 42.0, (256,): 1.0}
    cp, runs, plan = _costed(cost)
    assert (tuning.ROUND_MS, tuning.FINAL_MS, tuning.FINAL_LEAST) == (60.0, 150.0, 5)
    shapes = [(32,), (64,), (128,)]
    out = dict(tuning.sweep(cp, plan, shapes, repeats=5, finalists=2, final_repeats=25))
    assert out == {c: cost[c] for c in shapes}
    # warm-up and 3 timed; the two finalists a warm-up and 5 more
    assert runs == {(32,): 4 + 6, (64,): 4 + 6, (128,): 4}
    runs.clear()
    tuning.sweep(cp, plan, [(256,)], repeats=5, finalists=1, final_repeats=25)
    assert runs == {(256,): 6 + 26}
    runs.clear()
    tuning.sweep(cp, plan, shapes, repeats=5, finalists=2, final_repeats=25, budget=False)
    assert runs == {(32,): 6 + 26, (64,): 6 + 26, (128,): 6}
    runs.clear()   # fewer repeats than the budget's least: the repeats
    tuning.sweep(cp, plan, shapes, repeats=2, finalists=1, final_repeats=3)
    assert runs == {(32,): 3 + 4, (64,): 3, (128,): 3}
    runs.clear()   # past GIVE_UP times the fastest: cut after 2 runs, before the budget's 3
    cost[(128,)] = 70.0
    out = dict(tuning.sweep(cp, plan, shapes, repeats=5, finalists=1, final_repeats=25))
    assert runs == {(32,): 4 + 6, (64,): 4, (128,): 3} and out[(128,)] == 70.0


def test_scaled_runs_compare_and_count_as_the_work_they_stand_for():
    """A candidate whose runs do a third of the others' work (scale 3) is compared, given up
    on and counted against the budget at three times its runs' times: runs of 14 ms scaled
    to 42 take 3 before ROUND_MS, as unscaled runs of 42 would; one of 30 ms scaled to 90
    is past GIVE_UP times the fastest (40) and cut after 2."""
    cost = {(32,): 40.0, (64,): 14.0, (128,): 30.0}
    scale = {(32,): 1.0, (64,): 3.0, (128,): 3.0}
    cp, runs, plan = _costed(cost)
    out = dict(tuning.sweep(cp, plan, list(cost), repeats=5, finalists=2, final_repeats=25,
                            scale=scale.get))
    assert out == {(32,): 40.0, (64,): 42.0, (128,): 90.0}
    assert runs == {(32,): 4 + 6, (64,): 4 + 6, (128,): 3}


def _planned(model, tune, variant):
    """CudaStepper._plan_configs on a stand-in for the device: (configs, roles swept,
    roles from the cache)."""
    from yeefdtd.backends.cuda import stepper as S
    from yeefdtd.backends.cuda import tuning

    cp = types.SimpleNamespace(cuda=types.SimpleNamespace(
        Device=lambda: types.SimpleNamespace(id=0),
        runtime=types.SimpleNamespace(getDeviceProperties=lambda i: {"name": b"StandIn"})))
    st = types.SimpleNamespace(
        _cp=cp, model=model, roles=("h", "e"), variant=variant, shape=model.grid.shape,
        storage=types.SimpleNamespace(name="float32"), id_dtype=np.dtype(np.uint8),
        tune_as_graph=True, _pml_key=lambda: "0",
        _shape_key=lambda: tuning.shape_class(model.grid.shape))
    S.CudaStepper._plan_configs(st, tune, {})
    return st.configs, st._sweeps, st.cached_roles


def test_a_tuned_small_grid_runs_its_cached_shapes(tmp_path, monkeypatch):
    """`yeefdtd tune` sweeps a grid under TUNE_MIN_CELLS too (tune=True); a later run of it
    (tune=None) takes the shapes it cached, not the variant's default; tune=False keeps the
    default."""
    from yeefdtd.backends.cuda import tuning
    from yeefdtd.backends.cuda.variants import make_variant
    from yeefdtd.bench import bench_model

    monkeypatch.setenv("YEEFDTD_CACHE", str(tmp_path))
    model = bench_model("pec-box", 32, 10)
    variant = make_variant("indexed")
    configs, sweeps, cached = _planned(model, None, variant)
    assert not sweeps and not cached   # nothing cached: the default, no sweep
    default = dict(configs)
    _, sweeps, _ = _planned(model, True, variant)
    assert set(sweeps) == {"h", "e"}
    best = {}
    for role, (key, candidates) in sweeps.items():
        best[role] = tuple(candidates[2])
        assert best[role] != default[role]
        tuning.save_entry(key, {"best": list(candidates[2]), "results": []})
    configs, sweeps, cached = _planned(model, None, variant)
    assert configs == best and cached == {"h", "e"} and not sweeps
    configs, _, cached = _planned(model, False, variant)
    assert configs == default and not cached
