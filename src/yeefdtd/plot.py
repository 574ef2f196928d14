"""Plots of a result, written as PNG files: probe time series with their spectra, and
snapshot slices with the geometry outlined."""

from __future__ import annotations

import math
import re
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .build.voxelize import material_map
from .constants import UNITS
from .spectra import spectrum


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(path) -> Path:
    """``path`` for a plot: '.png' added where it has no suffix, its directory made; a one-line
    ValidationError for a suffix matplotlib does not write or a path that cannot be written."""
    from .exceptions import ValidationError
    from .io import make_directory, output_path

    path = Path(output_path(path))
    if path.suffix == "":
        path = path.with_name(path.name + ".png")
    from matplotlib.backend_bases import FigureCanvasBase

    if path.suffix.lower().lstrip(".") not in FigureCanvasBase.get_supported_filetypes():
        raise ValidationError(f"path: {path} should end in an image type matplotlib writes "
                              f"(.png, .svg, .pdf...)")
    make_directory(path.parent, f"for {path.name}")
    return path


def _a_result(result, where: str) -> None:
    """A one-line ValidationError unless ``result`` is a Result whose parts save() would
    write (the same checks: a probe's times as many as its values, a snapshot's frames of
    its coordinates' shape, known components and axes), so that a plot fails naming the
    part, not inside matplotlib or NumPy."""
    from .exceptions import ValidationError
    from .results import Result

    if not isinstance(result, Result):
        raise ValidationError(f"{where}: result must be a Result (from run() or load()), not "
                              f"{type(result).__name__}")
    result._check()


def _recorded(probe) -> bool:
    """Whether a probe recorded anything (a run shorter than its ``every``: nothing)."""
    return any(len(v) for v in probe.data.values())


def plot_probe(result, name: str, path: str | Path) -> Path:
    """Time series (top) and magnitude spectrum (bottom) of every component of a probe."""
    _a_result(result, "plot_probe")
    return _probe_figure(result, name, path)


def _probe_figure(result, name: str, path: str | Path) -> Path:
    """plot_probe of a result already checked (plot_result checks it once for all)."""
    from .exceptions import ValidationError

    probe = result.probes[name]
    if not _recorded(probe):   # empty axes were written
        raise ValidationError(f"probe {name!r} recorded nothing (the run ended before its "
                              "first sample)")
    path = _png(path)
    plt = _pyplot()
    fig, (ax_t, ax_f) = plt.subplots(2, 1, figsize=(8, 6.5), constrained_layout=True)
    with _closed_on_error(plt, fig):   # a record refused on the way: no figure left open
        shown, labels = [], []
        for c, v in probe.data.items():
            scale = 1.0 if c[0] == "e" else 376.730313668  # H shown as eta0 H, in V/m
            label = c if c[0] == "e" else f"{c} x eta0"
            with np.errstate(over="ignore", invalid="ignore"):
                shown.append(_finite(np.asarray(v, dtype=float) * scale))
            labels.append(label)
        # values near float's largest (a diverged float64 run's) are shown over a power of ten,
        # which the axis names: their range and the spectrum's overflowed matplotlib's limits
        power, div = _shown_power([a for a in shown if a.size])
        for c, label, a in zip(probe.data, labels, shown, strict=True):
            a = a / div
            ax_t.plot(probe.times[c] * 1e9, a, label=label, lw=1)
            if len(a) > 1 and np.any(a) and np.isfinite(a).all():
                # padded 4 times over for a smooth curve, but not a record of millions of
                # samples, whose own bins are finer than a plot shows (and whose padded FFT
                # took gigabytes)
                f, mag = spectrum(a, probe.times[c], pad=4 if len(a) <= PADDED_SAMPLES else 1)
                if np.isfinite(mag).all():
                    ax_f.semilogy(f / 1e9, mag, label=label, lw=1)
        ax_t.set_xlabel("time (ns)")
        ax_t.set_ylabel(f"field ({power}V/m)")
        ax_t.set_title(f"probe {name!r}")
        ax_t.legend(loc="upper right", fontsize="small")
        ax_f.set_xlabel("frequency (GHz)")
        ax_f.set_ylabel(f"|spectrum| ({power}V s/m)")
        if ax_f.lines:
            ax_f.legend(loc="upper right", fontsize="small")
            top = max(line.get_ydata().max() for line in ax_f.lines)
            ax_f.set_ylim(top * 1e-6, top * 2)
            # show the band that carries energy: up to where every curve is 1e-4 below the top,
            # and no farther than 1.5 times where the sources' spectra end (a record cut off
            # while it rings leaks all the way to its Nyquist frequency: a cavity's plot of
            # 0 to 25 GHz spread to 320)
            f_hi = max(line.get_xdata()[line.get_ydata() > 1e-4 * top].max(initial=0.0)
                       for line in ax_f.lines)
            # (not past where the records' own strongest bin lies: fields set by set_field
            # ring at their own frequencies, whatever the sources drive)
            strongest = max(line.get_xdata()[np.argmax(line.get_ydata())]
                            for line in ax_f.lines)
            x_hi = 1.2 * f_hi
            driven = _sources_reach(result)
            if driven > 0:
                x_hi = min(x_hi, max(1.5 * driven / 1e9, 1.2 * strongest))
            if x_hi > 0:
                ax_f.set_xlim(0, x_hi)
    return _save(fig, path)


