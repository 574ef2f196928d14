"""Does the tuner rank launch shapes as the steps rank them? For each candidate shape of a
variant whose roles share one candidate list (both roles set to it), three figures:

- each role's time launched one by one from Python (the tuner's timing until graphs);
- each role's time replayed as a CUDA graph (the tuner's timing now, as steps are run);
- the whole step's time, graph-replayed, ``--steps`` steps (what a run gets).

    python3 benchmarks/tuner_fidelity.py --scene pec-box -n 512 --variant seed-plane

Prints one line per candidate and, for each timing, the shape whose roles' times add up to
the least (the tuner picks each role's shape on its own).
"""

from __future__ import annotations

import argparse

from yeefdtd.bench import SCENES, bench_scene, time_stepper
from yeefdtd.cli import _positive_int as _positive
from yeefdtd.exceptions import YeeError


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scene", choices=SCENES, default="pec-box")
    p.add_argument("-n", type=_positive, default=512, help="cells along each side")
    p.add_argument("--variant", default="seed-plane")
    p.add_argument("--dtype", choices=["float32", "float64", "float16"], default="float32")
    p.add_argument("--steps", type=_positive, default=100,
                   help="steps of each whole-step timing")
    p.add_argument("--repeats", type=_positive, default=15, help="runs of each role timing")
    a = p.parse_args()
    try:
        import cupy  # noqa: F401
    except ImportError as e:
        p.exit(2, f"{p.prog}: error: CuPy is not importable ({e}); run it where a GPU is\n")
    try:
        compare(p, a)
    except YeeError as e:
        p.exit(2, f"{p.prog}: error: {e}\n")


def compare(p, a) -> None:
    import cupy as cp

    from yeefdtd.backends.cuda import tuning
    from yeefdtd.backends.cuda.stepper import CudaStepper
    from yeefdtd.build.model import build_model

    model = build_model(bench_scene(a.scene, a.n, a.steps + 50))
    st = CudaStepper(model, a.dtype, variant=a.variant, tune=False)
    roles = st.roles
    if not st.tune_as_graph:
        p.error(f"--variant: {a.variant!r} launches its passes from Python, not as a graph, "
                "and is tuned that way; pick a one-step variant (seed-plane, seed-xyz, "
                "seed-xy, tiled-2d, indexed)")
    lists = {r: [tuple(c) for c in st.variant.configs(r, st.shape)] for r in roles}
    cands = lists[roles[0]]
    if any(lists[r] != cands for r in roles):
        p.error(f"--variant: {a.variant}'s roles have different candidate lists; pick one "
                "whose roles share one (seed-plane, seed-xyz, seed-xy, tiled-2d)")
    st._randomise()
    role_ms = {}
    with st._stream:
        for c in cands:
            for graph in (False, True):
                ms = [tuning.time_if_launchable(cp, st._update_plan(r, c), a.repeats, graph)
                      for r in roles]
                role_ms[c, graph] = None if None in ms else ms
    del st
    cp.get_default_memory_pool().free_all_blocks()
    step_ms = {}
    for c in cands:
        if role_ms[c, True] is None or role_ms[c, False] is None:
            continue
        s = CudaStepper(model, a.dtype, variant=a.variant, launch={r: c for r in roles})
        step_ms[c] = time_stepper(s, a.steps) / a.steps * 1e3
        del s
        cp.get_default_memory_pool().free_all_blocks()
    if not step_ms:
        p.exit(1, f"{p.prog}: no launch shape of {a.variant!r} runs here\n")
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
