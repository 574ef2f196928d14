"""Random scenes for as long as asked: 'fused' and 'temporal' (tuned, 3 and 4 steps a pass)
against 'indexed' on cuda, float64 and float32 (tests/gpu/test_parity.py's random_case and
random_scene: sizes, faces, materials, sources, probes, a snapshot, step counts). Prints
every mismatch and a count; exits 1 where there was one.

    python3 benchmarks/parity_fuzz.py --seconds 300 [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from tests.gpu.test_parity import march_mismatch, random_case, random_scene

VARIANTS = ("fused", "temporal", "temporal:steps=3", "temporal:steps=4")
#: fields (relative L2), and probes and snapshot (against their peak), by dtype
TOLERANCE = {"float64": (1e-11, 1e-9), "float32": (1e-4, 1e-2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300.0, help="how long to draw scenes")
    ap.add_argument("--seed", type=int, default=0, help="first of the seeds drawn")
    a = ap.parse_args()
    start, seeds = time.time(), np.random.default_rng(a.seed)
    scenes = compared = bad = 0
    while time.time() - start < a.seconds:
        seed = int(seeds.integers(1 << 30))
        mode, cells, bnd, steps = random_case(seed)
        scene = random_scene(mode, seed, bnd, cells)
        scenes += 1
        for dtype, (tf, tp) in TOLERANCE.items():
            ref = None
            for v in VARIANTS:
                (f, p, s), ref = march_mismatch(scene, steps, dtype, v, ref)
                compared += 1
                if not (f < tf and p < tp and s < tp):
                    bad += 1
                    print(f"MISMATCH {v} {dtype} seed {seed} {mode} {cells} {steps} steps {bnd}: "
                          f"fields {f:.2e} probes {p:.2e} snapshot {s:.2e}", flush=True)
    print(f"{scenes} scenes, {compared} comparisons, {bad} mismatches, "
          f"{time.time() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