def _sources_reach(result) -> float:
    """The highest frequency (Hz) the result's sources reach (their spectra's 1e-3 of their
    peaks), or 0 where none says (no sources, a scene that does not parse)."""
    from .exceptions import YeeError

    try:
        sources = result.scene.sources
        return max((float(s.waveform.max_frequency()) for s in sources if s.amplitude != 0),
                   default=0.0)
    except (YeeError, ValueError, ArithmeticError):   # a plot does without it
        return 0.0


#: the longest record whose spectrum a probe's plot pads (see _probe_figure)
PADDED_SAMPLES = 1 << 22


def _shown_power(arrays: list[np.ndarray]) -> tuple[str, float]:
    """(what the axis's unit is to start with, the divisor of the values shown): "" and 1,
    or where the largest finite value is past 1e300, that value's power of ten (an axis of a
    range near float's largest overflows matplotlib's limits)."""
    top = max((float(np.nanmax(np.abs(a))) for a in arrays if np.isfinite(a).any()),
              default=0.0)
    if top <= 1e300:
        return "", 1.0
    k = math.floor(math.log10(top))
    return f"1e{k} ", 10.0**k


def _finite(a: np.ndarray) -> np.ndarray:
    """``a`` with its non-finite values (a diverged run's) as NaN, which plots leave out."""
    return np.where(np.isfinite(a), a, np.nan)


def _busiest_frame(frames: np.ndarray) -> int:
    """The frame where the field covers the most area (points above 5% of a robust peak)."""
    flat = np.nan_to_num(np.abs(frames.reshape(len(frames), -1)), nan=0.0, posinf=0.0)
    threshold = 0.05 * np.percentile(flat, 99.5)
    return int(np.argmax((flat > threshold).sum(axis=1)))


def plot_snapshot(result, name: str, path: str | Path, frame: int | None = None) -> Path:
    """One frame of a snapshot as an image, with material boundaries drawn over it.

    By default the frame where the field is strongest; colours saturate at the 99.5th
    percentile of |field| so that a source's own cell does not wash out the waves.
    """
    _a_result(result, "plot_snapshot")
    return _snapshot_figure(result, name, path, frame)


def _snapshot_figure(result, name: str, path: str | Path, frame: int | None = None) -> Path:
    """plot_snapshot of a result already checked (plot_result checks it once for all)."""
    from .exceptions import ValidationError

    snap = result.snapshots[name]
    if len(snap.frames) == 0:
        raise ValidationError(f"snapshot {name!r} holds no frames (the run ended before the "
                              "first)")
    if frame is not None and (isinstance(frame, bool) or not isinstance(frame, (int, np.integer))
                              or not -len(snap.frames) <= frame < len(snap.frames)):
        raise ValidationError(f"frame: a whole number from 0 to {len(snap.frames) - 1} for "
                              f"snapshot {name!r}, not {frame!r}")
    path = _png(path)
    plt = _pyplot()
    frame = _busiest_frame(snap.frames) if frame is None else frame
    data = _finite(snap.frames[frame].astype(float))
    fig, ax = plt.subplots(figsize=(7, 6), constrained_layout=True)
    with _closed_on_error(plt, fig):   # a record refused on the way: no figure left open
        power, div = _shown_power([data])
        _snapshot_axes(fig, ax, result, name, snap, data / div, _limit(data / div), power,
                       frame)
    return _save(fig, path)


