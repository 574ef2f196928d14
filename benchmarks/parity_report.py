"""Print the measured parity errors of every CUDA variant against the NumPy reference
(the scenes of tests/gpu/test_parity.py, 500 steps): relative L2 of the final fields; then
float16 storage against float64 and against the NumPy backend's float16 emulation."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.gpu.test_parity import (
    EARLY16,
    VARIANTS_2D,
    VARIANTS_3D,
    early16,
    metrics16,
    reference,
    rel_l2,
)

import yeefdtd as yf


def main() -> None:
    print(f"{'mode':<5}{'case':>5} {'variant':<28}{'f64 vs np64':>13}{'f32 vs np64':>13}"
          f"{'np32 vs np64':>14}")
    for mode, variants in (("3d", VARIANTS_3D), ("tmz", VARIANTS_2D), ("tez", VARIANTS_2D)):
        for case in (0, 1):
            scene, r64, r32 = reference(mode, case)
            base = rel_l2(r32.fields, r64.fields)
            for v in variants:
                out = []
                for dtype in ("float64", "float32"):
                    res = yf.run(scene, backend="cuda", dtype=dtype, keep_fields=True,
                                 progress=False, stepper_options={"variant": v})
                    out.append(rel_l2(res.fields, r64.fields))
                print(f"{mode:<5}{case:>5} {v:<28}{out[0]:>13.2e}{out[1]:>13.2e}{base:>14.2e}",
                      flush=True)
    print(f"\nfloat16 storage, 'indexed', and NumPy's float16 emulation: relative L2 against "
          f"float64 NumPy\n{'mode':<5}{'case':>5}{'fields':>10}{'(np16)':>10}{'probes':>10}"
          f"{'(np16)':>10}{'snapshot':>10}{'(np16)':>10}{'f16-np16':>10}")
    for mode in ("3d", "tmz", "tez"):
        for case in (0, 1):
            m = metrics16(mode, case)
            print(f"{mode:<5}{case:>5}" + "".join(f"{m[k]:>10.2e}" for k in (
                "cuda16", "np16", "probes", "probes_np16", "snapshot", "snapshot_np16",
                "cuda16_vs_np16")), flush=True)
    print(f"\nfloat16 storage against NumPy's float16 emulation after {EARLY16} steps "
          f"(relative L2; bound 1e-6)\n{'mode':<5}{'case':>5}{'indexed':>10}{'fused':>10}"
          f"{'temporal':>10}")
    for mode in ("3d", "tmz", "tez"):
        for case in (0, 1):
            print(f"{mode:<5}{case:>5}" + "".join(
                f"{early16(mode, case, v):>10.2e}" for v in ("indexed", "fused", "temporal")),
                flush=True)

if __name__ == "__main__":
    main()
