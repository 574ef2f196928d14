"""Run a few steps of one benchmark scene on one kernel variant, for a profiler to watch.

    ncu --clock-control none -k regex:indexed python3 benchmarks/profile_step.py \
        --scene pec-box -n 256 --variant indexed

The marching variants run one kernel per pass ('pass' launch shape: steps per pass, then
the block's two sides and the planes per segment); give the shape to skip the tuning
sweep, and skip the first passes in the profiler. For example, the per-instruction stall
samples of 3D 'temporal' (a pass of two steps, the second one profiled), and the same
report as text, SASS line by line:

    ncu --clock-control none --set full --import-source no -k regex:march3 \
        --launch-skip 1 --launch-count 1 -o temporal -f python3 benchmarks/profile_step.py \
        --scene pec-box -n 512 --variant temporal --launch 2,32,12,64 --steps 6
    ncu -i temporal.ncu-rep --page source --csv --print-source sass > temporal_sass.csv

On dipole-cpml the CPML boxes are march3 launches too (six a pass, after the pass's own).
"""

from __future__ import annotations

import argparse

from yeefdtd.bench import SCENES, bench_scene
from yeefdtd.build.model import build_model
from yeefdtd.exceptions import YeeError
from yeefdtd.run import make_stepper

#: variants whose passes take one launch shape ("pass") rather than one per half step
MARCHING = ("fused", "temporal")


def shape(text: str) -> tuple[int, ...]:
    """A launch shape from --launch: comma-separated non-negative integers (0 where a
    shape allows it, e.g. a marching pass's z segment)."""
    try:
        cfg = tuple(int(v) for v in text.split(","))
    except ValueError:
        cfg = ()
    if not cfg or min(cfg) < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not comma-separated integers "
                                         "(e.g. 32,8,1, or 2,32,12,64 for 'temporal')")
    return cfg


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scene", choices=SCENES, default="pec-box")
    p.add_argument("-n", type=int, default=256)
    p.add_argument("--variant", default="indexed")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--launch", type=shape,
                   help="forced launch shape (both half steps, or the marching pass), "
                        "e.g. 32,8,1 or 2,32,12,64; default: tuned")
    a = p.parse_args()
    if a.steps < 1 or a.n < 1:
        p.error("-n and --steps must be positive integers")
    launch = None
    if a.launch:
        roles = ("pass",) if a.variant.split(":")[0] in MARCHING else ("h", "e")
        launch = dict.fromkeys(roles, a.launch)
    try:
        model = build_model(bench_scene(a.scene, a.n, a.steps))
        st = make_stepper(model, "cuda", a.dtype, variant=a.variant, tune=launch is None,
                          graphs=False, launch=launch)
        st.advance(0, a.steps)
        st.synchronize()
    except YeeError as e:
        p.exit(2, f"{p.prog}: error: {e}\n")
    print(st.describe())


if __name__ == "__main__":
    main()