def _limit(data: np.ndarray) -> float:
    """The colour scale's end: the 99.5th percentile of |data| (a source's own cell would
    wash out the waves), its largest where that is 0, 1 where all are."""
    finite = np.abs(data[np.isfinite(data)])
    lim = (float(np.percentile(finite, 99.5)) or float(finite.max())) if finite.size else 1.0
    return lim or 1.0


def _snapshot_axes(fig, ax, result, name: str, snap, data, lim: float, power: str,
                   frame: int):
    """A snapshot's frame ``frame`` (``data``, over the power of ten ``power`` names) drawn
    on ``ax``, with its colour bar, the objects' outlines and its title; the mesh, whose
    values an animation sets frame by frame."""
    u, v = snap.coords
    axes = [a for a in "xyz" if a != snap.axis]
    mesh = ax.pcolormesh(u * 1e3, v * 1e3, data.T, cmap="RdBu_r", vmin=-lim, vmax=lim,
                         shading="nearest")
    fig.colorbar(mesh, ax=ax, label=f"{snap.component} ({power}{UNITS[snap.component]})",
                 extend="both")
    from .exceptions import YeeError

    try:
        scene = result.scene
    except YeeError:   # a scene an earlier version stored that today's rules refuse
        scene = None   # (its frames are still the run's): no outline
    if scene is not None and scene.objects:
        _outline(ax, scene, axes, snap)
    ax.set_xlabel(f"{axes[0]} (mm)")
    ax.set_ylabel(f"{axes[1]} (mm)")
    ax.set_aspect("equal")
    ax.set_title(_snapshot_title(result, name, snap, frame))
    return mesh


def _snapshot_title(result, name: str, snap, frame: int) -> str:
    # enough digits to tell planes half a cell apart (124 mm named the plane at 123.5)
    where = "" if snap.axis == "z" and _is_2d(result) else \
        f", {snap.axis} = {snap.position * 1e3:.6g} mm"
    return f"{name}: {snap.component} at t = {snap.times[frame] * 1e9:.4g} ns{where}"


#: the most frames an animation shows (a longer record's are taken evenly through it)
MAX_FRAMES = 150


#: an animation's frames a second where none is asked for
FPS = 10.0


