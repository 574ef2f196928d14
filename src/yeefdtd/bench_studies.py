"""Benchmark suites: the headline table and the seeds' studies, each a list of cases, with
the plots that redo the papers' figures."""

from __future__ import annotations

import sys
from pathlib import Path

from .bench import HEADER, Row, bench_model, format_row, measure
from .constants import BENCH_SUITES

SUITES = BENCH_SUITES


def _print(row: Row) -> None:
    print(format_row(row), flush=True)


def _models():
    cache: dict = {}

    def get(scene: str, n: int, steps: int):
        key = (scene, n)
        if key not in cache:
            cache.clear()  # one model at a time: they are large
            cache[key] = bench_model(scene, n, steps)
        return cache[key]

    return get


def table_cases(quick: bool) -> list[tuple]:
    """(scene, n, variant, dtype) of the headline table."""
    big, two_d = (256, 4096) if quick else (512, 8192)
    return [
        ("dipole-cpml", big, "indexed", "float32"),
        ("dipole-cpml", big, "indexed", "float64"),
        ("dipole-cpml", big, "indexed", "float16"),
        ("dipole-cpml-aniso", big, "indexed", "float32"),
        ("dipole-cpml", big, "seed-xy", "float32"),
        ("dipole-cpml", big, "fused", "float32"),
        ("dipole-cpml", big, "fused", "float16"),
        ("dipole-cpml", big, "temporal", "float32"),
        ("dipole-cpml", big, "temporal", "float16"),
        ("pec-box", big, "indexed", "float32"),
        ("pec-box", big, "indexed", "float16"),
        ("pec-box", big, "fused", "float32"),
        ("pec-box", big, "temporal", "float32"),
        ("pec-box", big, "temporal", "float16"),
        ("pec-box", big, "seed-xyz", "float32"),
        ("pec-box", big, "seed-xyz", "float64"),
        ("pec-box", big, "seed-xy", "float32"),
        ("pec-box", big, "seed-plane", "float32"),
        ("pec-box", big, "seed-multicell", "float32"),
        ("tmz-2d", two_d, "indexed", "float32"),
        ("tmz-2d", two_d, "indexed", "float64"),
        ("tmz-2d", two_d, "indexed", "float16"),
        ("tmz-2d", two_d, "tiled-2d", "float32"),
        ("tmz-2d", two_d, "fused", "float32"),
        ("tmz-2d", two_d, "temporal", "float32"),
        ("tmz-2d", two_d, "temporal", "float16"),
        ("tmz-2d-cpml", two_d, "indexed", "float32"),
        ("tmz-2d-cpml", two_d, "temporal", "float32"),
    ]


#: called as ROW_HOOK(row, study) with each row as soon as it is measured (study: the
#: study's name, None for the table's rows), so that a caller keeps what was measured
#: when a later case fails or the run is stopped (`yeefdtd bench --json`)
ROW_HOOK = None
_STUDY: list = [None]   # the study run_suite is running


def run_cases(cases, steps: int, copy_bw: float) -> list[Row]:
    get = _models()
    rows = []
    for scene, n, variant, dtype, *launch in cases:
        model = get(scene, n, steps)
        row = measure(model, variant, dtype, steps, copy_bw,
                      launch=launch[0] if launch else None)
        rows.append(row)
        _print(row)
        if ROW_HOOK is not None:
            ROW_HOOK(row, _STUDY[0])
    return rows


def study_sizes(steps: int, copy_bw: float, quick: bool):
    """Mcells/s against problem size (Demir and Elsherbeni, Fig. 7)."""
    sizes = [64, 128, 192, 256] if quick else [64, 96, 128, 160, 192, 256, 320, 384, 448, 512]
    cases = [("pec-box", n, v, "float32") for n in sizes for v in ("seed-xyz", "seed-xy",
                                                                   "indexed")]
    return run_cases(cases, steps, copy_bw)


def study_threads(steps: int, copy_bw: float, quick: bool):
    """Mcells/s against threads per block at 200^3 (Demir and Elsherbeni, Fig. 6)."""
    threads = [64, 128, 256, 512] if quick else [64, 128, 192, 256, 320, 384, 448, 512]
    cases = [("pec-box", 200, v, "float32", {"h": (t,), "e": (t,)})
             for v in ("seed-xyz", "seed-xy") for t in threads]
    return run_cases(cases, steps, copy_bw)


