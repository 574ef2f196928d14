"""Does the tuner rank launch shapes as the steps rank them? For each candidate shape of a
variant whose roles share one candidate list (both roles set to it), three figures:

- each role's time launched one by one from Python (the tuner's timing until graphs);
- each role's time replayed as a CUDA graph (the tuner's timing now, as steps are run);
- the whole step's time, graph-replayed, ``--steps`` steps (what a run gets).

    python3 benchmarks/tuner_fidelity.py --scene pec-box -n 512 --variant seed-plane

Prints one line per candidate and the shapes each timing would pick.
"""

from __future__ import annotations

import argparse

from yeefdtd.backends.cuda import tuning
from yeefdtd.backends.cuda.stepper import CudaStepper
from yeefdtd.bench import bench_scene, time_stepper
from yeefdtd.build.model import build_model


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scene", default="pec-box")
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--variant", default="seed-plane")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--steps", type=int, default=100, help="steps of each whole-step timing")
    p.add_argument("--repeats", type=int, default=15, help="runs of each role timing")
    a = p.parse_args()
    import cupy as cp

    model = build_model(bench_scene(a.scene, a.n, a.steps + 50))
    st = CudaStepper(model, a.dtype, variant=a.variant, tune=False)
    roles = st.roles
    lists = {r: [tuple(c) for c in st.variant.configs(r, st.shape)] for r in roles}
    cands = lists[roles[0]]
    if any(lists[r] != cands for r in roles):
        raise SystemExit(f"--variant: {a.variant}'s roles have different candidate lists; "
                         "pick a variant whose roles share one (seed-plane, seed-xyz, ...)")
    st._randomise()
    role_ms = {}
    with st._stream:
        for c in cands:
            for graph in (False, True):
                try:
                    role_ms[c, graph] = [tuning.time_launches(cp, st._update_plan(r, c),
                                                              a.repeats, graph)
                                         for r in roles]
                except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError):
                    role_ms[c, graph] = None
    del st
    cp.get_default_memory_pool().free_all_blocks()
    step_ms = {}
    for c in cands:
        if role_ms[c, True] is None:
            continue
        s = CudaStepper(model, a.dtype, variant=a.variant, launch={r: c for r in roles})
        step_ms[c] = time_stepper(s, a.steps) / a.steps * 1e3
        del s
        cp.get_default_memory_pool().free_all_blocks()
    print(f"{a.scene} N={a.n} {a.variant} {a.dtype}; roles {', '.join(roles)}; ms")
    print(f"{'shape':>12} {'launched':>22} {'graph':>22} {'step':>9} {'Mcells/s':>9}")
    cells = model.grid.num_cells
    for c in cands:
        if c not in step_ms:
            print(f"{c!s:>12}  does not launch")
            continue
        one = " + ".join(f"{x:.3f}" for x in role_ms[c, False])
        gr = " + ".join(f"{x:.3f}" for x in role_ms[c, True])
        print(f"{c!s:>12} {one:>22} {gr:>22} {step_ms[c]:9.3f} "
              f"{cells / step_ms[c] / 1e3:9.0f}")
    kept = list(step_ms)
    for name, key in (("launched", lambda c: sum(role_ms[c, False])),
                      ("graph", lambda c: sum(role_ms[c, True])),
                      ("step", lambda c: step_ms[c])):
        best = min(kept, key=key)
        print(f"best by {name}: {best} (its step {step_ms[best]:.3f} ms)")


if __name__ == "__main__":
    main()
