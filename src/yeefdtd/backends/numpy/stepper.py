"""The NumPy reference stepper.

Vectorised in-place updates over each component's valid region. The background's
coefficients are numbers (a vacuum background costs nothing); arrays of them, in the run's
dtype, are kept only over the box that holds the objects (and the PMC walls), whose cells
are updated from them; the walls held at zero (tangential E on PEC and CPML) are set back
to zero after each half step (NumpyStepper._layout). All scratch space is allocated here,
so the time loop allocates nothing but tiny views.

Each half step's update of a component, and each CPML term, is cut into pieces along one
axis and the pieces run on threads (NumPy's array operations release the interpreter's
lock): ``threads`` of them, by default as many as the process may use (``YEEFDTD_THREADS``
sets it), and none smaller than MIN_CELLS cells, below which a thread costs more than it
saves. A thread takes its piece a chunk at a time, every operation of the update over one
chunk before the next, so that the chunk's scratch values stay in the cache between the
operation that writes them and those that read them (each thread has its own scratch, of
one chunk); the three components of a half step go to the threads together, each thread
taking its chunks of each. A chunk holds about CHUNK_CELLS cells for each thread at work:
each NumPy call takes the interpreter's lock for a few microseconds, so the more threads
share it, the more work each call must carry. A half step's CPML terms run in rounds, those
of a round at once (cpml_rounds). Every value is computed by the same operations in the
same order whatever the pieces, chunks and rounds, so the fields are bit for bit those of
one thread.

16-bit storage (float16, bfloat16) is emulated: the arrays stay float32 and every value is
rounded to what 16 bits would hold (in float16's scaled units, see build/storage.py) after
each half step's update and CPML correction, and again where a source writes. A kernel that
stores 16 bits rounds wherever it stores, for some CPML cells once more than this; the two
can differ by the rounding itself.
"""

from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import zip_longest

import numpy as np

from ...build.coefficients import CB, CC, SELF, update_box
from ...build.grid import YeeGrid, curl_axes
from ...build.model import Model, face_kinds
from ...exceptions import ValidationError
from ..base import Records, Stepper

#: the fewest cells a piece of a half step holds (see the module's docstring): a piece of
#: 65 536 float32 cells streams 256 kB an operation, some tens of microseconds, against a
#: few microseconds to hand it to a thread. Timed against 2^18 and 2^20 on 16 cores, it was
#: the fastest or within 15% of it on dipole-cpml 128 and 256 and tmz-2d 2048; pieces of
#: 2^20 cells lost up to half the speed, most of it in the CPML terms (docs/performance.md,
#: "The NumPy backend on threads").
MIN_CELLS = 1 << 16

#: about the most cells of a chunk, for each thread at work (see the module's docstring):
#: one layer of the axis of cutting where a layer holds more. Timed on 2 and 16 cores
#: against 2^15, 2^19 and whole pieces (docs/performance.md, "The NumPy backend in
#: chunks"): 1.3 to 1.6 times whole pieces on one thread; on 16, chunks of 2^15 cells lost
#: up to 87% of the speed to the lock.
CHUNK_CELLS = 1 << 17

#: the most threads the NumPy backend takes (more than any machine's processors; a half
#: step's pieces are at most one a plane of the axis it cuts)
MAX_THREADS = 4096


def default_threads() -> int:
    """``YEEFDTD_THREADS`` where set, else the processors this process may run on."""
    text = os.environ.get("YEEFDTD_THREADS", "").strip()
    if text:
        try:
            n = int(text)
        except ValueError:
            n = 0
        if not 1 <= n <= MAX_THREADS:
            raise ValidationError(f"YEEFDTD_THREADS: {text!r} is not a whole number from 1 "
                                  f"to {MAX_THREADS}; set it to the threads the NumPy backend "
                                  "may use, or unset it to use every processor")
        return n
    return processors()


