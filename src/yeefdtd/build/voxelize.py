"""Voxelization: the material at every point of every field component.

Each component is sampled at its own staggered position, so the faces of an object fall
where the Yee grid puts them (the usual staircase). Objects are painted in scene order; a
point inside no object keeps the background. A box of a material (not a conductor) is
painted by the share of each point's cell it holds across the component's axis (sampled at
SUB sub-points a side: _straddled, _mixtures_at): a point on a face parallel to the
component takes the volume mean of the box's material and what was there, the exact mean
for a field along the face (parallel layers). Sampled at the point alone, the E points on
both faces of a box drawn on grid planes counted as inside, so for E its material reached
half a cell past each face: a dielectric slab of 20 cells acted as 21 (its reflection null
4.8% low). A point
whose cell a face of such a box cuts along the component's own axis (a face normal to it)
takes the series mixture of the materials at SUB sub-points along that axis (_cut_along,
Series): the harmonic mean, the exact one for a field across layers (D or B continuous),
so that a face off the grid planes (E) or on them (H) is placed to within a quarter of a
cell, not half of one (the resonance of a cavity with a slab in it then falls at second
order in the cell size). Along a
periodic axis of length L an object repeats with the period: it is painted with its images
shifted by L either way that reach the domain (placed()), so one that crosses the face
x = L comes back in at x = 0, as a wave does. Material numbers follow
``Scene.material_names()``: 0 vacuum, 1 pec, 2 pmc, then the scene's materials, then the
mixtures at boxes' faces (Voxels.mixtures: tuples for the volume means, Series for the
harmonic ones).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..exceptions import SetupError
from .grid import OFFSETS, YeeGrid, axis_of

MATERIAL_DTYPE = np.uint16


def material_numbers(scene) -> dict[str, int]:
    return {name: i for i, name in enumerate(scene.material_names())}


def _periods(grid: YeeGrid) -> list:
    """Per axis, its length where the grid is periodic along it (None elsewhere)."""
    ndim = 2 if grid.mode != "3d" else 3
    return [grid.cells[a] * grid.steps[a] if a < ndim and grid.periodic[a] else None
            for a in range(3)]


def _images(obj, period: list, reach: list | None = None) -> list:
    """``obj`` and its images shifted by a period (``period``: _periods') either way along
    the periodic axes, alone and in combination, whose bounds reach the domain, or within
    ``reach`` of it (per axis, metres: half a cell for a box that blends, whose share of
    the cells of the points at x = 0 counts from x = -d/2)."""
    if not any(period):
        return [obj]
    lo, hi = obj.bounds()
    reach = reach or [0.0, 0.0, 0.0]
    # an image for every k whose shifted bounds reach [0, L] (x = L is x = 0 again) and
    # whose centre lies within half a period of it, unless the object is the same all
    # along the axis and spans the whole period already (a box, a cylinder along it). A
    # point inside any image of a box, a sphere or a cylinder is inside the one whose
    # centre is nearest along each axis (each axis adds its own term to the distance), and
    # for a point of [0, L] that centre lies within [-L/2, 3L/2]: so at most 3 shifts an
    # axis (a sphere of radius 50 mm in a cell of 1 mm made a million images). A round
    # section wider than the period needs its images at the seam all the same (a rod of
    # radius 12 mm in a period of 10 mm, written at x = 3 mm, lacked points that it held
    # written at 13 mm, the same lattice).
    shifts = []
    for a, p in enumerate(period):
        if not p or a >= len(obj.center) or (_uniform_along(obj, a) and lo[a] <= 0
                                             and hi[a] >= p):
            shifts.append([0.0])
            continue
        c, slack = obj.center[a], p * 1e-9 + reach[a]
        ks = range(math.ceil((-0.5 * p - slack - c) / p),
                   math.floor((1.5 * p + slack - c) / p) + 1)
        shifts.append([0.0] + [k * p for k in ks if k and lo[a] + k * p <= p + slack
                               and hi[a] + k * p >= -slack])
    out = []
    for dx in shifts[0]:
        for dy in shifts[1]:
            for dz in shifts[2]:
                move = (dx, dy, dz)[:len(obj.center)]
                out.append(obj if not any(move) else obj.moved(move))
    return out


def _uniform_along(obj, a: int) -> bool:
    """Whether ``obj``'s section is the same all along axis ``a`` within its bounds (a box
    along every axis, a cylinder along its own)."""
    return obj.type == "box" or (obj.type == "cylinder" and "xyz".index(obj.axis) == a)


def placed(scene, grid: YeeGrid | None) -> list:
    """The scene's objects in order, each followed by its images along the grid's periodic
    axes that reach the domain (_images); the objects alone where ``grid`` is None."""
    if grid is None:
        return list(scene.objects)
    period = _periods(grid)
    return [im for obj in scene.objects for im in _images(obj, period, _reach(obj, grid))]


def _reach(obj, grid: YeeGrid) -> list:
    """_images' reach for ``obj``: half a cell along each axis for a box that blends."""
    return [0.5 * d if blends(obj) and math.isfinite(d) else 0.0 for d in grid.steps]


def acting(objects: list, component: str) -> list:
    """The objects of ``objects`` that act on ``component``: all but the conductor that does
    not hold it (PMC to E, PEC to H), which that field passes through, seeing the material
    drawn before it. It took vacuum's values there: the E points on a PMC box's faces in a
    dielectric (eps_r = 9) had eps_r = 1, and its cavity's resonance moved up by 3.9e-2
    where in vacuum it moves down, as the box's half cell less on each face says."""
    return [o for o in objects if o.material not in CONDUCTORS or o.material == holding(component)]


