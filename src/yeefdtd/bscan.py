"""B-scans: a scene run once a trace with its sources and probes moved a whole number of
cells each time, as a ground-penetrating radar survey is made (a transmitter and a
receiver stepped along the ground together). The traces' probes are kept in one result,
each named ``<probe>[k]`` for trace k, so that it saves, loads and plots as any result
does (``yeefdtd.plot.plot_bscan`` draws a probe's traces as an image)."""

from __future__ import annotations

import sys

import numpy as np

from .description.scene import Scene
from .exceptions import DivergenceError, RunInterrupted, ValidationError
from .results import ProbeData, Result

#: the most traces a B-scan takes
MAX_TRACES = 100_000

#: the note a B-scan's result carries where its scene has snapshots
SNAPSHOTS_LEFT_OUT = ("snapshots: left out of a B-scan (each trace would have its own); "
                      "run a trace's scene alone for them (from yeefdtd.bscan import moved; "
                      "moved(scene, cells))")


def trace_name(probe: str, k: int) -> str:
    """The name of probe ``probe``'s record of trace ``k`` in a B-scan's result."""
    return f"{probe}[{k}]"


def _steps_in_cells(step, ndim: int, what: str = "step") -> tuple[int, ...]:
    """``step`` as ``ndim`` whole numbers of cells, or a one-line error naming ``what``."""
    if isinstance(step, (str, bytes)) or not hasattr(step, "__len__") or len(step) != ndim \
            or any(isinstance(s, (bool, np.bool_)) or not isinstance(
                s, (int, np.integer, float, np.floating)) or s != int(s) for s in step):
        raise ValidationError(f"{what}: {ndim} whole numbers of cells along "
                              f"{'x, y' + (', z' if ndim == 3 else '')} (such as "
                              f"{'[2, 0]' if ndim == 2 else '[2, 0, 0]'}), not {step!r}"[:200])
    return tuple(int(s) for s in step)


def moved(scene: Scene, cells) -> Scene:
    """``scene`` with every source and probe moved by ``cells`` (whole cells along each
    axis of the grid): one given by ``cell`` that many cells, one given by ``position`` as
    many cell sizes; snapshots left out, each probe keeping its name (an unnamed one
    its default name in ``scene``: probe1 after a snapshot). Each keeps its place within
    its cell, so every trace samples the same staggered points relative to its
    antennas."""
    if not isinstance(scene, Scene):
        raise ValidationError(f"scene: a Scene, not {type(scene).__name__}")
    cells = _steps_in_cells(cells, scene.grid.ndim, "cells")
    steps = scene.grid.steps[: scene.grid.ndim]

    def shifted(item):
        if item.cell is not None:
            return item.model_copy(update={"cell": [c + s for c, s in zip(
                item.cell, cells, strict=True)]})
        return item.model_copy(update={"position": [p + s * d for p, s, d in zip(
            item.position, cells, steps, strict=True)]})

    return scene.model_copy(update={
        "sources": [shifted(s) for s in scene.sources],
        "monitors": [shifted(m).model_copy(update={"name": name}) for name, m in zip(
            scene.monitor_names(), scene.monitors, strict=True) if m.type == "probe"]})


