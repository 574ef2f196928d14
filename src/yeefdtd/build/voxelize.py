"""Voxelization: the material at every point of every field component.

Each component is sampled at its own staggered position, so the faces of an object fall
where the Yee grid puts them (the usual staircase). Objects are painted in scene order; a
point inside no object keeps the background. Along a periodic axis of length L an object
repeats with the period: it is painted with its images shifted by L either way that reach
the domain (placed()), so one that crosses the face x = L comes back in at x = 0, as a
wave does. Material numbers follow ``Scene.material_names()``: 0 vacuum, 1 pec, 2 pmc,
then the scene's materials.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .grid import OFFSETS, YeeGrid

MATERIAL_DTYPE = np.uint16


def material_numbers(scene) -> dict[str, int]:
    return {name: i for i, name in enumerate(scene.material_names())}


def _periods(grid: YeeGrid) -> list:
    """Per axis, its length where the grid is periodic along it (None elsewhere)."""
    ndim = 2 if grid.mode != "3d" else 3
    return [grid.cells[a] * grid.steps[a] if a < ndim and grid.periodic[a] else None
            for a in range(3)]


def _images(obj, period: list) -> list:
    """``obj`` and its images shifted by a period (``period``: _periods') either way along
    the periodic axes, alone and in combination, whose bounds reach the domain."""
    if not any(period):
        return [obj]
    lo, hi = obj.bounds()
    # an image where the shifted bounds reach [0, L] (x = L is x = 0 again), unless the
    # object spans the whole period already
    shifts = [[0.0] + [k * p for k in (-1, 1) if lo[a] + k * p <= p * (1 + 1e-9) and
                       hi[a] + k * p >= -p * 1e-9]
              if p and a < len(obj.center) and not (lo[a] <= 0 and hi[a] >= p) else [0.0]
              for a, p in enumerate(period)]
    out = []
    for dx in shifts[0]:
        for dy in shifts[1]:
            for dz in shifts[2]:
                move = (dx, dy, dz)[:len(obj.center)]
                out.append(obj if not any(move) else obj.model_copy(update={"center": tuple(
                    c + d for c, d in zip(obj.center, move, strict=True))}))
    return out


def placed(scene, grid: YeeGrid | None) -> list:
    """The scene's objects in order, each followed by its images along the grid's periodic
    axes that reach the domain (_images); the objects alone where ``grid`` is None."""
    if grid is None:
        return list(scene.objects)
    period = _periods(grid)
    return [im for obj in scene.objects for im in _images(obj, period)]


def material_map(scene, x, y, z, grid: YeeGrid | None = None) -> np.ndarray:
    """Material number at the points (x, y, z) (broadcast arrays, metres); with ``grid``,
    the objects repeat along its periodic axes (placed())."""
    numbers = material_numbers(scene)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
    out = np.full(shape, numbers[scene.background], dtype=MATERIAL_DTYPE)
    for obj in placed(scene, grid):
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
    of examples/dipole_cpml.toml, a box of 7.6% of the grid."""

    shape: tuple[int, int, int]
    background: int
    box: tuple[slice, slice, slice] | None
    inner: np.ndarray | None

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


def _object_boxes(scene, grid: YeeGrid, component: str, coords=None, objects=None) -> list:
    """Per object of placed() (or ``objects``), the slices of ``component``'s points within
    its bounding box (None where it holds none)."""
    coords = coords or [grid.coords(component, a) for a in range(3)]
    ndim = 2 if grid.mode != "3d" else 3
    boxes = []
    for obj in placed(scene, grid) if objects is None else objects:
        lo, hi = obj.bounds()
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


def voxelize_region(scene, grid: YeeGrid, component: str) -> Voxels:
    """voxelize's materials, stored only in the bounding box of the cells that the
    objects' bounding boxes hold (see Voxels)."""
    numbers = material_numbers(scene)
    background = numbers[scene.background]
    coords = [grid.coords(component, a) for a in range(3)]
    objects = placed(scene, grid)
    boxes = _object_boxes(scene, grid, component, coords, objects)
    region = objects_box(scene, grid, component, boxes)
    if region is None:
        return Voxels(grid.shape, background, None, None)
    inner = np.full(tuple(s.stop - s.start for s in region), background,
                    dtype=MATERIAL_DTYPE, order="F")
    for obj, box in zip(objects, boxes, strict=True):
        if box is None:
            continue
        X = coords[0][box[0]][:, None, None]
        Y = coords[1][box[1]][None, :, None]
        Z = coords[2][box[2]][None, None, :]
        part = inner[tuple(slice(b.start - r.start, b.stop - r.start)
                           for b, r in zip(box, region, strict=True))]
        inside = np.broadcast_to(obj.contains(X, Y, Z), part.shape)
        part[inside] = numbers[obj.material]
    return Voxels(grid.shape, background, region, inner)


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


def object_notes(scene, grid: YeeGrid) -> tuple[str, ...]:
    """What a user should hear of the objects before a run: one that holds no point of
    any field component (smaller than a cell, or inside the domain only where no point
    lies) is not in the run at all. A note, not an error: the run is right for what the
    grid resolves, and a scene may keep such an object on purpose (a feature below this
    grid's resolution, there for a finer one)."""
    out = []
    period = _periods(grid)
    for i, obj in enumerate(scene.objects):
        if not any(reaches(im, grid, c, full_ranges(grid, c)) for im in _images(obj, period)
                   for c in grid.components):
            size = f"radius {obj.radius:.4g} m" if hasattr(obj, "radius") else \
                f"size {' x '.join(f'{v:.4g}' for v in obj.size)} m"
            out.append(f"objects[{i}]: this {obj.type} ({size}) holds no point of any field "
                       f"component of the grid (cells of {_cells(grid)}), so the run does "
                       "not see it; enlarge it, move it onto the grid's points, or use "
                       "smaller cells")
    return tuple(out)


def _cells(grid: YeeGrid) -> str:
    sizes = [d for d in grid.steps if math.isfinite(d)]
    if len(set(sizes)) == 1:
        return f"{sizes[0]:.4g} m"
    return " x ".join(f"{d:.4g}" for d in sizes) + " m"
