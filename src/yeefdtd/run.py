"""The time loop: one loop for every backend.

It builds the model, picks the backend, advances the stepper in chunks (so a progress bar
and divergence checks cost nothing per step), times the run and turns the monitors'
records into a :class:`~yeefdtd.results.Result`. It never asks which backend it has.
"""

from __future__ import annotations

import inspect
import math
import sys
import time

import numpy as np

from . import __version__
from .backends import get_stepper_class, resolve
from .build.model import Model, build_model, check_run_arguments
from .build.plans import record_times
from .constants import DIVERGENCE_LIMIT
from .description.scene import RunSettings, Scene, dtype_name
from .exceptions import DivergenceError, OutOfMemory, RunInterrupted
from .results import ProbeData, Result, SnapshotData

_notes_shown: set[str] = set()


def _note_once(text: str) -> None:
    if text not in _notes_shown:
        _notes_shown.add(text)
        print(f"note: {text}", file=sys.stderr)


def _check_model(model) -> None:
    if not isinstance(model, Model):
        from .exceptions import SetupError

        raise SetupError(f"model: a Model (yeefdtd.build_model(scene)), not "
                         f"{type(model).__name__}")


#: the options each backend's stepper takes (make_stepper's ``options``, run's
#: ``stepper_options``), named here so that checking them imports no CuPy
STEPPER_OPTIONS = {"numpy": ("threads",), "cuda": ("variant", "tune", "graphs", "launch")}


def _check_variant(options: dict, where: str = "stepper_options") -> None:
    """A one-line error where ``options`` name a kernel variant that does not exist, on
    every backend (the NumPy one would pass over it), or an option no backend takes (a
    misspelt 'thread' was passed over as another backend's, and 'dtype' met a TypeError
    naming make_stepper). ``where``: what the options came in as, run()'s
    ``stepper_options`` or make_stepper's keyword arguments."""
    from .exceptions import ValidationError

    for key in options:
        if where == "make_stepper" and key == "steps":
            raise ValidationError("make_stepper: takes no steps; a model's steps are set "
                                  "where it is built: build_model(scene, steps=...)")
        if key in ("model", "backend", "dtype", "steps"):
            raise ValidationError(f"stepper_options: {key!r} is an argument of its own; give "
                                  f"it as {key}=..., not among the stepper's options")
        if not any(key in names for names in STEPPER_OPTIONS.values()):
            takes = "; ".join(f"the {b} backend takes {', '.join(names)}"
                              for b, names in STEPPER_OPTIONS.items())
            raise ValidationError(f"{where}: no backend takes {key!r} ({takes})")
    if options.get("variant") is not None:
        RunSettings(steps=1, variant=options["variant"])


def make_stepper(model: Model, backend: str | None = None, dtype: str | None = None,
                 **options):
    """The stepper for ``model`` on ``backend`` (default: the scene's); says once if 'auto'
    fell back to NumPy. ``options`` go to the stepper (the CUDA one takes ``variant``...)."""
    _check_model(model)
    _check_variant(options, "make_stepper")
    dtype = dtype_name(dtype)   # (as run.dtype takes NumPy's)
    name, note = resolve(model.scene.run.backend if backend is None else backend)
    for text in (note, *model.notes):
        if text:
            _note_once(text)
    cls = get_stepper_class(name)
    accepted = inspect.signature(cls.__init__).parameters
    # one backend's options (CUDA's variant, tune...; NumPy's threads) mean nothing to the
    # other, where 'auto' may land; one given there is said once
    ignored = sorted(k for k, v in options.items()
                     if k not in accepted and v is not None and v != "auto")
    if ignored:
        _note_once(f"the {name} backend ignores {', '.join(ignored)} (options of another backend)")
    stepper = cls(model, model.scene.run.dtype if dtype is None else dtype,
                  **{k: v for k, v in options.items() if k in accepted})
    if stepper.storage.note:
        _note_once(stepper.storage.note)
    for text in (getattr(stepper, "auto_note", None), stepper.note):
        if text:
            _note_once(text)
    return stepper


