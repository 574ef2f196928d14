"""Physical constants (SI, CODATA 2018) and named limits."""

from __future__ import annotations

import math

#: speed of light in vacuum, m/s (exact)
C0 = 299_792_458.0
#: vacuum permeability, H/m
MU0 = 1.25663706212e-6
#: vacuum permittivity, F/m
EPS0 = 1.0 / (MU0 * C0 * C0)
#: impedance of free space, ohm
ETA0 = MU0 * C0

#: field components in their canonical order
COMPONENTS = ("ex", "ey", "ez", "hx", "hy", "hz")
#: each component's SI unit
UNITS = {c: "V/m" if c[0] == "e" else "A/m" for c in COMPONENTS}
#: components that exist in each grid mode
MODE_COMPONENTS = {
    "3d": COMPONENTS,
    "tmz": ("ez", "hx", "hy"),
    "tez": ("ex", "ey", "hz"),
}
AXES = ("x", "y", "z")
#: kernel variants of the CUDA backend ('auto' picks the fastest for the grid)
KERNEL_VARIANTS = ("indexed", "seed-xyz", "seed-xy", "seed-plane", "seed-multicell", "tiled-2d",
                   "fused", "temporal")
#: the benchmark's scenes (yeefdtd bench --scene; the project's SCENES.md) and suites
#: (--suite), named here so that the command line lists them without loading the benchmark
BENCH_SCENES = ("pec-box", "dipole-cpml", "dipole-cpml-aniso", "tmz-2d", "tmz-2d-cpml")
BENCH_SUITES = ("table", "sizes", "threads", "blocks2d", "coalescing", "seeds", "all")

#: most materials a scene may define (ids are uint16 per component; PMC walls add variants)
MAX_MATERIALS = 16_000
#: most time steps a run may take (and longest record interval): sources and records are
#: laid out per step, so a step count past this is a typo, not a simulation
MAX_STEPS = 1_000_000_000
#: cell sizes a grid may have, metres (1 pm to a million km): far outside them dt under- or
#: overflows (1/d^2 leaves float64's range near 1e-154 and 1e154 m)
SPACING_RANGE = (1e-12, 1e9)
#: field magnitude above which a run is declared divergent
DIVERGENCE_LIMIT = 1e30

PI = math.pi