def study_blocks2d(steps: int, copy_bw: float, quick: bool):
    """2D block shapes at 8192^2 (Takada et al., Table 1)."""
    n = 4096 if quick else 8192
    shapes = [(16, 16), (32, 4), (32, 8), (32, 16), (64, 4), (64, 8), (128, 2), (128, 4),
              (256, 1), (16, 8), (8, 8), (4, 4)]
    cases = [("tmz-2d", n, "tiled-2d", "float32", {"h": s, "e": s}) for s in shapes]
    return run_cases(cases, steps, copy_bw)


def study_coalescing(steps: int, copy_bw: float, quick: bool):
    """Cells per thread, interleaved (coalesced) or consecutive (uncoalesced), single and
    double precision (the 2012 study's Fig. 11)."""
    cells = [1, 2, 4, 8] if quick else [1, 2, 4, 8, 16]
    cases = [("pec-box", 256, f"seed-multicell:{mode}cells={c}", dtype)
             for dtype in ("float32", "float64") for mode in ("", "consecutive,")
             for c in cells]
    return run_cases(cases, steps, copy_bw)


STUDIES = {"sizes": study_sizes, "threads": study_threads, "blocks2d": study_blocks2d,
           "coalescing": study_coalescing}


def _save(plt, fig, path: Path) -> Path:
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_studies(studies: dict[str, list[Row]], directory: Path) -> list[Path]:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = []
    directory.mkdir(parents=True, exist_ok=True)
    if "sizes" in studies:
        fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
        for v in sorted({r.variant for r in studies["sizes"]}):
            rows = [r for r in studies["sizes"] if r.variant == v]
            ax.plot([r.n for r in rows], [r.mcells_per_s for r in rows], "o-", label=v)
        ax.set(xlabel="N (N^3 cells, pec-box)", ylabel="Mcells/s",
               title="speed against problem size (cf. Demir & Elsherbeni Fig. 7)")
        ax.legend()
        out.append(_save(plt, fig, directory / "study_sizes.png"))
    if "threads" in studies:
        fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
        for v in sorted({r.variant for r in studies["threads"]}):
            rows = [r for r in studies["threads"] if r.variant == v]
            ax.plot([r.launch["h"][0] for r in rows], [r.mcells_per_s for r in rows], "o-",
                    label=v)
        ax.set(xlabel="threads per block", ylabel="Mcells/s",
               title="200^3 pec-box: threads per block (cf. Fig. 6)")
        ax.legend()
        out.append(_save(plt, fig, directory / "study_threads.png"))
    if "blocks2d" in studies:
        rows = studies["blocks2d"]
        fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
        labels = [f"{r.launch['h'][0]}x{r.launch['h'][1]}" for r in rows]
        ax.bar(labels, [r.mcells_per_s for r in rows])
        ax.set(xlabel="block shape", ylabel="Mcells/s",
               title=f"tmz-2d {rows[0].n}^2, tiled-2d (cf. Takada et al. Table 1)")
        ax.tick_params(axis="x", rotation=45)
        out.append(_save(plt, fig, directory / "study_blocks2d.png"))
    if "coalescing" in studies:
        fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
        for dtype in ("float32", "float64"):
            for mode in ("interleaved", "consecutive"):
                rows = [r for r in studies["coalescing"] if r.dtype == dtype
                        and ("consecutive" in r.variant) == (mode == "consecutive")]
                cells = [int(r.variant.split("cells=")[1].split(",")[0]) for r in rows]
                ax.plot(cells, [r.mcells_per_s for r in rows], "o-", label=f"{dtype} {mode}")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set(xlabel="cells per thread", ylabel="Mcells/s",
               title="256^3 pec-box: coalesced vs uncoalesced, single vs double (cf. Fig. 11)")
        ax.legend()
        out.append(_save(plt, fig, directory / "study_coalescing.png"))
    return out


def run_suite(suite: str, steps: int, copy_bw: float, quick: bool):
    """(table rows, {study: rows}) for a suite name."""
    print(HEADER, flush=True)
    rows: list[Row] = []
    studies: dict[str, list[Row]] = {}
    if suite in ("table", "all"):
        rows = run_cases(table_cases(quick), steps, copy_bw)
    names = list(STUDIES) if suite in ("seeds", "all") else [suite] if suite in STUDIES else []
    for name in names:
        print(f"# study: {name}", file=sys.stdout, flush=True)
        _STUDY[0] = name
        try:
            studies[name] = STUDIES[name](steps, copy_bw, quick)
        finally:
            _STUDY[0] = None
    return rows, studies