def material_map(scene, x, y, z, grid: YeeGrid | None = None,
                 component: str | None = None) -> np.ndarray:
    """Material number at the points (x, y, z) (broadcast arrays, metres); with ``grid``,
    the objects repeat along its periodic axes (placed()); with ``component``, the
    objects that act on it (acting())."""
    numbers = material_numbers(scene)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
    out = np.full(shape, numbers[scene.background], dtype=MATERIAL_DTYPE)
    objects = placed(scene, grid)
    for obj in objects if component is None else acting(objects, component):
        out[np.broadcast_to(obj.contains(x, y, z), shape)] = numbers[obj.material]
    return out


def _index_range(coords: np.ndarray, lo: float, hi: float) -> slice:
    tol = 1e-9 * max(abs(lo), abs(hi), 1e-30) if np.isfinite(lo) and np.isfinite(hi) else 0.0
    i0 = int(np.searchsorted(coords, lo - tol, side="left"))
    i1 = int(np.searchsorted(coords, hi + tol, side="right"))
    return slice(i0, max(i0, i1))


@dataclass
class Voxels:
    """A component's material numbers on a grid of ``shape``: ``background`` outside
    ``box`` (three slices; None where no object reaches a cell), ``inner`` inside it
    (uint16, x fastest). The grid's other cells are not stored: at 512^3 with the objects
    of examples/dipole_cpml.toml, a box of 7.6% of the grid. Numbers from the scene's
    count of materials on are ``mixtures``, in order: each a tuple of (material number,
    share of the point's cell), the shares summing to 1 (see _mixture): a plain tuple
    for the volume mean of its materials, a Series for their harmonic mean."""

    shape: tuple[int, int, int]
    background: int
    box: tuple[slice, slice, slice] | None
    inner: np.ndarray | None
    mixtures: tuple = ()

    def take(self, index: tuple) -> np.ndarray:
        """The materials at ``index``: a tuple of three, each an int or slice(None)."""
        shape = tuple(n for i, n in zip(index, self.shape, strict=True)
                      if not isinstance(i, (int, np.integer)))
        out = np.full(shape, self.background, dtype=MATERIAL_DTYPE, order="F")
        if self.box is None:
            return out
        src, dst = [], []
        for i, b in zip(index, self.box, strict=True):
            if isinstance(i, (int, np.integer)):
                if not b.start <= i < b.stop:
                    return out   # the plane misses the box
                src.append(i - b.start)
            else:
                src.append(slice(None))
                dst.append(b)
        out[tuple(dst)] = self.inner[tuple(src)]
        return out

    def full(self) -> np.ndarray:
        """The materials of every cell."""
        return self.take((slice(None),) * 3)


def voxelize(scene, grid: YeeGrid, component: str) -> np.ndarray:
    """Material numbers of ``component`` on the whole grid (uint16, x fastest).

    Only the bounding box of each object is evaluated, so the cost follows the objects'
    size rather than the grid's.
    """
    return voxelize_region(scene, grid, component).full()


CONDUCTORS = ("pec", "pmc")


def blends(obj) -> bool:
    """Whether ``obj`` is painted by the share of each point's cell it holds (a box of a
    material other than a conductor: a PEC or PMC box keeps its points on its faces, where
    the tangential field of a conductor's surface is held)."""
    return obj.type == "box" and obj.material not in CONDUCTORS


def _across(grid: YeeGrid, component: str) -> list[int]:
    """The axes across ``component`` (not its own) that the grid has."""
    ndim = 2 if grid.mode != "3d" else 3
    a = axis_of(component)
    return [t for t in range(ndim) if t != a]


#: points whose sub-points are painted at once (voxelize_region): their coordinates take
#: 400 bytes a point in 3D
CHUNK = 1 << 16
#: sub-points a side of a point's cell along each axis across its component (see
#: _straddled): their shares are exact for faces on grid planes (1/2, 1/4) and within a
#: quarter of a cell for others
SUB = 4


def _own_axis(grid: YeeGrid, component: str) -> int | None:
    """``component``'s own axis where the grid has it (None for Ez in TMz, Hz in TEz:
    a 2D grid's points have no extent along z)."""
    ndim = 2 if grid.mode != "3d" else 3
    a = axis_of(component)
    return a if a < ndim and math.isfinite(grid.steps[a]) else None


def _whole_across(obj, grid: YeeGrid, t: int, p) -> np.ndarray:
    """Whether the cells [p - d/2, p + d/2] of the points at ``p`` along the axis ``t``
    lie wholly inside the box ``obj`` along it, as the sub-points see them: the part past
    a wall is its mirror image inside (_mixtures_at), and along a periodic axis a box that
    spans the whole period holds every cell."""
    lo, hi = obj.bounds()
    d = grid.steps[t]
    tol = obj.allowance(t, lo[t], hi[t], d)
    period = _periods(grid)[t]
    if period and lo[t] <= 0 and hi[t] >= period:
        return np.ones(np.shape(p), dtype=bool)
    start, stop = p - 0.5 * d, p + 0.5 * d
    length = grid.cells[t] * grid.steps[t]
    if not period and math.isfinite(length):
        start, stop = np.maximum(start, 0.0), np.minimum(stop, length)
    return (start >= lo[t] - tol) & (stop <= hi[t] + tol)


