"""Launch lists: each returns [(kernel, grid, block, args, shared bytes), ...] for one part of
a step. Built once per stepper (and per candidate shape while tuning), never in the loop."""

from __future__ import annotations

import numpy as np

from .stepper import NULL, _i32


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


#: (cells per thread, threads per block) for the boxes holding CPML layers;
#: $YEEFDTD_SLAB="V,B" overrides it (for experiments).
SLAB_DEFAULT = (2, 256)


def slab_setting() -> tuple[int, int]:
    from .experiments import integers

    v, threads = integers("YEEFDTD_SLAB", 2, 1, 1024) or SLAB_DEFAULT
    return v, threads


def slab_shape() -> tuple[int, int, int, int]:
    """Launch shape for a 2D box holding CPML layers (rows flattened into 1D blocks, so a
    box only a dozen cells wide still fills every lane)."""
    v, threads = slab_setting()
    return (threads, 1, v, 0)


def _coef_args(st, comps) -> list:
    """The per-cell coefficient arrays (self, b, c) of ``comps``, in order."""
    return [arr for c in comps for arr in st._coef[c]]


def update_launches(st, role: str, cfg: tuple) -> list:
    """The variant's H (role 'h') or E (role 'e') update with launch shape ``cfg``."""
    v = st.variant
    f = st._f
    nx, ny, nz = st.shape
    px, py = st.pitch
    mode = st.model.grid.mode
    size = st.dtype.itemsize
    if v.name == "indexed":
        ids, tab, R = st._ids, st._gtab, _i32(st.R)
        if mode == "3d":
            upd, cur = (("hx", "hy", "hz"), ("ex", "ey", "ez")) if role == "h" else \
                (("ex", "ey", "ez"), ("hx", "hy", "hz"))
            # one launch over the grid, every CPML face applied in it
            mask = st.layer_mask()
            xa, xb = st.x_band(cfg[2])
            grid, block, n_a = v.launch3d(cfg, st.shape, xa, xb, mask)
            fn = st._fn(v.kernel(role, cfg, *st._tparams, mask))
            args = (*[f[c] for c in upd], *[f[c] for c in cur], *[ids[c] for c in upd], tab, R,
                    _i32(nx), _i32(ny), _i32(nz), _i32(px), _i32(py), _i32(xa), _i32(xb),
                    _i32(n_a))
            return [(fn, grid, block, args, 0)]
        else:
            upd, cur = {
                ("tmz", "h"): (("hx", "hy"), ("ez",)), ("tmz", "e"): (("ez",), ("hx", "hy")),
                ("tez", "h"): (("hz",), ("ex", "ey")), ("tez", "e"): (("ex", "ey"), ("hz",)),
            }[(mode, role)]
            args = (*[f[c] for c in upd], *[f[c] for c in cur], *[ids[c] for c in upd], tab, R,
                    _i32(nx), _i32(ny), _i32(px))
        out = []
        for mask, box in st.boxes():
            ilo, ihi, jlo, jhi, klo, khi = box
            shape = (ihi - ilo, jhi - jlo, khi - klo)
            box_cfg = slab_shape() if mask else cfg
            grid, block = v.launch(box_cfg, shape)
            fn = st._fn(v.kernel(role, box_cfg, *st._tparams, mask))
            out.append((fn, grid, block, (*args, *map(_i32, box)), 0))
        return out
    fn = st._fn(v.kernel(role, cfg, *st._tparams))
    dims = (_i32(nx), _i32(ny), _i32(nz), _i32(px), _i32(py))
    upd, cur = (("hx", "hy", "hz"), ("ex", "ey", "ez")) if role == "h" else \
        (("ex", "ey", "ez"), ("hx", "hy", "hz"))
    base = (*[f[c] for c in upd], *[f[c] for c in cur], *_coef_args(st, upd)) \
        if mode == "3d" else ()
    if v.name in ("seed-xyz", "seed-xy"):
        (threads,) = cfg
        blocks = _ceil(px * py, threads)
        grid = (blocks, 1 if v.name == "seed-xy" else nz, 1)
        extra = 16 if role == "h" else 1
        smem = 2 * (threads + extra) * size if v.shared else 0
        return [(fn, grid, (threads, 1, 1), (*base, *dims), smem)]
    if v.name == "seed-plane":
        bx, by = cfg
        grid = (_ceil(nx, bx), _ceil(ny, by), 1)
        return [(fn, grid, (bx, by, 1), (*base, *dims, _i32(k)), 0) for k in range(nz)]
    if v.name == "seed-multicell":
        (threads,) = cfg
        per = _ceil(nx, threads)
        return [(fn, (ny, nz, 1), (threads, 1, 1), (*base, *dims, _i32(per)), 0)]
    if v.name == "tiled-2d":
        bx, by = cfg
        grid = (_ceil(nx, bx), _ceil(ny, by), 1)
        tile = (bx + 1) * (by + 1) * size
        c = st._coef
        if mode == "tmz" and role == "h":
            args = (f["hx"], f["hy"], f["ez"], c["hx"][0], c["hx"][1], c["hy"][0], c["hy"][2])
            smem = tile
        elif mode == "tmz":
            args = (f["ez"], f["hx"], f["hy"], *c["ez"])
            smem = 2 * tile
        elif role == "h":
            args = (f["hz"], f["ex"], f["ey"], *c["hz"])
            smem = 2 * tile
        else:
            args = (f["ex"], f["ey"], f["hz"], c["ex"][0], c["ex"][1], c["ey"][0], c["ey"][2])
            smem = tile
        return [(fn, grid, (bx, by, 1), (*args, _i32(nx), _i32(ny), _i32(px)), smem)]
    raise AssertionError(v.name)


