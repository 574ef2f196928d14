"""The model: a scene turned into arrays, once, before any time stepping.

Backends read a :class:`Model` and never recompute physics: the time step, the
coefficient tables, the CPML profiles and the source and monitor plans all come from here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import host
from ..constants import MAX_STEPS
from ..description.scene import Scene
from .coefficients import ComponentTable, component_table
from .cpml import Slab, cpml_faces, make_slabs
from .grid import YeeGrid, flat_axes, time_step
from .plans import (
    ProbeGroup,
    SnapshotPlan,
    SourceGroup,
    monitor_notes,
    probe_groups,
    snapshot_plans,
    source_groups,
    source_notes,
    source_samples,
)
from .voxelize import object_notes, voxelize_region


@dataclass
class Model:
    scene: Scene
    grid: YeeGrid
    steps: int
    tables: dict[str, ComponentTable]
    slabs: list[Slab]
    sources: list[SourceGroup]
    probes: list[ProbeGroup]
    snapshots: list[SnapshotPlan]
    #: what the user should hear before a run (a source that adds nothing...)
    notes: tuple[str, ...] = ()

    @property
    def components(self) -> tuple[str, ...]:
        return self.grid.components

    #: what the model's arrays are built for: set once (a model given other steps after
    #: build_model ran past its source values with an IndexError deep in a stepper)
    FIXED = ("steps", "grid", "tables", "slabs", "sources", "probes", "snapshots")

    def __setattr__(self, name, value):
        if name in self.FIXED and name in self.__dict__:
            from ..exceptions import SetupError

            raise SetupError(f"model.{name}: fixed when the model is built (its arrays are "
                             f"laid out for it); build another: build_model(scene, "
                             "steps=...)")
        super().__setattr__(name, value)



def face_kinds(scene: Scene) -> dict[str, str]:
    """'pec', 'pmc', 'periodic' or 'cpml' for every face; the z faces of 2D are periodic."""
    kinds = {}
    for axis in "xyz":
        for side in ("min", "max"):
            f = f"{axis}_{side}"
            kinds[f] = "periodic" if (scene.grid.is_2d and axis == "z") else \
                scene.boundaries.kind(f)
    return kinds


def make_grid(scene: Scene) -> YeeGrid:
    kinds = face_kinds(scene)
    periodic = tuple(kinds[f"{a}_min"] == "periodic" for a in "xyz")
    return YeeGrid(
        cells=scene.grid.shape,
        steps=scene.grid.steps,
        periodic=periodic,
        mode=scene.grid.mode,
        components=scene.grid.components,
        dt=time_step(scene.grid.steps, scene.run.courant,
                     flat_axes(scene.grid.shape, periodic)),
    )


def step_count(scene: Scene, dt: float) -> int:
    """run.steps, or the steps run.duration takes at ``dt`` (at most MAX_STEPS)."""
    if scene.run.steps is not None:
        return scene.run.steps
    n = scene.run.duration / dt
    if not n <= MAX_STEPS:
        from ..exceptions import ValidationError

        raise ValidationError(f"run.duration: {scene.run.duration:g} s is {n:.3g} steps of "
                              f"{dt:.3g} s, more than {MAX_STEPS:.0e}; shorten it, or use "
                              "larger cells")
    # a relative slack: 1e-9 steps added one to a duration of exactly k dt from about 4.5
    # million steps on
    return max(1, math.ceil(n * (1 - 1e-12)))


def is_whole(value) -> bool:
    """Whether ``value`` is a whole number: an integer, or a finite float without a
    fraction (a scene file's 1e5 steps; True is an int: callers refuse booleans)."""
    return isinstance(value, (int, np.integer)) or (
        isinstance(value, (float, np.floating)) and math.isfinite(value)
        and float(value).is_integer())


def check_run_arguments(scene, steps) -> None:
    """One-line errors for what the Python API's callers pass in place of a scene or a step
    count (the CLI and scene files check theirs)."""
    from ..exceptions import ValidationError

    if not isinstance(scene, Scene):
        raise ValidationError(f"scene: a Scene, not {type(scene).__name__} (read a file with "
                              "yeefdtd.Scene.load(path), or build one with yeefdtd.Scene(...))")
    if steps is not None and (isinstance(steps, bool) or not is_whole(steps)
                              or not 1 <= steps <= MAX_STEPS):
        raise ValidationError(f"steps: a whole number from 1 to {MAX_STEPS:.0e}, not {steps!r}")


#: host bytes a component's table may take in flight per cell while it is built: its
#: materials (where the objects' box is the whole grid; see Voxels) and ids (3), and while
#: an object is voxelized, its bounding box's coordinate
#: arrays (tracemalloc: 11.2 for a sphere filling a 160^3 grid)
TABLE_BYTES_PER_CELL = 12


def component_tables(scene: Scene, grid: YeeGrid, kinds: dict) -> dict[str, ComponentTable]:
    """Each component's materials and coefficient table, built on several threads where
    the host has the cores and the memory (NumPy's array work runs without the interpreter
    lock): as many as a quarter of the free memory holds at TABLE_BYTES_PER_CELL. The
    scene of examples/dipole_cpml.toml at 512^3 cells, on 2 cores: build_model 3.3 s
    against 4.5 s with the tables built one after another."""
    from concurrent.futures import ThreadPoolExecutor

    def one(c):
        return component_table(scene, grid, c, voxelize_region(scene, grid, c), kinds)

    comps = grid.components
    workers = host.workers(len(comps), TABLE_BYTES_PER_CELL * grid.num_cells)
    if workers <= 1:
        return {c: one(c) for c in comps}
    with ThreadPoolExecutor(workers) as pool:
        return dict(zip(comps, pool.map(one, comps), strict=True))


def notes_before_run(scene: Scene, grid: YeeGrid, steps: int,
                     tables: dict[str, ComponentTable] | None = None,
                     samples: list | None = None) -> tuple[str, ...]:
    """What a user should hear before a run, in the scene's order: objects the grid does
    not see, sources that add nothing or that the grid cannot carry, monitors that record
    nothing. ``yeefdtd validate`` gives them without ``tables`` and ``samples`` (from the
    points involved alone), a run from the model's."""
    faces = face_kinds(scene)
    return (run_notes(scene) + _short_duration(scene, grid.dt, steps) + boundary_notes(scene)
            + cpml_medium_notes(scene, grid) + object_notes(scene, grid)
            + source_notes(scene, grid, tables, steps, samples, faces)
            + monitor_notes(scene, steps, grid, faces))


#: reflection (dB) of a CPML of N cells on every face of a TMz grid of 60 x 60 cells of 1
#: mm: a point source's differentiated Gaussian pulse (tau 25 ps, about 20 cells a
#: wavelength at its peak), the energy that comes back into the interior against a grid
#: large enough that nothing comes back in the time, float64, 400 steps
THIN_CPML_DB = {1: -8.2, 2: -24.3, 3: -37.4, 4: -44.5, 5: -54.1, 6: -62.8, 8: -79.1,
                10: -91.8}
#: CPML layers thinner than this get a note (they reflect more than about -50 dB)
THIN_CPML = 5


def boundary_notes(scene: Scene) -> tuple[str, ...]:
    """What a user should hear of the boundaries before a run: CPML layers thinner than
    THIN_CPML cells, which reflect far more than the default's 10 (THIN_CPML_DB)."""
    thin: dict[tuple[int, int], list[str]] = {}
    for a, side, face in cpml_faces(scene):
        if face.cells < THIN_CPML:
            # the thickest layer measured that the axis takes (a third of it: scene.py)
            room = max((k for k in THIN_CPML_DB if k <= scene.grid.shape[a] // 3), default=0)
            thin.setdefault((face.cells, room), []).append(f"{'xyz'[a]}_{side}")
    out = []
    for (n, room), faces in sorted(thin.items()):
        what = (f"boundaries.{', '.join(faces)}: a CPML of {n} cell{'s' if n > 1 else ''} "
                f"reflects about {THIN_CPML_DB[n]:.0f} dB of a well-resolved pulse, against "
                f"{THIN_CPML_DB[10]:.0f} dB for the default 10 cells; ")
        if room >= 10:
            out.append(what + "give it 10 (the default)")
        elif room > n:
            out.append(what + f"give it more ({room} cells, as many as the axis takes: "
                              f"about {THIN_CPML_DB[room]:.0f} dB)")
        else:   # a layer may not take more than a third of its axis
            out.append(what + "a thicker one needs a longer axis (a layer takes at most a "
                              "third of it)")
    return tuple(out)


#: a CPML face whose conductivity is this many times below the optimum for a medium that
#: holds a good share (CPML_SHARE) of its inner plane gets a note: a layer too weak for a
#: medium reflects far more than one as much too strong. TMz, 400 x 300 cells of 5 mm,
#: soil of eps_r = 9 and 0.01 S/m below y = 1 m, air above, a Ricker of 400 MHz in the
#: air, 1400 steps, against the same padded by 250 cells a side: with the soil as the
#: background (every face matched to it, a third of the air's optimum) -38.6 to -45.0 dB
#: at four probes; with sigma_factor = 3 on the faces (matched to the air, three times
#: the soil's optimum) -58.5 to -78.9, as with the air as the background
CPML_MISMATCH = 2.0
#: the share of a face's inner plane a medium must hold for cpml_medium_notes
CPML_SHARE = 0.1
#: the largest sigma_factor a face takes (description.boundaries.Cpml)
SIGMA_FACTOR_MAX = 10.0
#: points a side at which cpml_medium_notes samples a face's inner plane
FACE_SAMPLES = 64


def cpml_medium_notes(scene: Scene, grid: YeeGrid) -> tuple[str, ...]:
    """A note for each CPML face whose inner plane (half a cell inside the domain, sampled
    at up to FACE_SAMPLES points a side) holds, in CPML_SHARE of it or more, a medium of a
    lower refractive index across the face (cpml.face_index) than the background's, to
    which the face's one profile is matched, so that its conductivity is CPML_MISMATCH
    times below that medium's optimum or more (sigma_max goes as 1 / n): such a layer
    reflects far more. Matched to the lowest index, it is too strong for the others, which
    costs much less. Conductors are left out (a ground plane run into the layer)."""
    from .cpml import cpml_faces, face_index
    from .voxelize import CONDUCTORS, material_map, material_numbers

    names = {i: n for n, i in material_numbers(scene).items()}
    faces = cpml_faces(scene)
    layers = {(b, s): f.cells for b, s, f in faces}
    weak: dict[tuple, list] = {}   # faces by what is said of them: one note for each
    for a, side, face in faces:
        # an axis of one cell at its centre (as a point's component there sees it)
        pts: list = [np.array(0.5 * d if math.isfinite(d) else 0.0) for d in grid.steps]
        inplane = [b for b in range(3) if b != a and grid.cells[b] > 1 and
                   math.isfinite(grid.steps[b])]
        for k, b in enumerate(inplane):
            # the plane's part outside the other faces' layers, where waves meet the face
            lo, hi = layers.get((b, "min"), 0), grid.cells[b] - layers.get((b, "max"), 0)
            n = min(hi - lo, FACE_SAMPLES)
            shape = [1] * len(inplane)
            shape[k] = n
            pts[b] = ((lo + (np.arange(n) + 0.5) * (hi - lo) / n)
                      * grid.steps[b]).reshape(shape)
        at = face.cells + 0.5 if side == "min" else grid.cells[a] - face.cells - 0.5
        pts[a] = np.array(at * grid.steps[a])
        mats = np.atleast_1d(material_map(scene, *pts, grid=grid)).ravel()
        base = face_index(grid, a, scene.material(scene.background))
        counts = np.bincount(mats, minlength=len(names))
        seen = {names[m]: c for m, c in enumerate(counts)
                if c >= CPML_SHARE * mats.size and names[m] not in CONDUCTORS}
        index = {m: face_index(grid, a, scene.material(m)) for m in seen}
        index = {m: v for m, v in index.items() if v < base}   # (a denser one costs less)
        if not index:
            continue
        low = min(index, key=index.get)   # the medium it is weakest for
        n, share = index[low], seen[low] / mats.size
        # its conductivity over that medium's optimum (sigma_max goes as 1 / n)
        ratio = face.sigma_factor * n / base
        if ratio > 1 / CPML_MISMATCH:
            continue
        key = (f"{base:.3g}", low, f"{n:.3g}", f"{ratio:.2g}", f"{base / n:.2g}")
        weak.setdefault(key, []).append((f"{'xyz'[a]}_{side}", share))
    out = []
    for (base, low, n, ratio, want), named in weak.items():
        shares = sorted(round(100 * s) for _, s in named)
        held = f"{shares[0]}%" if shares[0] == shares[-1] else f"{shares[0]} to {shares[-1]}%"
        one = len(named) == 1
        fix = f"sigma_factor = {want} to match {'it' if one else 'them'} to {low!r}" if \
            float(want) <= SIGMA_FACTOR_MAX else (f"sigma_factor = {SIGMA_FACTOR_MAX:g} (the "
                                                  f"most it takes), or {low!r} as the "
                                                  "background")
        out.append(f"boundaries.{', '.join(f for f, _ in named)}: "
                   f"{'its CPML is' if one else 'their CPMLs are'} matched to the background "
                   f"{scene.background!r} (refractive index {base} across "
                   f"{'it' if one else 'them'}), but {low!r} ({n}) holds {held} of "
                   f"{'its inner face' if one else 'their inner faces'}, for which "
                   f"{'its' if one else 'their'} conductivity is {ratio} times the optimum, "
                   "and a layer too weak reflects far more than one too strong; give "
                   f"{'the face' if one else 'each'} {fix}")
    return tuple(out)


def _short_duration(scene: Scene, dt: float, steps: int) -> tuple[str, ...]:
    """A run.duration shorter than one time step, which the run takes whole (step_count):
    so many times what was asked, without a word before."""
    d = scene.run.duration
    if scene.run.steps is not None or d is None or steps != 1 or not d < dt:
        return ()
    return (f"run.duration: {d:.4g} s is less than one time step ({dt:.4g} s), so the run "
            f"takes one, {dt / d:.3g} times as long; give a duration of a step or more",)


def run_notes(scene: Scene) -> tuple[str, ...]:
    """What a user should hear of the run settings: a Courant number of 1, the stability
    limit itself, where the scheme is only marginally stable. A mode at the grid's scale
    (values alternating in sign from cell to cell, as set_field or rounding may leave) then
    grows linearly instead of staying bounded: float64, 8^3 cells of random Ex, max |Ex|
    281 at step 2000 and 557 at 4000 between periodic faces, 205 and 408 between PMC
    walls; about 3 at 0.99, and between PEC walls at 1."""
    if scene.run.courant < 1.0:
        return ()
    return ("run.courant: 1 is the stability limit itself, where a mode at the grid's scale "
            "(values alternating from cell to cell, as set_field or rounding may leave) can "
            "grow linearly instead of staying bounded (periodic faces, PMC walls); 0.99, "
            "the default, keeps every mode bounded",)


def build_model(scene: Scene, steps: int | None = None) -> Model:
    """Turn ``scene`` into arrays. ``steps`` overrides the scene's run length."""
    from .memory import BUILD_SOURCES, MODEL_PARTS, check_fits

    check_run_arguments(scene, steps)
    grid = make_grid(scene)
    # a Python int: a NumPy integer of few bits would overflow in the counts made from it
    nsteps = int(steps) if steps is not None else step_count(scene, grid.dt)
    # what the model itself holds (its steppers check the rest)
    check_fits(scene, grid, nsteps, scene.run.dtype, face_kinds(scene), MODEL_PARTS,
               BUILD_SOURCES, threads=1)   # (the model's parts take no threads' scratch)
    tables = component_tables(scene, grid, face_kinds(scene))
    samples = source_samples(scene, grid, nsteps)   # every source at every step, once
    return Model(
        scene=scene,
        grid=grid,
        steps=nsteps,
        tables=tables,
        slabs=make_slabs(scene, grid),
        sources=source_groups(scene, grid, nsteps, tables, samples),
        probes=probe_groups(scene, grid),
        snapshots=snapshot_plans(scene, grid),
        notes=notes_before_run(scene, grid, nsteps, tables, samples),
    )