def _straddled(obj, grid: YeeGrid, component: str, x, y, z) -> np.ndarray:
    """Which points of ``component`` (broadcast coordinates) have cells that a face of the
    box ``obj`` cuts across the component's axis: along that axis the point lies in the box
    or on a face (as contains()); along each other axis of the grid its cell [p - d/2,
    p + d/2] reaches into the box, and along one at least it is not wholly inside
    (_whole_across)."""
    pts = (x, y, z)
    lo, hi = obj.bounds()
    a = axis_of(component)
    shape = np.broadcast_shapes(*(np.shape(q) for q in pts))
    reach, whole = np.ones(shape, dtype=bool), np.ones(shape, dtype=bool)
    if a < len(obj.center):   # along its own axis, the point: inside or on a face
        c, half = obj.center[a], 0.5 * obj.size[a]
        reach &= np.abs(pts[a] - c) <= half + obj.allowance(a, c, half)
    for t in _across(grid, component):
        d = grid.steps[t]
        tol = obj.allowance(t, lo[t], hi[t], d)
        reach &= (pts[t] + 0.5 * d > lo[t] + tol) & (pts[t] - 0.5 * d < hi[t] - tol)
        whole &= _whole_across(obj, grid, t, pts[t])
    return reach & ~whole


def _cut_along(obj, grid: YeeGrid, component: str, x, y, z) -> np.ndarray:
    """Which points of ``component`` (broadcast coordinates) have cells that a face of the
    box ``obj`` normal to the component cuts: along the component's own axis the cell
    [p - d/2, p + d/2] reaches into the box and is not wholly inside it; along every other
    axis of the grid the point lies in the box or on a face. None on a grid without the own
    axis (Ez in TMz, Hz in TEz). Whether the cell is whole across the component is decided
    by the sub-points across it, painted by every object (voxelize_region): a box that
    meets another, or its own periodic image, leaves the cells at the seam whole."""
    pts = (x, y, z)
    shape = np.broadcast_shapes(*(np.shape(q) for q in pts))
    a = _own_axis(grid, component)
    if a is None or a >= len(obj.center):
        return np.zeros(shape, dtype=bool)
    lo, hi = obj.bounds()
    d = grid.steps[a]
    tol = obj.allowance(a, lo[a], hi[a], d)
    start, stop = pts[a] - 0.5 * d, pts[a] + 0.5 * d
    out = (stop > lo[a] + tol) & (start < hi[a] - tol) & \
        ~((start >= lo[a] - tol) & (stop <= hi[a] + tol))
    out = np.broadcast_to(out, shape).copy()
    for t in _across(grid, component):
        tol = obj.allowance(t, lo[t], hi[t], grid.steps[t])
        out &= (pts[t] >= lo[t] - tol) & (pts[t] <= hi[t] + tol)
    return out


def _sub_offsets(grid: YeeGrid, component: str, along: bool = False) -> np.ndarray:
    """(S, 3) offsets (metres) of the sub-points of a point's cell: SUB a side along each
    axis across the component, at the centres of equal parts of the cell; 0 along the
    component's own axis (and any the grid lacks). With ``along``, SUB along the own axis
    alone (0 across it)."""
    per_axis = [np.zeros(1)] * 3
    own = _own_axis(grid, component)
    for t in ([own] if own is not None else []) if along else _across(grid, component):
        per_axis[t] = ((np.arange(SUB) + 0.5) / SUB - 0.5) * grid.steps[t]
    return np.stack([g.ravel() for g in np.meshgrid(*per_axis, indexing="ij")], axis=1)