def cpml_launches(st, kind: str) -> list:
    """One launch per CPML face for the half step ``kind`` ('e' or 'h')."""
    out = []
    nx, ny, nz = st.shape
    px, py = st.pitch
    other = "h" if kind == "e" else "e"
    ids_form = st.variant.form == "ids"
    for entry in st._slabs:
        slab = entry["slab"]
        part = entry[kind]
        s = slab.axis
        a1, a2 = part["comps"]
        g1 = f"{other}{'xyz'[(s + 2) % 3]}"   # curl component read for a1
        g2 = f"{other}{'xyz'[(s + 1) % 3]}"   # and for a2
        have = [a in st._f for a in (a1, a2)]
        if not any(have):
            continue

        psi1, psi2 = (p if p is not None else NULL for p in part["psi"])
        if ids_form:
            id1 = st._ids[a1] if have[0] else NULL
            id2 = st._ids[a2] if have[1] else NULL
            k1 = k2 = NULL
        else:
            id1 = id2 = NULL
            k1 = st._coef[a1][2] if have[0] else NULL   # a1 uses its c-difference column
            k2 = st._coef[a2][1] if have[1] else NULL   # a2 its b-difference column
        L = slab.cells
        count = L * int(np.prod([n for a, n in enumerate(st.shape) if a != s]))
        args = (_field(st, a1, have[0]), _field(st, a2, have[1]), _field(st, g1, have[0]),
                _field(st, g2, have[1]),
                psi1, psi2, id1, id2, st._gtab, _i32(st.R), k1, k2, *part["prof"],
                _i32(part["start"]), _i32(L), _i32(nx), _i32(ny), _i32(nz), _i32(px),
                _i32(py))
        fn = st._fn(st._cpml_names[(s, kind)])
        out.append((fn, (_ceil(count, 256), 1, 1), (256, 1, 1), args, 0))
    return out


def _field(st, name: str, wanted: bool):
    return st._f[name] if wanted and name in st._f else NULL


def inject_launches(st, kind: str) -> list:
    out = []
    for grp, where, values in st._sources[kind]:
        k = len(grp.flat)
        fn = st._fn(st._inject_names[grp.kind == "hard"])
        out.append((fn, (_ceil(k, 128), 1, 1), (128, 1, 1),
                    (st._f[grp.component], where, values, _i32(k), st._step_dev), 0))
    return out


def record_launches(st) -> list:
    out = []
    f = st._f
    ptrs = [f.get(c, NULL) for c in ("ex", "ey", "ez", "hx", "hy", "hz")]
    fn = st._fn(st._record_name)
    for pg in st._probe_groups:
        k = len(pg["group"].channels)
        out.append((fn, (_ceil(k, 128), 1, 1), (128, 1, 1),
                    (*ptrs, pg["comp"], pg["where"], pg["ring"], _i32(k), st._step_dev,
                     _i32(pg["group"].every), _i32(pg["rows"])), 0))
    return out
