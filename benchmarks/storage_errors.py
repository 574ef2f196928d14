"""Print the physics tests' error figures for one backend and storage dtype (the README's
16-bit storage table): cavity resonance error, CPML reflection measure in 3D, TMz and TEz,
the 3D plane-wave CPML measure on each axis, Hertzian dipole error; with --energy, the
change of a lossless cavity's conserved energy from step 2000 to 20 000 and to 100 000
after each of tests/physics/test_energy.py's pulses instead.

    python3 benchmarks/storage_errors.py --backend cuda --dtype float16
    python3 benchmarks/storage_errors.py --dtype bfloat16 --energy
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.physics.test_cavity import cavity_errors
from tests.physics.test_cpml import FLOAT16_CASES, _plane_wave_measure, cpml_reflection_db
from tests.physics.test_dipole import dipole_errors
from tests.physics.test_energy import PULSES, cavity_energy


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--backend", choices=["numpy", "cuda"], default="numpy")
    p.add_argument("--dtype", choices=["float64", "float32", "float16", "bfloat16"],
                   default="float16")
    p.add_argument("--energy", action="store_true",
                   help="the cavity's energy change instead of the other figures")
    a = p.parse_args()
    if a.energy:
        for name, wf in PULSES.items():
            w = cavity_energy(a.dtype, a.backend, wf, (2000, 20000, 100000))
            print(f"{a.backend} {a.dtype}: lossless cavity after a {name} pulse, energy "
                  f"change from step 2000 to 20000 {w[1] / w[0] - 1:+.3g}, to 100000 "
                  f"{w[2] / w[0] - 1:+.3g}", flush=True)
        return
    cav = max(err for _, err, _ in cavity_errors(a.dtype, a.backend))
    db = [cpml_reflection_db(*case[:4], a.backend, a.dtype) for case in FLOAT16_CASES]
    # the plane wave on each 3D axis: at a tenth of the optimum conductivity (analytic
    # -13.9 dB) and with the default layer
    pw = [[_plane_wave_measure(axis, f, a.backend, a.dtype) for axis in range(3)]
          for f in (0.1, 1.0)]
    dip = max(err for *_, err in dipole_errors(a.backend, a.dtype))
    print(f"{a.backend} {a.dtype}: cavity resonances, largest relative error {cav:.2e}; "
          f"CPML reflection measure 3D / TMz / TEz {db[0]:.1f} / {db[1]:.1f} / {db[2]:.1f} dB;"
          f" 3D plane-wave CPML measure x / y / z at sigma_factor 0.1 "
          f"{' / '.join(f'{v:.1f}' for v in pw[0])} dB (analytic -13.9), at 1 "
          f"{' / '.join(f'{v:.1f}' for v in pw[1])} dB;"
          f" Hertzian dipole, largest error {dip:.1%} of the peak", flush=True)


if __name__ == "__main__":
    main()
