"""CPML reflection: a small domain with a 10-cell CPML against a domain large enough that no
reflection comes back within the same time."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf

DX = 1e-3
L = 10  # CPML cells


def _scene(mode: str, cells: int, offset: int, boundaries, steps: int, src, plane, backend,
           dtype="float32"):
    nd = 3 if mode == "3d" else 2
    comps = yf.Grid(mode=mode, cells=[cells] * nd, spacing=DX).components
    where = {} if nd == 2 else {"axis": "z", "index": plane + offset}
    return yf.Scene(
        grid=yf.Grid(mode=mode, cells=[cells] * nd, spacing=DX),
        boundaries=boundaries,
        sources=[yf.PointSource(component="hz" if mode == "tez" else "ez",
                                cell=tuple(s + offset for s in src),
                                waveform=yf.DiffGaussian(tau=25e-12))],
        monitors=[yf.Snapshot(name=c, component=c, every=2, **where) for c in comps],
        run=yf.RunSettings(steps=steps, dtype=dtype, backend=backend),
    )


@pytest.mark.parametrize("mode, n, margin, steps", [
    ("3d", 40, 34, 160), ("tmz", 60, 150, 400), ("tez", 60, 150, 400)])
def test_cpml_reflection_below_minus_85_db(mode, n, margin, steps, backend):
    """A soft Ez source (Hz in TEz; differentiated Gaussian, tau = 25 ps: 10 to 30 cells per
    wavelength over its band) sits 5 cells from the inner face of a 10-cell CPML (order 3,
    kappa_max 5, alpha_max 0.05 S/m) in an n-cell cube (square in 2D) of 1 mm cells.

    The reference is the same source in a PEC box ``margin`` cells larger on every side,
    so that within ``steps`` no wave reflected by its walls reaches the compared region
    (the shortest such path, 25 + 2 margin cells, is longer than the distance light
    travels in those steps). Every component is compared on the plane through the source
    (the whole grid in 2D) every second step, over the small domain's interior outside
    the CPML and outside a 3-cell ball round the source (where the source's own field
    would make any difference look small). The largest difference must stay 85 dB below
    the largest reference field of that region: measured -93.7 dB (3D), -91.8 (TMz), -91.9
    (TEz) on NumPy (on cuda, the H200 check at be1b0fb passed this bound); with PEC walls
    instead of the CPML the same measure gives -18 dB (3D) and +4 dB (2D), with sigma_max at
    5% of its optimum -27 dB, and at half of it -78 dB in 2D, so the bound, 7 dB above the
    worst measured, separates the layer as built from a detuned one (a bound of -60 dB let
    half the conductivity pass). In 3D this measure does not follow sigma_max (at half of it
    -96.9 dB against -93.7): something other than the layer's own reflection sets it there
    (not established what), so in 3D it guards against gross errors only. float32 is enough:
    its rounding sits near -130 dB.
    """
    db = cpml_reflection_db(mode, n, margin, steps, backend)
    assert db < -85.0, f"CPML reflection {db:.1f} dB"


def cpml_reflection_db(mode, n, margin, steps, backend, dtype="float32") -> float:
    """The measure of the test above, in dB (the reference box runs in float64, so that a
    16-bit run is measured against the exact reference)."""
    nd = 3 if mode == "3d" else 2
    src = [L + 5] + [n // 2] * (nd - 1)
    small = yf.run(_scene(mode, n, 0, "cpml", steps, src, n // 2, backend, dtype),
                   progress=False)
    ref = yf.run(_scene(mode, n + 2 * margin, margin, "pec", steps, src, n // 2, backend,
                        "float32" if dtype == "float32" else "float64"), progress=False)
    ii, jj = np.meshgrid(np.arange(L, n - L), np.arange(L, n - L), indexing="ij")
    near_source = (ii - src[0]) ** 2 + (jj - src[1]) ** 2 <= 9
    worst_diff = worst_ref = 0.0
    for c in small.snapshots:
        a = small.snapshots[c].frames[:, L:n - L, L:n - L].copy()
        b = ref.snapshots[c].frames[:, L + margin:n - L + margin, L + margin:n - L + margin].copy()
        a[:, near_source] = 0.0
        b[:, near_source] = 0.0
        # E and H differ by the wave impedance; compare each against its own kind
        scale = 1.0 if c[0] == "e" else yf.constants.ETA0
        worst_diff = max(worst_diff, scale * np.abs(a - b).max())
        worst_ref = max(worst_ref, scale * np.abs(b).max())
    return 20 * np.log10(worst_diff / worst_ref)


#: (mode, cells, margin, steps, bound in dB) of the float16 measure
FLOAT16_CASES = [("3d", 40, 34, 160, -35.0), ("tmz", 60, 150, 400, -45.0),
                 ("tez", 60, 150, 400, -45.0)]


@pytest.mark.parametrize("mode, n, margin, steps, bound", FLOAT16_CASES)
def test_cpml_reflection_measure_with_float16_storage(mode, n, margin, steps, bound, backend):
    """The measure above with the fields stored in float16, against the float64 reference.

    Measured (NumPy): -39.1 dB (3D), -49.3 (TMz), -51.2 (TEz) (cuda: -39.0, -51.1, -51.2);
    bfloat16 -26.6, -32.3, -33.6; float32 -92 to -94. What limits it is not the layer but
    the rounding at the source cell: the differentiated Gaussian's small late increments are
    lost against the large field they add to, which leaves the cell about one float16 step
    (~1e-3 of its peak) away from zero, a static charge whose field reaches the compared
    region. The bounds keep 4 to 6 dB above those, so a change that makes 16-bit storage
    worse shows here."""
    db = cpml_reflection_db(mode, n, margin, steps, backend, "float16")
    assert db < bound, f"CPML reflection measure {db:.1f} dB with float16 storage"