def bscan(scene: Scene, traces: int, step, *, backend: str | None = None,
          dtype: str | None = None, steps: int | None = None, progress: bool | None = None,
          stepper_options: dict | None = None) -> Result:
    """Run ``scene`` ``traces`` times, trace k with its sources and probes moved k times
    ``step`` (whole cells along x, y and, in 3D, z); the objects stay. The result holds
    every trace's probes, named ``<probe>[k]`` (``trace_name``), with their positions;
    its scene is trace 0's, its statistics the traces' together, with ``bscan``: the
    number of traces, the step in cells and the traces asked for. The last trace's scene
    is built first, so that one whose antennas leave the grid is refused before any trace
    runs, and what it alone will be told is said then. ``backend``, ``dtype``, ``steps`` and
    ``stepper_options`` are run()'s, for every trace. Snapshots are left out (a note says
    so). ``progress``: a bar over the traces (default: only where stderr is a terminal). A
    Ctrl-C (RunInterrupted) or a trace that diverges (DivergenceError) raises with
    ``partial``: the traces that completed (and the diverged one's records up to its
    divergence), its status 'interrupted' or 'diverged'."""
    from tqdm import tqdm

    from .build.model import build_model, is_whole
    from .run import run

    if not isinstance(scene, Scene):
        raise ValidationError(f"scene: a Scene, not {type(scene).__name__}")
    # a whole float (3.0) takes it, as run's steps do
    if isinstance(traces, (bool, np.bool_)) or not is_whole(traces) \
            or not 2 <= traces <= MAX_TRACES:
        raise ValidationError(f"traces: a whole number from 2 to {MAX_TRACES}, not "
                              f"{traces!r}"[:200])
    traces = int(traces)
    if progress is not None and not isinstance(progress, bool):
        raise ValidationError(f"progress: True, False or None, not {progress!r}"[:200])
    cells = _steps_in_cells(step, scene.grid.ndim)
    if not any(cells):
        raise ValidationError("step: all zero, so every trace would be the same; give the "
                              "cells a trace moves along some axis")
    if not any(m.type == "probe" for m in scene.monitors):
        raise ValidationError("monitors: a B-scan records probes, and the scene has none; "
                              "add a probe (the receiver)")
    far = [c * (int(traces) - 1) for c in cells]
    where = f"trace {int(traces) - 1}, its sources and probes moved {far} cells"
    try:
        last = build_model(moved(scene, far), steps).notes
    except ValidationError as exc:
        raise ValidationError(f"{where}: {exc}") from None
    from .run import _note_once

    if any(m.type == "snapshot" for m in scene.monitors):
        _note_once(SNAPSHOTS_LEFT_OUT)
    # what the last trace will hear and the first will not (its antennas in a CPML layer):
    # before the first runs, not hours into the scan
    first = set(build_model(moved(scene, [0] * len(cells)), steps).notes)
    for text in last:
        if text not in first:
            _note_once(f"{where}: {text}")
    show = sys.stderr.isatty() if progress is None else progress
    results: list[Result] = []
    bar = tqdm(total=int(traces), unit="trace", disable=not show, dynamic_ncols=True)
    try:
        for k in range(int(traces)):
            one = moved(scene, [c * k for c in cells])
            try:
                results.append(run(one, backend=backend, dtype=dtype, steps=steps,
                                   progress=False, stepper_options=stepper_options))
            except (RunInterrupted, DivergenceError) as exc:   # the traces before it kept
                kind = type(exc)
                status = "interrupted" if kind is RunInterrupted else "diverged"
                kept = results + ([exc.partial] if exc.partial is not None and
                                  kind is DivergenceError else [])
                what = f"the {k} before it" + (" and its own records up to the divergence"
                                               if len(kept) > k else "")
                raise kind(f"trace {k} of {int(traces)}: {exc}; the result holds {what}",
                           exc.step, _together(scene, kept, cells, status, int(traces))
                           if kept else None) from None
            bar.update(1)
    except KeyboardInterrupt:   # between traces
        raise RunInterrupted(f"interrupted after {len(results)} of {int(traces)} traces",
                             0, _together(scene, results, cells, "interrupted", int(traces))
                             if results else None) from None
    finally:
        bar.close()
    return _together(scene, results, cells)


def _together(scene: Scene, results: list[Result], cells, status: str = "completed",
              asked: int | None = None) -> Result:
    """The traces' results as one: each probe of trace k as ``<probe>[k]``, the first
    trace's scene, the statistics summed over the traces where they add up; ``status`` and
    the traces ``asked`` for, of a scan cut short."""
    probes = {}
    for k, res in enumerate(results):
        for name, p in res.probes.items():
            probes[trace_name(name, k)] = ProbeData(trace_name(name, k), dict(p.data),
                                                    dict(p.times), dict(p.positions))
    stats = dict(results[0].stats)
    seconds = sum(r.stats["seconds"] for r in results)
    cells_run = sum(np.prod(r.stats["cells"]) * r.stats["steps"] for r in results)
    stats["seconds"] = float(seconds)
    stats["mcells_per_s"] = float(cells_run / seconds / 1e6) if seconds > 0 else 0.0
    stats["status"] = status
    stats["bscan"] = {"traces": len(results), "step_cells": [int(c) for c in cells],
                      "traces_requested": int(asked or len(results))}
    notes = list(dict.fromkeys(n for r in results for n in r.stats.get("notes", ())))
    if any(m.type == "snapshot" for m in scene.monitors):
        notes.append(SNAPSHOTS_LEFT_OUT)
    if notes:
        stats["notes"] = notes
    return Result(scene_json=results[0].scene_json, probes=probes, stats=stats)
