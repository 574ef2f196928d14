"""Benchmarks: the scenes every speed figure is measured on, the device's copy bandwidth,
and the seeds' studies redone on today's GPUs.

Mcells/s = Nx Ny Nz steps / seconds / 1e6 over the whole grid (CPML included), timed with
CUDA events after a warm-up, compilation and tuning excluded. Each row shows the variant's
bytes-per-cell model, the bandwidth that implies, and its share of the measured copy
bandwidth (bytes read plus bytes written by a large device-to-device copy).
"""

from __future__ import annotations

import datetime
import json
import numbers
import os
import platform
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from .constants import BENCH_SCENES
from .description import (
    Box,
    Cpml,
    Gaussian,
    Grid,
    Material,
    ModulatedGaussian,
    PointSource,
    Probe,
    RunSettings,
    Scene,
    Sphere,
)

SCENES = BENCH_SCENES
CPML_CELLS = 10   # every CPML face of the scenes with layers
DEFAULT_N = {"pec-box": 256, "dipole-cpml": 512, "dipole-cpml-aniso": 512, "tmz-2d": 8192,
             "tmz-2d-cpml": 8192}


def bench_scene(name: str, n: int | None = None, steps: int = 1000,
                dtype: str = "float32") -> Scene:
    """The benchmark scene ``name`` at size ``n`` (see the project's SCENES.md; None: the
    scene's own, DEFAULT_N)."""
    if name not in SCENES:
        raise ValueError(f"unknown benchmark scene {name!r}; use one of {', '.join(SCENES)}")
    n = DEFAULT_N[name] if n is None else n
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n: {n!r} is not a size; give a whole number of cells a side, 1 or "
                         f"more (the scenes with CPML {3 * CPML_CELLS} or more)")
    n = int(n)
    run = RunSettings(steps=steps, dtype=dtype, backend="cuda")
    mm = 1e-3
    if name == "pec-box":
        c = n * mm / 2
        return Scene(name=f"pec-box-{n}", grid=Grid(cells=(n, n, n), spacing=mm),
                     boundaries="pec", run=run,
                     sources=[PointSource(component="ez", position=(c, c, c),
                                          waveform=Gaussian(tau=20e-12))])
    if name.startswith("dipole-cpml"):
        d = (1.0e-3, 1.2e-3, 0.8e-3) if name.endswith("aniso") else (mm, mm, mm)
        size = [n * di for di in d]

        def at(fx, fy, fz):
            return (fx * size[0], fy * size[1], fz * size[2])

        edge = [n / 8 * di for di in d]
        return Scene(
            name=f"{name}-{n}", grid=Grid(cells=(n, n, n), spacing=d), run=run,
            boundaries={f: Cpml(cells=CPML_CELLS, order=3, kappa_max=5.0, alpha_max=0.05)
                        for f in ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")},
            materials={"dielectric": Material(eps_r=4.0, sigma_e=0.01),
                       "magnetic": Material(mu_r=2.0, sigma_m=1000.0)},
            objects=[Sphere(center=at(0.6, 0.5, 0.5), radius=n / 6 * d[0], material="dielectric"),
                     Box(center=at(0.3, 0.5, 0.5), size=edge, material="pec"),
                     Box(center=at(0.5, 0.3, 0.5), size=edge, material="magnetic")],
            sources=[PointSource(component="ez", position=at(0.5, 0.5, 0.5),
                                 waveform=ModulatedGaussian(frequency=10e9))],
            monitors=[Probe(name="probe", position=at(0.5, 0.5, 0.6))],
        )
    if name.startswith("tmz-2d"):
        c = n * mm / 2
        return Scene(name=f"{name}-{n}", grid=Grid(mode="tmz", cells=(n, n), spacing=mm),
                     boundaries="cpml" if name.endswith("cpml") else "pec", run=run,
                     sources=[PointSource(component="ez", position=(c, c),
                                          waveform=Gaussian(tau=20e-12))])
    raise ValueError(f"unknown benchmark scene {name!r}; use one of {', '.join(SCENES)}")


def with_walls(scene: Scene, walls: str) -> Scene:
    """``scene`` with walls in place of some boundaries, as benchmarks/compare_launch.py and
    pass_parts.py take them (--walls): ``pec`` or ``pmc`` on every face, or FACE=KIND pairs,
    comma-separated (e.g. ``z_min=pmc``: a symmetry plane). ValueError, one line, on
    anything else or where the scene refuses them."""
    from .exceptions import ValidationError

    faces = ("x_min", "x_max", "y_min", "y_max") + \
        (("z_min", "z_max") if scene.grid.mode == "3d" else ())
    if walls in ("pec", "pmc"):
        given = dict.fromkeys(faces, walls)
    else:
        pairs = [w.partition("=") for w in walls.split(",")]
        if any(f not in faces or k not in ("pec", "pmc") for f, _, k in pairs):
            raise ValueError(f"--walls: {walls!r}: give pec, pmc or FACE=pec|pmc pairs, "
                             f"comma-separated (FACE one of {', '.join(faces)})")
        if len({f for f, _, _ in pairs}) < len(pairs):
            raise ValueError(f"--walls: {walls!r}: a face is given twice; give each once")
        given = {f: k for f, _, k in pairs}
    data = scene.model_dump()
    data["boundaries"] = {**data["boundaries"], **given}
    try:
        return type(scene).model_validate(data)
    except ValidationError as exc:
        raise ValueError(f"--walls: {walls!r}: the scene refuses them: {exc}") from None


def copy_bandwidth(nbytes: int = 1 << 31, repeats: int = 10) -> float:
    """Device-to-device copy bandwidth in bytes/s (read plus write), best of ``repeats``."""
    import cupy as cp

    src = cp.empty(nbytes // 2, dtype=cp.uint8)
    dst = cp.empty_like(src)
    src.fill(1)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    best = 0.0
    for _ in range(repeats + 1):
        start.record()
        cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.data.ptr, src.nbytes,
                                    cp.cuda.runtime.memcpyDeviceToDevice,
                                    cp.cuda.get_current_stream().ptr)
        stop.record()
        stop.synchronize()
        ms = cp.cuda.get_elapsed_time(start, stop)
        best = max(best, 2 * src.nbytes / (ms * 1e-3))
    del src, dst
    cp.get_default_memory_pool().free_all_blocks()
    return best


@dataclass
class Row:
    scene: str
    n: int
    variant: str
    dtype: str
    steps: int
    ms_per_step: float
    mcells_per_s: float
    bytes_per_cell: float        #: the variant's traffic model, CPML included
    gb_per_s: float              #: mcells_per_s * bytes_per_cell
    percent_of_copy: float
    memory_bytes_per_cell: float
    launch: dict
    #: Mcells/s over the single-step bound: copy bandwidth / (each field read and written
    #: once per step: 48 bytes per cell in 3D float32, 24 in 2D)
    vs_step_bound: float = 0.0
    #: steps per pass ('fused' 1, 'temporal' its tuned number; else 1)
    steps_per_pass: int = 1
    #: the marching variants' pass: its theoretical occupancy (resident warps per SM, from
    #: its registers, shared memory and threads, over the most an SM holds) and the
    #: registers a thread takes (None where the stepper does not report them)
    occupancy: float | None = None
    registers: int | None = None


#: steps run before the timed ones (clocks, caches, the first launches); a model that a
#: benchmark times over N steps is built for N + WARMUP (see bench_model)
WARMUP = 20


def bench_model(name: str, n: int | None, steps: int, dtype: str = "float32"):
    """The model of benchmark scene ``name`` for timing ``steps`` steps after the warm-up
    (a stepper refuses steps past its model's, whose waveforms and records end there)."""
    from .build.model import build_model

    return build_model(bench_scene(name, n, steps + WARMUP, dtype))


def time_stepper(stepper, steps: int, warmup: int = WARMUP, segments: int = 5) -> float:
    """Seconds for ``steps`` steps after ``warmup`` steps, timed with CUDA events: the steps
    run in ``segments`` back-to-back segments and the median segment's rate is reported (a
    clock or power transient in one segment does not move the figure; GPUs here showed
    single 200-step timings up to 4% apart on one machine)."""
    import cupy as cp

    stepper.advance(0, warmup)
    stepper.synchronize()
    # segments of whole passes (a marching stepper advances NT steps a pass from where a
    # segment starts, so a segment of 200 steps at NT 3 ended in a pass of 2 that moves
    # what a whole pass moves), what is left over at the end of the last
    nt = max(1, int(getattr(stepper, "steps_per_pass", 1) or 1))
    passes = steps // nt
    segments = max(1, min(segments, passes if passes else steps))
    if passes >= segments:
        sizes = [nt * (passes // segments + (q < passes % segments)) for q in range(segments)]
        sizes[-1] += steps - nt * passes
    else:
        sizes = [steps // segments + (q < steps % segments) for q in range(segments)]
    events = [cp.cuda.Event() for _ in range(segments + 1)]
    events[0].record(stepper._stream)
    done = warmup
    for q, n in enumerate(sizes):
        stepper.advance(done, n)
        done += n
        events[q + 1].record(stepper._stream)
    events[-1].synchronize()
    per_step = sorted(cp.cuda.get_elapsed_time(events[q], events[q + 1]) * 1e-3 / n
                      for q, n in enumerate(sizes))
    return per_step[len(per_step) // 2] * steps


def step_bound_bytes(stepper) -> int:
    """Bytes per cell of the single-step bound: every field component read and written once
    (3D float32: 6 x 4 x 2 = 48)."""
    return 2 * len(stepper.model.grid.components) * stepper.field_dtype.itemsize


def pass_occupancy(desc: dict) -> tuple[float | None, int | None]:
    """(theoretical occupancy, registers a thread) of a stepper's pass from its description
    (``describe()["occupancy"]``, which the marching variants give), else (None, None)."""
    occ = desc.get("occupancy") or {}
    if "occupancy" not in occ or "registers" not in occ:
        return None, None
    return float(occ["occupancy"]), int(occ["registers"])


def measure(model, variant: str, dtype: str, steps: int, copy_bw: float,
            launch: dict | None = None, tune: bool | None = None) -> Row:
    """One benchmark row: build the stepper, warm up, time ``steps`` steps."""
    from .backends.cuda.stepper import CudaStepper

    st = CudaStepper(model, dtype, variant=variant, tune=tune, launch=launch)
    seconds = time_stepper(st, steps)
    cells = model.grid.num_cells
    mcells = cells * steps / seconds / 1e6
    bpc = st.traffic_bytes_per_cell()
    desc = st.describe()
    occupancy, registers = pass_occupancy(desc)
    row = Row(scene=model.scene.name.rsplit("-", 1)[0], n=model.grid.cells[0],
              variant=desc["variant"], dtype=dtype, steps=steps,
              ms_per_step=seconds / steps * 1e3, mcells_per_s=mcells, bytes_per_cell=bpc,
              gb_per_s=mcells * bpc / 1e3, percent_of_copy=100 * mcells * 1e6 * bpc / copy_bw,
              memory_bytes_per_cell=st.memory_bytes() / cells,
              launch={r: list(c) for r, c in st.configs.items()},
              vs_step_bound=mcells * 1e6 / (copy_bw / step_bound_bytes(st)),
              steps_per_pass=getattr(st, "steps_per_pass", 1), occupancy=occupancy,
              registers=registers)
    del st
    import cupy as cp

    cp.get_default_memory_pool().free_all_blocks()
    return row


def source_revision(where: Path | None = None) -> str:
    """The git commit of the package's source that this process runs, with "+changes" where
    its files differ from that commit (a tracked file changed, or a file git does not
    ignore added); "unknown" where the package is not a file of a git
    checkout (an installed wheel, even inside some other project's repository) or git is
    missing. $YEEFDTD_GIT_REV, where set, is taken as it is (a copy of the tree whose
    history is missing or stale). ``where``: the package's directory (tests)."""
    rev = os.environ.get("YEEFDTD_GIT_REV", "")
    if rev:
        return rev
    here = Path(where) if where is not None else Path(__file__).resolve().parent

    def git(*args):
        return subprocess.run(["git", "-C", str(here), *args], capture_output=True,
                              text=True, check=False, timeout=30)

    try:
        if git("ls-files", "--error-unmatch", "--", "bench.py").returncode != 0:
            return "unknown"   # not a checkout of this package's source
        sha = git("rev-parse", "--short", "HEAD").stdout.strip()
        if not sha:
            return "unknown"
        changed = git("status", "--porcelain", "--", ".").stdout
        return sha + ("+changes" if changed.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def environment() -> dict:
    import cupy as cp
    import numpy as np

    from . import __version__
    from .backends.cuda.stepper import device_feed

    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    sha = source_revision()
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "device": name, "memory_gib": props["totalGlobalMem"] / 2**30,
            "sms": props["multiProcessorCount"], "memory_feed": device_feed(),
            "cupy": cp.__version__,
            "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
            "driver": cp.cuda.runtime.driverGetVersion(), "numpy": np.__version__,
            "python": platform.python_version(), "yeefdtd": __version__, "git": sha}


HEADER = (f"{'scene':<18}{'N':>6} {'variant':<28}{'dtype':<8}{'ms/step':>9}{'Mcells/s':>11}"
          f"{'B/cell':>8}{'GB/s':>8}{'%copy':>7}{'mem B/cell':>11}{'x bound':>8}{'NT':>4}"
          f"  launch")


def launch_text(r: Row) -> str:
    """The launch shapes a row ran, compact: each role's shape as the stepper takes it (for
    the marching variants' pass: steps per pass, then the tile's two sides and the planes or
    rows a segment, as in ``--launch``), then the pass's theoretical occupancy and
    registers."""
    text = " ".join(f"{role} {','.join(str(v) for v in cfg)}" for role, cfg in r.launch.items())
    if r.occupancy is not None:
        text += f" occ {r.occupancy:.2f}"
    if r.registers is not None:
        text += f" {r.registers} regs"
    return text


def format_row(r: Row) -> str:
    return (f"{r.scene:<18}{r.n:>6} {r.variant:<28}{r.dtype:<8}{r.ms_per_step:>9.3f}"
            f"{r.mcells_per_s:>11.0f}{r.bytes_per_cell:>8.1f}{r.gb_per_s:>8.0f}"
            f"{r.percent_of_copy:>7.1f}{r.memory_bytes_per_cell:>11.1f}"
            f"{r.vs_step_bound:>8.2f}{r.steps_per_pass:>4d}  {launch_text(r)}")


def write_json(path: Path, env: dict, copy_bw: float, rows: list[Row], studies: dict,
               complete: bool = True) -> None:
    """The benchmark's JSON file, written whole or not at all (its directories created);
    ``complete`` False while cases are still to run (it is rewritten after each row)."""
    from .io import write_atomic

    data = {"environment": env, "copy_bandwidth_bytes_per_s": copy_bw,
            "rows": [asdict(r) for r in rows],
            "studies": {k: [asdict(r) for r in v] for k, v in studies.items()},
            "complete": complete}
    write_atomic(Path(path), lambda tmp: tmp.write_text(json.dumps(data, indent=1)))
