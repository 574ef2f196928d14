"""Does the speed depend on the field values? Time the same stepper on the scene's own
fields (mostly zero early in a run) and again after filling every field with random values.

    python3 benchmarks/data_dependence.py --scene dipole-cpml -n 512

A difference would mean the memory system moves zeros more cheaply than data (Hopper's L2
can compress), and that short benchmark runs overstate the speed of a real run.
"""

from __future__ import annotations

import argparse

from yeefdtd.backends.cuda.stepper import CudaStepper
from yeefdtd.bench import bench_scene, time_stepper
from yeefdtd.build.model import build_model


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="dipole-cpml")
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--variant", default="indexed")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--steps", type=int, default=200)
    a = p.parse_args()
    model = build_model(bench_scene(a.scene, a.n, 4 * a.steps + 100))
    st = CudaStepper(model, a.dtype, variant=a.variant)
    cells = model.grid.num_cells
    for label in ("scene fields", "random fields", "scene fields", "random fields"):
        st.rest()
        if label.startswith("random"):
            st._randomise()
        sec = time_stepper(st, a.steps)
        print(f"{a.scene} N={a.n} {a.variant} {a.dtype} {label:14s}: "
              f"{cells * a.steps / sec / 1e6:9.0f} Mcells/s  launch {st.configs}", flush=True)


if __name__ == "__main__":
    main()
