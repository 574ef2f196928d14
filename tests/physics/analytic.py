"""Analytic fields used by the physics tests."""

from __future__ import annotations

import math

import numpy as np

from yeefdtd.constants import C0, EPS0


def gaussian_moment(t, tau: float, t0: float, amp: float):
    """Dipole moment p(t) and its first two derivatives when the current moment is
    amp * DiffGaussian(tau, t0)(t), i.e. dp/dt = amp * -sqrt(2e) u exp(-u^2), u = (t-t0)/tau.
    """
    u = (np.asarray(t) - t0) / tau
    g = np.exp(-(u**2))
    k = math.sqrt(2 * math.e)
    p = amp * k * 0.5 * tau * g
    pd = -amp * k * u * g
    pdd = -amp * k / tau * (1 - 2 * u**2) * g
    return p, pd, pdd


def hertzian_dipole(r_vec, t, tau: float, t0: float, amp: float):
    """(E, H) of a z-directed point dipole at the origin with moment p(t) of
    :func:`gaussian_moment`, at the point ``r_vec`` (metres) and times ``t`` (seconds)::

        E = [ (3 r^(r^.p) - p) (p/r^3 + p'/(c r^2)) + (r^(r^.p'') - p'') / (c^2 r) ] / (4 pi eps0)
        H = (p'/r^2 + p''/(c r)) x r^ / (4 pi)

    with p and its derivatives taken at the retarded time t - r/c. Returns two (3, len(t))
    arrays.
    """
    r_vec = np.asarray(r_vec, dtype=np.float64)
    r = float(np.linalg.norm(r_vec))
    n = r_vec / r
    p, pd, pdd = gaussian_moment(np.asarray(t) - r / C0, tau, t0, amp)
    z = np.array([0.0, 0.0, 1.0])
    near = 3 * n * n[2] - z                    # 3 r^(r^.z) - z
    far = n * n[2] - z                         # r^(r^.z) - z
    E = (near[:, None] * (p / r**3 + pd / (C0 * r**2))
         + far[:, None] * pdd / (C0**2 * r)) / (4 * math.pi * EPS0)
    zxn = np.cross(z, n)
    H = zxn[:, None] * (pd / r**2 + pdd / (C0 * r)) / (4 * math.pi)
    return E, H


