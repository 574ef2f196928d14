"""The host memory a run takes, estimated from the scene alone.

``yeefdtd validate`` says it before a run. Nothing here allocates an array of the grid (the
objects are looked at through voxelize's nearest points and corners), so a scene of 2^40
cells is estimated as fast as one of 8. It counts what the NumPy backend holds through the
run (tests/unit/test_estimates.py compares it with NumpyStepper.memory_bytes) and what the
model and the result hold beside it.
"""

from __future__ import annotations

import math

import numpy as np

from .coefficients import CB, CC, SELF, rows_reached, update_box
from .cpml import make_slabs
from .grid import YeeGrid, curl_axes
from .storage import STORAGE16, compute_dtype
from .voxelize import full_ranges

#: the parts of an estimate, in the order they are shown, with what shrinks each
PARTS = {
    "fields": ("fields", "use fewer or larger cells"),
    "coefficients": ("coefficients", "use fewer or larger cells"),
    "ids": ("material ids", "use fewer or larger cells"),
    "cpml": ("CPML", "use thinner CPML layers, or fewer or larger cells"),
    "scratch": ("scratch", "use fewer or larger cells"),
    "sources": ("source values", "run fewer steps (a source's value is kept for every step)"),
    "records": ("records", "record less: a larger every, fewer probe components or "
                "snapshots, or fewer steps"),
}


def _uniform(rows, column: int) -> bool:
    """Whether every row has the same value in ``column`` (the NumPy backend then keeps one
    number, not an array)."""
    return bool((rows[:, column] == rows[0, column]).all())


def run_memory(scene, grid: YeeGrid, steps: int, dtype: str, faces: dict[str, str],
               threads: int | None = None) -> dict:
    """Bytes a run of ``steps`` steps of ``scene`` holds on the host in ``dtype`` on
    ``threads`` threads (default: the NumPy backend's default), by part (the keys of
    PARTS):

    * fields: an array of the grid's nodes per component, in the arithmetic dtype (float32
      for 16-bit storage, which the NumPy backend emulates);
    * coefficients: a component's update coefficients where they differ from point to
      point, over its box (coefficients.update_box: outside it the background's, as
      numbers);
    * ids: each component's material ids, 8 or 16 bits a node;
    * cpml: each CPML term's auxiliary values, its coefficients where they differ and its
      slab meets the component's box, its profiles (spread over all axes but the one its
      chunks are cut along);
    * scratch: an array of the largest chunk and one of the largest CPML chunk for each
      thread (and the two of 16-bit rounding, of a chunk each);
    * sources: each source's value at every step, in float64 (the model) and in dtype;
    * records: probe and snapshot records in dtype, and at the end their copy as collected
      (which the result takes: a snapshot's frames whole, a probe's series a column each,
      copied once more) with their times.
    """
    from ..backends.numpy.stepper import (
        cpml_spans,
        default_threads,
        round_spans,
        scratch_shape,
    )

    threads = default_threads() if threads is None else threads
    size = compute_dtype(dtype).itemsize
    comps = grid.components
    nodes = grid.num_nodes
    slabs = make_slabs(scene, grid)
    out = dict.fromkeys(PARTS, 0)
    out["fields"] = len(comps) * nodes * size
    boxes = {c: update_box(scene, grid, c, faces)[1] for c in comps}
    tasks, chunk, second = scratch_shape(grid, slabs, threads, boxes)
    out["scratch"] = tasks * (chunk + second) * size
    if dtype in STORAGE16:
        pieces, cells = round_spans(nodes, threads)
        out["scratch"] += len(pieces) * cells * (2 + 4)
    rows_of = {}
    for c in comps:
        rows_of[c] = rows_reached(scene, grid, c, full_ranges(grid, c), faces)
        if boxes[c] is None:   # the background's coefficients, as numbers
            continue
        rows = rows_reached(scene, grid, c, boxes[c], faces)
        b, cc = curl_axes(c)
        other = "h" if c[0] == "e" else "e"
        columns = [SELF] + [col for axis, src, col in ((b, other + "xyz"[cc], CB),
                                                      (cc, other + "xyz"[b], CC))
                            if src in comps and grid.shape[axis] > 1]
        out["coefficients"] += sum(not _uniform(rows, col) for col in columns) * \
            math.prod(hi - lo for lo, hi in boxes[c]) * size
    # component_table's ids: 8 bits where its distinct rows (those reached, and the zero
    # row) number 256 or fewer; rows_reached may count rows the table lacks, never fewer
    for c in comps:
        rows = np.unique(np.vstack([rows_of[c], np.zeros((1, rows_of[c].shape[1]))]), axis=0)
        out["ids"] += nodes * (1 if len(rows) <= 256 else 2)
    for slab in slabs:
        for comp, _src, col in slab.terms(comps):
            prof = slab.e if comp[0] == "e" else slab.h
            ranges = list(full_ranges(grid, comp))
            ranges[slab.axis] = (prof.start, prof.start + slab.cells)
            cells = math.prod(hi - lo for lo, hi in ranges)
            box = boxes[comp]
            lo, hi = ranges[slab.axis]
            meets = box is not None and box[slab.axis][0] < hi and lo < box[slab.axis][1]
            rows = rows_reached(scene, grid, comp, ranges, faces)
            cut = cpml_spans(grid, slab, comp, 1)[0]   # the profiles: spread over all but it
            out["cpml"] += cells * size * (1 + (meets and not _uniform(rows, col))) + \
                3 * cells // (ranges[cut][1] - ranges[cut][0]) * size
    out["sources"] = len(scene.sources) * steps * (8 + size)
    for mon in scene.monitors:
        records = steps // mon.every
        if mon.type == "probe":
            values = records * len(mon.components or comps)
            out["records"] += values * (3 * size + 8)   # + each value's time
        else:
            ext = grid.extent(mon.component)
            plane = math.prod(e for a, e in enumerate(ext) if a != "xyz".index(mon.axis))
            out["records"] += records * (plane * 2 * size + 8)
    return out


