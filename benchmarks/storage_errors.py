"""Print the physics tests' error figures for one backend and storage dtype (the README's
16-bit storage table): cavity resonance error, CPML reflection measure in 3D, TMz and TEz,
Hertzian dipole error.

    python3 benchmarks/storage_errors.py --backend cuda --dtype float16
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.physics.test_cavity import cavity_errors
from tests.physics.test_cpml import FLOAT16_CASES, cpml_reflection_db
from tests.physics.test_dipole import dipole_errors


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--backend", choices=["numpy", "cuda"], default="numpy")
    p.add_argument("--dtype", choices=["float64", "float32", "float16", "bfloat16"],
                   default="float16")
    a = p.parse_args()
    cav = max(err for _, err, _ in cavity_errors(a.dtype, a.backend))
    db = [cpml_reflection_db(*case[:4], a.backend, a.dtype) for case in FLOAT16_CASES]
    dip = max(err for *_, err in dipole_errors(a.backend, a.dtype))
    print(f"{a.backend} {a.dtype}: cavity resonances, largest relative error {cav:.2e}; "
          f"CPML reflection measure 3D / TMz / TEz {db[0]:.1f} / {db[1]:.1f} / {db[2]:.1f} dB;"
          f" Hertzian dipole, largest error {dip:.1%} of the peak", flush=True)


if __name__ == "__main__":
    main()
