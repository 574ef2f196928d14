"""Run a few steps of one benchmark scene on one kernel variant, for a profiler to watch.

    ncu --clock-control none -k regex:indexed python3 benchmarks/profile_step.py \
        --scene pec-box -n 256 --variant indexed
"""

from __future__ import annotations

import argparse

from yeefdtd.backends.cuda.stepper import CudaStepper
from yeefdtd.bench import bench_scene
from yeefdtd.build.model import build_model


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="pec-box")
    p.add_argument("-n", type=int, default=256)
    p.add_argument("--variant", default="indexed")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--launch", help="forced launch shape for both roles, e.g. 32,8,1")
    a = p.parse_args()
    model = build_model(bench_scene(a.scene, a.n, a.steps))
    launch = None
    if a.launch:
        cfg = tuple(int(x) for x in a.launch.split(","))
        launch = {"h": cfg, "e": cfg}
    st = CudaStepper(model, a.dtype, variant=a.variant, tune=launch is None, graphs=False,
                     launch=launch)
    st.advance(0, a.steps)
    st.synchronize()
    print(st.describe())


if __name__ == "__main__":
    main()