def _mixtures_at(grid: YeeGrid, component: str, objects, numbers, points,
                 background: int, along: bool = False) -> np.ndarray:
    """The materials of the sub-points of the cells of ``points`` ((n, 3) coordinates),
    (n, S), painted in order over the background: a box that blends at each sub-point
    (across the component's axis, and along it at the point; with ``along``, along the
    own axis, and across it at the point: _sub_offsets); a conductor, where it holds the
    point, at the sub-points it holds, and at the nearest ones on a side it reaches past
    the point on (all of them where it holds none: a sheet thinner than their spacing),
    so that a later box over the same part of the cell frees the point
    (a hole cut to a plate's thickness: the sub-points outside the plate stayed its, and the
    hole's points on its faces held at zero); any other object at the point itself, for all
    of the cell's sub-points (a sphere's points are as before). Along a periodic axis the
    sub-points past an end come back in at the other; along another, those past a wall are
    its images in the wall (a box that reaches a PMC wall, whose tangential E is its own
    image's, fills the cells of the wall's points)."""
    offs = _sub_offsets(grid, component, along)
    sub = np.full((len(points), len(offs)), background, dtype=MATERIAL_DTYPE)
    x, y, z = (points[:, q][:, None] for q in range(3))
    q = [x + offs[None, :, 0], y + offs[None, :, 1], z + offs[None, :, 2]]
    for t, period in enumerate(_periods(grid)):
        length = grid.cells[t] * grid.steps[t]
        if period:
            q[t] = np.mod(q[t], period)
        elif math.isfinite(length) and np.any(offs[:, t]):
            q[t] = np.where(q[t] < 0, -q[t], np.where(q[t] > length, 2 * length - q[t], q[t]))
    q = [np.broadcast_to(v, sub.shape) for v in q]
    # each point's sub-points and the point itself, per axis: along a periodic axis the
    # sub-points of a point on the seam come back in at the far end, and an image of an
    # object that holds the point but none of them was passed over (a PEC wall's face, or a
    # cylinder's end, on the seam dropped out where a box blended the same cells)
    span = [(np.minimum(v.min(axis=1), c[:, 0]), np.maximum(v.max(axis=1), c[:, 0]))
            for v, c in zip(q, (x, y, z), strict=True)]
    node = [np.broadcast_to(v, sub.shape) for v in (x, y, z)]
    # where a sub-point is one of the two nearest the point along an axis, a probe just
    # past the point on its side along that axis (at the sub-point along the others): a
    # conductor that reaches past the point there claims it (below)
    smallest = [np.min(np.abs(offs[:, t][offs[:, t] != 0]), initial=np.inf) for t in range(3)]
    probe = [np.where(np.isclose(np.abs(offs[None, :, t]), smallest[t]),
                      node[t] + np.sign(offs[None, :, t]) * 1e-4 * grid.steps[t], q[t])
             if math.isfinite(smallest[t]) else q[t] for t in range(3)]
    probe = [np.broadcast_to(v, sub.shape) for v in probe]
    for obj in objects:   # each on the points whose sub-points its bounds may hold
        lo, hi = obj.bounds()
        near = np.ones(len(points), dtype=bool)
        for t in range(len(lo)):
            tol = obj.allowance(t, lo[t], hi[t]) + 1e-300
            near &= (span[t][1] >= lo[t] - tol) & (span[t][0] <= hi[t] + tol)
        if not near.any():
            continue
        if obj.material in CONDUCTORS:   # the part of the cell it holds, if it holds the point
            held = obj.contains(*(v[near] for v in q))
            thin = ~held.any(axis=1, keepdims=True)   # a sheet between the sub-points: all
            # a sliver of it past the point on a side, short of that side's nearest
            # sub-points, claims them (a later box over the rest of the cell then leaves
            # the point held, as the sliver's face passes through it)
            held |= obj.contains(*(v[near] for v in probe))
            inside = obj.contains(*(v[near] for v in node)) & (held | thin)
        else:
            inside = obj.contains(*(v[near] for v in (q if blends(obj) else node)))
        sub[near] = np.where(inside, numbers[obj.material], sub[near])
    return sub


def _object_boxes(scene, grid: YeeGrid, component: str, coords=None, objects=None) -> list:
    """Per object of placed() (or ``objects``), the slices of ``component``'s points within
    its bounding box (None where it holds none); for a box that blends (blends()), within
    half a cell more along each axis, where the points' cells meet it (_straddled,
    _cut_along)."""
    coords = coords or [grid.coords(component, a) for a in range(3)]
    ndim = 2 if grid.mode != "3d" else 3
    boxes = []
    for obj in placed(scene, grid) if objects is None else objects:
        lo, hi = obj.bounds()
        if blends(obj):   # the points whose cells reach into it (_straddled, _cut_along)
            lo, hi = list(lo), list(hi)
            own = _own_axis(grid, component)
            for t in _across(grid, component) + ([own] if own is not None else []):
                lo[t] -= 0.5 * grid.steps[t] * (1 - 1e-9)
                hi[t] += 0.5 * grid.steps[t] * (1 - 1e-9)
        box = tuple(_index_range(coords[a], lo[a], hi[a]) if a < ndim
                    else slice(0, grid.shape[a]) for a in range(3))
        boxes.append(None if any(s.start >= s.stop for s in box) else box)
    return boxes


def objects_box(scene, grid: YeeGrid, component: str, boxes=None):
    """The slices of ``component``'s points that the objects' bounding boxes hold,
    together (one box around them all), or None where they hold none: outside it every
    point takes the background material."""
    boxes = [b for b in (boxes if boxes is not None else
                         _object_boxes(scene, grid, component)) if b is not None]
    if not boxes:
        return None
    return tuple(slice(min(b[a].start for b in boxes), max(b[a].stop for b in boxes))
                 for a in range(3))


def holding(component: str) -> str:
    """The conductor that holds ``component`` at zero: PEC an E component, PMC an H one
    (the other field passes through the conductor: acting())."""
    return "pec" if component[0] == "e" else "pmc"


#: a material whose loss a time step, sigma dt / (2 v), is this or more conducts on the
#: grid's time scale (_conducting)
CONDUCTING = 1.0


def _conducting(scene, grid: YeeGrid, component: str) -> np.ndarray:
    """The material numbers that conduct for ``component`` on the grid's time scale
    (CONDUCTING: sigma_e for E, sigma_m for H, along its axis). A cell cut normal to the
    component by such a material keeps the material at the point, as a conductor's does:
    the series mean to first order in the loss made a metal's share of the cell very lossy
    (a slab of 1e4 S/m standing for a wall moved its cavity's resonance 6 times as far),
    and a metal's face is placed by the tangential field, not the normal one."""
    from ..constants import EPS0, MU0

    a = axis_of(component)
    electric = component[0] == "e"
    out = []
    for k, name in enumerate(scene.material_names()):
        eps_r, mu_r, sig_e, sig_m = scene.material(name).axis(a)
        v, sig = (EPS0 * eps_r, sig_e) if electric else (MU0 * mu_r, sig_m)
        if sig * grid.dt / (2 * v) >= CONDUCTING:
            out.append(k)
    return np.array(out, dtype=MATERIAL_DTYPE)


