"""B-scans: traces of a scene whose sources and probes move a whole number of cells each."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.bscan import bscan, moved

DX = 5e-3


def ground(target: bool, periodic: bool = False, probe_dx: float = 0.0,
           components=("ez",)) -> yf.Scene:
    """TMz, 5 mm cells: air over soil (eps_r 6, 5 mS/m) across the whole width, a
    transmitter 1 cm over it and a receiver ``probe_dx`` beside it; a PEC disc buried in
    the middle where ``target``."""
    n = (60, 50)
    objects = [yf.Box(center=(0.15, 0.06), size=(2.0, 0.12), material="soil")]
    if target:
        objects.append(yf.Sphere(center=(0.15, 0.05), radius=0.012, material="pec"))
    faces = {"x_min": "periodic", "x_max": "periodic"} if periodic else {}
    return yf.Scene(
        grid=yf.Grid(mode="tmz", cells=n, spacing=DX),
        materials={"soil": yf.Material(eps_r=6.0, sigma_e=0.005)}, objects=objects,
        boundaries=faces,
        sources=[yf.PointSource(component="ez", position=(0.15 - 9 * DX, 0.13),
                                waveform=yf.Ricker(frequency=1.2e9))],
        monitors=[yf.Probe(name="rx", position=(0.15 - 9 * DX + probe_dx, 0.13),
                           components=components),
                  yf.Snapshot(name="s", component="ez")],
        run=yf.RunSettings(duration=5e-9, backend="numpy", dtype="float64"))


def traces(res, name="rx", component="ez") -> np.ndarray:
    n = res.stats["bscan"]["traces"]
    return np.stack([res.probes[f"{name}[{k}]"][component] for k in range(n)])


def test_a_ground_the_same_along_the_scan_gives_the_same_trace_everywhere():
    """Along x the ground is uniform and the faces periodic, so moving the antennas 3 cells
    a trace is an exact symmetry of the grid: every trace is the first, bit for bit, for
    every component (the probe sits on a node, halfway between two of Hx's and Hy's
    points: on some traces the rounding of its moved position took the other one, and
    Hy's sign flipped); a buried target breaks it (the traces then differ by 9.7% of the
    first's peak)."""
    res = bscan(ground(target=False, periodic=True, components=None), 30, (1, 0),
                progress=False)
    for c in ("ez", "hx", "hy"):
        t = traces(res, component=c)
        assert np.abs(t[0]).max() > 0 and (t == t[0]).all(), c
    res = bscan(ground(target=False, periodic=True), 7, (3, 0), progress=False)
    xs = [res.probes[f"rx[{k}]"].positions["ez"][0] for k in range(7)]
    assert np.allclose(np.diff(xs), 3 * DX, rtol=0, atol=1e-12)
    assert res.stats["bscan"] == {"traces": 7, "step_cells": [3, 0], "traces_requested": 7}
    assert res.stats["status"] == "completed"
    note = res.stats["notes"][-1]
    assert "snapshots: left out of a B-scan" in note
    code = note.split("(", 2)[2].split(";")[0]   # the import the note names runs
    assert code == "from yeefdtd.bscan import moved", note
    exec(code, {})
    t = traces(bscan(ground(target=True, periodic=True), 7, (3, 0), progress=False))
    assert np.abs(t - t[0]).max() > 0.05 * np.abs(t[0]).max()


def test_a_target_under_the_middle_of_the_scan_gives_a_mirrored_b_scan():
    """A monostatic scan (the receiver at the transmitter) over a disc under its middle:
    the grid, the ground and the target are mirror images about x = 0.15 m, so trace k is
    trace N - 1 - k (to rounding, float64: bound 1e-12 of the peak); the echo comes
    first at the middle trace, nearest the disc, and later either side (the hyperbola)."""
    res = bscan(ground(target=True), 7, (3, 0), progress=False)
    t = traces(res)
    peak = np.abs(t).max()
    assert np.abs(t - t[::-1]).max() <= 1e-12 * peak
    echo = t - bscan(ground(target=False), 7, (3, 0), progress=False).probes["rx[0]"]["ez"]
    first = [np.flatnonzero(np.abs(e) > 0.2 * np.abs(echo).max())[0] for e in echo]
    assert first[3] == min(first) and first[0] > first[3] and first[-1] > first[3], first


def test_a_b_scan_saves_loads_and_plots_as_an_image_a_component(tmp_path):
    from yeefdtd.plot import plot_bscan, plot_result

    res = bscan(ground(target=True), 3, (2, 0), progress=False)
    back = yf.load(res.save(tmp_path / "b.h5"))
    assert back == res and back.stats["bscan"]["traces"] == 3
    assert [p.name for p in plot_result(back, tmp_path, "b")] == ["b_bscan_rx_ez.png"]
    with pytest.raises(yf.ValidationError, match="probe 'tx': not a B-scan's probe in this "
                                                 "result \\(it has 'rx'\\)"):
        plot_bscan(back, "tx", "ez", tmp_path / "x.png")
    with pytest.raises(yf.ValidationError, match="component 'hx': probe 'rx' recorded ez"):
        plot_bscan(back, "rx", "hx", tmp_path / "x.png")
    with pytest.raises(yf.ValidationError, match="remove_mean: True or False, not 'False'"):
        plot_bscan(back, "rx", "ez", tmp_path / "x.png", remove_mean="False")
    # the colour scale: set by what differs from trace to trace (the echoes), not by the
    # direct wave every trace holds alike (scaled by the field, an echo came to 0.03 of it)
    import matplotlib.pyplot as plt

    scales, titles = [], []
    real_close = plt.close

    def close(fig):
        scales.append(fig.axes[0].collections[0].get_clim())
        titles.append(fig.axes[0].get_title())
        real_close(fig)

    plt.close = close
    try:
        plot_bscan(back, "rx", "ez", tmp_path / "a.png")
        plot_bscan(back, "rx", "ez", tmp_path / "b.png", remove_mean=True)
    finally:
        plt.close = real_close
    t = traces(back)
    lim = np.percentile(np.abs(t - t.mean(axis=0)), 99.5)
    assert scales == [pytest.approx((-lim, lim))] * 2 and lim < 0.5 * np.abs(t).max()
    assert titles[1].endswith(", less the mean trace")


@pytest.mark.parametrize("kw, says", [
    (dict(traces=1, step=(1, 0)), "traces: a whole number from 2"),
    (dict(traces=True, step=(1, 0)), "traces: a whole number from 2"),
    (dict(traces=2.5, step=(1, 0)), "traces: a whole number from 2"),
    (dict(traces=float("nan"), step=(1, 0)), "traces: a whole number from 2"),
    (dict(traces=3, step=(0, 0)), "step: all zero"),
    (dict(traces=3, step=(1.5, 0)), r"step: 2 whole numbers of cells along x, y"),
    (dict(traces=3, step=(1, 0, 0)), r"step: 2 whole numbers of cells along x, y"),
    (dict(traces=3, step="1,0"), r"step: 2 whole numbers"),
    # the last trace's antennas leave the grid: refused before any trace runs
    (dict(traces=50, step=(1, 0)), r"^trace 49, its sources and probes moved \[49, 0\] "
                                   r"cells: sources\[0\].position: x = 0.35 m is outside"),
    (dict(traces=3, step=(1, 0), progress="yes"), "progress: True, False or None"),
])
def test_bad_b_scan_arguments_are_one_line(kw, says):
    with pytest.raises(yf.ValidationError, match=says):
        bscan(ground(target=False), **kw)


def test_a_whole_float_count_of_traces_is_taken_as_run_takes_steps():
    res = bscan(ground(target=False), 2.0, (1, 0), progress=False)
    assert res.stats["bscan"]["traces"] == 2 and "rx[1]" in res.probes


def test_a_scene_without_probes_and_an_interrupted_scan(monkeypatch):
    """No probe: nothing to scan. A Ctrl-C in trace 2 keeps traces 0 and 1."""
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")

    scene = ground(target=False)
    with pytest.raises(yf.ValidationError, match="monitors: a B-scan records probes"):
        bscan(scene.model_copy(update={"monitors": []}), 3, (1, 0))
    real = run_mod.run
    calls = []

    def run(*args, **kw):
        calls.append(1)
        if len(calls) == 3:
            raise yf.RunInterrupted("interrupted after 5 of 100 steps", 5, None)
        return real(*args, **kw)

    monkeypatch.setattr(run_mod, "run", run)
    with pytest.raises(yf.RunInterrupted, match="trace 2 of 4: interrupted after 5 of 100 "
                                                "steps; the result holds the 2 before it") as e:
        bscan(scene, 4, (1, 0), progress=False)
    assert sorted(e.value.partial.probes) == ["rx[0]", "rx[1]"]
    assert e.value.partial.stats["bscan"]["traces"] == 2
    assert e.value.partial.stats["bscan"]["traces_requested"] == 4
    assert e.value.partial.stats["status"] == "interrupted"


def test_moved_keeps_cells_whole_and_positions_by_cell_sizes():
    scene = ground(target=False).model_copy(update={"sources": [yf.PointSource(
        component="ez", cell=(10, 26), waveform=yf.Ricker(frequency=1e9))]})
    m = moved(scene, (4, -1))
    assert m.sources[0].cell == (14, 25)
    assert m.monitors[0].position == pytest.approx((0.15 - 5 * DX, 0.13 - DX))
    assert [mon.type for mon in m.monitors] == ["probe"]


def test_run_takes_a_b_scan_and_plots_it(tmp_path, capsys):
    """'yeefdtd run SCENE --bscan N --step I,J' saves the traces and, with --plot, the
    B-scan image; its options are checked before any trace runs."""
    from yeefdtd.cli import main

    scene = tmp_path / "g.toml"
    scene.write_text(ground(target=True).model_copy(update={"run": {"duration": 2e-9}})
                     .to_toml())
    out = tmp_path / "g.h5"
    assert main(["run", str(scene), "-o", str(out), "--bscan", "3", "--step", "2,0",
                 "--plot", "-q"]) == 0
    said = capsys.readouterr().out
    assert ": 3 traces of " in said and "plot: " + str(tmp_path / "g_bscan_rx_ez.png") in said
    assert sorted(yf.load(out).probes) == ["rx[0]", "rx[1]", "rx[2]"]
    # a step back along x, written as argparse takes a value that starts with '-'
    assert main(["run", str(scene), "-o", str(out), "--bscan", "2", "--step=-2,0", "-q"]) == 0
    back = yf.load(out).probes
    assert back["rx[1]"].positions["ez"][0] == pytest.approx(
        back["rx[0]"].positions["ez"][0] - 2 * DX)
    for argv, says in [(["--bscan", "3"], "--bscan, --step: a B-scan takes both"),
                       (["--bscan", "3", "--step", "2,0,0"], "--step: the scene's grid is 2D"),
                       (["--bscan", "3", "--step", "0,0"], "--step: all zero"),
                       (["--bscan", "3", "--step", "1,0", "--fields"], "--fields: a B-scan"),
                       (["--bscan", "1", "--step", "1,0"], "2 traces or more"),
                       (["--bscan", "3", "--step", "a"], "--step: whole numbers of cells")]:
        try:   # (argparse's own refusals exit)
            code = main(["run", str(scene), "-o", str(tmp_path / "x.h5"), *argv])
        except SystemExit as exc:
            code = exc.code
        assert code == 2, argv
        assert says in capsys.readouterr().err, argv
    assert not (tmp_path / "x.h5").exists()


def test_an_unnamed_probe_keeps_its_name_and_the_last_traces_notes_come_first(capsys,
                                                                              monkeypatch):
    """Snapshots are left out of the traces' scenes, and an unnamed probe after one was
    named by its place in the shortened list (probe0 where the scene calls it probe1); and
    what only the last trace is told (its antennas in a CPML layer) came when it ran, hours
    into a long scan: now before the first."""
    import importlib

    monkeypatch.setattr(importlib.import_module("yeefdtd.run"), "_notes_shown", set())
    scene = ground(target=False)
    scene = scene.model_copy(update={"monitors": [
        yf.Snapshot(name=None, component="ez"),
        yf.Probe(position=(0.15 - 9 * DX, 0.13), components=["ez"])]})
    # 8 traces of 5 cells: the last one's antennas at 56 cells, 6 into x_max's layer
    res = bscan(scene, 8, (5, 0), progress=False)
    assert sorted(res.probes) == [f"probe1[{k}]" for k in range(8)]
    err = capsys.readouterr().err
    first = err.index("note: trace 7, its sources and probes moved [35, 0] cells: ")
    assert "CPML" in err[first:].splitlines()[0]


def test_a_b_scans_probe_that_recorded_nothing_is_named_once():
    """A probe recording every more steps than the run has: the note named each trace's
    record (rx[0] ... rx[N-1], up to 100 000 of them); now the B-scan's probe, once."""
    from yeefdtd.plot import unplotted

    scene = ground(target=False)
    scene = scene.model_copy(update={"monitors": [yf.Probe(
        name="rx", position=(0.1, 0.13), every=10_000)]})
    res = bscan(scene, 4, (1, 0), progress=False)
    assert unplotted(res) == ["B-scan probe 'rx' recorded nothing"]
