"""Voxelization: the material at every point of every field component.

Each component is sampled at its own staggered position, so the faces of an object fall
where the Yee grid puts them (the usual staircase). Objects are painted in scene order; a
point inside no object keeps the background. Material numbers follow
``Scene.material_names()``: 0 vacuum, 1 pec, 2 pmc, then the scene's materials.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .grid import YeeGrid

MATERIAL_DTYPE = np.uint16


def material_numbers(scene) -> dict[str, int]:
    return {name: i for i, name in enumerate(scene.material_names())}


def material_map(scene, x, y, z) -> np.ndarray:
    """Material number at the points (x, y, z) (broadcast arrays, metres)."""
    numbers = material_numbers(scene)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(z))
    out = np.full(shape, numbers[scene.background], dtype=MATERIAL_DTYPE)
    for obj in scene.objects:
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


def voxelize_region(scene, grid: YeeGrid, component: str) -> Voxels:
    """voxelize's materials, stored only in the bounding box of the cells that the
    objects' bounding boxes hold (see Voxels)."""
    numbers = material_numbers(scene)
    background = numbers[scene.background]
    coords = [grid.coords(component, a) for a in range(3)]
    ndim = 2 if grid.mode != "3d" else 3
    boxes = []
    for obj in scene.objects:
        lo, hi = obj.bounds()
        box = tuple(_index_range(coords[a], lo[a], hi[a]) if a < ndim
                    else slice(0, grid.shape[a]) for a in range(3))
        boxes.append(None if any(s.start >= s.stop for s in box) else box)
    if all(b is None for b in boxes):
        return Voxels(grid.shape, background, None, None)
    region = tuple(slice(min(b[a].start for b in boxes if b is not None),
                         max(b[a].stop for b in boxes if b is not None)) for a in range(3))
    inner = np.full(tuple(s.stop - s.start for s in region), background,
                    dtype=MATERIAL_DTYPE, order="F")
    for obj, box in zip(scene.objects, boxes, strict=True):
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