def run(scene: Scene, *, backend: str | None = None, dtype: str | None = None,
        steps: int | None = None, progress: bool | None = None,
        keep_fields: bool = False, stepper_options: dict | None = None) -> Result:
    """Run ``scene`` and return its result.

    ``backend``, ``dtype`` and ``steps`` override the scene's run settings. ``progress``
    shows a bar with live Mcells/s (default: only when stderr is a terminal).
    ``keep_fields`` adds the final field arrays to the result (the memory check counts
    their copy; where it fails all the same, the result notes them left out and keeps the
    rest). On divergence or Ctrl-C the
    raised error carries ``partial``: the result recorded so far (after a Ctrl-C within a
    step without fields, which it notes; after one between steps, or while the result is
    gathered, with them).
    """
    from .exceptions import ValidationError

    _check_flags(progress, keep_fields)
    if stepper_options is not None and not (isinstance(stepper_options, dict) and all(
            isinstance(k, str) for k in stepper_options)):
        got = type(stepper_options).__name__ if not isinstance(stepper_options, dict) else \
            "a dict with keys that are not names"
        raise ValidationError(f"stepper_options: a dict of options by name, such as "
                              f"{{'variant': 'temporal'}}, not {got}")
    _check_variant(stepper_options or {})   # before the model is built
    check_run_arguments(scene, steps)
    dtype = dtype_name(dtype)
    if dtype is not None:   # a dtype no storage takes: before the model is built too
        from .build.storage import compute_dtype

        compute_dtype(dtype)
    steps = None if steps is None else int(steps)   # a NumPy integer of few bits overflows
    if resolve(scene.run.backend if backend is None else backend)[0] == "numpy":
        from .build.memory import check_fits
        from .build.model import face_kinds, make_grid, step_count

        grid = make_grid(scene)   # the whole run, before the model takes its part
        threads = (stepper_options or {}).get("threads")   # (the stepper checks it)
        check_fits(scene, grid, step_count(scene, grid.dt) if steps is None else steps,
                   scene.run.dtype if dtype is None else dtype, face_kinds(scene),
                   threads=threads if isinstance(threads, int) and not isinstance(
                       threads, bool) and threads >= 1 else None, keep_fields=keep_fields)
    try:
        model = build_model(scene, steps)
        stepper = make_stepper(model, backend, dtype, **(stepper_options or {}))
    except MemoryError as exc:   # the host's memory (the CUDA backend says its own)
        from .build.memory import largest_part

        advice = largest_part(scene, steps, scene.run.dtype if dtype is None else dtype) or \
            "use fewer or larger cells, or fewer steps"
        raise OutOfMemory(f"the model does not fit in this machine's memory ({exc}); "
                          f"{advice}") from None
    model.scene = _as_run(scene, backend, dtype, steps, stepper_options or {})
    return run_model(model, stepper, progress=progress, keep_fields=keep_fields)


def _as_run(scene, backend, dtype, steps, options: dict):
    """``scene`` with the run settings that the arguments overrode, so that the result's
    scene is the one that ran (its file said 800 float32 steps after ``--steps 50 --dtype
    float64``, and running it again ran something else)."""
    updates = {k: v for k, v in (("backend", backend), ("dtype", dtype),
                                 ("variant", options.get("variant"))) if v is not None}
    if steps is not None:
        updates.update(steps=steps, duration=None)
    if not updates or all(getattr(scene.run, k) == v for k, v in updates.items()):
        return scene
    return scene.model_copy(update={"run": scene.run.model_copy(update=updates)})


def _check_flags(progress, keep_fields) -> None:
    from .exceptions import ValidationError

    for what, value in (("keep_fields", keep_fields), ("progress", progress)):
        if not (isinstance(value, (bool, np.bool_)) or (what == "progress" and value is None)):
            raise ValidationError(f"{what}: True or False, not {value!r}")