def animate_snapshot(result, name: str, path: str | Path, fps: float = FPS,
                     max_frames: int = MAX_FRAMES) -> Path:
    """A snapshot's frames as an animated GIF (``path`` ends in .gif), at ``fps`` frames a
    second, at most ``max_frames`` of them (taken evenly through a longer record), on one
    colour scale: the 99.5th percentile of |field| over the frames shown. Written through
    a temporary file, as every plot."""
    from .exceptions import ValidationError
    from .io import output_path

    _a_result(result, "animate_snapshot")
    snap = result.snapshots[name]
    if len(snap.frames) == 0:
        raise ValidationError(f"snapshot {name!r} holds no frames (the run ended before the "
                              "first)")
    if isinstance(fps, bool) or not isinstance(fps, (int, float, np.integer, np.floating)) \
            or not 0.1 <= fps <= 50:
        raise ValidationError(f"fps: frames a second, a number from 0.1 to 50 (GIF counts "
                              f"time in hundredths of a second), not {fps!r}")
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) or \
            not 2 <= max_frames <= 10_000:
        raise ValidationError(f"max_frames: a whole number from 2 to 10000, not "
                              f"{max_frames!r}")
    path = Path(output_path(path))
    if path.suffix.lower() != ".gif":
        raise ValidationError(f"path: {path} should end in .gif")
    picked = np.unique(np.linspace(0, len(snap.frames) - 1, min(len(snap.frames),
                                                                 int(max_frames))).round()
                       .astype(int))
    # the scale from 20 frames or so through the record; each frame converted as drawn (all
    # of 500 frames of 1001 x 1001 in float64 at once took 2.3 GB beyond the result's)
    sample = [_finite(snap.frames[k].astype(float)) for k in picked[:: max(1, len(picked)
                                                                         // 20)]]
    power, div = _shown_power(sample)
    lim = _limit(np.stack(sample) / div)
    del sample
    plt = _pyplot()
    from PIL import Image

    fig, ax = plt.subplots(figsize=(6, 5.2), constrained_layout=True)
    images = []
    try:
        mesh = _snapshot_axes(fig, ax, result, name, snap,
                              _finite(snap.frames[picked[0]].astype(float)) / div, lim,
                              power, picked[0])
        for k in picked:
            data = _finite(snap.frames[k].astype(float)) / div
            mesh.set_array(data.T.ravel())
            ax.set_title(_snapshot_title(result, name, snap, k))
            fig.canvas.draw()
            rgba = np.asarray(fig.canvas.buffer_rgba())
            # a palette of 256 colours a frame: a fifth of the memory of RGB
            images.append(Image.fromarray(rgba[..., :3]).quantize(colors=256))
    finally:
        plt.close(fig)

    # GIF counts a frame's time in hundredths of a second: whole ones, spread so that each
    # frame's sum keeps to the rate asked (30 a second: 30, 40, 30 ms...; each 20 or more)
    ends = np.round(np.arange(1, len(images) + 1) * 100 / fps).astype(int)
    hundredths = np.maximum(np.diff(ends, prepend=0), 2)

    def write(tmp: Path) -> None:
        images[0].save(tmp, format="GIF", save_all=True, append_images=images[1:],
                       duration=[int(h) * 10 for h in hundredths], loop=0)

    return _written(path, write)


def bscan_traces(result) -> dict[str, list[str]]:
    """A B-scan's probes (``yeefdtd.bscan``): each probe's name, with the names of its
    traces' records in order; empty for a result that is no B-scan."""
    from .bscan import trace_name

    count = (result.stats.get("bscan") or {}).get("traces") if \
        isinstance(result.stats, dict) else None
    if not isinstance(count, int) or count < 1:
        return {}
    out: dict[str, list[str]] = {}
    for name in result.probes:
        base = name.rpartition("[")[0]
        if base and name == trace_name(base, 0) and all(
                trace_name(base, k) in result.probes for k in range(count)):
            out[base] = [trace_name(base, k) for k in range(count)]
    return out


def plot_bscan(result, probe: str, component: str, path: str | Path,
               remove_mean: bool = False) -> Path:
    """A B-scan (``yeefdtd.bscan``) of one probe's component as an image: trace by trace
    (the probe's position along the axis it moved most, mm) against time (ns, down). The
    colour scale saturates at the 99.5th percentile of |field less the mean trace|: the
    direct wave from the transmitter, the same in every trace, saturates and the echoes
    show (scaled by the field itself, an echo of a buried target came to 0.03 of the
    scale). ``remove_mean``: show the field less the mean trace (background removal)."""
    from .exceptions import ValidationError

    _a_result(result, "plot_bscan")
    if not isinstance(remove_mean, (bool, np.bool_)):
        raise ValidationError(f"remove_mean: True or False, not {remove_mean!r}"[:200])
    names = bscan_traces(result).get(probe)
    if names is None:
        raise ValidationError(f"probe {probe!r}: not a B-scan's probe in this result (it has "
                              f"{', '.join(repr(p) for p in bscan_traces(result)) or 'none'})")
    records = [result.probes[n] for n in names]
    if component not in records[0].data:
        raise ValidationError(f"component {component!r}: probe {probe!r} recorded "
                              f"{', '.join(records[0].data)}")
    rows = max(len(r.data[component]) for r in records)
    if rows == 0:
        raise ValidationError(f"probe {probe!r} recorded nothing")
    data = np.full((len(records), rows), np.nan)   # (a diverged scan's last trace: shorter)
    for k, r in enumerate(records):
        data[k, :len(r.data[component])] = _finite(np.asarray(r.data[component], dtype=float))
    longest = max(records, key=lambda r: len(r.data[component]))
    times = longest.times[component] * 1e9
    where = np.array([r.positions[component] for r in records], dtype=float)
    axis = int(np.argmax(np.abs(where[-1] - where[0])))
    along = where[:, axis] * 1e3
    path = _png(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 6), constrained_layout=True)
    with _closed_on_error(plt, fig):
        power, div = _shown_power([data])
        data = data / div
        rest = data - np.nanmean(data, axis=0)   # what differs from trace to trace
        shown = rest if remove_mean else data
        top = np.nanmax(np.abs(data)) if np.isfinite(data).any() else 0.0
        lim = _limit(rest) if np.nanmax(np.abs(rest), initial=0.0) > 1e-9 * top else \
            _limit(shown)
        mesh = ax.pcolormesh(along, times, shown.T, cmap="gray", vmin=-lim, vmax=lim,
                             shading="nearest")
        fig.colorbar(mesh, ax=ax, label=f"{component} ({power}{UNITS[component]})",
                     extend="both")
        ax.invert_yaxis()
        ax.set_xlabel(f"{probe}'s {'xyz'[axis]} (mm)")
        ax.set_ylabel("time (ns)")
        ax.set_title(f"B-scan of {probe!r}: {component}, {len(records)} traces"
                     + (", less the mean trace" if remove_mean else ""))
    return _save(fig, path)


#: outline samples a cell along each axis of a snapshot's plane: OUTLINE_SAMPLES up to
#: OUTLINE_POINTS samples, 2 up to OUTLINE_POINTS cells, 1 on larger planes
OUTLINE_SAMPLES = 4
OUTLINE_POINTS = 4_000_000


def _outline(ax, scene, axes: list[str], snap) -> None:
    """The objects' boundaries on a snapshot's plane, drawn where they lie: from the
    materials sampled OUTLINE_SAMPLES times a cell, between the grid's planes and its half
    planes, so that a face on either lies halfway between two samples, where the contour
    goes (sampled at the component's own points, faces on them were drawn half a cell out,
    and a box looked one cell longer in one component's plot than another's)."""
    from .build.model import make_grid

    grid = make_grid(scene)
    inplane = ["xyz".index(a) for a in axes]
    n = [grid.cells[a] for a in inplane]
    # an even number a cell puts the samples off the planes and the half planes alike (3
    # put a face on a half plane a third of a cell off); on planes past OUTLINE_POINTS
    # cells (2000 x 2000), one a cell, at the cells' centres: faces on half planes then
    # drawn half a cell off, a four-thousandth of such a plot's width or less
    fit = OUTLINE_POINTS / (n[0] * n[1])
    per = OUTLINE_SAMPLES if OUTLINE_SAMPLES**2 <= fit else 2 if fit >= 1 else 1
    coords = [(np.arange(k * per) + 0.5) / per * grid.steps[a] for k, a in zip(n, inplane,
                                                                            strict=True)]
    pts = [None, None, None]
    pts[inplane[0]] = coords[0][:, None]
    pts[inplane[1]] = coords[1][None, :]
    pts["xyz".index(snap.axis)] = np.array(snap.position)
    mats = material_map(scene, *pts, grid=grid)   # periodic images too
    if mats.min() != mats.max():
        for m in np.unique(mats):
            ax.contour(coords[0] * 1e3, coords[1] * 1e3, (mats == m).T.astype(float),
                       levels=[0.5], colors="k", linewidths=0.8)


def _is_2d(result) -> bool:
    """Whether the result's grid is 2D, from its stored scene as stored (not validated
    again: an earlier version's scene may break a rule added since)."""
    import json

    try:
        return json.loads(result.scene_json)["grid"].get("mode", "3d") != "3d"
    except (ValueError, KeyError, TypeError, AttributeError):
        return False


@contextmanager
def _closed_on_error(plt, fig):
    """Closes ``fig`` where the drawing raises (a record refused: uneven times, a damaged
    scene): pyplot keeps every figure it made open until closed, and a loop or a notebook
    that met such records piled them up past matplotlib's warning at 20."""
    try:
        yield
    except BaseException:
        plt.close(fig)
        raise


def _save(fig, path: Path) -> Path:
    """``fig`` written to ``path`` in the format its suffix names (.png, .svg, .pdf...;
    through a temporary file renamed at the end, so a file already there stays whole where
    writing fails) and closed; an OSError names ``path``."""
    import matplotlib.pyplot as plt

    kind = Path(path).suffix.lower().lstrip(".")   # the temporary name's suffix is .part
    try:
        _written(path, lambda tmp: fig.savefig(tmp, dpi=110, format=kind))
    finally:
        plt.close(fig)
    return path


def _written(path: Path, write) -> Path:
    """``write`` through a temporary file renamed onto ``path`` (io.write_atomic), an
    OSError naming ``path``."""
    from .io import one_line, write_atomic

    try:
        return write_atomic(Path(path), write)
    except OSError as exc:
        raise OSError(exc.errno, one_line(exc), str(path)) from None


def plot_result(result, directory: str | Path, stem: str) -> list[Path]:
    """Every probe and snapshot of ``result`` as PNG files named ``<stem>_<kind>_<name>``;
    a B-scan's probes as an image of each component, ``<stem>_bscan_<name>_<component>``."""
    from .exceptions import ValidationError
    from .io import check_writable

    _a_result(result, "plot_result")
    if not isinstance(stem, str) or not stem or "/" in stem or "\0" in stem:
        raise ValidationError(f"stem: the start of the plots' file names (text without a "
                              f"slash), not {stem!r}"[:200])
    directory = check_writable(directory, "directory", directory=True)
    directory.mkdir(parents=True, exist_ok=True)   # (named as a directory: no note)
    out, what = [], "the scene"
    scans = bscan_traces(result)
    traced = {n for names in scans.values() for n in names}
    try:
        for name, names in scans.items():   # a B-scan: an image a component, not a trace's
            what = f"probe {name!r}"
            for c in result.probes[names[0]].data:
                if len(result.probes[names[0]].data[c]):
                    out.append(plot_bscan(result, name, c, directory / _file_name(
                        f"{stem}_bscan_{name}_{c}")))
        for name, probe in result.probes.items():
            what = f"probe {name!r}"
            if name not in traced and _recorded(probe):   # (an empty one: unplotted())
                out.append(_probe_figure(result, name,
                                         directory / _file_name(f"{stem}_probe_{name}")))
        for name, snap in result.snapshots.items():
            what = f"snapshot {name!r}"
            if len(snap.frames):
                out.append(_snapshot_figure(result, name,
                                            directory / _file_name(f"{stem}_snapshot_{name}")))
    except ValidationError as exc:   # what in the result cannot be plotted, named
        raise ValidationError(f"{what}: {exc}") from None
    return out


#: the most bytes of a file's name on the usual file systems (ext4, XFS, APFS, NTFS's 255
#: UTF-16 units hold at least as many characters)
NAME_MAX = 255


def _file_name(base: str, suffix: str = ".png") -> str:
    """``base`` + ``suffix`` ('.png' or '.gif'), or where that passes NAME_MAX bytes in
    UTF-8, as much of ``base`` as fits, whole characters, then '~' and 8 hex digits of its
    CRC-32: a result's monitor names took up to 64 characters of 4 bytes before they took
    64 bytes, and a long output name's stem adds to them (the plot failed, with the others
    after it)."""
    import zlib

    raw = base.encode("utf-8", "surrogatepass")
    if len(raw) + len(suffix) <= NAME_MAX:
        return base + suffix
    tag = f"~{zlib.crc32(raw):08x}{suffix}"
    cut = raw[:NAME_MAX - len(tag)].decode("utf-8", "ignore")   # (a character cut: dropped)
    return cut + tag


#: the tag a cut name ends in (_file_name), and the bytes of its head: NAME_MAX less the
#: tag, less up to 3 bytes of a character cut
_CUT_TAG = re.compile(r"(.*)~[0-9a-f]{8}\.(?:png|gif)", re.S)
_CUT_HEAD = NAME_MAX - len("~00000000.png") - 3


def _cut_head(name: str) -> str | None:
    """The head of ``name`` where _file_name cut it to fit (the start of the base it was
    made from), else None."""
    cut = _CUT_TAG.fullmatch(name)
    if cut is None or len(cut[1].encode("utf-8", "surrogatepass")) < _CUT_HEAD:
        return None
    return cut[1]


def unplotted(result) -> list[str]:
    """What plot_result leaves out of ``result``, for a note: probes and snapshots that
    recorded nothing (a run shorter than their ``every``), and the final fields, which are
    arrays to read, not plots."""
    _a_result(result, "unplotted")
    scans = bscan_traces(result)   # a B-scan's probe: named once, not once a trace
    traced = {n: base for base, names in scans.items() for n in names}
    quiet = {base: p for base, names in scans.items()
             for p in [result.probes[names[0]]] if not _recorded(p)}
    out = [f"B-scan probe {name!r} recorded nothing" for name in quiet]
    out += [f"{kind} {name!r} recorded nothing" for kind, items in
            (("probe", {n: p for n, p in result.probes.items()
                        if n not in traced and not _recorded(p)}),
             ("snapshot", {n: s for n, s in result.snapshots.items() if not len(s.frames)}))
            for name in items]
    if result.fields is not None:
        out.append("the final fields are arrays, not plots (yeefdtd.load(path).fields)")
    return out