def processors() -> int:
    """The processors this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):   # not on Linux
        return max(1, os.cpu_count() or 1)


def thread_note(threads: int) -> str | None:
    """The note on more threads than the process has processors (None where it has as
    many): the threads take turns, and the run slows (dipole-cpml 96 on 2 processors: 4
    threads 17% slower than 2, 8 threads 33%; docs/performance.md, "The NumPy backend on
    threads")."""
    have = processors()
    if threads <= have:
        return None
    return (f"the numpy backend runs {threads} threads on {have} processor"
            f"{'s' if have != 1 else ''}; they take turns, which slows the run: give "
            f"{have} threads or fewer (--threads, YEEFDTD_THREADS)")


def _cuts(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` ranges that cover [0, n) in order, as even as whole numbers allow."""
    return [(n * i // parts, n * (i + 1) // parts) for i in range(parts)]


def _count(lo: int, hi: int, layer: int, parts: int) -> int:
    """How many chunks _chunks cuts [lo, hi) into."""
    return max(1, min(hi - lo, -(-(hi - lo) * layer // (CHUNK_CELLS * parts))))


def _chunks(lo: int, hi: int, layer: int, parts: int) -> list[tuple[int, int]]:
    """[lo, hi), one of ``parts`` pieces that threads take at once, cut into as few ranges
    as keep each within CHUNK_CELLS x ``parts`` cells (or one layer of ``layer`` cells where
    a layer holds more), as even as whole numbers allow."""
    return [(lo + a, lo + b) for a, b in _cuts(hi - lo, _count(lo, hi, layer, parts))]


def _largest(lo: int, hi: int, layer: int, parts: int) -> int:
    """The cells of the largest of _chunks(lo, hi, layer, parts), without making them."""
    return -(-(hi - lo) // _count(lo, hi, layer, parts)) * layer


def _parts(threads: int, cells: int, length: int) -> int:
    """Into how many pieces to cut ``cells`` cells whose axis of cutting is ``length`` long:
    one a thread, none under MIN_CELLS cells."""
    return max(1, min(threads, length, cells // MIN_CELLS))


def update_spans(grid: YeeGrid, kind: str, threads: int) -> dict:
    """For each component of ``kind`` ('e' or 'h'): (the axis its update is cut along, the
    cells of a layer across it, per thread its piece [lo, hi) along it, which it takes as
    _chunks(lo, hi, layer, pieces)). The axis is the last one longer than one cell, so that
    a chunk's scratch is one run of memory; the components of a half step are cut into as
    many pieces, the fewest any of them allows."""
    axes = {}
    for c in grid.components:
        if c[0] == kind:
            ext = grid.extent(c)
            axes[c] = (max((a for a in range(3) if ext[a] > 1), default=2), ext)
    parts = min(_parts(threads, math.prod(ext), ext[cut]) for cut, ext in axes.values())
    out = {}
    for c, (cut, ext) in axes.items():
        layer = math.prod(ext) // ext[cut]
        out[c] = (cut, layer, _cuts(ext[cut], parts))
    return out


def cpml_spans(grid: YeeGrid, slab, comp: str, threads: int) -> tuple:
    """As update_spans, for one CPML term of ``slab``: cut along the last axis other than
    the slab's that is longer than one cell (the slab's own axis holds its profile)."""
    ext = grid.extent(comp)
    s = slab.axis
    shape = _with(ext, s, slab.cells)
    cut = max((a for a in range(3) if a != s and ext[a] > 1), default=None)
    if cut is None:
        return (s + 1) % 3, math.prod(shape), [(0, 1)]
    layer = math.prod(shape) // ext[cut]
    return cut, layer, _cuts(ext[cut], _parts(threads, math.prod(shape), ext[cut]))


def _meet(a, b, kind: str) -> bool:
    """Whether the cells of slabs ``a`` and ``b`` where ``kind``'s terms add meet."""
    if a.axis != b.axis:
        return True
    pa, pb = (a.e, b.e) if kind == "e" else (a.h, b.h)
    return pa.start < pb.start + b.cells and pb.start < pa.start + a.cells


def cpml_rounds(grid: YeeGrid, slabs, kind: str, threads: int) -> list[list[list[tuple]]]:
    """The CPML terms of ``kind``'s half step ('e' or 'h') as rounds, which run one after
    the other: a term goes to the first round after those of every earlier term (in the
    slabs' order) that adds to the same component where its own cells meet theirs, so that
    each cell takes its terms in that order, as when they ran one at a time (faces of one
    axis, and terms of other components, share a round). Per round, per thread, its chunks
    (term, cut, layer, lo, hi), where ``term`` counts the half step's terms in the slabs'
    order: a term's pieces (cpml_spans) go whole to the thread with the fewest cells yet,
    and a chunk holds about CHUNK_CELLS cells for each thread at work in the round."""
    terms = [(slab, comp) for slab in slabs for comp, _, _ in slab.terms(grid.components)
             if comp[0] == kind]
    of = []
    for i, (slab, comp) in enumerate(terms):
        of.append(max((of[j] + 1 for j in range(i)
                       if terms[j][1] == comp and _meet(terms[j][0], slab, kind)), default=0))
    out = []
    for r in range(max(of, default=-1) + 1):
        pieces = []
        for i, (slab, comp) in enumerate(terms):
            if of[i] == r:
                cut, layer, spans = cpml_spans(grid, slab, comp, threads)
                pieces += [(i, cut, layer, lo, hi) for lo, hi in spans]
        at_work = min(threads, len(pieces))
        tasks, load = [[] for _ in range(at_work)], [0] * at_work
        for p in sorted(pieces, key=lambda p: -p[2] * (p[4] - p[3])):   # stable: in order
            t = load.index(min(load))
            load[t] += p[2] * (p[4] - p[3])
            tasks[t] += [(*p[:3], lo, hi) for lo, hi in _chunks(p[3], p[4], p[2], at_work)]
        out.append(tasks)
    return out


def scratch_shape(grid: YeeGrid, slabs, threads: int, boxes: dict) -> tuple[int, int, int]:
    """(threads that take a piece, cells of the largest chunk, of the second scratch): the
    NumPy stepper holds a scratch array of each size for each such thread. An update uses
    the first, and the second for the new values of its chunk's cells in the component's
    box (``boxes``: per component, [lo, hi) per axis or None; see NumpyStepper._layout); a
    CPML term uses both."""
    updates = {c: sp for kind in "eh" for c, sp in update_spans(grid, kind, threads).items()}
    cpml = [tasks for kind in "eh" for tasks in cpml_rounds(grid, slabs, kind, threads)]
    size = max(_largest(lo, hi, layer, len(pieces)) for _, layer, pieces in updates.values()
               for lo, hi in pieces)
    tmp = max((layer * (hi - lo) for tasks in cpml for task in tasks
               for _, _, layer, lo, hi in task), default=0)
    second = tmp
    for c, (cut, layer, pieces) in updates.items():
        box = boxes.get(c)
        if box is None:
            continue
        across = math.prod(hi - lo for a, (lo, hi) in enumerate(box) if a != cut)
        for first, last in pieces:
            for lo, hi in _chunks(first, last, layer, len(pieces)):
                second = max(second, (min(hi, box[cut][1]) - max(lo, box[cut][0])) * across)
    most = max([len(p) for _, _, p in updates.values()] + [len(tasks) for tasks in cpml])
    return most, max(size, tmp), second


def round_spans(nodes: int, threads: int) -> tuple[list[tuple[int, int]], int]:
    """16-bit storage: per thread, its piece [lo, hi) of a component's flat array, which it
    rounds as _chunks(lo, hi, 1, pieces); and the cells of the largest chunk (its
    scratch's)."""
    pieces = _cuts(nodes, _parts(threads, nodes, nodes))
    return pieces, max(_largest(lo, hi, 1, len(pieces)) for lo, hi in pieces)


def _with(index: tuple, axis: int, s: slice) -> tuple:
    """``index`` with its entry along ``axis`` replaced by ``s``."""
    return tuple(s if a == axis else x for a, x in enumerate(index))


def _cut(coef, axis: int, lo: int, hi: int):
    """A scalar coefficient as it is, or a per-point one's cells [lo, hi) along ``axis``."""
    if np.isscalar(coef):
        return coef
    return coef[_with((slice(None),) * 3, axis, slice(lo, hi))]


def _compact(table_col: np.ndarray, ids: np.ndarray, dtype) -> np.ndarray | float:
    """A scalar if every id in ``ids`` maps to the same value, else a per-point array."""
    present = np.flatnonzero(np.bincount(ids.ravel(order="K"), minlength=len(table_col)))
    values = table_col[present]
    if np.all(values == values[0]):
        return float(values[0])
    out = np.empty(ids.shape, dtype=dtype, order="F")
    np.take(table_col.astype(dtype), ids, out=out, mode="clip")
    return out


def _blocks(ids: np.ndarray, box, value: int):
    """(the first z of each, whether each of ``ids`` differs from ``value``) over ``box``
    ([lo, hi) per axis), a few million points at a time."""
    (x0, x1), (y0, y1), (z0, z1) = box
    step = max(1, (1 << 22) // max(1, (x1 - x0) * (y1 - y0)))
    for z in range(z0, z1, step):
        yield z, ids[x0:x1, y0:y1, z:min(z + step, z1)] != value


def _others(ids: np.ndarray, box, value: int) -> int:
    """How many of ``ids`` in ``box`` ([lo, hi) per axis) differ from ``value``."""
    return sum(int(np.count_nonzero(other)) for _, other in _blocks(ids, box, value))


def _tight(ids: np.ndarray, box, value: int):
    """The smallest box ([lo, hi) per axis) within ``box`` that holds every one of ``ids``
    there that differs from ``value``, or None."""
    seen = [np.zeros(hi - lo, bool) for lo, hi in box]
    for z, other in _blocks(ids, box, value):
        seen[0] |= other.any(axis=(1, 2))
        seen[1] |= other.any(axis=(0, 2))
        at = z - box[2][0]
        seen[2][at:at + other.shape[2]] = other.any(axis=(0, 1))
    if not seen[0].any():
        return None
    return [(lo + int(np.argmax(f)), lo + len(f) - int(np.argmax(f[::-1])))
            for (lo, _), f in zip(box, seen, strict=True)]


def _diff_ops(shape, region, axis: int, lo: int, hi: int, forward: bool):
    """Slices for out[i - lo] = F[i + 1] - F[i] (forward) or F[i] - F[i - 1], i in [lo, hi).

    Indices wrap modulo the array length along ``axis``; ``region`` restricts the other
    axes. Returns (out slice, first operand slice, second operand slice) triples.
    """
    N = shape[axis]

    def at(s):
        r = list(region)
        r[axis] = s
        return tuple(r)

    def out(s):
        r = [slice(None)] * 3
        r[axis] = s
        return tuple(r)

    ops = []
    if forward:
        top = min(hi, N - 1)
        if top > lo:
            ops.append((out(slice(0, top - lo)), at(slice(lo + 1, top + 1)), at(slice(lo, top))))
        if hi == N:
            ops.append((out(slice(N - 1 - lo, N - lo)), at(slice(0, 1)), at(slice(N - 1, N))))
    else:
        if lo == 0:
            ops.append((out(slice(0, 1)), at(slice(0, 1)), at(slice(N - 1, N))))
        first = max(lo, 1)
        if hi > first:
            ops.append((out(slice(first - lo, hi - lo)), at(slice(first, hi)),
                        at(slice(first - 1, hi - 1))))
    return ops


@dataclass
class _Piece:
    """One piece of a component's half step: cells [lo, hi) of it along one axis, updated
    with the background's coefficients; where the piece meets the component's box (see
    NumpyStepper._layout), ``box`` updates those cells with their own."""

    target: np.ndarray       #: the piece's cells of the component's array (a view)
    d: np.ndarray            #: scratch of the piece's shape
    self_coef: np.ndarray | float | None   #: None where it is 1 everywhere
    #: per curl term: ((out, a, b) views: d[out] = a - b, ...), coefficient
    terms: list = field(default_factory=list)
    box: _Piece | None = None   #: its ``d`` the new values' scratch, ``new`` the others'
    new: np.ndarray | None = None


@dataclass
class _CpmlPiece:
    """One piece of a CPML term: cells [lo, hi) along an axis other than the slab's."""

    target: np.ndarray       #: the piece's slab cells of the component's array
    d: np.ndarray            #: scratch of the piece's shape
    tmp: np.ndarray          #: scratch of the piece's shape
    ops: tuple               #: (out, a, b) views: d[out] = a - b
    coef: np.ndarray | float
    b: np.ndarray
    c: np.ndarray
    kinv_m1: np.ndarray
    psi: np.ndarray          #: the piece's auxiliary values (a view of the term's)


class _Task:
    """One task on a pool's thread, as the calling thread waits for it: ``ended`` once it
    has run (``error``: what it raised), ``bell`` released then. The waiter takes no lock
    the pool's thread takes: concurrent.futures.wait takes each future's, and a Ctrl-C that
    lands while it holds some (between the acquires of its loop) leaves them held, so that
    the thread, which sets its future's result under that lock, and the wait after the
    Ctrl-C, would hang; a bare lock's acquire is interrupted whole or not at all."""

    __slots__ = ("bell", "ended", "error")

    def __init__(self):
        self.bell = threading.Lock()
        self.bell.acquire()
        self.ended = False
        self.error: BaseException | None = None

    def run(self, work, task: list) -> None:
        try:
            _quiet(work, task)
        except BaseException as exc:
            self.error = exc
        finally:
            self.ended = True
            self.bell.release()


def wait_task(task: _Task) -> None:
    """Wait until ``task`` has run (the bell rings; the timeout only bounds a wait whose
    acquire a Ctrl-C came right after: ``ended`` decides)."""
    while not task.ended:
        task.bell.acquire(timeout=0.1)


def _settle(tasks: list[_Task]) -> None:
    """Wait until every one of ``tasks`` has run, through any Ctrl-C (or SIGTERM, which
    the command takes as one) that comes meanwhile; then raise the first of those."""
    caught = None
    for task in tasks:
        while not task.ended:
            try:
                wait_task(task)
            except BaseException as exc:   # a KeyboardInterrupt, raised while waiting
                caught = caught or exc
    if caught is not None:
        raise caught


def _quiet(work, task: list) -> None:
    """``work(piece)`` for each piece of ``task`` without NumPy's floating-point warnings,
    on a pool's thread (NumPy's error state is the thread's own; see NumpyStepper.advance)."""
    with np.errstate(all="ignore"):
        for piece in task:
            work(piece)


@dataclass
class _Round:
    """One piece of a component's 16-bit rounding: flat cells [lo, hi)."""

    values: np.ndarray
    scale: float
    t16: np.ndarray
    t32: np.ndarray


def _round16(a: np.ndarray, storage, scale: float, t16: np.ndarray, t32: np.ndarray) -> None:
    """Round the float32 values of ``a`` (1D, contiguous) to ``storage``'s 16-bit format in
    place: to nearest, ties to even, as the GPU's conversions do. ``t16`` (float16) and
    ``t32`` (uint32) are scratch buffers of a's size."""
    if storage.name == "float16":
        if scale != 1.0:
            a *= 1.0 / scale      # powers of two: exact
        np.copyto(t16, a, casting="same_kind")
        np.copyto(a, t16)
        if scale != 1.0:
            a *= scale
        return
    bits = a.view(np.uint32)      # bfloat16: keep the top 16 bits, rounded
    np.right_shift(bits, 16, out=t32)
    np.bitwise_and(t32, 1, out=t32)
    t32 += 0x7FFF
    bits += t32
    bits &= np.uint32(0xFFFF0000)


class NumpyStepper(Stepper):
    """Reference stepper on the host, in float32 or float64 (16-bit storage emulated), on
    ``threads`` threads (default: default_threads())."""

    name = "numpy"

    def __init__(self, model: Model, dtype: str = "float32", threads: int | None = None):
        super().__init__(model, dtype)
        if threads is None:
            threads = default_threads()
        elif isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) \
                or not 1 <= threads <= MAX_THREADS:
            raise ValidationError(f"threads: a whole number from 1 to {MAX_THREADS}, not "
                                  f"{threads!r}")
        #: the threads a half step's pieces run on (the calling one among them)
        self.threads = int(threads)
        self.note = thread_note(self.threads)
        self._pool_ = None
        g: YeeGrid = model.grid
        from ...build.memory import STEPPER_PARTS, check_fits
        from ...build.model import face_kinds

        check_fits(model.scene, g, model.steps, self.storage.name, face_kinds(model.scene),
                   STEPPER_PARTS, threads=self.threads)   # beside the model, made already
        self.grid = g
        N = g.shape
        dt = self.dtype
        self._f = {c: np.zeros(N, dtype=dt, order="F") for c in g.components}
        self._flat = {c: a.reshape(-1, order="F") for c, a in self._f.items()}
        self._coefs = []          # the per-point coefficient arrays, for memory_bytes
        #: per thread that takes a piece, scratch arrays of the largest chunk and of the
        #: largest CPML chunk
        self._zero = {"e": [], "h": []}   # views of the planes held at zero
        self._layouts = {c: self._layout(c) for c in g.components}
        tasks, size, tmp = scratch_shape(g, model.slabs, self.threads,
                                         {c: lay[1] for c, lay in self._layouts.items()})
        whole = np.empty(tasks * (size + tmp), dtype=dt)   # one block: large pages, where
        self._scratch = [(whole[t * size:(t + 1) * size],  # the system gives them
                          whole[tasks * size + t * tmp:tasks * size + (t + 1) * tmp])
                         for t in range(tasks)]
        self._updates = {kind: self._plan_updates(update_spans(g, kind, self.threads))
                         for kind in "eh"}
        self._psi = []            # each term's auxiliary values, in the slabs' order
        self._profiles = []       # and their profiles, for memory_bytes
        terms = {"e": [], "h": []}
        for slab in model.slabs:
            for comp, src, col in slab.terms(g.components):
                terms[comp[0]].append(self._cpml_term(slab, comp, src, col))
        self._cpml = {kind: [[[self._cpml_chunk(terms[kind][i], t, *chunk)
                               for i, *chunk in task] for t, task in enumerate(tasks)]
                             for tasks in cpml_rounds(g, model.slabs, kind, self.threads)]
                      for kind in "eh"}
        self._sources = {"e": [], "h": []}
        for grp in model.sources:
            buf = np.empty(len(grp.flat), dtype=dt)
            with np.errstate(over="ignore"):  # an overflow shows as divergence, in one line
                values = grp.values.astype(dt)
            self._sources[grp.component[0]].append((grp, values, buf))
        self._probe_rec = [np.zeros((p.records(model.steps), len(p.channels)), dtype=dt)
                           for p in model.probes]
        if self.storage.is16:
            self._plan_rounds()
        self._snap_rec = [np.zeros((s.records(model.steps), *s.shape), dtype=dt)
                          for s in model.snapshots]
        #: the steps whose records are taken (collect copies their rows alone)
        self._recorded = 0

    # ---- planning -------------------------------------------------------------------
    def _coef(self, table_col: np.ndarray, ids: np.ndarray):
        coef = _compact(table_col, ids, self.dtype)
        if not np.isscalar(coef):
            self._coefs.append(coef)
        return coef

    def _plan_updates(self, spans: dict) -> list[list[_Piece]]:
        """Per thread, the chunks of a half step's updates it runs, in order: the first
        chunk of each component, then the second, and so on."""
        per_comp = [self._plan_update(c, *plan) for c, plan in spans.items()]
        tasks = []
        for t in range(len(per_comp[0])):
            lists = [pieces[t] for pieces in per_comp]
            tasks.append([p for row in zip_longest(*lists) for p in row if p is not None])
        return tasks

    def _layout(self, c: str) -> tuple[list, list | None, int]:
        """(the planes of ``c``'s extent held at zero, as (axis, index); the box [lo, hi)
        per axis outside which, those planes left out, every point takes the background's
        row, or None; the background's id), as build.coefficients.update_box gives them,
        checked against the ids. The update takes the background's coefficients as numbers
        and keeps arrays of them only over the box; the planes are set to zero after each
        half step (their coefficients are zero). Where the ids disagree, which the scene's
        objects and walls do not make, a plane that is not all zero rows is updated as the
        others and the box grows to hold every point of another id."""
        g, table = self.grid, self.model.tables[c]
        ids, ext = table.ids, g.extent(c)
        zero, box = update_box(self.model.scene, g, c, face_kinds(self.model.scene))
        zero_rows = np.flatnonzero(~table.table[:, [SELF, CB, CC]].any(axis=1))
        zero = [(s, i) for s, i in zero
                if np.isin(ids[tuple(i if a == s else slice(0, ext[a]) for a in range(3))],
                           zero_rows).all()]
        inner = [[0, e] for e in ext]
        for s, i in zero:
            inner[s] = [1 if i == 0 else inner[s][0], ext[s] - 1 if i == ext[s] - 1
                        else inner[s][1]]
        corners = [tuple(r[k] - k for r, k in zip(inner, bits, strict=True))
                   for bits in np.ndindex(2, 2, 2)]
        outside = [p for p in corners if box is None
                   or not all(lo <= x < hi for x, (lo, hi) in zip(p, box, strict=True))]
        bg = int(ids[(outside or corners)[0]])
        if _others(ids, inner, bg) != (_others(ids, box, bg) if box else 0):
            box = _tight(ids, inner, bg)
        return zero, box, bg

    def _plan_update(self, c: str, cut: int, layer: int, tasks: list) -> list[list[_Piece]]:
        """``c``'s update as chunks, per thread (``tasks``: update_spans's chunks)."""
        g = self.grid
        table = self.model.tables[c]
        ext = g.extent(c)
        region = tuple(slice(0, e) for e in ext)
        zero, box, bg = self._layouts[c]
        self._zero[c[0]] += [self._f[c][tuple(i if a == s else region[a] for a in range(3))]
                             for s, i in zero]
        inbox = None if box is None else tuple(slice(lo, hi) for lo, hi in box)
        b, cc = curl_axes(c)
        other = "h" if c[0] == "e" else "e"
        forward = c[0] == "h"
        terms = []   # (axis, curl field, the background's coefficient, the box's)
        for axis, src, col in ((b, other + "xyz"[cc], CB), (cc, other + "xyz"[b], CC)):
            if src not in self._f or g.shape[axis] == 1:
                continue  # absent in this mode, or nothing varies along the axis
            coef = float(table.table[bg, col])
            own = None if inbox is None else self._coef(table.table[:, col], table.ids[inbox])
            if coef == 0.0 and (own is None or (np.isscalar(own) and own == 0.0)):
                continue
            terms.append((axis, src, coef, own))
        keep = float(table.table[bg, SELF])
        own_keep = None if inbox is None else self._coef(table.table[:, SELF], table.ids[inbox])
        out = []
        for t, (first, last) in enumerate(tasks):
            s1, s2 = self._scratch[t]
            pieces = []
            for lo, hi in _chunks(first, last, layer, len(tasks)):
                part = _with(region, cut, slice(lo, hi))
                piece = self._piece(c, part, cut, lo, hi, s1, keep,
                                    [(a, f, k) for a, f, k, _ in terms if k != 0.0], forward)
                if box is not None and max(lo, box[cut][0]) < min(hi, box[cut][1]):
                    blo, bhi = max(lo, box[cut][0]), min(hi, box[cut][1])
                    at = box[cut][0]
                    sub = _with(inbox, cut, slice(blo, bhi))
                    piece.box = self._piece(
                        c, sub, cut, blo, bhi, s1, _cut(own_keep, cut, blo - at, bhi - at),
                        [(a, f, _cut(k, cut, blo - at, bhi - at)) for a, f, _, k in terms],
                        forward)
                    size = piece.box.d.size
                    piece.new = s2[:size].reshape(piece.box.d.shape, order="F")
                pieces.append(piece)
            out.append(pieces)
        return out

    def _piece(self, c: str, part: tuple, cut: int, lo: int, hi: int, scratch, keep,
               terms: list, forward: bool) -> _Piece:
        """The update of ``c`` over ``part`` (cells [lo, hi) along ``cut``; the other axes
        whole, or the box's ranges), its differences in ``scratch``, with the coefficients
        ``keep`` and those of ``terms`` ((axis, curl field, coefficient)), each a number or
        an array of the part's shape."""
        g = self.grid
        shape = tuple(s.stop - s.start for s in part)
        d = scratch[:math.prod(shape)].reshape(shape, order="F")
        piece = _Piece(self._f[c][part], d,
                       None if np.isscalar(keep) and keep == 1.0 else keep)
        for axis, src, coef in terms:
            span = (lo, hi) if axis == cut else (part[axis].start, part[axis].stop)
            f = self._f[src]
            ops = tuple((d[o], f[x], f[y])
                        for o, x, y in _diff_ops(g.shape, part, axis, *span, forward))
            piece.terms.append((ops, coef))
        return piece

    def _cpml_term(self, slab, comp: str, src: str, col: int) -> dict:
        """What the chunks of one CPML term share: its cells, coefficients, profiles and
        auxiliary values."""
        prof = slab.e if comp[0] == "e" else slab.h
        ext = self.grid.extent(comp)
        s, L = slab.axis, slab.cells
        region = _with(tuple(slice(0, e) for e in ext), s, slice(prof.start, prof.start + L))
        bshape = tuple(L if a == s else 1 for a in range(3))
        table = self.model.tables[comp]
        psi = np.zeros(_with(ext, s, L), dtype=self.dtype, order="F")
        self._psi.append(psi)
        _, box, bg = self._layouts[comp]
        if box is None or not box[s][0] < prof.start + L or not prof.start < box[s][1]:
            coef = float(table.table[bg, col])   # the background's: the slab misses the box
        else:
            coef = self._coef(table.table[:, col], table.ids[region])
        # the profiles spread over every axis but the one the chunks cut, so that NumPy
        # walks them together with psi in long runs: a profile along x alone made every
        # operation of an x slab's term loop over runs of its few cells
        spread = _with(psi.shape, cpml_spans(self.grid, slab, comp, 1)[0], 1)
        profiles = {name: np.broadcast_to(getattr(prof, name).reshape(bshape), spread)
                    .astype(self.dtype, order="F") for name in ("b", "c", "kinv_m1")}
        self._profiles += list(profiles.values())
        return {"comp": comp, "src": src, "axis": s, "start": prof.start, "region": region,
                "coef": coef, "psi": psi, **profiles}

    def _cpml_chunk(self, term: dict, t: int, cut: int, layer: int, lo: int,
                    hi: int) -> _CpmlPiece:
        """Cells [lo, hi) along ``cut`` of a CPML term (``term``: _cpml_term's), with thread
        ``t``'s scratch."""
        g = self.grid
        psi, s, start = term["psi"], term["axis"], term["start"]
        shape = _with(psi.shape, cut, hi - lo)
        s1, s2 = self._scratch[t]
        d = s1[:layer * (hi - lo)].reshape(shape, order="F")
        tmp = s2[:layer * (hi - lo)].reshape(shape, order="F")
        f = self._f[term["src"]]
        full = tuple(slice(0, e) for e in g.extent(term["comp"]))
        ops = tuple((d[o], f[x], f[y]) for o, x, y in _diff_ops(
            g.shape, _with(full, cut, slice(lo, hi)), s, start, start + psi.shape[s],
            term["comp"][0] == "h"))
        return _CpmlPiece(
            target=self._f[term["comp"]][_with(term["region"], cut, slice(lo, hi))], d=d,
            tmp=tmp, ops=ops, coef=_cut(term["coef"], cut, lo, hi), b=term["b"],
            c=term["c"], kinv_m1=term["kinv_m1"],
            psi=psi[_with((slice(None),) * 3, cut, slice(lo, hi))])

    def _plan_rounds(self) -> None:
        """16-bit storage: the rounding of each half step's components, as chunks of the
        flat arrays per thread (each with its own scratch of a chunk)."""
        spans, size = round_spans(self.grid.num_nodes, self.threads)
        self._t16 = [np.empty(size, dtype=np.float16) for _ in spans]
        self._t32 = [np.empty(size, dtype=np.uint32) for _ in spans]
        self._rounds = {}
        for kind in "eh":
            tasks = [[] for _ in spans]
            for c, flat in self._flat.items():
                if c[0] != kind:
                    continue
                for t, (lo, hi) in enumerate(spans):
                    for a, b in _chunks(lo, hi, 1, len(spans)):
                        tasks[t].append(_Round(flat[a:b], self.storage.scale(c),
                                               self._t16[t][:b - a], self._t32[t][:b - a]))
            self._rounds[kind] = tasks

    # ---- half steps ------------------------------------------------------------------
    def advance(self, start: int, count: int) -> None:
        # Overflow and NaN are caught by the run loop's divergence check, which says what
        # happened in one line; NumPy's own warnings would only repeat it, many times.
        with np.errstate(all="ignore"):
            super().advance(start, count)

    def _pool(self) -> ThreadPoolExecutor:
        # a process forked from this one (multiprocessing's default on Linux) has the
        # pool but not its threads: it makes its own
        if self._pool_ is None or self._pool_[0] != os.getpid():
            self._pool_ = (os.getpid(), ThreadPoolExecutor(
                self.threads - 1, thread_name_prefix="yeefdtd-numpy"))
        return self._pool_[1]

    def _each(self, work, tasks: list) -> None:
        """``work(piece)`` for every piece of every one of ``tasks`` (lists of pieces, one
        a thread), the first task on this thread and the others on the pool's; returns once
        all are done, also when one fails or Ctrl-C comes, once or more (so that no thread
        still writes the fields the caller goes on to read)."""
        if len(tasks) == 1:
            for piece in tasks[0]:
                work(piece)
            return
        handles = []
        try:
            pool = self._pool()
            for task in tasks[1:]:
                handle = _Task()
                pool.submit(handle.run, work, task)
                handles.append(handle)
            for piece in tasks[0]:
                work(piece)
        finally:
            _settle(handles)
        for handle in handles:
            if handle.error is not None:   # what a piece raised
                raise handle.error

    @staticmethod
    def _update_piece(p: _Piece) -> None:
        if p.box is not None:   # the box's cells first, into ``new``: they read the old
            np.copyto(p.new, p.box.target)
            NumpyStepper._update(p.box, p.new)
        NumpyStepper._update(p, p.target)
        if p.box is not None:
            np.copyto(p.box.target, p.new)

    @staticmethod
    def _update(p: _Piece, target: np.ndarray) -> None:
        """``target`` (p's cells, or a copy of them) times p's own coefficient, plus each
        curl term's differences times its coefficient."""
        if p.self_coef is not None:
            target *= p.self_coef
        d = p.d
        for ops, coef in p.terms:
            for out, a, b in ops:
                np.subtract(a, b, out=out)
            d *= coef
            target += d

    @staticmethod
    def _cpml_piece(p: _CpmlPiece) -> None:
        d = p.d
        for out, a, b in p.ops:
            np.subtract(a, b, out=out)
        p.psi *= p.b
        np.multiply(d, p.c, out=p.tmp)
        p.psi += p.tmp
        d *= p.kinv_m1
        d += p.psi
        d *= p.coef
        p.target += d

    def _run_updates(self, kind: str) -> None:
        self._each(self._update_piece, self._updates[kind])

    def _run_cpml(self, kind: str) -> None:
        for tasks in self._cpml[kind]:   # a round after the other (see cpml_rounds)
            self._each(self._cpml_piece, tasks)

    def _inject(self, kind: str, n: int) -> None:
        for grp, values, buf in self._sources[kind]:
            flat = self._flat[grp.component]
            if grp.kind == "soft":
                np.take(flat, grp.flat, out=buf)
                buf += values[n]
            else:
                buf[...] = values[n]
            if self.storage.is16:
                self._round(buf, grp.component)
            flat[grp.flat] = buf

    def _round(self, a: np.ndarray, component: str) -> None:
        """Round ``a`` (values of ``component``, 1D) to what 16-bit storage holds."""
        # a chunk at a time, through the first thread's scratch: this runs between half
        # steps, on the calling thread, while no other thread works
        t16, t32 = self._t16[0], self._t32[0]
        for lo in range(0, a.size, t16.size):
            part = a[lo:lo + t16.size]
            _round16(part, self.storage, self.storage.scale(component), t16[:part.size],
                     t32[:part.size])

    def _round_piece(self, r: _Round) -> None:
        _round16(r.values, self.storage, r.scale, r.t16, r.t32)

    def _store(self, kind: str) -> None:
        """16-bit storage: round the fields of this half step as the GPU stores them."""
        if self.storage.is16:
            self._each(self._round_piece, self._rounds[kind])

    def update_h(self) -> None:
        self._run_updates("h")

    def update_e(self) -> None:
        self._run_updates("e")

    def update_h_boundaries(self) -> None:
        self._run_cpml("h")
        self._hold("h")
        self._store("h")

    def update_e_boundaries(self) -> None:
        self._run_cpml("e")
        self._hold("e")
        self._store("e")

    def _hold(self, kind: str) -> None:
        """The planes held at zero (see _layout) back to zero, as their zero coefficients
        left them."""
        for plane in self._zero[kind]:
            plane.fill(0)

    def inject_h(self, n: int) -> None:
        self._inject("h", n)

    def inject_e(self, n: int) -> None:
        self._inject("e", n)

    def record(self, n: int) -> None:
        done = n + 1
        self._recorded = max(self._recorded, done)
        for group, rec in zip(self.model.probes, self._probe_rec, strict=False):
            if done % group.every == 0:
                row = done // group.every - 1
                for c, (flats, cols) in group.reads.items():
                    np.take(self._flat[c], flats, out=rec[row, cols])
        for plan, rec in zip(self.model.snapshots, self._snap_rec, strict=False):
            if done % plan.every == 0:
                np.copyto(rec[done // plan.every - 1], self._f[plan.component][plan.region])

    # ---- reading back ----------------------------------------------------------------
    def max_abs(self) -> float:
        m = 0.0
        for a in self._f.values():
            hi, lo = float(a.max()), float(a.min())  # NaN propagates through max and min
            if not (math.isfinite(hi) and math.isfinite(lo)):
                return math.nan if (hi != hi or lo != lo) else math.inf
            m = max(m, abs(hi), abs(lo))
        return m

    def fields(self) -> dict[str, np.ndarray]:
        return {c: a.copy(order="F") for c, a in self._f.items()}

    def set_field(self, component: str, values: np.ndarray) -> None:
        self._f[component][...] = self.field_values(component, values)
        if self.storage.is16:
            self._round(self._flat[component], component)

    def collect(self) -> Records:
        return Records(
            probes=[r[: self._recorded // g.every].copy()
                    for g, r in zip(self.model.probes, self._probe_rec, strict=True)],
            snapshots=[r[: self._recorded // s.every].copy()
                       for s, r in zip(self.model.snapshots, self._snap_rec, strict=True)],
        )

    def memory_bytes(self) -> int:
        total = sum(a.nbytes for a in self._f.values())
        total += sum(a.nbytes + b.nbytes for a, b in self._scratch)   # views of one block
        total += sum(c.nbytes for c in self._coefs) + sum(p.nbytes for p in self._psi)
        total += sum(p.nbytes for p in self._profiles)
        if self.storage.is16:   # the rounding's scratch
            total += sum(a.nbytes for a in self._t16 + self._t32)
        return total
