"""Index plans: which array points each source drives and each monitor reads.

Everything here is computed once, before the time loop: source values for every step
(already multiplied by the local source coefficient for soft sources), flat indices of
probe points grouped by sampling interval, and the planes of snapshots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..description.monitors import Probe, Snapshot
from ..exceptions import SetupError
from .coefficients import SRC, ComponentTable, _tangential_walls, held_at_zero
from .grid import OFFSETS, YeeGrid
from .storage import H_SHIFT, strength_note


def sample_times(component: str, kind: str, steps: int, dt: float,
                 start: int = 0) -> np.ndarray:
    """Times at which a source on ``component`` is evaluated, one per step.

    Step n advances H to (n + 1/2) dt using E at n dt, then E to (n + 1) dt using H at
    (n + 1/2) dt. A soft E source (current J) enters the E update at (n + 1/2) dt, a soft H
    source (current M) the H update at n dt; a hard source sets its field at the time the
    field then has: (n + 1) dt for E, (n + 1/2) dt for H.
    """
    n = np.arange(start, steps, dtype=np.float64)   # steps ``start`` .. ``steps`` - 1
    electric = component[0] == "e"
    if kind == "soft":
        return (n + 0.5) * dt if electric else n * dt
    return (n + 1.0) * dt if electric else (n + 0.5) * dt


def record_times(component: str, steps_recorded: np.ndarray, dt: float) -> np.ndarray:
    """Time of a field after step n: (n + 1) dt for E, (n + 1/2) dt for H."""
    return (steps_recorded + (1.0 if component[0] == "e" else 0.5)) * dt


@dataclass
class SourceGroup:
    """All sources of one kind on one component, merged per point."""

    component: str
    kind: str              #: 'soft' adds values[n]; 'hard' sets the field to values[n]
    flat: np.ndarray       #: (k,) int64 flat indices, unique
    values: np.ndarray     #: (steps, k) float64
    points: list[tuple[float, float, float]] = field(default_factory=list)


@dataclass(frozen=True)
class Channel:
    """One recorded time series: a component of a probe at one point."""

    probe: str
    component: str
    index: tuple[int, int, int]
    flat: int
    position: tuple[float, float, float]
    every: int


@dataclass
class ProbeGroup:
    """Channels sampled at the same interval; column j of the records is channels[j].

    Channels are ordered by component, so each component's columns are one slice.
    """

    every: int
    channels: list[Channel]
    #: component -> (flat indices, columns) for a vectorised read of each field
    reads: dict[str, tuple[np.ndarray, slice]] = field(default_factory=dict)

    def records(self, steps: int) -> int:
        return steps // self.every

    def steps_recorded(self, steps: int) -> np.ndarray:
        """Steps after which a record is taken: every, 2 every, ... (counted from 1)."""
        return np.arange(1, self.records(steps) + 1) * self.every - 1


@dataclass(frozen=True)
class SnapshotPlan:
    name: str
    component: str
    axis: int                    #: plane normal
    index: int                   #: plane index along the normal
    every: int
    region: tuple                #: slices of the field array (a plane, valid points only)
    coords: tuple[np.ndarray, np.ndarray]  #: in-plane coordinates (metres)
    position: float              #: plane location along the normal (metres)

    def records(self, steps: int) -> int:
        return steps // self.every

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self.coords[0]), len(self.coords[1]))


def _node(grid: YeeGrid, component: str, item) -> tuple[int, int, int]:
    if item.position is not None:
        return grid.nearest(component, item.position)
    cell = tuple(item.cell) + (0,) * (3 - len(item.cell))
    return cell


#: the fraction of its peak below which an analytic waveform is said to drive nothing
WEAKEST = 1e-6
#: cells per wavelength below which a note says a source's frequency is more than the
#: grid carries (2: the grid's own Nyquist limit; accuracy needs 10 or more)
LEAST_CELLS_PER_WAVELENGTH = 2
#: the grid's phase-velocity error (waves along an axis travel slower than they should)
#: past which a note says so, at the frequency where a pulse's spectrum falls to
#: SIGNIFICANT of its peak: 2%, about 9 cells a wavelength (TMz, a Ricker pulse of 0.8 GHz
#: in eps_r = 9 on 5 mm cells, 9.0 cells at 2.21 GHz, 1.97%: its waveform 16% off and 23 ps
#: late over 0.5 m against a grid of 1.25 mm; 1.2 GHz, 6.0 cells, 4.7%: 54% and 58 ps)
SLOWEST_PHASE_ERROR = 0.02
SIGNIFICANT = 1e-2
#: samples times frequencies significant_frequency sums at most (a second or so)
SPECTRUM_WORK = 20_000_000


#: steps of a source's waveform waveform_notes evaluates at a time, without the whole run's
#: samples (``yeefdtd validate`` of a run of 1e9 steps)
NOTE_CHUNK = 1 << 20


def waveform_notes(scene, grid: YeeGrid, steps: int, samples: list | None = None,
                   sizes: list | None = None) -> tuple[str, ...]:
    """What a user should hear of the sources' waveforms before a run (``yeefdtd validate``
    too): one that stays below WEAKEST of its peak (a sampled one: of its largest sample) at
    every instant the run samples it (its pulse lies past the run's end, or is too narrow
    for the time step), and _frequency_notes' (frequencies the grid or the time step cannot
    carry). ``samples``: source_samples', where the caller has them; else the waveforms are
    evaluated NOTE_CHUNK steps at a time (and checked to be finite, as a run checks them).
    ``sizes``: a list that gets, for each source, the sum of its |values| over the steps
    and the largest."""
    out = []
    for i, src in enumerate(scene.sources):
        chunks = [samples[i]] if samples is not None else \
            _source_chunks(i, src, grid, steps, NOTE_CHUNK)
        # analytic waveforms peak at 1; sampled ones at whatever the user's units give
        peak = 1.0 if src.waveform.type != "samples" else \
            max((abs(v) for v in src.waveform.values), default=0.0)
        floor = WEAKEST * abs(src.amplitude) * peak
        driven, total, top = False, 0.0, 0.0
        for _, vals in chunks:   # every chunk: each is checked to be finite
            size = np.abs(vals)
            driven = driven or bool(np.any(size > floor))
            if sizes is not None and size.size:
                with np.errstate(over="ignore"):   # past float's range: inf, noted as such
                    total, top = total + float(size.sum()), max(top, float(size.max()))
        if sizes is not None:
            sizes.append((total, top))
        wf = src.waveform
        f = getattr(wf, "frequency", None)
        if src.amplitude != 0 and f is not None and f * steps * grid.dt < CARRIER_TURNS \
                and _in_ghz(f, grid.dt):   # GHz where Hz go: it drives nothing, or a constant
            out.append(f"sources[{i}].waveform.frequency: {f:.4g} Hz turns "
                       f"{f * steps * grid.dt:.2g} of a cycle over the run's "
                       f"{steps * grid.dt:.4g} s, so it drives no wave (nothing, or a field "
                       f"that hardly changes); give it in Hz ({f * 1e9:.6g} for {f:.6g} GHz)")
        elif src.amplitude != 0 and not driven:   # 0: switched off
            how = "is zero" if peak == 0 else f"stays below {WEAKEST:g} of its peak"
            where = "move " + _MOVE[wf.type] + " or run longer"
            if peak > 0 and _between_instants(src.waveform, grid.dt, steps):
                out.append(f"sources[{i}]: its samples lie between the instants the run "
                           f"reads its waveform at (every {grid.dt:.4g} s), so it drives "
                           f"nothing; resample them at {grid.dt:.4g} s or more")
            else:
                out.append(f"sources[{i}]: its {src.waveform.type} waveform {how} through "
                           f"the run's {steps} step{'s' if steps != 1 else ''} (it ends at "
                           f"t = {steps * grid.dt:.4g} s), so it drives nothing; {where}")
        out += _frequency_notes(i, src.waveform, scene, grid, src.amplitude != 0)
        out += _cut_note(i, src.waveform) if src.amplitude != 0 else []
    return tuple(out)


def _in_ghz(f: float, dt: float) -> bool:
    """Whether ``f`` Hz may be a frequency given in GHz: read as GHz, one the time step
    samples (a 1 MHz sine in a 5 ns run was told to be 1e6 GHz)."""
    return f * 1e9 <= 0.5 / dt


def _between_instants(wf, dt: float, steps: int) -> bool:
    """Whether ``wf`` is a Samples waveform whose span lies inside a run of ``steps`` steps
    of ``dt`` and is narrower than a step, so that the run may read it at no instant (a span
    of seconds in a run of nanoseconds is read: near its zero end, below the floor)."""
    if wf.type != "samples":
        return False
    first, last = wf.support()
    return first <= steps * dt and last >= 0 and last - first < dt


def _cut_note(i: int, wf) -> list[str]:
    """The note on a pulse that is already under way at t = 0, where the run starts: the run
    switches it on as a step there, so it drives a pulse other than the one its
    ``spectrum()`` describes (a Gaussian of t0 = 0: half its spectrum, and a step's), and
    samples before t = 0 are never driven."""
    if wf.type == "sine":   # switched on at t = 0 by its ramp, as its spectrum says
        return []
    if wf.type == "samples":
        before = [v for k, v in enumerate(wf.values) if wf.start + k * wf.dt < 0 and v != 0]
        if not before:
            return []
        return [f"sources[{i}].waveform.start: {len(before)} of its samples lie before "
                "t = 0, where the run starts, and are never driven (its spectrum() counts "
                "them); start them at 0 or later"]
    with np.errstate(all="ignore"):   # a tau past float's range: its support overflows
        start = wf.support()[0]
    if not start < 0 or not math.isfinite(start):   # NaN or -inf: such a pulse never rises
        return []                                  # in a run (waveform_notes says so)
    # the largest value of the part before t = 0, not w(0) alone: a pulse may cross zero
    # there (a diff_gaussian of t0 = 0, a modulated one a quarter period in) and still be
    # cut in half (its spectrum then 9 to 1000 times off)
    with np.errstate(all="ignore"):
        cut = float(np.max(np.abs(wf(np.linspace(start, 0.0, CUT_SAMPLES)))))
    if not cut > WEAKEST:   # NaN too
        return []
    # the least t0 that leaves no such part: the end of its rise, or the default if less
    least = min(wf.delay - start, type(wf)(**{**wf.model_dump(), "t0": None}).delay)
    how_far = "its full peak" if cut >= 0.995 else f"{cut:.2g} of its peak"
    return [f"sources[{i}].waveform.t0: the pulse reaches {how_far} by "
            "t = 0, where the run starts, so the run cuts it there and drives a pulse other "
            f"than the one its spectrum() describes; use a t0 of {least:.3g} s or more (or "
            "leave t0 out)"]


#: instants _cut_note reads a pulse at before t = 0 (a few a period of its carrier, where
#: its envelope spans hundreds of periods)
CUT_SAMPLES = 8193


def slowest_medium(scene, grid: YeeGrid) -> tuple[float, str]:
    """(refractive index, material name) of the slowest medium the grid's fields see: the
    background's or an object's (conductors left out), with eps_r over the axes of the
    grid's E components and mu_r over those of its H components (TMz's Ez sees eps_zz
    alone)."""
    from .voxelize import CONDUCTORS

    best = (1.0, scene.background)
    for name in dict.fromkeys([scene.background, *(o.material for o in scene.objects)]):
        if name in CONDUCTORS:
            continue
        m = scene.material(name)
        n = math.sqrt(max(m.eps_r[a] for a in grid.axes_seen("e")) *
                      max(m.mu_r[a] for a in grid.axes_seen("h")))
        if n > best[0]:
            best = (n, name)
    return best


#: where a waveform that drives nothing over the run is moved into it, by its type
_MOVE = {"samples": "its samples into the run (start)",
         "gaussian": "its pulse into the run (t0 or tau)",
         "diff_gaussian": "its pulse into the run (t0 or tau)",
         "ricker": "its pulse into the run (t0, or a higher frequency: it lasts about 2 / "
                   "frequency)",
         "modulated_gaussian": "its pulse into the run (t0, tau or frequency)",
         "sine": "its start into the run (a shorter ramp)"}

#: a modulated Gaussian whose carrier turns less than this fraction of a cycle over its
#: envelope's tau is a plain Gaussian (its frequency given in GHz or MHz where Hz go)
CARRIER_TURNS = 0.01


def _frequency_notes(i: int, wf, scene, grid: YeeGrid, driven: bool = True) -> list[str]:
    """The notes on one source's frequencies: a modulated Gaussian's carrier that turns
    less than CARRIER_TURNS of a cycle over its tau; its frequency (or, for a pulse without one,
    its spectrum's reach, where it falls to 1e-3 of its peak) at fewer than
    LEAST_CELLS_PER_WAVELENGTH cells a wavelength in the slowest medium the grid holds,
    along the coarsest of the axes a wave of that frequency can travel along (``wave_axes``;
    that part cannot propagate: it comes out as grid noise); else a pulse whose spectrum
    reaches past what the time step samples (half its rate), or samples closer than the
    time step."""
    from ..constants import C0

    n, medium = slowest_medium(scene, grid)
    inside = "" if n == 1.0 else f" in {medium!r} (refractive index {n:.3g})"

    def coarsest(freq: float) -> float:
        """The coarsest spacing along which a wave of ``freq`` travels (0: none does)."""
        return max((grid.steps[a] for a in wave_axes(grid, C0 / (freq * n))), default=0.0)

    f = getattr(wf, "frequency", None)
    if wf.type == "modulated_gaussian" and wf.tau is not None and \
            f * wf.tau < CARRIER_TURNS and _in_ghz(f, grid.dt):
        return [f"sources[{i}].waveform.frequency: a carrier of {f:.4g} Hz turns "
                f"{f * wf.tau:.2g} of a cycle over the envelope's tau of {wf.tau:.4g} s, so "
                "the pulse is a plain Gaussian, with no band around the carrier; give the "
                f"frequency in Hz ({f * 1e9:.6g} for {f:.6g} GHz), or use type = 'gaussian'"]
    if f is not None and C0 / (f * n) < LEAST_CELLS_PER_WAVELENGTH * coarsest(f):
        return [f"sources[{i}].waveform.frequency: {f:.4g} Hz gives "
                f"{C0 / (f * n) / coarsest(f):.2g} cells a wavelength{inside}, fewer than the "
                f"{LEAST_CELLS_PER_WAVELENGTH} the grid can carry (10 or more for accuracy); "
                "use smaller cells or a lower frequency"]
    if wf.type == "sine":   # its ramp's spread is small against its frequency
        return _dispersion_note(i, wf, n, inside, grid, "a lower frequency") if driven else []
    if wf.type == "samples":
        if wf.max_frequency() > 0.5 / grid.dt:
            return [f"sources[{i}].waveform.dt: samples {wf.dt:.4g} s apart, closer than "
                    f"the time step of {grid.dt:.4g} s: the run reads the waveform at its own "
                    f"instants and misses what lies between; resample it at {grid.dt:.4g} s "
                    "or more"]
        return _dispersion_note(i, wf, n, inside, grid, "samples of a narrower band") if \
            driven else []
    top = wf.max_frequency()
    if not top > 0:   # a pulse so long (tau past 5.7e307 s) that its reach underflows to 0
        return []
    wider = {"ricker": "a lower frequency", "modulated_gaussian": "a lower frequency or a "
             "wider pulse (tau)"}.get(wf.type, "a wider pulse (tau)")
    if top > 0.5 / grid.dt:   # not even the time step's
        return [f"sources[{i}].waveform: its {wf.type} spectrum reaches {top:.4g} Hz (1e-3 "
                f"of its peak), past the {0.5 / grid.dt:.4g} Hz that the time step of "
                f"{grid.dt:.4g} s samples, so the run samples an aliased pulse of a few "
                f"values; use {wider} or smaller cells"]
    if C0 / (top * n) < LEAST_CELLS_PER_WAVELENGTH * coarsest(top):
        return [f"sources[{i}].waveform: its {wf.type} spectrum reaches {top:.4g} Hz (1e-3 "
                f"of its peak), {C0 / (top * n) / coarsest(top):.2g} cells a "
                f"wavelength{inside}, "
                f"fewer than the {LEAST_CELLS_PER_WAVELENGTH} the grid can carry: that part "
                f"of the pulse cannot propagate and comes out as grid noise; use {wider} or "
                "smaller cells"]
    return _dispersion_note(i, wf, n, inside, grid, wider) if driven else []


def wave_axes(grid: YeeGrid, wave: float) -> list[int]:
    """The axes a wave of wavelength ``wave`` (m) can travel along: those of more than one
    cell (the fields vary along no other: a 3D run made 1D or 2D by one periodic cell of any
    spacing), leaving out a periodic axis shorter than the wavelength, which holds only
    waves uniform along it (any other is past its cutoff)."""
    return [a for a in range(3) if grid.cells[a] > 1 and math.isfinite(grid.steps[a]) and
            not (grid.periodic[a] and grid.cells[a] * grid.steps[a] < wave)]


def _dispersion_note(i: int, wf, n: float, inside: str, grid: YeeGrid,
                     wider: str) -> list[str]:
    """The note on a waveform whose significant frequencies (up to where its spectrum falls
    to SIGNIFICANT of its peak; a sine's own) travel more than SLOWEST_PHASE_ERROR slower
    than they should, in the slowest medium, along the coarsest axis a wave of that
    frequency can travel along (of more than one cell; a periodic axis shorter than the
    wavelength holds only waves uniform along it): the Yee grid's dispersion, which delays
    and spreads a pulse the more the farther it goes. Past the grid's cutoff (about pi
    cells a wavelength at small Courant numbers) such waves do not propagate at all."""
    from ..constants import C0

    f = significant_frequency(wf)
    if not f > 0:
        return []
    wave = C0 / (f * n)
    axes = wave_axes(grid, wave)
    if not axes:
        return []
    a = max(axes, key=lambda b: grid.steps[b])
    d = grid.steps[a]
    slow = phase_error(f, C0 / n, d, grid.dt)
    if not slow > SLOWEST_PHASE_ERROR:
        return []
    at = f"at its {f:.4g} Hz" if wf.type == "sine" else \
        f"at {f:.4g} Hz, where its {wf.type} spectrum falls to {SIGNIFICANT:g} of its peak,"
    cells = f"the grid's {wave / d:.2g} cells a wavelength{inside} along {'xyz'[a]}"
    if slow >= 1:
        how = ("are past the grid's cutoff: such waves do not propagate at all, and come out "
               "as grid noise")
    else:
        spread = "shifts its phase" if wf.type == "sine" else "delays and spreads a pulse"
        speed = "c" if n == 1.0 else "c / n"
        how = (f"carry waves {100 * slow:.1f}% slower than {speed} (the grid's dispersion, "
               f"which {spread} the more the farther it goes)")
    return [f"sources[{i}].waveform: {at} {cells} {how}; cells of at most {wave / 10:.3g} m "
            f"(10 a wavelength) keep it under {100 * SLOWEST_PHASE_ERROR:g}%, or use {wider}"]


def significant_frequency(wf) -> float:
    """The highest frequency (Hz) at which ``wf``'s spectrum is SIGNIFICANT of its peak or
    more (a sine's own frequency), from its closed form on a fine grid up to its reach
    (max_frequency, 1e-3 of its peak)."""
    if wf.type == "sine":
        return wf.frequency
    top = wf.max_frequency()
    points = 4001
    if wf.type == "samples" and len(wf.values) * points > SPECTRUM_WORK:
        points = SPECTRUM_WORK // len(wf.values)   # (each point sums every sample)
        if points < 101:
            return 0.0   # too many samples to say in a moment: no note
    f = np.linspace(0.0, top, points)
    with np.errstate(all="ignore"):
        mag = np.abs(wf.spectrum(f))
    if not np.all(np.isfinite(mag)) or not mag.max() > 0:
        return 0.0
    return float(f[np.flatnonzero(mag >= SIGNIFICANT * mag.max())[-1]])


def phase_error(f: float, v: float, d: float, dt: float) -> float:
    """How much slower than ``v`` (as a fraction) a wave of ``f`` Hz travels along an axis
    of cells ``d`` long at the time step ``dt``, by the Yee scheme's dispersion relation
    sin(k d / 2) / d = sin(pi f dt) / (v dt); 1 where it does not propagate."""
    s = d / (v * dt) * math.sin(math.pi * f * dt)
    if not s < 1:
        return 1.0
    k = 2.0 / d * math.asin(s)
    return 1.0 - 2 * math.pi * f / (k * v)


def in_cpml(scene, grid: YeeGrid, component: str, idx) -> str | None:
    """Where ``component``'s point at ``idx`` lies inside a CPML layer, which one and how
    deep ("the x_min CPML of 10 cells, 3 cells past its inner face"); else None. A point less
    than a cell past the inner face is left out: the layer's profiles start from zero there
    (sigma a cell in at (1/L)^3 of its peak at the default grading order of 3: 1e-3 in a
    layer of 10 cells), and a probe on the face has components half a cell on either side
    of it."""
    from .cpml import cpml_faces

    for a, side, face in cpml_faces(scene):
        p = idx[a] + OFFSETS[component][a]
        depth = p if side == "min" else grid.cells[a] - p
        if depth <= face.cells - 1:
            return (f"the {'xyz'[a]}_{side} CPML of {face.cells} cells, "
                    f"{face.cells - depth:g} cell{'s' if face.cells - depth != 1 else ''} "
                    "past its inner face")
    return None


def monitor_notes(scene, steps: int, grid: YeeGrid,
                  faces: dict[str, str] | None = None) -> tuple[str, ...]:
    """What a user should hear of the monitors before a run: one that records every more
    steps than the run has records nothing; a probe inside a CPML layer records the
    layer's stretched fields, not those of the medium. With ``faces`` (face_kinds'): a
    probe whose every component is held at zero at its point (on a PEC wall, inside a PEC
    or PMC object: held_at_zero), and a snapshot of E along a PEC wall (or one behind a
    CPML), record only zeros (but where a hard source of that component sits at the same
    point, which sets it every step)."""
    out = []
    hard = {(s.component, _node(grid, s.component, s)) for s in scene.sources
            if s.kind == "hard"}
    planes = {p.name: p for p in snapshot_plans(scene, grid)} if faces is not None else {}
    for i, (name, mon) in enumerate(zip(scene.monitor_names(), scene.monitors, strict=True)):
        if mon.every > steps:
            out.append(f"monitors[{i}] ({name!r}): records every {mon.every} steps, more "
                       f"than the run's {steps}, so it records nothing; lower its every")
        if not isinstance(mon, Probe):
            wall = _wall_of(planes[name], grid, faces) if name in planes else None
            if wall is not None and not any(c == mon.component and node[planes[name].axis]
                                            == planes[name].index for c, node in hard):
                out.append(f"monitors[{i}] ({name!r}): its plane lies on the {wall} wall, "
                           f"where {mon.component} is held at zero, so it records only "
                           "zeros; move it a cell in, or record a component normal to the "
                           "wall")
            continue
        comps = mon.components or grid.components
        nodes = {c: _node(grid, c, mon) for c in comps}
        if faces is not None and all(held_at_zero(scene, grid, c, nodes[c], faces)
                                     and (c, nodes[c]) not in hard for c in comps):
            out.append(f"monitors[{i}] ({name!r}): {', '.join(comps)} "
                       f"{'is' if len(comps) == 1 else 'are'} held at zero at the probe's "
                       "point (on a PEC wall, or inside a PEC or PMC object), so it records "
                       "only zeros; move it off the conductor")
            continue
        where = next(filter(None, (in_cpml(scene, grid, c, nodes[c])
                                   for c in comps)), None)
        if where:
            out.append(f"monitors[{i}] ({name!r}): the probe lies inside {where}, where the "
                       "fields are those of the absorbing layer, not of the medium; move it "
                       "out of the layer")
    return tuple(out)


def _wall_of(plan, grid: YeeGrid, faces: dict[str, str]) -> str | None:
    """The face ("x_min") whose PEC wall (or a CPML's, behind it) holds every point of a
    snapshot's plane at zero: E tangential to it, on its plane; else None."""
    if plan.component[0] != "e":
        return None
    for s, idx, kind in _tangential_walls(grid, plan.component, faces):
        if s == plan.axis and plan.index == idx and kind in ("pec", "cpml"):
            return f"{'xyz'[s]}_{'min' if idx == 0 else 'max'} {kind.upper()}"
    return None


def source_notes(scene, grid: YeeGrid, tables: dict[str, ComponentTable] | None,
                 steps: int | None = None, samples: list | None = None,
                 faces: dict[str, str] | None = None) -> tuple[str, ...]:
    """What a user should hear of the sources before a run: a soft source where its
    component is held at zero (inside PEC or PMC, or on a PEC wall) adds nothing (from
    ``tables``, or without them from the source's point alone, which ``faces`` then
    describes: held_at_zero); with ``steps``, waveform_notes' too (from ``samples``, where
    the caller has them)."""
    check_hard_points(scene, grid)
    sizes = [] if tables is None else None   # validate's: the storage note too (below)
    out = list(waveform_notes(scene, grid, steps, samples, sizes)) if steps is not None \
        else []
    if not any(src.amplitude != 0 for src in scene.sources):
        what = "none is given" if not scene.sources else "every amplitude is 0"
        out.append(f"sources: {what}, so nothing drives the fields: they stay zero, and "
                   "every monitor records zeros, unless set with stepper.set_field (they then "
                   "evolve from those values); add a source, or give one an amplitude")
    for i, src in enumerate(scene.sources):
        c = src.component
        idx = _node(grid, c, src)
        if tables is not None:
            row = tables[c].table[tables[c].ids[idx]]
            zero = row[SRC] == 0 if src.kind == "soft" else not row.any()
        else:
            zero = held_at_zero(scene, grid, c, idx, faces)
        backing = _cpml_backing(scene, grid, c, idx) if zero else None
        if zero and backing is not None:
            does = "adds nothing" if src.kind == "soft" else \
                "sets a field the wall does not carry"
            out.append(f"sources[{i}]: on the PEC wall behind the {backing} CPML, where {c} "
                       f"is held at zero, so it {does}; move it inside the domain, out of the "
                       "layer")
        elif zero and src.kind == "soft":
            out.append(f"sources[{i}]: a soft source where {c} is held at zero (inside a PEC "
                       "or PMC object, or on a PEC wall) adds nothing; move it off the "
                       "conductor")
        elif zero:
            out.append(f"sources[{i}]: a hard source where {c} is held at zero (inside a PEC "
                       "or PMC object, or on a PEC wall) sets a field the conductor does not "
                       "carry, and radiates only through the cells beside it; move it off "
                       "the conductor (into a gap, to feed one)")
        elif (where := in_cpml(scene, grid, c, idx)) is not None:
            out.append(f"sources[{i}]: inside {where}, where the layer absorbs and rescales "
                       "what the source radiates; move it out of the layer")
    if sizes:
        note = strength_note(_sources_bound(scene, grid, faces, sizes), steps, scene.run.dtype)
        out += [note] if note else []
    return tuple(out)


def _cpml_backing(scene, grid: YeeGrid, component: str, idx) -> str | None:
    """The CPML face ("x_max") whose backing PEC wall holds ``component``'s point at
    ``idx`` at zero, where one does; else None. Only E: an H point on the wall's plane is
    normal to it, which a PEC wall does not hold (what holds it there is an object)."""
    from .cpml import cpml_faces

    if component[0] != "e":
        return None

    for a, side, _face in cpml_faces(scene):
        p = idx[a] + OFFSETS[component][a]
        if p == (0 if side == "min" else grid.cells[a]):
            return f"{'xyz'[a]}_{side}"
    return None


def _sources_bound(scene, grid: YeeGrid, faces, sizes: list) -> float:
    """storage.field_bound's bound from the scene alone (``sizes``: waveform_notes'): a soft
    source adds its values times its point's source coefficient, a hard one sets them."""
    from .coefficients import material_rows
    from .voxelize import point_material

    peak = 0.0
    for src, (total, top) in zip(scene.sources, sizes, strict=True):
        c = src.component
        idx = _node(grid, c, src)
        if src.kind == "soft":
            if held_at_zero(scene, grid, c, idx, faces):
                continue
            m, mixtures = point_material(scene, grid, c, idx)
            total *= abs(float(material_rows(scene, c, grid.dt, grid.steps, mixtures)[m][SRC]))
        v = (total if src.kind == "soft" else top) * (2.0**H_SHIFT if c[0] == "h" else 1.0)
        if not math.isnan(v):   # inf: a sum past float's range, past any limit
            peak = max(peak, v)
    return peak


def check_hard_points(scene, grid: YeeGrid) -> None:
    """A one-line SetupError where a source meets a hard source of the same component at
    the point both snap to: the hard one sets the field there at every step, so a second
    hard one replaced the first, and a soft one added nothing or onto it by the order of
    the scene's list (silently, before)."""
    hard = {}
    for i, src in enumerate(scene.sources):
        if src.kind == "hard":
            hard.setdefault((src.component, _node(grid, src.component, src)), i)
    for j, src in enumerate(scene.sources):
        key = (src.component, _node(grid, src.component, src))
        i = hard.get(key)
        if i is not None and i != j:
            first, second = min(i, j), max(i, j)
            where = ", ".join(f"{v * 1e3:.4g}" for v in grid.point(*key)[:len(
                scene.grid.cells)])
            raise SetupError(f"sources[{second}]: at the point of sources[{first}] ("
                             f"{key[0]} at ({where}) mm), where a hard source sets {key[0]} "
                             "at every step, so the other is replaced or adds in the "
                             "order listed; remove one, or move it")


def _finite(i: int, src, t: np.ndarray, vals: np.ndarray) -> None:
    bad = np.flatnonzero(~np.isfinite(vals))
    if bad.size:
        raise SetupError(f"sources[{i}]: its {src.waveform.type} waveform times its "
                         f"amplitude is not finite at t = {t[bad[0]]:.4g} s; bring the "
                         f"waveform's parameters (sources[{i}].waveform) and the amplitude "
                         "into range")


def _source_chunks(i: int, src, grid: YeeGrid, steps: int, chunk: int):
    """(times, amplitude x waveform) of source ``i`` at the instants a run of ``steps``
    samples it, ``chunk`` steps at a time; a one-line SetupError where a value is not
    finite."""
    for start in range(0, steps, chunk):
        t = sample_times(src.component, src.kind, min(steps, start + chunk), grid.dt, start)
        with np.errstate(all="ignore"):   # overflow is found below, in one line
            vals = src.amplitude * src.waveform(t)
        _finite(i, src, t, vals)
        yield t, vals


def source_samples(scene, grid: YeeGrid, steps: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(times, amplitude x waveform) of each source at the instants a run of ``steps``
    samples it, every step; a one-line SetupError where a value is not finite. Evaluated
    NOTE_CHUNK steps at a time into the two arrays: a waveform's temporaries over every
    step at once took several times their memory (1e9 steps: tens of GB)."""
    out = []
    for i, src in enumerate(scene.sources):
        t, vals = np.empty(steps), np.empty(steps)
        at = 0
        for tc, vc in _source_chunks(i, src, grid, steps, NOTE_CHUNK):
            t[at:at + len(tc)], vals[at:at + len(tc)] = tc, vc
            at += len(tc)
        out.append((t, vals))
    return out


def source_groups(scene, grid: YeeGrid, steps: int, tables: dict[str, ComponentTable],
                  samples: list | None = None) -> list[SourceGroup]:
    """The sources merged by component and kind, with their values at every step
    (``samples``: source_samples', where the caller has them)."""
    merged: dict[tuple[str, str], dict[int, np.ndarray]] = {}
    points: dict[tuple[str, str], dict[int, tuple]] = {}
    if samples is None:
        samples = source_samples(scene, grid, steps)
    for i, (src, (t, vals)) in enumerate(zip(scene.sources, samples, strict=True)):
        c = src.component
        idx = _node(grid, c, src)
        flat = grid.flat(idx)
        if src.kind == "soft":
            with np.errstate(all="ignore"):
                vals = vals * tables[c].table[tables[c].ids[idx], SRC]
            _finite(i, src, t, vals)
        bucket = merged.setdefault((c, src.kind), {})
        if src.kind == "soft" and flat in bucket:
            bucket[flat] = bucket[flat] + vals     # two soft sources at one point add up
        else:
            bucket[flat] = vals                    # a later hard source wins
        points.setdefault((c, src.kind), {})[flat] = grid.point(c, idx)
    groups = []
    for (c, kind), bucket in merged.items():
        flats = np.array(sorted(bucket), dtype=np.int64)
        values = np.stack([bucket[f] for f in flats], axis=1)
        groups.append(SourceGroup(c, kind, flats, values,
                                  [points[(c, kind)][f] for f in flats]))
    return groups


def probe_groups(scene, grid: YeeGrid) -> list[ProbeGroup]:
    names = scene.monitor_names()
    by_every: dict[int, list[Channel]] = {}
    for name, mon in zip(names, scene.monitors, strict=False):
        if not isinstance(mon, Probe):
            continue
        for c in mon.components or grid.components:
            idx = _node(grid, c, mon)
            by_every.setdefault(mon.every, []).append(
                Channel(name, c, idx, grid.flat(idx), grid.point(c, idx), mon.every))
    groups = []
    order = {c: i for i, c in enumerate(grid.components)}
    for every in sorted(by_every):
        chans = sorted(by_every[every], key=lambda ch: order[ch.component])
        group = ProbeGroup(every, chans)
        start = 0
        for c in grid.components:
            flats = [ch.flat for ch in chans if ch.component == c]
            if flats:
                group.reads[c] = (np.array(flats, dtype=np.int64),
                                  slice(start, start + len(flats)))
                start += len(flats)
        groups.append(group)
    return groups


def snapshot_plans(scene, grid: YeeGrid) -> list[SnapshotPlan]:
    plans = []
    for name, mon in zip(scene.monitor_names(), scene.monitors, strict=False):
        if not isinstance(mon, Snapshot):
            continue
        c = mon.component
        ax = "xyz".index(mon.axis)
        ext = grid.extent(c)
        if grid.mode != "3d":
            index = 0
        elif mon.index is not None:
            index = min(mon.index, ext[ax] - 1)
        else:
            pos = mon.position if mon.position is not None else 0.5 * grid.cells[ax] * \
                grid.steps[ax]
            p = [0.0, 0.0, 0.0]
            p[ax] = pos
            index = grid.nearest(c, p)[ax]
        region = [slice(0, e) for e in ext]
        region[ax] = index
        inplane = [a for a in range(3) if a != ax]
        coords = tuple(grid.coords(c, a)[: ext[a]] for a in inplane)
        position = 0.0 if grid.mode != "3d" else (index + OFFSETS[c][ax]) * grid.steps[ax]
        plans.append(SnapshotPlan(name, c, ax, index, mon.every, tuple(region), coords,
                                  position))
    return plans
