"""Voxelization: the material at every point of every field component.

Each component is sampled at its own staggered position, so the faces of an object fall
where the Yee grid puts them (the usual staircase). Objects are painted in scene order; a
point inside no object keeps the background. Material numbers follow
``Scene.material_names()``: 0 vacuum, 1 pec, 2 pmc, then the scene's materials.
"""

from __future__ import annotations

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


def voxelize(scene, grid: YeeGrid, component: str) -> np.ndarray:
    """Material numbers of ``component`` on the whole grid (uint16, x fastest).

    Only the bounding box of each object is evaluated, so the cost follows the objects'
    size rather than the grid's.
    """
    return voxelize_region(scene, grid, component)[0]


def voxelize_region(scene, grid: YeeGrid, component: str):
    """voxelize's materials, and the box (a tuple of three slices) outside which every
    cell holds the background: the bounding box of the objects' cells evaluated (None
    where no object reaches a cell)."""
    numbers = material_numbers(scene)
    out = np.full(grid.shape, numbers[scene.background], dtype=MATERIAL_DTYPE, order="F")
    coords = [grid.coords(component, a) for a in range(3)]
    ndim = 2 if grid.mode != "3d" else 3
    lo_all, hi_all = [None] * 3, [None] * 3
    for obj in scene.objects:
        lo, hi = obj.bounds()
        box = tuple(_index_range(coords[a], lo[a], hi[a]) if a < ndim else slice(None)
                    for a in range(3))
        if any(s.start >= s.stop for s in box if s != slice(None)):
            continue
        X = coords[0][box[0]][:, None, None]
        Y = coords[1][box[1]][None, :, None]
        Z = coords[2][box[2]][None, None, :]
        inside = np.broadcast_to(obj.contains(X, Y, Z), out[box].shape)
        out[box][inside] = numbers[obj.material]
        for a in range(3):
            start, stop, _ = box[a].indices(grid.shape[a])
            lo_all[a] = start if lo_all[a] is None else min(lo_all[a], start)
            hi_all[a] = stop if hi_all[a] is None else max(hi_all[a], stop)
    if lo_all[0] is None:
        return out, None
    return out, tuple(slice(lo, hi) for lo, hi in zip(lo_all, hi_all, strict=True))
