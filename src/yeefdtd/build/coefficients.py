"""Update coefficients of the unified formulation, as a small table per component.

For a component F along axis a, with b = a+1 and c = a+2 (cyclically), one step is::

    F <- C_self F + C_b (G[+b] - G) + C_c (K[+c] - K) + C_src J

where the differences are taken along b and c of the two curl fields (for E they look
back: G[i] - G[i-1]; for H forward: G[i+1] - G[i]). With eps = eps0 eps_r[a],
sigma = sigma_e[a], mu = mu0 mu_r[a], sigma_m = sigma_m[a] (Elsherbeni and Demir)::

    E:  C_self = (2 eps - sigma dt) / (2 eps + sigma dt)
        C_b = +2 dt / ((2 eps + sigma dt) d_b)     multiplies the b-difference of H_c
        C_c = -2 dt / ((2 eps + sigma dt) d_c)     multiplies the c-difference of H_b
        C_src = -2 dt / (2 eps + sigma dt)         multiplies the impressed current J_a
    H:  C_self = (2 mu - sigma_m dt) / (2 mu + sigma_m dt)
        C_b = -2 dt / ((2 mu + sigma_m dt) d_b)    multiplies the b-difference of E_c
        C_c = +2 dt / ((2 mu + sigma_m dt) d_c)    multiplies the c-difference of E_b
        C_src = -2 dt / (2 mu + sigma_m dt)        multiplies the impressed current M_a

(Cexe, Cexhz, Cexhy, ... in the papers' names: for Ex, C_b is Cexhz and C_c is Cexhy.)
Row 0 of every table is all zeros: points with id 0 never change. That id marks PEC for E
(and PMC for H), the tangential E on PEC and CPML walls, and the unused slot n of a
component offset by half a cell along a non-periodic axis. On a PMC wall the tangential E
sees the mirror image of H: its coefficient for the difference across the wall is doubled.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..constants import EPS0, MU0
from .grid import OFFSETS, YeeGrid, axis_of, curl_axes
from .voxelize import (
    Series,
    Voxels,
    acting,
    blends,
    covers,
    covers_cells,
    holding,
    material_numbers,
    objects_box,
    placed,
    point_material,
    reaches,
    reaches_cells,
    sub_points,
    sub_points_along,
)

#: columns of a coefficient table
SELF, CB, CC, SRC = 0, 1, 2, 3
COLUMNS = ("self", "b", "c", "src")
_DOUBLE_B, _DOUBLE_C = 1, 2


@dataclass(frozen=True)
class ComponentTable:
    """Material ids of one component and the coefficient rows they index."""

    ids: np.ndarray    #: uint8 (<= 256 rows) or uint16, grid shape, x fastest
    table: np.ndarray  #: float64 (rows, 4): self, b, c, src

    def per_cell(self, column: int) -> np.ndarray:
        """The coefficient of ``column`` at every point (the papers' per-cell array form)."""
        return self.table[self.ids, column]


def material_rows(scene, component: str, dt: float, steps, mixtures=()) -> np.ndarray:
    """(materials, 4) coefficient rows of every material for ``component``, then of every
    mixture of ``mixtures`` (Voxels.mixtures) from its materials' values along the
    component's axis, eps_r and sigma_e for E, mu_r and sigma_m for H: a plain tuple's
    volume mean (layers side by side along the field), a Series' mean of layers across it
    (_series). A mixture holds no conductor (voxelize.acting())."""
    a = axis_of(component)
    b, c = curl_axes(component)
    electric = component[0] == "e"
    names = scene.material_names()
    values = [scene.material(name).axis(a) for name in names]
    values += [_series(mix, values) if isinstance(mix, Series) else
               tuple(sum(w * values[m][q] for m, w in mix) for q in range(4))
               for mix in mixtures]
    rows = np.zeros((len(values), 4))
    for m, (eps_r, mu_r, sig_e, sig_m) in enumerate(values):
        if m < len(names) and ((names[m] == "pec" and electric) or
                               (names[m] == "pmc" and not electric)):
            continue  # stays zero: the field never changes
        if electric:
            den = 2.0 * EPS0 * eps_r + sig_e * dt
            num = 2.0 * EPS0 * eps_r - sig_e * dt
            sign = 1.0
        else:
            den = 2.0 * MU0 * mu_r + sig_m * dt
            num = 2.0 * MU0 * mu_r - sig_m * dt
            sign = -1.0
        rows[m] = (num / den, sign * 2.0 * dt / (den * steps[b]),
                   -sign * 2.0 * dt / (den * steps[c]), -2.0 * dt / den)
    return rows


def _series(mix, values) -> tuple[float, float, float, float]:
    """(eps_r, mu_r, sigma_e, sigma_m) of layers in series along the field, of shares w_i
    (``mix``: (material number, w_i) pairs; ``values``: each material's four): for each
    pair (v, sigma) of (eps_r, sigma_e) and (mu_r, sigma_m), v = 1 / sum(w_i / v_i), the
    harmonic mean (the flux density is the same in every layer), and sigma = v^2
    sum(w_i sigma_i / v_i^2), the layers' admittance eps (j omega + sigma / eps) in series
    to first order in the loss (the volume mean where the v_i are equal)."""
    out = []
    for v_col, s_col in ((0, 2), (1, 3)):
        v = 1.0 / sum(w / values[m][v_col] for m, w in mix)
        out.append((v, v * v * sum(w * values[m][s_col] / values[m][v_col] ** 2
                                   for m, w in mix)))
    (eps, sig_e), (mu, sig_m) = out
    return eps, mu, sig_e, sig_m


class _Rows:
    """Deduplicated coefficient rows; row 0 is the zero row."""

    def __init__(self):
        self.rows: list[tuple[float, ...]] = [(0.0, 0.0, 0.0, 0.0)]
        self.index = {self.rows[0]: 0}

    def add(self, row) -> int:
        key = tuple(float(v) for v in row)
        if key not in self.index:
            self.index[key] = len(self.rows)
            self.rows.append(key)
        return self.index[key]


def _modified(row, flags: int):
    row = np.array(row)
    if flags & _DOUBLE_B:
        row[CB] *= 2.0
    if flags & _DOUBLE_C:
        row[CC] *= 2.0
    return row


def values_present(values: np.ndarray, count: int) -> np.ndarray:
    """The numbers below ``count`` that occur in ``values`` (non-negative integers), sorted.
    Few candidates are compared with the array one by one (513^3 cells: 0.04 s each); more
    are marked in a table of ``count`` flags (0.45 s), where np.bincount, which widens every
    number to 64 bits first, took 0.9 s."""
    flat = values.ravel(order="K")
    if count <= 8:
        return np.array([m for m in range(count) if np.count_nonzero(flat == m)], dtype=np.intp)
    seen = np.zeros(count, dtype=bool)
    seen[flat] = True
    return np.flatnonzero(seen)


def _tangential_walls(grid: YeeGrid, component: str, faces: dict[str, str]):
    """(axis, plane index, face kind) of each wall plane that E ``component`` lies along:
    both ends of every axis but its own and the periodic ones."""
    a = axis_of(component)
    for s in range(3):
        if s == a or grid.periodic[s]:
            continue
        for side, idx in (("min", 0), ("max", grid.cells[s])):
            yield s, idx, faces[f"{'xyz'[s]}_{side}"]


def update_box(scene, grid: YeeGrid, component: str, faces: dict[str, str]):
    """Where ``component``'s update coefficients differ from the background material's,
    as the NumPy backend keeps them: (the planes of its extent held at zero, as (axis,
    index): tangential E on a PEC or CPML wall; the box [lo, hi) per axis, within the
    extent less those planes, outside which every point takes the background material's
    row, or None where no point does otherwise). The box holds the objects' bounding box
    (objects_box) and, for E, the PMC walls' planes (whose rows are the images'); the
    planes are left out of it, so that a scene whose objects lie inside has no point of
    the walls in it."""
    ext = grid.extent(component)
    lo, hi = [0, 0, 0], list(ext)
    zero, pmc = [], []
    if component[0] == "e":
        for s, idx, kind in _tangential_walls(grid, component, faces):
            if kind in ("pec", "cpml"):
                zero.append((s, idx))
                if idx == 0:
                    lo[s] = max(lo[s], 1)
                if idx == ext[s] - 1:
                    hi[s] = min(hi[s], ext[s] - 1)
            elif kind == "pmc":
                pmc.append((s, idx))
    boxes = []
    around = objects_box(scene, grid, component)
    if around is not None:
        boxes.append([(b.start, b.stop) for b in around])
    for s, idx in pmc:
        boxes.append([(idx, idx + 1) if a == s else (0, ext[a]) for a in range(3)])
    if not boxes:
        return zero, None
    box = [(max(lo[a], min(b[a][0] for b in boxes)), min(hi[a], max(b[a][1] for b in boxes)))
           for a in range(3)]
    return zero, (None if any(a >= b for a, b in box) else box)


def component_table(scene, grid: YeeGrid, component: str, materials,
                    faces: dict[str, str]) -> ComponentTable:
    """Ids and table of ``component`` from its voxelized ``materials`` (Voxels, whose cells
    outside its box hold the background and are neither searched nor looked up, or an
    array of every cell's) and the face kinds. With Voxels, the scene of
    examples/dipole_cpml.toml at 512^3 takes a component's ids from its box, 7.6% of the
    grid (the whole grid: 0.68 s a component, 2-core host).

    ``faces`` maps 'x_min' ... 'z_max' to 'pec', 'pmc', 'periodic' or 'cpml'.
    """
    if not isinstance(materials, Voxels):
        full = np.asarray(materials)
        materials = Voxels(full.shape, int(full.flat[0]),
                           tuple(slice(0, n) for n in full.shape), full)
    vox = materials
    base = material_rows(scene, component, grid.dt, grid.steps, vox.mixtures)
    rows = _Rows()
    if not scene.objects or vox.box is None:   # one material everywhere: look at no point
        ids = np.full(vox.shape, rows.add(base[vox.background]), dtype=np.uint8, order="F")
    else:
        whole = all(b.stop - b.start == n for b, n in zip(vox.box, vox.shape, strict=True))
        present = values_present(vox.inner, len(base))
        if not whole and vox.background not in present:   # the cells outside hold it
            present = np.union1d(present, [vox.background]).astype(np.intp)
        # 8-bit ids where the table cannot outgrow them: a row per material, up to three
        # more on PMC walls (see _modified), and the zero row (no conversion after)
        small = 4 * len(present) + 1 <= 256
        lut = np.zeros(len(base), dtype=np.uint8 if small else np.uint16)
        for m in present:
            lut[m] = rows.add(base[m])
        # indexing keeps the materials' layout (x fastest); np.take into an output of that
        # layout walks it with strides, 13 times slower (512^3: 3.8 s a component)
        if whole:
            ids = np.asfortranarray(lut[vox.inner])
        else:
            ids = np.full(vox.shape, lut[vox.background], dtype=lut.dtype, order="F")
            ids[vox.box] = lut[vox.inner]

    a = axis_of(component)
    b, _c = curl_axes(component)
    ext = grid.extent(component)
    active = [s for s in range(3) if not grid.periodic[s]]
    if component[0] == "e":
        # Tangential E on the walls: zero on PEC/CPML, image (doubled difference) on PMC.
        pmc_axes = [s for s in active if s != a
                    and "pmc" in (faces["xyz"[s] + "_min"], faces["xyz"[s] + "_max"])]
        for s in pmc_axes:
            for side, idx in (("min", 0), ("max", grid.cells[s])):
                if faces[f"{'xyz'[s]}_{side}"] != "pmc":
                    continue
                sl = [slice(None)] * 3
                sl[s] = idx
                flags = np.full(ids[tuple(sl)].shape, _DOUBLE_B if s == b else _DOUBLE_C,
                                dtype=np.int64)
                for t in pmc_axes:  # an edge shared with another PMC wall doubles both
                    if t == s:
                        continue
                    tt = t if t < s else t - 1  # axis t inside the plane
                    for side_t, idx_t in (("min", 0), ("max", grid.cells[t])):
                        if faces[f"{'xyz'[t]}_{side_t}"] == "pmc":
                            edge = [slice(None)] * 2
                            edge[tt] = idx_t
                            flags[tuple(edge)] |= _DOUBLE_B if t == b else _DOUBLE_C
                plane = vox.take(tuple(sl))
                combos = {(int(m), int(f)) for m, f in
                          zip(plane.ravel(), flags.ravel(), strict=False)}
                code = {k: rows.add(_modified(base[k[0]], k[1])) for k in combos}
                out = np.empty(plane.shape, dtype=ids.dtype)
                for (m, f), r in code.items():
                    out[(plane == m) & (flags == f)] = r
                ids[tuple(sl)] = out
        for s, idx, kind in _tangential_walls(grid, component, faces):
            if kind in ("pec", "cpml"):
                sl = [slice(None)] * 3
                sl[s] = idx
                ids[tuple(sl)] = 0
    # The unused slot n along non-periodic axes where the component sits half a cell in.
    for s in active:
        if OFFSETS[component][s] == 0.5:
            sl = [slice(None)] * 3
            sl[s] = slice(ext[s], None)
            ids[tuple(sl)] = 0
    table = np.array(rows.rows, dtype=np.float64)
    dtype = np.uint8 if len(table) <= 256 else np.uint16
    if dtype != ids.dtype:
        ids = ids.astype(dtype, order="F")
    return ComponentTable(ids=ids, table=table)


def held_at_zero(scene, grid: YeeGrid, component: str, index, faces: dict[str, str]) -> bool:
    """Whether component_table gives ``component`` at ``index`` the zero row (its value
    never changes: inside PEC for E or PMC for H, tangential E on a PEC or CPML wall, an
    unused slot), found from that point alone, without the table's arrays."""
    ext = grid.extent(component)
    if any(i >= e for i, e in zip(index, ext, strict=True)):
        return True
    if component[0] == "e" and any(index[s] == idx and kind in ("pec", "cpml")
                                   for s, idx, kind in _tangential_walls(grid, component,
                                                                         faces)):
        return True
    m, mixtures = point_material(scene, grid, component, index)
    return not material_rows(scene, component, grid.dt, grid.steps, mixtures)[m].any()


#: rows_reached stops counting mixtures past this many rows: what its callers decide from
#: the rows (whether a column is uniform, whether ids fit 8 bits) is settled long before,
#: and each box would mix with every material before it (500 boxes: millions of rows)
MIXES_COUNTED = 1024


def rows_reached(scene, grid: YeeGrid, component: str, ranges, faces: dict[str, str],
                 base: np.ndarray | None = None) -> np.ndarray:
    """The coefficient rows (as component_table makes them) that the points of
    ``component`` with indices in ``ranges`` ([lo, hi) per axis) take, from the objects
    that reach them and the walls among them, without the table's arrays. An object hidden
    by later ones still counts, as does a PMC wall's every material, so the rows may be
    more than the table has there: never fewer (but for mixtures of three materials or
    more, and those past MIXES_COUNTED rows). A box counts its share k / count of a cell
    with each material before it, and where the component has its own axis in the grid,
    its series share k / SUB too (voxelize's Series)."""
    if base is None:
        base = material_rows(scene, component, grid.dt, grid.steps)
    numbers = material_numbers(scene)
    mats, mixes = {numbers[scene.background]}, set()
    held = numbers[holding(component)]
    count = sub_points(grid, component)
    along = sub_points_along(grid, component)
    for obj in acting(placed(scene, grid), component):
        m = numbers[obj.material]
        whole, some = (covers_cells, reaches_cells) if blends(obj) else (covers, reaches)
        if whole(obj, grid, component, ranges):
            mats, mixes = {m}, set()
        elif some(obj, grid, component, ranges):
            if blends(obj) and len(mats) + len(mixes) <= MIXES_COUNTED:
                # its share of a cell with each material there before
                mixes |= {tuple(sorted(((old, (count - k) / count), (m, k / count)),
                                       key=lambda p: p[0]))
                          for old in mats - {held, m} for k in range(1, count)}
                mixes |= {Series(sorted(((old, (along - k) / along), (m, k / along)),
                                        key=lambda p: p[0]))
                          for old in mats - {held, m} for k in range(1, along)}
            mats.add(m)
    own = [base[m] for m in sorted(mats)]
    if mixes:   # (mixtures of three or more materials, where boxes of several cut one
        # cell, are not counted: the rows may then be fewer than the table's)
        mixed = material_rows(scene, component, grid.dt, grid.steps, sorted(mixes))
        own += list(mixed[len(base):])
    rows = list(own)
    if component[0] == "e":
        b, _c = curl_axes(component)
        for s, idx, kind in _tangential_walls(grid, component, faces):
            if not ranges[s][0] <= idx < ranges[s][1]:
                continue
            if tuple(ranges[s]) == (idx, idx + 1) and len(rows) == len(own):
                rows = []   # every point lies on this wall: it takes the wall's rows alone
            if kind in ("pec", "cpml"):
                rows.append(np.zeros(4))
            elif kind == "pmc":
                rows += [_modified(r, _DOUBLE_B if s == b else _DOUBLE_C) for r in own]
    return np.array(rows)
