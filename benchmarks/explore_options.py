"""Compare compiler options (register caps) for the indexed kernels on one model.

    python3 benchmarks/explore_options.py --scene dipole-cpml -n 512 \
        --options default maxrregcount=40 maxrregcount=48

Each option set compiles its own module and is tuned separately (the tuning cache key holds
the options); the rows show what each reaches.
"""

from __future__ import annotations

import argparse
import os

from yeefdtd.bench import HEADER, bench_model, copy_bandwidth, format_row, measure


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--scene", default="dipole-cpml")
    p.add_argument("-n", type=int, default=512)
    p.add_argument("--dtype", default="float32")
    p.add_argument("--variant", default="indexed")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--options", nargs="+", default=["default"],
                   help="option sets, each without its leading dash ('default': none)")
    p.add_argument("--slab", nargs="+", default=[""],
                   help="launch shapes 'V,BX' for the boxes holding CPML layers")
    a = p.parse_args()
    bw = copy_bandwidth()
    model = bench_model(a.scene, a.n, a.steps)
    print(f"copy bandwidth {bw / 1e9:.0f} GB/s")
    print(HEADER)
    for name in a.options:
        opts = "" if name == "default" else " ".join("-" + o for o in name.split())
        os.environ["YEEFDTD_NVRTC_OPTIONS"] = opts
        for slab in a.slab:
            os.environ["YEEFDTD_SLAB"] = slab
            row = measure(model, a.variant, a.dtype, a.steps, bw)
            print(format_row(row), f"  [{opts or 'default'}; slab {slab or 'default'}]",
                  flush=True)


if __name__ == "__main__":
    main()