def run_model(model: Model, stepper, *, progress: bool | None = None,
              keep_fields: bool = False) -> Result:
    """Advance ``stepper`` through ``model.steps`` steps from step 0 and collect the result
    (a stepper that has run steps already is refused: its fields and records are those
    of that run, which this one would go on from while it counts time from zero)."""
    from tqdm import tqdm

    from .exceptions import SetupError

    _check_flags(progress, keep_fields)
    _check_model(model)
    if not hasattr(stepper, "advance") or not hasattr(stepper, "model"):
        raise SetupError(f"stepper: a stepper from make_stepper(model), not "
                         f"{type(stepper).__name__}")
    if stepper.model is not model:
        raise SetupError("stepper: built for another model; build it with "
                         "make_stepper(model) for this one")
    done = getattr(stepper, "steps_done", 0)
    if done is None:
        raise SetupError("stepper: an advance of it stopped within its steps, so its fields "
                         "belong to no whole step; make a new one with make_stepper(model)")
    if done:
        raise SetupError(f"stepper: it has run {stepper.steps_done} steps already; a run "
                         "starts at step 0: make a new one with make_stepper(model)")

    for text in no_records_note(model.scene, keep_fields):
        _note_once(text)
    total = model.steps
    cells = model.grid.num_cells
    check = model.scene.run.check_every
    show = sys.stderr.isatty() if progress is None else progress
    bar = tqdm(total=total, unit="step", disable=not show, dynamic_ncols=True,
               file=sys.stderr, leave=False)
    done, chunk, seconds = 0, 1, 0.0
    stepping = False
    try:
        while done < total:
            next_check = (done // check + 1) * check
            count = min(chunk, total - done, next_check - done)
            t0 = time.perf_counter()
            stepping = True
            stepper.advance(done, count)
            stepper.synchronize()
            dt = time.perf_counter() - t0
            seconds += dt
            done += count
            stepping = False   # only now: until `done` counts them, the fields are ahead of it
            if dt < 0.1:
                chunk = min(chunk * 2, 4096)
            bar.update(count)
            if seconds > 0:
                bar.set_postfix_str(f"{cells * done / seconds / 1e6:.1f} Mcells/s",
                                    refresh=False)
            if done % check == 0 or done == total:
                _check_divergence(stepper, model, done)
        # within the try: a Ctrl-C while the finished run's result is gathered is one
        # between steps (below); after it, the whole run was lost
        return _result(model, stepper, done, seconds, "completed", keep_fields)
    except DivergenceError as exc:
        try:
            exc.partial = _diverged(model, stepper, done, seconds, keep_fields)
        except KeyboardInterrupt:
            # the run has stopped already: gathered again (the command defers the signals
            # after the first), else the Ctrl-C lost what it recorded
            exc.partial = _diverged(model, stepper, done, seconds, keep_fields)
        raise
    except KeyboardInterrupt:
        # within a step (within a half step's pieces, on threads) the stepper holds no whole
        # step's fields, nor those of step `done`: none kept; between steps they are whole
        partial = _result(model, stepper, done, seconds, "interrupted",
                          keep_fields and not stepping, asked=keep_fields)
        if keep_fields and stepping:
            partial.stats["notes"] = [*partial.stats.get("notes", ()), INTERRUPTED_FIELDS]
        raise RunInterrupted(f"interrupted after {done} of {total} steps", done,
                             partial) from None
    finally:
        bar.close()


def _diverged(model: Model, stepper, done: int, seconds: float, keep_fields: bool) -> Result:
    """The partial result of a run that diverged by step ``done``: what was recorded before
    the first record that is not finite (those after it hold NaN or infinities); the step
    count says how far that is."""
    rec = stepper.collect()
    good = _finite_steps(model, rec, done)
    partial = _result(model, stepper, good, seconds * good / max(done, 1), "diverged",
                      keep_fields, rec)
    partial.stats["diverged_by_step"] = int(done)
    if partial.fields is not None:   # (left out where their copy found no memory)
        partial.stats["fields_at_step"] = int(done)
    return partial


#: the note on a run that records nothing (no monitors, and the final fields not kept)
NO_RECORDS = ("monitors: the scene has none, so the result holds no records, only the "
              "run's statistics; add a probe or a snapshot (or keep the final fields: "
              "--fields, keep_fields=True)")


def no_records_note(scene: Scene, keep_fields: bool = False) -> tuple[str, ...]:
    """NO_RECORDS where a run of ``scene`` records nothing: no monitors, and its final
    fields not kept (``yeefdtd validate`` does not know whether they will be)."""
    return (NO_RECORDS,) if not scene.monitors and not keep_fields else ()

#: the note an interrupted run's result carries where its fields were asked for
INTERRUPTED_FIELDS = ("fields: left out: the run was interrupted within a step, where the "
                      "fields are no whole step's; a run that completes (or diverges) "
                      "keeps them")


def _finite_steps(model: Model, rec, done: int) -> int:
    """The most steps (at most ``done``) whose records, of every monitor, are all finite."""
    good = done
    plans = [*zip([g.every for g in model.probes], rec.probes, strict=False),
             *zip([p.every for p in model.snapshots], rec.snapshots, strict=False)]
    for every, data in plans:
        rows = done // every
        if rows == 0:   # nothing recorded yet
            continue
        bad = np.flatnonzero(~np.isfinite(np.asarray(data[:rows]).reshape(rows, -1)).all(axis=1))
        if bad.size:   # record b is taken after step (b + 1) every - 1: stop just before it
            good = min(good, (int(bad[0]) + 1) * every - 1)
    return good


def _check_divergence(stepper, model: Model, done: int) -> None:
    m = stepper.max_abs()
    storage = getattr(stepper, "storage", None)
    if not math.isfinite(m) and getattr(storage, "name", "") == "float16":
        # float16 holds values up to 65504 times the scale its sources set (storage.py):
        # a field that builds up far past the sources' own (a cavity driven at resonance:
        # eta0 H 18 times a hard source's 1 V/m) goes past it, a stable run or not
        raise DivergenceError(
            f"fields became NaN or infinite by step {done} (t = {done * model.grid.dt:.4g} "
            "s); in float16 most likely they outgrew what it holds at the scale the sources "
            f"set (E up to {storage.largest('e'):.3g} V/m, H up to "
            f"{storage.largest('h'):.3g} A/m), as fields that build up far past the "
            "sources' own do; run it in float32, or bfloat16 (float32's range)", done)
    if not math.isfinite(m) or m > DIVERGENCE_LIMIT:
        what = "NaN or infinite" if not math.isfinite(m) else f"as large as {m:.3g}"
        raise DivergenceError(
            f"fields became {what} by step {done} (t = {done * model.grid.dt:.4g} s); likely "
            "cause: a source amplitude or samples far too large, or CPML parameters "
            "(kappa_max, alpha_max, sigma_factor) out of their usual range; lower them or "
            "run.courant", done)


def _result(model: Model, stepper, done: int, seconds: float, status: str,
            keep_fields: bool, rec=None, asked: bool | None = None) -> Result:
    """The result of ``done`` steps (``rec``: the stepper's records, when already collected;
    ``asked``: whether the run was asked for its final fields, where ``keep_fields`` leaves
    them out of an interrupted one). The records are collect's copies: the result takes
    them whole, and copies only the rows of a run cut short (a view would hold them all)."""
    rec = stepper.collect() if rec is None else rec
    dt = model.grid.dt
    probes: dict[str, ProbeData] = {}
    for group, data in zip(model.probes, rec.probes, strict=False):
        rows = done // group.every
        recorded = group.steps_recorded(model.steps)[:rows]
        for j, ch in enumerate(group.channels):
            p = probes.setdefault(ch.probe, ProbeData(ch.probe, {}, {}, {}))
            p.data[ch.component] = data[:rows, j].copy()   # (a column: its own array)
            p.times[ch.component] = record_times(ch.component, recorded, dt)
            p.positions[ch.component] = tuple(float(x) for x in ch.position)
    snapshots = {}
    for plan, frames in zip(model.snapshots, rec.snapshots, strict=False):
        rows = done // plan.every
        recorded = np.arange(1, rows + 1) * plan.every - 1
        snapshots[plan.name] = SnapshotData(
            name=plan.name, component=plan.component, axis="xyz"[plan.axis],
            position=float(plan.position),
            frames=frames if rows == len(frames) else frames[:rows].copy(),
            times=record_times(plan.component, recorded, dt),
            coords=tuple(np.array(c, copy=True) for c in plan.coords))   # each result its own
    cells = model.grid.num_cells
    stats = {
        "status": status,
        "steps": int(done),
        "steps_requested": int(model.steps),
        "dt": float(dt),
        "seconds": float(seconds),
        "mcells_per_s": float(cells * done / seconds / 1e6) if seconds > 0 else 0.0,
        "bytes_per_cell": float(stepper.memory_bytes() / cells),
        "cells": [int(n) for n in model.grid.cells],
        "backend": stepper.name,
        "dtype": stepper.storage.name,
        "version": __version__,
    }
    notes = [*model.notes, *filter(None, [stepper.storage.note])]
    notes += no_records_note(model.scene, keep_fields if asked is None else asked)
    fields = None
    if keep_fields:
        try:
            fields = stepper.fields()
        except MemoryError:   # the records are whole: keep them, without the fields
            notes.append(FIELDS_NO_MEMORY)
            print(f"note: {FIELDS_NO_MEMORY}", file=sys.stderr)
    if notes:
        stats["notes"] = notes
    stats.update(getattr(stepper, "describe", lambda: {})())
    return Result(scene_json=_ran(model, stepper).to_json(indent=None), probes=probes,
                  snapshots=snapshots, stats=stats, fields=fields)


def _ran(model: Model, stepper) -> Scene:
    """The scene that ran: ``model.scene`` with the steps of the model and the dtype of the
    stepper where they differ from its own (run() puts its overrides in already; a model
    built with other steps, or a stepper of another dtype, given to run_model left the
    result saying what it did not run)."""
    from .build.model import step_count

    scene = model.scene
    dtype = stepper.storage.name
    steps = model.steps if model.steps != step_count(scene, model.grid.dt) else None
    return _as_run(scene, None, dtype if dtype != scene.run.dtype else None, steps, {})


#: the note of a result whose fields were asked for but found no memory for their copy
FIELDS_NO_MEMORY = ("fields: left out: no memory was left for their copy when the run "
                    "ended; the probes and snapshots are whole. Run it again on a machine with "
                    "more memory to keep them, or record the planes you need as snapshots")
