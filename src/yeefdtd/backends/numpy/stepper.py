"""The NumPy reference stepper.

Vectorised in-place updates over each component's valid region. Coefficients that are the
same at every point of a region become scalars (a vacuum background costs nothing);
the others are per-point arrays in the run's dtype. All scratch space is allocated here,
so the time loop allocates nothing but tiny views.

16-bit storage (float16, bfloat16) is emulated: the arrays stay float32 and every value is
rounded to what 16 bits would hold (in float16's scaled units, see build/storage.py) after
each half step's update and CPML correction, and again where a source writes. A kernel that
stores 16 bits rounds wherever it stores, for some CPML cells once more than this; the two
can differ by the rounding itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...build.coefficients import CB, CC, SELF
from ...build.grid import YeeGrid, curl_axes
from ...build.model import Model
from ..base import Records, Stepper


def _compact(table_col: np.ndarray, ids: np.ndarray, dtype) -> np.ndarray | float:
    """A scalar if every id in ``ids`` maps to the same value, else a per-point array."""
    present = np.flatnonzero(np.bincount(ids.ravel(order="K"), minlength=len(table_col)))
    values = table_col[present]
    if np.all(values == values[0]):
        return float(values[0])
    out = np.empty(ids.shape, dtype=dtype, order="F")
    np.take(table_col.astype(dtype), ids, out=out, mode="clip")
    return out


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
class _Term:
    source: str              #: curl field read
    ops: list                #: difference slices
    coef: np.ndarray | float


@dataclass
class _Update:
    component: str
    region: tuple
    shape: tuple
    self_coef: np.ndarray | float
    terms: list[_Term]


@dataclass
class _CpmlTerm:
    component: str
    source: str
    region: tuple            #: slab region of the component's array
    shape: tuple
    ops: list
    coef: np.ndarray | float
    b: np.ndarray
    c: np.ndarray
    kinv_m1: np.ndarray
    psi: np.ndarray


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
    """Reference stepper on the host, in float32 or float64 (16-bit storage emulated)."""

    name = "numpy"

    def __init__(self, model: Model, dtype: str = "float32"):
        super().__init__(model, dtype)
        g: YeeGrid = model.grid
        self.grid = g
        N = g.shape
        dt = self.dtype
        self._f = {c: np.zeros(N, dtype=dt, order="F") for c in g.components}
        self._flat = {c: a.reshape(-1, order="F") for c, a in self._f.items()}
        self._scratch = np.empty(g.num_nodes, dtype=dt)
        self._updates = {"e": [], "h": []}
        for c in g.components:
            self._updates[c[0]].append(self._plan_update(c))
        self._cpml = {"e": [], "h": []}
        slab_size = 0
        for slab in model.slabs:
            for comp, src, col in slab.terms(g.components):
                term = self._plan_cpml(slab, comp, src, col)
                self._cpml[comp[0]].append(term)
                slab_size = max(slab_size, term.psi.size)
        self._slab_scratch = (np.empty(slab_size, dtype=dt), np.empty(slab_size, dtype=dt))
        self._sources = {"e": [], "h": []}
        for grp in model.sources:
            buf = np.empty(len(grp.flat), dtype=dt)
            with np.errstate(over="ignore"):  # an overflow shows as divergence, in one line
                values = grp.values.astype(dt)
            self._sources[grp.component[0]].append((grp, values, buf))
        self._probe_rec = [np.zeros((p.records(model.steps), len(p.channels)), dtype=dt)
                           for p in model.probes]
        if self.storage.is16:
            self._t16 = np.empty(g.num_nodes, dtype=np.float16)
            self._t32 = np.empty(g.num_nodes, dtype=np.uint32)
        self._snap_rec = [np.zeros((s.records(model.steps), *s.shape), dtype=dt)
                          for s in model.snapshots]

    # ---- planning -------------------------------------------------------------------
    def _plan_update(self, c: str) -> _Update:
        g = self.grid
        table = self.model.tables[c]
        ext = g.extent(c)
        region = tuple(slice(0, e) for e in ext)
        ids = table.ids[region]
        b, cc = curl_axes(c)
        other = "h" if c[0] == "e" else "e"
        forward = c[0] == "h"
        terms = []
        for axis, src, col in ((b, other + "xyz"[cc], CB), (cc, other + "xyz"[b], CC)):
            if src not in self._f or g.shape[axis] == 1:
                continue  # absent in this mode, or nothing varies along the axis
            coef = _compact(table.table[:, col], ids, self.dtype)
            if np.isscalar(coef) and coef == 0.0:
                continue
            terms.append(_Term(src, _diff_ops(g.shape, region, axis, 0, ext[axis], forward),
                               coef))
        return _Update(c, region, ext, _compact(table.table[:, SELF], ids, self.dtype), terms)

    def _plan_cpml(self, slab, comp: str, src: str, col: int) -> _CpmlTerm:
        g = self.grid
        prof = slab.e if comp[0] == "e" else slab.h
        ext = g.extent(comp)
        s, L = slab.axis, slab.cells
        region = [slice(0, e) for e in ext]
        region[s] = slice(prof.start, prof.start + L)
        region = tuple(region)
        shape = tuple(L if a == s else ext[a] for a in range(3))
        bshape = tuple(L if a == s else 1 for a in range(3))
        table = self.model.tables[comp]
        coef = _compact(table.table[:, col], table.ids[region], self.dtype)
        full = tuple(slice(0, e) for e in ext)
        return _CpmlTerm(
            component=comp, source=src, region=region, shape=shape,
            ops=_diff_ops(g.shape, full, s, prof.start, prof.start + L, comp[0] == "h"),
            coef=coef,
            b=prof.b.reshape(bshape).astype(self.dtype),
            c=prof.c.reshape(bshape).astype(self.dtype),
            kinv_m1=prof.kinv_m1.reshape(bshape).astype(self.dtype),
            psi=np.zeros(shape, dtype=self.dtype, order="F"),
        )

    # ---- half steps ------------------------------------------------------------------
    def advance(self, start: int, count: int) -> None:
        # Overflow and NaN are caught by the run loop's divergence check, which says what
        # happened in one line; NumPy's own warnings would only repeat it, many times.
        with np.errstate(all="ignore"):
            super().advance(start, count)

    def _view(self, buf: np.ndarray, shape) -> np.ndarray:
        return buf[: shape[0] * shape[1] * shape[2]].reshape(shape, order="F")

    def _run_updates(self, kind: str) -> None:
        for up in self._updates[kind]:
            view = self._f[up.component][up.region]
            if not (np.isscalar(up.self_coef) and up.self_coef == 1.0):
                view *= up.self_coef
            d = self._view(self._scratch, up.shape)
            for term in up.terms:
                src = self._f[term.source]
                for o, a, b in term.ops:
                    np.subtract(src[a], src[b], out=d[o])
                d *= term.coef
                view += d

    def _run_cpml(self, kind: str) -> None:
        s1, s2 = self._slab_scratch
        for t in self._cpml[kind]:
            d = self._view(s1, t.shape)
            tmp = self._view(s2, t.shape)
            src = self._f[t.source]
            for o, a, b in t.ops:
                np.subtract(src[a], src[b], out=d[o])
            t.psi *= t.b
            np.multiply(d, t.c, out=tmp)
            t.psi += tmp
            d *= t.kinv_m1
            d += t.psi
            d *= t.coef
            self._f[t.component][t.region] += d

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
        k = a.size
        _round16(a, self.storage, self.storage.scale(component), self._t16[:k], self._t32[:k])

    def _store(self, kind: str) -> None:
        """16-bit storage: round the fields of this half step as the GPU stores them."""
        if self.storage.is16:
            for c, flat in self._flat.items():
                if c[0] == kind:
                    self._round(flat, c)

    def update_h(self) -> None:
        self._run_updates("h")

    def update_e(self) -> None:
        self._run_updates("e")

    def update_h_boundaries(self) -> None:
        self._run_cpml("h")
        self._store("h")

    def update_e_boundaries(self) -> None:
        self._run_cpml("e")
        self._store("e")

    def inject_h(self, n: int) -> None:
        self._inject("h", n)

    def inject_e(self, n: int) -> None:
        self._inject("e", n)

    def record(self, n: int) -> None:
        done = n + 1
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
            probes=[r.astype(np.float64) for r in self._probe_rec],
            snapshots=[r.astype(np.float64) for r in self._snap_rec],
        )

    def memory_bytes(self) -> int:
        total = sum(a.nbytes for a in self._f.values()) + self._scratch.nbytes
        total += sum(b.nbytes for b in self._slab_scratch)
        for ups in self._updates.values():
            for up in ups:
                for c in (up.self_coef, *(t.coef for t in up.terms)):
                    total += getattr(c, "nbytes", 0)
        for terms in self._cpml.values():
            for t in terms:
                total += t.psi.nbytes + getattr(t.coef, "nbytes", 0)
        return total