class Series(tuple):
    """A mixture (as a tuple of (material number, share)) of layers across the field, in
    series along the component's axis (the cell cut by a face normal to it): its value is
    the harmonic mean of its materials' (coefficients.material_rows), not the volume mean
    of a plain tuple of the same shares, which it never equals."""

    __slots__ = ()

    def __eq__(self, other):
        return isinstance(other, Series) and tuple.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(("series", tuple(self)))

    def __repr__(self):
        return f"Series({tuple.__repr__(self)})"


def _mixture(row: np.ndarray, numbers: dict, base: int, mixtures: list,
             component: str, series: bool = False) -> int:
    """The material number of a point of ``component`` whose cell's sub-points hold the
    materials ``row``: the one material they all hold; the conductor that holds the
    component where it holds some of them (the point lies on its surface, where the
    conductor holds the tangential field: a box drawn after it over its face does not free
    that field unless it fills the whole cell); else the mixture of their shares (the
    other conductor is not painted: acting()), added to ``mixtures`` (numbered from ``base``):
    with ``series`` (sub-points along the component's axis), a Series."""
    m, counts = np.unique(row, return_counts=True)
    if len(m) == 1:
        return int(m[0])
    if numbers[holding(component)] in m:
        return numbers[holding(component)]
    mix = tuple((int(k), float(c) / len(row)) for k, c in zip(m, counts, strict=True))
    if series:
        mix = Series(mix)
    if mix not in mixtures:
        mixtures.append(mix)
    return base + mixtures.index(mix)


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the distinct rows of ``rows``, each row's index among them), as np.unique(axis=0)
    gives them but from a 64-bit hash of each row, checked: np.unique sorted the rows
    themselves, 2 of the 3 s of a component's voxels with 30 boxes on 256^3 cells."""
    mult = np.random.default_rng(7).integers(1, 2**62, size=rows.shape[1], dtype=np.uint64)
    with np.errstate(over="ignore"):
        key = (rows.astype(np.uint64) * (mult | np.uint64(1))).sum(axis=1)
    _, first, back = np.unique(key, return_index=True, return_inverse=True)
    back = back.ravel()
    if not np.array_equal(rows[first][back], rows):   # two rows of one hash: sort them
        kinds, back = np.unique(rows, axis=0, return_inverse=True)
        return kinds, back.ravel()
    return rows[first], back


def point_material(scene, grid: YeeGrid, component: str, index) -> tuple[int, tuple]:
    """(material number, mixtures) of the point ``index`` of ``component``, as
    voxelize_region gives it, from that point alone: the number is a mixture's (from the
    scene's count of materials on) where boxes' faces cut its cell."""
    numbers = material_numbers(scene)
    point = np.array([[_coordinate(grid, component, a, i) for a, i in enumerate(index)]])
    m = int(material_map(scene, *point.T, grid=grid, component=component)[0])
    objects = acting(placed(scene, grid), component)
    boxes = [o for o in objects if blends(o)]
    background = numbers[scene.background]
    across = any(_straddled(o, grid, component, *point.T)[0] for o in boxes)
    along = any(_cut_along(o, grid, component, *point.T)[0] for o in boxes)
    if not (across or along):
        return m, ()
    sub = _mixtures_at(grid, component, objects, numbers, point, background) if across \
        else None
    if sub is None or (along and np.all(sub[0] == sub[0, 0])):   # whole across: the series
        sub = _mixtures_at(grid, component, objects, numbers, point, background, True)
        if np.isin(sub[0], _conducting(scene, grid, component)).any() and \
                not np.all(sub[0] == sub[0, 0]):
            return m, ()   # a conducting layer: the material at the point (_conducting)
    else:
        along = False
    mixtures: list = []
    return _mixture(np.sort(sub[0]), numbers, len(numbers), mixtures, component, along), \
        tuple(mixtures)


def _mark_along(along: np.ndarray, obj, grid: YeeGrid, component: str, points,
                where: tuple) -> None:
    """Mark in ``along`` (at ``where``, the block of the points of the broadcast
    coordinates ``points``) the points whose cells a face of ``obj`` normal to
    ``component`` cuts (_cut_along), looking only at the planes of points within a cell
    of a face along the own axis (a few), not at the whole block."""
    a = _own_axis(grid, component)
    if a is None or a >= len(obj.center):
        return
    lo, hi = obj.bounds()
    p = np.ravel(points[a])
    d = grid.steps[a]
    for k in np.flatnonzero((np.abs(p - lo[a]) < d) | (np.abs(p - hi[a]) < d)):
        plane = list(points)
        plane[a] = points[a][tuple(slice(k, k + 1) if t == a else slice(None)
                                   for t in range(3))]
        dst = list(where)
        dst[a] = slice(where[a].start + k, where[a].start + k + 1)
        block = along[tuple(dst)]
        block |= np.broadcast_to(_cut_along(obj, grid, component, *plane), block.shape)


