"""The discrete energy of a lossless PEC cavity after a pulse, and what storage rounding does
to it."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.constants import EPS0, MU0

#: the pulses a cavity's energy is measured after (benchmarks/storage_errors.py --energy)
PULSES = {"gaussian 10 ps": yf.Gaussian(tau=10e-12),
          "gaussian 4 ps": yf.Gaussian(tau=4e-12),
          "diff_gaussian 10 ps": yf.DiffGaussian(tau=10e-12),
          "modulated_gaussian 20 GHz": yf.ModulatedGaussian(frequency=20e9)}


def cavity_energy(dtype: str, backend: str, waveform, marks=(2000, 20000)) -> list[float]:
    """The Yee scheme's conserved energy of a 10 x 11 x 12 PEC cavity of 1 mm cells rung by
    a soft Ez source at cell (3, 4, 5), at each step of ``marks`` (all after the pulse):
    sum of eps0 E^n . E^n + mu0 H^(n-1/2) . H^(n+1/2) over the grid. Without losses and
    sources the leapfrog conserves exactly this quadratic form (not eps E^2 + mu H^2 at
    one instant, which oscillates by O(dt) over a period), so in float64 it stays
    constant to rounding, and what it loses or gains in 16 bits is the rounding's."""
    scene = yf.Scene(grid=yf.Grid(cells=(10, 11, 12), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(3, 4, 5),
                                             waveform=waveform)],
                     run=yf.RunSettings(steps=max(marks) + 1, dtype=dtype, backend=backend))
    st = yf.make_stepper(yf.build_model(scene))
    out, done = [], 0
    for mark in marks:
        st.advance(done, mark - done)
        f = {c: np.asarray(v, dtype=np.float64) for c, v in st.fields().items()}
        st.advance(mark, 1)
        g = st.fields()
        done = mark + 1
        out.append(EPS0 * sum(np.sum(f[c] ** 2) for c in ("ex", "ey", "ez"))
                   + MU0 * sum(np.sum(f[c] * np.asarray(g[c], dtype=np.float64))
                               for c in ("hx", "hy", "hz")))
    return out


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-4)])
def test_a_lossless_cavity_keeps_its_energy(dtype, tol, backend):
    """From step 2000 (the pulse long gone: 4 ps to 60 ps wide, 3.8 ns) to 20000, the
    conserved energy stays within ``tol`` of itself, for each of the pulses: float64 to
    rounding (1e-10 leaves room over 18 000 steps of 1e-16 each), float32 within 1e-4.
    Over those 34 ns an artificial loss of quality factor Q at the cavity's lowest mode
    (20.3 GHz) takes 4.4e3 / Q of the energy: float64's bound catches a Q below 4e13,
    float32's one below 4e7. benchmarks/storage_errors.py --energy prints the figures."""
    for name, wf in PULSES.items():
        w0, w1 = cavity_energy(dtype, backend, wf)
        assert w0 > 0 and abs(w1 / w0 - 1) < tol, f"{name}: {w1 / w0 - 1:.3g}"
