"""Autotuning of launch shapes: a sweep per kernel variant, role, dtype and shape class,
timed with CUDA events on the stepper's own arrays, cached on disk per device and kernel
version (``$YEEFDTD_CACHE`` or ``~/.cache/yeefdtd/tuning.json``)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from ...io import write_atomic


def cache_path() -> Path:
    root = os.environ.get("YEEFDTD_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "yeefdtd")
    return Path(root) / "tuning.json"


def load_cache() -> dict:
    try:
        return json.loads(cache_path().read_text())
    except (OSError, ValueError):
        return {}


def save_entry(key: str, value) -> None:
    data = load_cache()
    data[key] = value
    try:
        write_atomic(cache_path(), lambda p: p.write_text(json.dumps(data, indent=1)))
    except OSError:
        pass  # a read-only home: tuning still works, it is just not remembered


def digest(candidates) -> str:
    """A short hash of a candidate list: a changed sweep is swept again."""
    import hashlib

    return hashlib.sha1(repr(list(candidates)).encode()).hexdigest()[:8]


def shape_class(shape) -> str:
    """Grids whose sides fall in the same powers of two share tuning results."""
    return "x".join(str(int(math.log2(max(n, 1)))) for n in shape)


def time_launches(cp, launches, repeats: int = 5, graph: bool = False) -> float:
    """Median milliseconds of running ``launches`` (a list of (fn, grid, block, args, smem))
    on the current stream.

    ``graph``: captured once as a CUDA graph and timed replaying it, as the stepper runs its
    steps. Launched one by one from Python instead, a role of many small launches is timed
    with the host's launch cost in it: seed-plane's 512 launches a role (H100, pec-box 512)
    took 0.5-0.7 ms more than replayed, about a tenth, and that cost varies by more than the
    leading shapes differ by (docs/perf/tuner-fidelity-h100-2026-11-25.txt)."""
    return _median_ms(cp, _runner(cp, launches, graph), repeats)


def _runner(cp, launches, graph: bool):
    """A callable that runs ``launches`` on the current stream: one by one, or (``graph``)
    replaying the graph captured here once."""
    stream = cp.cuda.get_current_stream()

    def once():
        for fn, grid, block, args, smem in launches:
            fn(grid, block, args, shared_mem=smem)

    if not graph:
        return once
    # captured on a stream of its own (the legacy stream cannot capture), replayed on the
    # caller's, in order with its work
    cap = cp.cuda.Stream(non_blocking=True)
    with cap:
        try:
            cap.begin_capture()
            once()
        except BaseException:
            try:
                cap.end_capture()
            except Exception:
                pass  # the capture was invalidated by the failed launch
            raise
        captured = cap.end_capture()
    return lambda: captured.launch(stream)


def _median_ms(cp, run, repeats: int, give_up: float | None = None,
               budget_ms: float | None = None, least: int = 3, scale: float = 1.0) -> float:
    """Median milliseconds of ``repeats`` calls of ``run`` on the current stream, after one
    untimed call (module load, caches); the faster of the first two timed calls where both
    took longer than ``give_up`` milliseconds (one slow call may be a hiccup of the host);
    with ``budget_ms``, the median of the calls so far once there are ``least`` or more and
    they took ``budget_ms`` together (see ROUND_MS). ``scale``: every call's time is taken
    times this (where calls do not all run the same work; see sweep), before all the
    above."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    stream = cp.cuda.get_current_stream()
    run()
    times = []
    for _ in range(repeats):
        start.record(stream)
        run()
        stop.record(stream)
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * scale)
        if give_up is not None and len(times) == 2 and min(times) > give_up:
            return min(times)
        if budget_ms is not None and len(times) >= least and sum(times) >= budget_ms:
            break
    times.sort()
    return times[len(times) // 2]


#: CUDA error codes (driver and runtime alike) by which a launch shape cannot run a kernel:
#: an invalid value or configuration (too many threads, or shared memory, for a block), no
#: memory for the local memory its threads would spill to, too few registers for its
#: threads, or a capture invalidated by such a launch. A sweep leaves those candidates out;
#: it raises any other error (a fault leaves the context unusable).
UNLAUNCHABLE = frozenset({1, 2, 9, 701, 901})


def time_if_launchable(cp, launches, repeats: int = 5, graph: bool = False) -> float | None:
    """time_launches, or None where the launch shape cannot run the kernel (UNLAUNCHABLE);
    any other CUDA error is raised."""
    timed = _timed_if_launchable(cp, launches, repeats, graph)
    return None if timed is None else timed[0]


def _timed_if_launchable(cp, launches, repeats: int, graph: bool,
                         give_up: float | None = None, budget_ms: float | None = None,
                         scale: float = 1.0):
    """(milliseconds, the runner timed) as time_launches, or None (see time_if_launchable)."""
    try:
        run = _runner(cp, launches, graph)
        return _median_ms(cp, run, repeats, give_up, budget_ms, scale=scale), run
    except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as exc:
        if getattr(exc, "status", None) not in UNLAUNCHABLE:
            raise   # a fault, not a shape the kernel cannot take
        return None


#: a sweep's candidate whose first two timed runs each take longer than this many times the
#: fastest candidate so far is not timed again: the faster of the two stands. 3D 'temporal'
#: sweeps shapes of 3 and 4 steps a pass that run 1.7 to 3 times as long as the best
#: (docs/performance.md), 2D 'temporal' shapes at 7 to 15 times. Not less: runs of a few
#: microseconds (a GPU test's) were seen 25% apart.
GIVE_UP = 1.5

#: a sweep's first round stops timing a candidate after 3 runs that took this many
#: milliseconds together, its finalists after FINAL_LEAST runs of FINAL_MS (short runs are
#: still timed ``repeats`` and ``final_repeats`` times; the times as sweep's ``scale`` gives
#: them). On a 512^3 grid a candidate's run (12 steps) takes 19-115 ms, and a candidate's
#: runs lay within 1% of each other in 100 of 106 (at most 6.3%; H200, every run of the
#: sweeps of dipole-cpml 512 `temporal` float32 and float16 and `fused`, and pec-box 512
#: `temporal`, from an empty cache). Timed so, those sweeps and tmz-2d 8192's choose what
#: they chose with every run, with half the runs at 512^3: the sweeps took 3.4-4.7 s
#: instead of 5.3-7.6 (docs/perf/tuner-budget-h200-2026-11-26.txt).
ROUND_MS = 60.0
FINAL_MS = 150.0
FINAL_LEAST = 5


def sweep(cp, plan_for, candidates, repeats: int = 5, finalists: int = 3,
          final_repeats: int = 25, graph: bool = False,
          give_up: float | None = GIVE_UP,
          budget: bool = True, scale=None) -> list[tuple[tuple, float]]:
    """(config, ms) for every candidate that launches; ``plan_for(cfg)`` gives its launches,
    timed as a CUDA graph when ``graph`` (see time_launches). A candidate whose first two
    timed runs are past ``give_up`` times the fastest so far keeps the faster (None: every
    candidate is timed ``repeats`` times).
    The ``finalists`` fastest are timed again with ``final_repeats`` runs each and keep that
    time: candidates often lie within a few percent, which a short first round cannot tell
    apart. They are timed again as first run (the same graph, when ``graph``).
    ``budget``: long runs are timed fewer times (ROUND_MS, FINAL_MS).
    ``scale(cfg)``: what a candidate's run times are multiplied by, before they are compared
    or counted against the budget (None: 1), where candidates' runs do not all do the same
    work (MarchStepper.tune_steps: whole passes, 10 steps at 5 a pass against 12)."""
    out, runs, factor = [], [], []
    for cfg in candidates:
        limit = give_up * min(ms for _, ms in out) if out and give_up else None
        times = 1.0 if scale is None else scale(cfg)
        timed = _timed_if_launchable(cp, plan_for(cfg), repeats, graph, limit,
                                     ROUND_MS if budget else None, times)
        if timed is not None:
            out.append((cfg, timed[0]))
            runs.append(timed[1])
            factor.append(times)
    best = sorted(range(len(out)), key=lambda q: out[q][1])[:finalists]
    for q in best:
        out[q] = (out[q][0], _median_ms(cp, runs[q], final_repeats,
                                        budget_ms=FINAL_MS if budget else None,
                                        least=FINAL_LEAST,
                                        scale=factor[q]))
    return out