def voxelize_region(scene, grid: YeeGrid, component: str) -> Voxels:
    """voxelize's materials, stored only in the bounding box of the cells that the
    objects' bounding boxes hold (see Voxels). Points whose cells a face of a box that
    blends cuts (_straddled) take the mixture of the materials at SUB sub-points a side
    of their cell across the component's axis, painted in order (_mixtures_at), so that
    boxes that meet (or a box and its periodic image) fill a cell whole. Points whose cells
    a face normal to the component cuts, and none across it (_cut_along), take the series
    mixture (Series) of the materials at SUB sub-points along the component's axis."""
    numbers = material_numbers(scene)
    background = numbers[scene.background]
    coords = [grid.coords(component, a) for a in range(3)]
    objects = acting(placed(scene, grid), component)
    boxes = _object_boxes(scene, grid, component, coords, objects)
    region = objects_box(scene, grid, component, boxes)
    if region is None:
        return Voxels(grid.shape, background, None, None)
    inner = np.full(tuple(s.stop - s.start for s in region), background,
                    dtype=MATERIAL_DTYPE, order="F")
    cut = np.zeros(inner.shape, dtype=bool) if any(map(blends, objects)) else None
    along = np.zeros(inner.shape, dtype=bool) if cut is not None else None
    for obj, box in zip(objects, boxes, strict=True):
        if box is None:
            continue
        X = coords[0][box[0]][:, None, None]
        Y = coords[1][box[1]][None, :, None]
        Z = coords[2][box[2]][None, None, :]
        where = tuple(slice(b.start - r.start, b.stop - r.start)
                      for b, r in zip(box, region, strict=True))
        part = inner[where]
        part[np.broadcast_to(obj.contains(X, Y, Z), part.shape)] = numbers[obj.material]
        if blends(obj):
            cut[where] |= np.broadcast_to(_straddled(obj, grid, component, X, Y, Z),
                                          part.shape)
            _mark_along(along, obj, grid, component, (X, Y, Z), where)
    mixtures: list = []
    if cut is None:
        return Voxels(grid.shape, background, region, inner, ())
    base = len(numbers)
    # cut across (volume means) first, then normal to the component (series): a point cut
    # both ways keeps the volume mean, unless its cell's sub-points across the component
    # hold one material (boxes that meet there, or a box and its periodic image)
    series_points = along & ~cut
    for marked, series in ((cut, False), (series_points, True)):
        if not marked.any():
            continue
        idx = np.nonzero(marked)
        points = np.stack([coords[q][idx[q] + region[q].start] for q in range(3)], axis=1)
        sub = np.concatenate([   # in chunks: each point's sub-points take 3 x 16 doubles
            np.sort(_mixtures_at(grid, component, objects, numbers, points[k:k + CHUNK],
                                 background, series), axis=1)
            for k in range(0, len(points), CHUNK)])
        if not series:   # whole across where a face normal to the component cuts: series
            move = (sub == sub[:, :1]).all(axis=1) & along[idx]
            series_points[tuple(i[move] for i in idx)] = True
            keep = ~move
        else:   # a conducting material in the cell: the material at the point stays
            keep = ~(np.isin(sub, _conducting(scene, grid, component)).any(axis=1)
                     & ~(sub == sub[:, :1]).all(axis=1))
        idx, sub = tuple(i[keep] for i in idx), sub[keep]
        if not len(sub):
            continue
        kinds, back = _unique_rows(sub)
        made = [_mixture(row, numbers, base, mixtures, component, series) for row in kinds]
        if base + len(mixtures) > np.iinfo(MATERIAL_DTYPE).max:
            raise SetupError(f"objects: {len(mixtures)} mixtures of materials at the faces "
                             "of boxes, more than a grid's material numbers hold; draw fewer "
                             "boxes that meet")
        inner[idx] = np.array(made, dtype=MATERIAL_DTYPE)[back.ravel()]
    return Voxels(grid.shape, background, region, inner, tuple(mixtures))


# ---- what the objects reach, without arrays ----------------------------------------------
# The shapes' insides are conditions on each axis alone (a box's) or a sum of terms each of
# one axis (a sphere's; a cylinder's, with a condition along its axis): on a grid, whose
# points are every combination of the axes' coordinates, the point whose coordinates each
# lie nearest the centre is inside where any point is (both neighbours of the centre are
# tried on each axis: rounding may tell a tie either way). And each shape is convex: a block
# of points is inside where its corners are. Neither needs an array of the grid, so a
# scene of 2^40 cells is looked at as fast as one of 8.


def _coordinate(grid: YeeGrid, component: str, axis: int, index: int) -> float:
    d = grid.steps[axis]
    return (index + OFFSETS[component][axis]) * d if math.isfinite(d) else 0.0


def _nearest(grid: YeeGrid, component: str, axis: int, centre: float, lo: int,
             hi: int) -> tuple[int, ...]:
    """The indices in [lo, hi) whose points of ``component`` along ``axis`` lie nearest to
    ``centre`` (metres): the one on each side of it. Both, since where the centre lies
    halfway between two points (an object aligned with the grid) rounding may put either
    inside its faces and the other outside."""
    d = grid.steps[axis]
    if not math.isfinite(d):
        return (lo,)
    x = centre / d - OFFSETS[component][axis]   # infinite for a centre far away
    if not x > lo:
        return (lo,)
    if not x < hi - 1:
        return (hi - 1,)
    return tuple(sorted({math.floor(x), math.ceil(x)}))


def full_ranges(grid: YeeGrid, component: str) -> tuple[tuple[int, int], ...]:
    """The index ranges [lo, hi) of ``component``'s points in the domain, per axis."""
    return tuple((0, e) for e in grid.extent(component))


