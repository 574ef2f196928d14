"""Symmetry planes: half a domain with a PEC or PMC wall on the plane of symmetry holds the
whole domain's fields (image theory), the way antenna and waveguide models halve their
grids."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.description import FACES

DX = 1e-3
CPML = {"cells": 8}
HALF = 26                     # cells of the half domain along the plane's normal
SIDE = 36                     # cells along the two other axes
MID = SIDE // 2
# probes of the half domain, cells from the plane along its normal (first) and from the
# middle along the two others: on the plane, beside it, and farther out, off the axes
PROBES = {"on": (0, 0, 0), "near": (2, 3, -2), "mid": (6, -4, 5), "far": (10, 5, 7)}


def _run(axis: int, kind: str, whole: bool, backend: str) -> dict:
    """The probes' fields of a z-directed soft current source (Jz) in a box with CPML on
    every face: the whole domain (2 HALF cells along ``axis``), or its half beyond the
    plane of symmetry with a ``kind`` wall there (at ``axis``'s low end)."""
    cells = [SIDE, SIDE, SIDE]
    cells[axis] = 2 * HALF if whole else HALF
    base = HALF if whole else 0   # the plane's cell index along axis
    mid = [MID, MID, MID]
    mid[axis] = base
    if axis == 2:   # Ez nodes lie half a cell off the plane: a pair of them, mirrored
        spots = [(mid[0], mid[1], base)] + ([(mid[0], mid[1], base - 1)] if whole else [])
    else:           # an Ez node on the plane
        spots = [tuple(mid)]
    wf = yf.DiffGaussian(tau=30e-12)
    probes = []
    for name, (n, u, v) in PROBES.items():
        cell = list(mid)
        others = [b for b in range(3) if b != axis]
        cell[axis] += n
        cell[others[0]] += u
        cell[others[1]] += v
        probes.append(yf.Probe(name=name, cell=tuple(cell)))
    boundaries = dict.fromkeys(FACES, CPML)
    if not whole:
        boundaries["xyz"[axis] + "_min"] = kind
    scene = yf.Scene(
        grid=yf.Grid(cells=tuple(cells), spacing=DX), boundaries=boundaries,
        sources=[yf.PointSource(component="ez", cell=c, waveform=wf) for c in spots],
        monitors=probes, run=yf.RunSettings(steps=160, dtype="float64", backend=backend))
    res = yf.run(scene, progress=False)
    return {name: res.probes[name].data for name in PROBES}


@pytest.mark.parametrize("axis,kind", [(0, "pmc"), (2, "pec")], ids=["x-pmc", "z-pec"])
def test_half_domain_with_a_symmetry_wall_holds_the_whole_domain_s_fields(axis, kind,
                                                                         backend):
    """A z-directed current is mirrored by two kinds of plane. Across x = x0 through its Ez
    node its field is even in x, so the tangential H (Hy, Hz) is odd and vanishes there:
    a PMC plane. Across z = z0 between a mirrored pair of Ez nodes (half a cell above and
    below) the tangential E (Ex, Ey) is odd: a PEC plane, the source's image the pair's
    other half (a monopole over a ground plane). Half the domain, the wall at its low end
    and the source on or beside it, must hold the whole domain's six components at each
    probe, on the plane and up to 10 cells off it, over 160 steps of the pulse's passing
    and its absorption in the CPML.

    Both runs do the same arithmetic up to the order of a few operations (the PMC wall's
    doubled coefficient against the sum of two mirrored differences) and the CPML's graded
    coefficients, computed from each end. Measured on NumPy: the same bit for bit; with the
    walls swapped (PEC across x, PMC across z) off by 1.0 and 1.3 times the peak. The
    bound, 1e-9 of each probe's peak E or H, leaves room for other backends' order of
    operations in float64 and none for a wrong wall."""
    whole = _run(axis, kind, True, backend)
    half = _run(axis, kind, False, backend)
    for name in PROBES:
        for group in ("e", "h"):
            comps = [c for c in whole[name] if c[0] == group]
            scale = max(np.abs(whole[name][c]).max() for c in comps)
            assert scale > 0, (name, group)
            for c in comps:
                err = np.abs(half[name][c] - whole[name][c]).max() / scale
                assert err < 1e-9, f"{kind} plane normal to {'xyz'[axis]}: {name}.{c} " \
                                   f"off by {err:.2e} of the peak"