def gpu_memory(scene, grid: YeeGrid, steps: int, dtype: str, faces: dict[str, str],
               host: dict | None = None) -> dict:
    """Bytes a run holds on a GPU (the cuda backend) with each of 'indexed', 'fused' and
    'temporal', about: the arrays as those steppers lay them out (rows padded as each
    variant pads them, CPML values as its kernels index them), without the small tables
    (tests/unit/test_estimates.py compares it with what the benchmark scenes held):

    * 'indexed': the fields in their storage dtype (16 bits for 16-bit storage), each
      component's material ids, one set of CPML auxiliary values (float32 for 16-bit
      storage), each source's value at every step, and the buffers of probe and snapshot
      records (the rest waits on the host);
    * 'fused' and 'temporal': two sets of fields and of CPML values (a pass reads one and
      writes the other), and one id a cell for all its components.

    ``host``: run_memory's parts for the same run, where the caller has them (their ids).
    """
    from ..backends.cuda.stepper import (
        configured_variant,
        probe_ring_rows,
        psi_entries,
        snapshot_slots,
    )

    size = compute_dtype(dtype).itemsize
    field = 2 if dtype in STORAGE16 else size
    comps = grid.components
    host = host or run_memory(scene, grid, steps, dtype, faces)
    id_size = host["ids"] / (len(comps) * grid.num_nodes)
    slabs = make_slabs(scene, grid)
    rest = len(scene.sources) * steps * size
    for m in scene.monitors:   # the device's buffers of records
        if m.type == "probe":
            width = len(m.components or comps)
            rest += probe_ring_rows(steps // m.every, width) * width * size
        else:
            frame = size * math.prod(e for a, e in enumerate(grid.extent(m.component))
                                     if a != "xyz".index(m.axis))
            rest += snapshot_slots(steps // m.every, frame) * frame
    out = {}
    for name in ("indexed", "fused", "temporal"):
        variant = configured_variant(name, grid.mode, dtype,
                                     any(slab.axis == 0 for slab in slabs))
        px, py = variant.pitches(grid.shape)
        nodes = px * py * grid.shape[2]
        psi = sum(psi_entries(slab, prof.start, grid.shape, px, variant.fused_cpml)
                  for slab in slabs for kind, prof in (("e", slab.e), ("h", slab.h))
                  for comp, _src, _col in slab.terms(comps) if comp[0] == kind)
        sets = 1 if name == "indexed" else 2
        # a marching stepper's id is 16 bits where the grid holds more than 256 combinations
        # of its components' materials; taken here as the components' own ids are
        ids = len(comps) if name == "indexed" else 1
        out[name] = sets * (len(comps) * nodes * field + psi * size) + \
            ids * nodes * id_size + rest
    return out


def show_bytes(n: float) -> str:
    """``n`` bytes in decimal units: 512 B, 1.5 kB, 3.2 GB."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} PB"   # pragma: no cover


def peak_bytes(parts: dict) -> int:
    """The most a run holds at once (``parts``: run_memory's): all its parts, or, where
    more, what its model holds while it is built (MODEL_PARTS, with the source values three
    times, as build_model's check_fits counts them)."""
    return max(sum(parts.values()),
               sum(parts[k] for k in MODEL_PARTS) + (BUILD_SOURCES - 1) * parts["sources"])


def memory_lines(parts: dict, dtype: str, total: int | None) -> tuple[str, str | None]:
    """The line that says the estimate (``parts``: run_memory's), and a note where it is
    more than ``total`` (the host's memory, where known), naming the largest part and what
    shrinks it. The estimate is peak_bytes': a scene of one source over 1e9 steps was
    said to need 12 GB, and the run refused it at the 36 GB its model needs."""
    need = peak_bytes(parts)
    shown = ", ".join(f"{PARTS[k][0]} {show_bytes(v)}" for k, v in parts.items() if v)
    if need > sum(parts.values()):
        shown += (f"; at most while the model is built, which holds the source values "
                  f"{BUILD_SOURCES} times")
    line = f"memory: about {show_bytes(need)} on the host for a run on the numpy backend " \
           f"in {dtype} ({shown})"
    if total is None or need <= total:
        return line, None
    return line, (f"memory: a run on the numpy backend would need about {show_bytes(need)}, "
                  f"more than the {show_bytes(total)} of memory here; {_largest(parts)}")


def _largest(parts: dict, keys=None) -> str:
    """'its largest part is the <part> (<bytes>): <what shrinks it>', of ``parts``
    (run_memory's) or of those of them in ``keys``."""
    big = max(keys or parts, key=parts.get)
    name, advice = PARTS[big]
    return f"its largest part is the {name} ({show_bytes(parts[big])}): {advice}"


def check_fits(scene, grid: YeeGrid, steps: int, dtype: str, faces: dict[str, str],
               parts: tuple[str, ...] | None = None, sources: int = 1,
               threads: int | None = None, keep_fields: bool = False) -> None:
    """An OutOfMemory where run_memory's ``parts`` (default: all) of a run are more than
    the memory available now (within a container's limit): refused before any array is
    made, since such arrays are made lazily and the system ends the process once they are
    filled in (status 137, no message, no file). ``sources``: how many times the source
    values count (3 while a model is built: each source's times and values in float64 and
    their copy merged by point). ``threads``: the NumPy backend's (default: its default).
    ``keep_fields``: the result keeps a copy of the final fields (``keep_fields``, the
    CLI's --fields), made at the end beside the stepper's own, as large as its fields."""
    from .. import host
    from ..exceptions import OutOfMemory

    got = run_memory(scene, grid, steps, dtype, faces, threads)
    got["sources"] *= sources
    keys = [k for k in got if parts is None or k in parts]
    kept = got["fields"] if keep_fields else 0
    need = sum(got[k] for k in keys) + kept
    free = host.free_bytes()
    if need <= free:
        return
    also = (f"; {show_bytes(kept)} of it is the copy of the final fields the result keeps "
            "(--fields, keep_fields): leave them out to need less") if kept else ""
    raise OutOfMemory(f"the run would need about {show_bytes(need)} of memory, more than "
                      f"the {show_bytes(free)} available here; {_largest(got, keys)}{also}")


#: what a model holds (build_model checks them), and what a NumPy stepper adds
MODEL_PARTS = ("ids", "sources")
#: how many times the source values count while a model is built (see check_fits)
BUILD_SOURCES = 3
STEPPER_PARTS = ("fields", "coefficients", "cpml", "scratch", "records")


def largest_part(scene, steps: int | None, dtype: str) -> str:
    """What shrinks a run's largest part of memory (run_memory's), to say after a
    MemoryError: '<part> (<bytes>): <advice>'; '' where the estimate itself fails."""
    from .model import face_kinds, make_grid, step_count

    try:
        grid = make_grid(scene)
        n = steps if steps is not None else step_count(scene, grid.dt)
        parts = run_memory(scene, grid, n, dtype, face_kinds(scene))
    except Exception:   # an estimate for a message, never an error of its own
        return ""
    return _largest(parts)


def gpu_line(parts: dict, dtype: str) -> str:
    """The line that says gpu_memory's estimate (``parts``)."""
    if dtype == "bfloat16":
        return "memory on a GPU: bfloat16 storage runs on the numpy backend only"
    return (f"memory on a GPU (cuda backend): about {show_bytes(parts['indexed'])} with "
            f"'indexed', {show_bytes(parts['fused'])} with 'fused', "
            f"{show_bytes(parts['temporal'])} with 'temporal' (these two keep two sets of "
            "fields)")