def reaches(obj, grid: YeeGrid, component: str, ranges) -> bool:
    """Whether ``obj`` holds a point of ``component`` with indices in ``ranges`` ([lo, hi)
    per axis): one of the (at most 8) points nearest its centre (see above)."""
    near = [np.array([_coordinate(grid, component, a, i)
                      for i in _nearest(grid, component, a, obj.center[a], *r)])
            if a < len(obj.center) else np.zeros(1) for a, r in enumerate(ranges)]
    return bool(np.any(obj.contains(near[0][:, None, None], near[1][None, :, None],
                                    near[2][None, None, :])))


def covers(obj, grid: YeeGrid, component: str, ranges) -> bool:
    """Whether ``obj`` holds every point of ``component`` with indices in ``ranges``: the
    block's corners (see above)."""
    ends = [np.array([_coordinate(grid, component, a, lo),
                      _coordinate(grid, component, a, hi - 1)]) for a, (lo, hi) in
            enumerate(ranges)]
    return bool(np.all(obj.contains(ends[0][:, None, None], ends[1][None, :, None],
                                    ends[2][None, None, :])))


def _sub_lattice(grid: YeeGrid, component: str, axis: int, lo: int, hi: int) -> np.ndarray:
    """Along ``axis`` (across ``component`` or along it), the coordinates of the
    sub-points (see SUB) of the cells of points lo .. hi - 1: SUB a cell, evenly."""
    d = grid.steps[axis]
    j = np.arange(lo * SUB, hi * SUB)
    return ((j + 0.5) / SUB + OFFSETS[component][axis] - 0.5) * d


def _near_lattice(coords: np.ndarray, centre: float) -> np.ndarray:
    """The (at most two) coordinates of the sorted ``coords`` on either side of
    ``centre`` (the ends where it lies beyond them)."""
    k = int(np.searchsorted(coords, centre))
    return coords[max(0, k - 1):k + 1] if 0 < k < len(coords) else coords[[min(k, len(coords) - 1)]]


def reaches_cells(obj, grid: YeeGrid, component: str, ranges) -> bool:
    """reaches() for a box that blends: whether it holds a sub-point of the cell of a point
    of ``component`` with indices in ``ranges``, so that some point may take some of its
    material (voxelize_region): one across the component's axis at the point along it
    (_straddled), or one along it at the point across it (_cut_along)."""
    a = axis_of(component)
    own = _own_axis(grid, component)
    for sub_axes in ([t for t in range(3) if t != a], [own] if own is not None else None):
        if sub_axes is None:
            continue
        near = []
        for t, r in enumerate(ranges):
            if t >= len(obj.center) or not math.isfinite(grid.steps[t]):
                near.append(np.zeros(1))
            elif t in sub_axes:
                near.append(_near_lattice(_sub_lattice(grid, component, t, *r),
                                          obj.center[t]))
            else:
                near.append(np.array([_coordinate(grid, component, t, i) for i in
                                      _nearest(grid, component, t, obj.center[t], *r)]))
        if np.any(obj.contains(near[0][:, None, None], near[1][None, :, None],
                               near[2][None, None, :])):
            return True
    return False


def covers_cells(obj, grid: YeeGrid, component: str, ranges) -> bool:
    """covers() for a box that blends: whether it holds the whole cell (every sub-point,
    along the component's axis too where the grid has it) of every point of
    ``component`` with indices in ``ranges``."""
    a = axis_of(component)
    ends = []
    for t, (lo, hi) in enumerate(ranges):
        if (t == a and _own_axis(grid, component) is None) or t >= len(obj.center) \
                or not math.isfinite(grid.steps[t]):
            ends.append(np.array([_coordinate(grid, component, t, lo),
                                  _coordinate(grid, component, t, hi - 1)]))
        else:
            sub = _sub_lattice(grid, component, t, lo, hi)
            ends.append(sub[[0, -1]])
    return bool(np.all(obj.contains(ends[0][:, None, None], ends[1][None, :, None],
                                    ends[2][None, None, :])))


def sub_points(grid: YeeGrid, component: str) -> int:
    """How many sub-points a point's cell has (SUB a side across the component's axis)."""
    return SUB ** len(_across(grid, component))


def sub_points_along(grid: YeeGrid, component: str) -> int:
    """How many sub-points a cell cut normal to ``component`` has (SUB along its axis;
    none on a grid without that axis: _cut_along)."""
    return SUB if _own_axis(grid, component) is not None else 0


def object_notes(scene, grid: YeeGrid) -> tuple[str, ...]:
    """What a user should hear of the objects before a run: one that holds no point of
    any field component it acts on (smaller than a cell, or inside the domain only where no
    such point lies; a PEC object acts on E alone, a PMC one on H) is not in the run at
    all. A note, not an error: the run is right for what the grid resolves, and a scene
    may keep such an object on purpose (a feature below this grid's resolution, there for
    a finer one)."""
    out = []
    period = _periods(grid)
    for i, obj in enumerate(scene.objects):
        seen = reaches_cells if blends(obj) else reaches
        # a conductor acts on the components it holds alone (PEC on E, PMC on H)
        held = [c for c in grid.components
                if obj.material not in CONDUCTORS or holding(c) == obj.material]
        images = _images(obj, period, _reach(obj, grid))
        if not any(seen(im, grid, c, full_ranges(grid, c)) for im in images for c in held):
            size = f"radius {obj.radius:.4g} m" if hasattr(obj, "radius") else \
                f"size {' x '.join(f'{v:.4g}' for v in obj.size)} m"
            what = {"pec": "E ", "pmc": "H "}.get(obj.material, "")
            out.append(f"objects[{i}]: this {obj.type} ({size}) holds no point of any "
                       f"{what}field component of the grid (cells of {_cells(grid)}), so "
                       "the run does not see it; enlarge it, move it onto the grid's "
                       "points, or use smaller cells")
        elif obj.material in CONDUCTORS:
            out += _thin_conductor_note(i, obj, grid, images, held, seen)
        elif blends(obj):
            out += _thickness_note(i, obj, grid)
    return tuple(out)


