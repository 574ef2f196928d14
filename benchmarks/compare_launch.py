"""Compare launch shapes of one variant on one scene, interleaved over rounds (so a clock or
power drift during the run spreads over every shape rather than favouring one).

    python3 benchmarks/compare_launch.py --scene dipole-cpml -n 512 --steps 1000 \
        --shapes 128,1,4,0,1 128,1,4,0,2 --rounds 2 [--variant indexed indexed:xpack] \
        [--nvrtc= --nvrtc=-DMARCH2_MINB=4] [--env YEEFDTD_LEAN_FACES=on \
        --env YEEFDTD_LEAN_FACES=off] [--walls pec | --walls z_min=pmc]

A shape is the tuple the tuner sweeps (``yeefdtd tune`` prints them); it is used for both
the H and the E update (for 'fused' and 'temporal': steps per pass, BX, BY, z segment).
``--nvrtc`` runs each shape once per set of compiler options ($YEEFDTD_NVRTC_OPTIONS), so
that a kernel switch is timed on and off in the same rounds; ``--env`` likewise for sets
of environment variables (space-separated NAME=VALUE assignments). ``--walls pec`` (or
pmc) replaces the scene's boundaries by those walls on every face: dipole-cpml's objects
in a cavity; ``--walls z_min=pmc`` (FACE=pec|pmc, comma-separated) those faces alone: a
symmetry plane.
"""

from __future__ import annotations

import argparse
import os

from yeefdtd.bench import (
    HEADER,
    WARMUP,
    bench_scene,
    copy_bandwidth,
    format_row,
    measure,
    with_walls,
)
from yeefdtd.build.model import build_model


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="dipole-cpml")
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--dtype", default="float32")
    p.add_argument("--variant", nargs="+", default=["indexed"],
                   help="one or more variants, each run with every shape")
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--shapes", nargs="+", required=True,
                   help="launch shapes, comma-separated integers each")
    p.add_argument("--nvrtc", action="append", default=None,
                   help="a set of compiler options (--nvrtc=OPTS, repeatable), each set run "
                   "with every shape")
    p.add_argument("--env", action="append", default=None,
                   help="a set of environment variables (--env 'NAME=VALUE ...', repeatable), "
                   "each set run with every shape")
    p.add_argument("--walls", default=None,
                   help="pec or pmc: the scene's boundaries replaced by these walls on every "
                   "face; FACE=KIND,...: those faces' alone (e.g. z_min=pmc)")
    a = p.parse_args()
    scene = bench_scene(a.scene, a.n, a.steps + WARMUP)
    if a.walls is not None:
        try:
            scene = with_walls(scene, a.walls)
        except ValueError as exc:
            p.error(str(exc))
    envs = []
    for text in a.env or [""]:
        pairs = [kv.partition("=") for kv in text.split()]
        if any(not name or not eq for name, eq, _ in pairs):
            p.error(f"--env: {text!r}: give NAME=VALUE assignments, space-separated")
        envs.append({name: value for name, _, value in pairs})
    try:
        shapes = [tuple(int(x) for x in s.split(",")) for s in a.shapes]
    except ValueError:
        p.error("--shapes: each shape is comma-separated integers, e.g. 128,1,4,0,1")
    bw = copy_bandwidth()
    model = build_model(scene)   # as bench_model builds it, from the scene above
    where = f" with {a.walls}" if a.walls else ""
    print(f"copy bandwidth {bw / 1e9:.0f} GB/s; {a.scene}{where} N={a.n} {a.dtype}, "
          f"{a.steps} steps")
    print(HEADER)
    for r in range(a.rounds):
        for opts, env in ((o, e) for o in a.nvrtc or [None] for e in envs):
            if opts is not None:
                os.environ["YEEFDTD_NVRTC_OPTIONS"] = opts
            os.environ.update(env)
            tag = (f" [{opts}]" if opts is not None else "") + \
                "".join(f" {k}={v}" for k, v in env.items())
            for v in a.variant:
                for s in shapes:
                    roles = (("pass",) if v.partition(":")[0] in ("fused", "temporal")
                             else ("h", "e"))
                    row = measure(model, v, a.dtype, a.steps, bw,
                                  launch=dict.fromkeys(roles, s))
                    print(format_row(row), f"  round {r} {v}{tag}", flush=True)


if __name__ == "__main__":
    main()
