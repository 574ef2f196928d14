"""What the CPML layers cost a 2D marching pass, face by face and by where they are updated.
Times 'temporal' on tmz-2d (N x N, 10-cell layers on the faces named, PEC elsewhere) for
each placement ($YEEFDTD_CPML: ``xboxes``, the x layers in boxes beside the pass, or
``inpass``) and face set, at one launch shape or tuned, and prints Mcells/s with the
instance's registers and blocks per SM.

    python3 benchmarks/cpml_placement_2d.py -n 8192 --launch 4,4,4,128
    python3 benchmarks/cpml_placement_2d.py --box-rows 2 4 8 --faces all --place xboxes
"""

from __future__ import annotations

import argparse
import os

import yeefdtd as yf
from yeefdtd.bench import WARMUP, time_stepper
from yeefdtd.build.model import build_model

FACES = {"none": (), "y": ("y_min", "y_max"), "x": ("x_min", "x_max"),
         "all": ("x_min", "x_max", "y_min", "y_max")}


def scene(n: int, faces: tuple[str, ...], steps: int) -> yf.Scene:
    mm = 1e-3
    layer = yf.Cpml(cells=10)
    walls = {f: (layer if f in faces else "pec") for f in FACES["all"]}
    return yf.Scene(name="tmz-2d-layers", grid=yf.Grid(mode="tmz", cells=(n, n), spacing=mm),
                    boundaries=walls, run=yf.RunSettings(steps=steps + WARMUP, backend="cuda"),
                    sources=[yf.PointSource(component="ez", position=(n * mm / 2, n * mm / 2),
                                            waveform=yf.Gaussian(tau=20e-12))])


def launch_shape(text: str) -> tuple[int, ...]:
    """A pass's launch shape from --launch: four comma-separated integers."""
    try:
        shape = tuple(int(v) for v in text.split(","))
    except ValueError:
        shape = ()
    if len(shape) != 4:
        raise argparse.ArgumentTypeError(f"{text!r} is not four comma-separated integers")
    return shape


def main() -> None:
    from yeefdtd.backends.cuda.march import MarchStepper
    from yeefdtd.backends.cuda.stepper import CudaStepper

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-n", type=int, default=8192)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--faces", nargs="+", choices=list(FACES), default=["none", "y", "x", "all"])
    p.add_argument("--place", nargs="+", choices=["xboxes", "inpass"],
                   default=["xboxes", "inpass"])
    p.add_argument("--launch", type=launch_shape,
                   help="steps,V,warps,rows of the pass (default: tuned)")
    p.add_argument("--box-rows", type=int, nargs="+", default=[MarchStepper.BOX_ROWS_2D],
                   help="rows per segment of the x boxes")
    a = p.parse_args()
    launch = {"pass": a.launch} if a.launch else None
    print(f"{'place':7s} {'faces':5s} {'rows':>4s} {'launch':16s} {'Mcells/s':>9s} regs "
          "blocks/SM")
    for place in a.place:
        os.environ["YEEFDTD_CPML"] = place
        for faces in a.faces:
            boxed = place == "xboxes" and "x_min" in FACES[faces]
            for rows in a.box_rows if boxed else [0]:
                if rows:
                    MarchStepper.BOX_ROWS_2D = rows
                model = build_model(scene(a.n, FACES[faces], a.steps))
                st = CudaStepper(model, "float32", variant="temporal", tune=launch is None,
                                 launch=launch)
                occ = st.occupancy()
                rate = a.n * a.n * a.steps / time_stepper(st, a.steps) / 1e6
                print(f"{place:7s} {faces:5s} {rows:4d} {st.configs['pass']!s:16s} "
                      f"{rate:9.0f} {occ['registers']:4d} {occ['blocks_per_sm']:9d}",
                      flush=True)
                del st


if __name__ == "__main__":
    main()