#: how far (a fraction) the thickness the grid paints a box of a material may be from its
#: own before a note says so
THICKNESS_OFF = 0.1


def _thickness_note(i: int, obj, grid: YeeGrid) -> list[str]:
    """The note on a box of a material whose thickness along an axis the grid paints more
    than THICKNESS_OFF from its own: each face is placed to the nearest quarter of a cell
    (the SUB sub-points of a point's cell), so a layer of 0.3 cells between 500.1 and
    500.4 acts as one of 0.5 (500 to 500.5; a thin layer's reflection, about in proportion
    to its thickness, came out 66% high without a word), and a face on a sub-point counts
    it in (a box from 4.1 to 5.7 mm on 0.8 mm cells, 2 cells, is painted as 2.25). The axis
    where it is off most; along a non-periodic axis the box within the domain, along a
    periodic one its images shifted by whole cells, placed alike. Each box alone: one drawn
    over it, or a layer drawn as two boxes, is not taken into account."""
    lo, hi = obj.bounds()
    worst = None
    for a in range(len(obj.center)):
        d = grid.steps[a]
        if not math.isfinite(d):
            continue
        length = grid.cells[a] * d
        a_lo, a_hi = lo[a], hi[a]
        if not grid.periodic[a]:
            a_lo, a_hi = max(a_lo, 0.0), min(a_hi, length)
        if a_hi - a_lo >= length or not a_hi > a_lo:
            continue   # the whole domain (or period) along it: no face there
        own = a_hi - a_lo
        # the sub-points it holds, at (m + 1/2) d / SUB along the axis for every component,
        # one on a face counted in (as contains() counts it, within its allowance)
        tol = obj.allowance(a, lo[a], hi[a], d) / d
        held = math.floor(SUB * a_hi / d - 0.5 + SUB * tol) - \
            math.ceil(SUB * a_lo / d - 0.5 - SUB * tol) + 1
        painted = max(held, 0) * d / SUB
        off = abs(painted - own) / own
        if off > THICKNESS_OFF and (worst is None or off > worst[0]):
            worst = (off, a, own, painted, d, (a_lo, a_hi) != (lo[a], hi[a]))
    if worst is None:
        return []
    off, a, own, painted, d, cut = worst
    what = "its part inside the domain is" if cut else "this box is"
    return [f"objects[{i}]: {what} {own / d:.3g} cells thick along {'xyz'[a]} "
            f"({own:.4g} m), which the grid paints as {painted / d:g} (each face is placed "
            f"to the nearest quarter of a cell): {100 * off:.0f}% "
            f"{'thicker' if painted > own else 'thinner'}, and a thin layer's reflection and "
            f"delay off by about as much; use cells of at most "
            f"{SUB * THICKNESS_OFF * own:.3g} m along {'xyz'[a]} (each face then within "
            f"{100 * THICKNESS_OFF / 2:g}% of the thickness), or faces on quarter cells"]


def _thin_conductor_note(i: int, obj, grid: YeeGrid, images: list, held: list,
                         seen) -> list[str]:
    """The note on a conductor thinner than a cell along some axes (a sheet, a wire) that
    holds none of the components it acts on along its other axes, the ones a wave along it
    needs stopped (a PEC sheet normal to x holds no Ey or Ez, a wire along z no Ez): it
    holds only components across it, and a wave passes it as if it were not there (a PEC
    plate 0.9 cells thick between two E planes transmitted all of a pulse). ``images``:
    the object's, ``held``: the components it acts on (object_notes')."""
    lo, hi = obj.bounds()
    ndim = len(obj.center)
    thin = [a for a in range(ndim) if hi[a] - lo[a] < grid.steps[a]]
    if not thin or len(thin) == ndim:
        return []
    kind = held[0][0] if held else ""
    needed = [c for c in held if axis_of(c) not in thin]
    if not needed or any(seen(im, grid, c, full_ranges(grid, c)) for im in images
                         for c in needed):
        return []
    across = " and ".join("xyz"[a] for a in thin)
    return [f"objects[{i}]: this {obj.type} is thinner than a cell along {across} and holds "
            f"no point of {', '.join(needed)} (the {kind.upper()} components along it, which "
            f"it would have to hold at zero), so a wave passes it as if it were not there; "
            f"move it onto the grid's {kind.upper()} points (a sheet on a grid plane) or make "
            "it a cell thick"]


def _cells(grid: YeeGrid) -> str:
    sizes = [d for d in grid.steps if math.isfinite(d)]
    if len(set(sizes)) == 1:
        return f"{sizes[0]:.4g} m"
    return " x ".join(f"{d:.4g}" for d in sizes) + " m"
