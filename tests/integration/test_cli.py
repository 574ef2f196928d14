"""The command line: every command, and bad arguments in one line with status 2."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(autouse=True)
def _signals_interrupt():
    """Each test starts with Python's own SIGINT handler and SIGTERM's default: a suite
    started in the background (`make test &`, nohup) inherits SIGINT ignored, and one under
    `trap '' TERM` SIGTERM, which the command keeps, as it should, so the tests' signals did
    nothing and a run meant to be interrupted completed. A test of an ignored signal sets
    it itself."""
    old = {sig: signal.signal(sig, handler) for sig, handler in (
        (signal.SIGINT, signal.default_int_handler), (signal.SIGTERM, signal.SIG_DFL))}
    yield
    for sig, handler in old.items():
        signal.signal(sig, handler)


def _signal_at_call(monkeypatch, sig, call: int) -> None:
    """The NumPy stepper's ``call``-th advance sends this process ``sig`` first (what a
    Ctrl-C or a scheduler's SIGTERM in the middle of a run does)."""
    stepper_mod = importlib.import_module("yeefdtd.backends.numpy.stepper")
    real = stepper_mod.NumpyStepper.advance
    calls = []

    def advance(self, *a, **k):
        calls.append(1)
        if len(calls) == call:
            os.kill(os.getpid(), sig)
        return real(self, *a, **k)

    monkeypatch.setattr(stepper_mod.NumpyStepper, "advance", advance)


@pytest.fixture
def scene_file(tmp_path) -> Path:
    scene = yf.Scene(
        name="small",
        grid=yf.Grid(mode="tmz", cells=(40, 30), spacing=1e-3),
        objects=[yf.Sphere(center=(0.025, 0.015), radius=0.004, material="pec")],
        sources=[yf.PointSource(component="ez", cell=(12, 15),
                                waveform=yf.Ricker(frequency=15e9))],
        monitors=[yf.Probe(name="p", cell=(30, 15)),
                  yf.Snapshot(name="s", component="ez", every=10)],
        run=yf.RunSettings(steps=60, backend="numpy"),
    )
    return scene.save(tmp_path / "small.toml")


def test_run_writes_result_and_plots(scene_file, tmp_path, capsys):
    out = tmp_path / "out" / "r.h5"
    assert main(["run", str(scene_file), "-o", str(out), "--plot", "-q", "--fields"]) == 0
    text = capsys.readouterr().out
    assert "Mcells/s" in text and str(out) in text
    res = yf.load(out)
    assert res.stats["steps"] == 60 and res.fields is not None
    pngs = sorted(p.name for p in out.parent.glob("*.png"))
    assert pngs == ["r_probe_p.png", "r_snapshot_s.png"]


def test_run_overrides(scene_file, tmp_path):
    out = tmp_path / "r.h5"
    assert main(["run", str(scene_file), "-o", str(out), "--steps", "7", "--dtype",
                 "float64", "--backend", "numpy", "-q"]) == 0
    st = yf.load(out).stats
    assert (st["steps"], st["dtype"], st["backend"]) == (7, "float64", "numpy")


def test_plot_command(scene_file, tmp_path, capsys):
    out = tmp_path / "r.h5"
    main(["run", str(scene_file), "-o", str(out), "-q"])
    capsys.readouterr()
    assert main(["plot", str(out), "-o", str(tmp_path / "png")]) == 0
    assert len(list((tmp_path / "png").glob("*.png"))) == 2


def test_plot_says_what_it_leaves_out_and_when_it_has_nothing_to_plot(scene_file, tmp_path,
                                                                      capsys):
    """A result with nothing to plot (no monitor, or only ones that recorded nothing, and
    its final fields) made 'plot' and 'run --plot' exit 0 silently, and a probe of no
    records made an empty PNG: a note now says what is left out and why."""
    d = yf.Scene.load(scene_file)
    late = d.model_copy(update={"monitors": [yf.Probe(name="late", cell=(5, 5), every=100)]})
    path = late.save(tmp_path / "late.toml")
    out = tmp_path / "late.h5"
    assert main(["run", str(path), "-o", str(out), "-q", "--fields", "--plot"]) == 0
    err = capsys.readouterr().err
    assert f"note: {out}: nothing to plot: probe 'late' recorded nothing; the final " \
        "fields are arrays" in err
    assert main(["plot", str(out)]) == 0
    assert "nothing to plot: probe 'late' recorded nothing" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.png"))
    # beside plots that were made: the probe that recorded nothing, not the fields
    both = d.model_copy(update={"monitors": [*d.monitors, yf.Probe(name="late", cell=(5, 5),
                                                                   every=100)]})
    out = tmp_path / "both.h5"
    assert main(["run", str(both.save(tmp_path / "both.toml")), "-o", str(out), "-q",
                 "--fields", "--plot"]) == 0
    err = capsys.readouterr().err
    assert f"note: {out}: not plotted: probe 'late' recorded nothing\n" in err
    assert sorted(p.name for p in tmp_path.glob("both*.png")) == ["both_probe_p.png",
                                                                   "both_snapshot_s.png"]


def test_plot_probe_refuses_a_probe_that_recorded_nothing(scene_file, tmp_path):
    """plot_probe wrote a PNG of empty axes for a probe that recorded nothing (plot_snapshot
    refused an empty snapshot in one line): it refuses too, and writes nothing."""
    from yeefdtd.plot import plot_probe

    d = yf.Scene.load(scene_file)
    late = d.model_copy(update={"monitors": [yf.Probe(name="late", cell=(5, 5), every=100)]})
    res = yf.run(late, steps=20, progress=False)
    with pytest.raises(yf.ValidationError, match="probe 'late' recorded nothing"):
        plot_probe(res, "late", tmp_path / "late.png")
    assert not (tmp_path / "late.png").exists()


def test_a_probes_plot_pads_the_spectrum_of_short_records_only(scene_file, tmp_path,
                                                                monkeypatch):
    """A record longer than PADDED_SAMPLES is transformed unpadded: padded 4 times over, one
    of tens of millions of samples took gigabytes for bins finer than the plot shows."""
    import yeefdtd.plot as plot

    pads = []
    real = plot.spectrum

    def spy(values, times, pad=4):
        pads.append((len(values), pad))
        return real(values, times, pad)

    monkeypatch.setattr(plot, "spectrum", spy)
    d = yf.Scene.load(scene_file)
    probed = d.model_copy(update={"monitors": [yf.Probe(name="p", cell=(5, 5),
                                                        components=["ez"])]})
    res = yf.run(probed, steps=30, progress=False)
    plot.plot_probe(res, "p", tmp_path / "short.png")
    monkeypatch.setattr(plot, "PADDED_SAMPLES", 29)
    plot.plot_probe(res, "p", tmp_path / "long.png")
    assert pads == [(30, 4), (30, 1)]
    assert (tmp_path / "long.png").stat().st_size > 0


def test_validate_schema_info(scene_file, tmp_path, capsys):
    assert main(["validate", str(scene_file)]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["schema", "-o", str(tmp_path / "schema.json")]) == 0
    assert "properties" in json.loads((tmp_path / "schema.json").read_text())
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    assert "numpy (usable; " in out and "cuda" in out


def test_run_takes_the_numpy_threads(scene_file, tmp_path, capsys, monkeypatch):
    """--threads reaches the NumPy stepper (the same records on 1 and 3 threads, which the
    pieces' bits guarantee); 0 or a word is one line and status 2, before the run."""
    from yeefdtd.backends.numpy import stepper as numpy_stepper

    made = []
    real = numpy_stepper.NumpyStepper.__init__

    def spy(self, model, dtype="float32", threads=None):
        made.append(threads)
        real(self, model, dtype, threads=threads)

    monkeypatch.setattr(numpy_stepper.NumpyStepper, "__init__", spy)
    for n in (1, 3):
        assert main(["run", str(scene_file), "-o", str(tmp_path / f"r{n}.h5"), "-q",
                     "--backend", "numpy", "--threads", str(n)]) == 0
    assert made == [1, 3]
    one, three = yf.load(tmp_path / "r1.h5").probes, yf.load(tmp_path / "r3.h5").probes
    assert one and one == three
    capsys.readouterr()
    for bad, says in (("0", "must be > 0, got 0"), ("two", "expected a whole number"),
                      ("4097", "must be at most 4096, got 4097")):
        with pytest.raises(SystemExit) as stop:
            main(["run", str(scene_file), "--threads", bad])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert f"argument --threads: {says}" in err and not (tmp_path / "small.h5").exists()


def test_info_says_the_numpy_threads_and_refuses_a_bad_count(monkeypatch, capsys):
    monkeypatch.setenv("YEEFDTD_THREADS", "3")
    assert main(["info"]) == 0
    assert "numpy (usable; 3 threads, YEEFDTD_THREADS sets them)" in capsys.readouterr().out
    monkeypatch.setenv("YEEFDTD_THREADS", "many")
    assert main(["info"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("yeefdtd: error: YEEFDTD_THREADS: ")


def test_threads_given_outrank_yeefdtd_threads(scene_file, tmp_path, monkeypatch, capsys):
    """--threads is the count: a YEEFDTD_THREADS that is not a number does not matter then
    (the memory check read it, and refused the run)."""
    monkeypatch.setenv("YEEFDTD_THREADS", "abc")
    assert main(["run", str(scene_file), "-o", str(tmp_path / "t.h5"), "-q", "--threads",
                 "2"]) == 0, capsys.readouterr().err
    assert main(["run", str(scene_file), "-o", str(tmp_path / "u.h5"), "-q"]) == 2
    assert "YEEFDTD_THREADS" in capsys.readouterr().err


def _diverging_scene(tmp_path) -> Path:
    """A TMz scene (saved as bad.json) whose source of amplitude 1e300 makes float32
    overflow within its 100 steps: the run diverges at a check."""
    scene = yf.Scene(
        grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
        sources=[yf.PointSource(component="ez", cell=(10, 10), amplitude=1e300,
                                waveform=yf.Gaussian(tau=6e-12))],
        monitors=[yf.Probe(name="p", cell=(12, 10))],
        run=yf.RunSettings(steps=100, check_every=20, dtype="float32", backend="numpy"))
    return scene.save(tmp_path / "bad.json")


def test_diverging_run_saves_what_it_recorded(tmp_path, capsys):
    path = _diverging_scene(tmp_path)
    out = tmp_path / "bad.h5"
    code = main(["run", str(path), "-o", str(out), "-q"])
    # (its pulse of 6 ps on 1 mm cells gets the note on the grid's dispersion too)
    err = [e for e in capsys.readouterr().err.splitlines()
           if "(10 a wavelength) keep it under" not in e]
    # one line of error, after the note that the amplitude drives fields past the limit
    assert code == 1 and err[0].startswith("note: sources: in these 100 steps they drive ")
    assert len(err) == 2 and "step 20" in err[1]
    res = yf.load(out)
    assert res.stats["status"] == "diverged" and res.stats["diverged_by_step"] == 20
    # the records before the first that is not finite, and the step count says so
    data = res.probes["p"]["ez"]
    assert 0 < len(data) == res.stats["steps"] < 20 and np.isfinite(data).all()
    assert main(["plot", str(out), "-o", str(tmp_path / "png")]) == 0


def test_a_diverged_run_that_cannot_be_saved_anywhere_still_says_why_it_stopped(
        tmp_path, capsys, monkeypatch):
    from yeefdtd.results import Result

    def save(self, path):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Result, "save", save)
    scene = yf.Scene(
        grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
        sources=[yf.PointSource(component="ez", cell=(10, 10), amplitude=1e300,
                                waveform=yf.Gaussian(tau=6e-12))],
        monitors=[yf.Probe(name="p", cell=(12, 10)), yf.Snapshot(name="s", component="ez",
                                                                  every=50)],
        run=yf.RunSettings(steps=100, check_every=20, dtype="float32", backend="numpy"))
    path = scene.save(tmp_path / "bad.json")
    assert main(["run", str(path), "-o", str(tmp_path / "bad.h5"), "-q"]) == 1
    err = [e for e in capsys.readouterr().err.splitlines() if not e.startswith("note: ")]
    assert len(err) == 2 and "the result is lost" in err[0] and "step 20" in err[1]


def _plotted_result(dtype: str = "float32"):
    """A short TMz run with a probe and a snapshot, whose records the plot tests change."""
    scene = yf.Scene(
        grid=yf.Grid(mode="tmz", cells=(12, 12), spacing=1e-3), boundaries="pec",
        sources=[yf.PointSource(component="ez", cell=(6, 6), waveform=yf.Ricker(
            frequency=20e9))],
        monitors=[yf.Probe(name="p", cell=(7, 6)),
                  yf.Snapshot(name="s", component="ez", every=2)],
        run=yf.RunSettings(steps=12, backend="numpy", dtype=dtype))
    return yf.run(scene, progress=False)


def test_plots_leave_out_values_that_are_not_finite(tmp_path):
    """A result holding NaN or infinities (a diverged run's, from before the records were
    cut at the first one) still plots, without them."""
    from yeefdtd.plot import plot_result

    res = _plotted_result()
    res.probes["p"].data["ez"][5:] = np.nan
    res.probes["p"].data["hx"][3] = np.inf
    res.snapshots["s"].frames[-1, 2:5, 2:5] = -np.inf
    res.snapshots["s"].frames[-2] = np.nan
    paths = plot_result(res, tmp_path, "r")
    assert len(paths) == 2 and all(p.stat().st_size > 0 for p in paths)


def test_plots_of_values_near_floats_largest(tmp_path):
    """Finite values near float64's largest (a diverged float64 run's, recorded before the
    check caught it) plot over their power of ten: their spectrum overflowed the FFT into
    NaN, and their range matplotlib's limits (a traceback from run --plot and plot)."""
    import matplotlib.pyplot as plt

    from yeefdtd.plot import plot_probe, plot_snapshot
    from yeefdtd.spectra import spectrum

    res = _plotted_result("float64")
    ez, t = res.probes["p"].data["ez"], res.probes["p"].times["ez"]
    _, small = spectrum(ez, t)
    peak = np.abs(ez).max()
    ez *= 1 / peak   # then 1e307 times: 1e307 / peak overflows
    ez *= 1e307
    _, big = spectrum(ez, t)   # linear in the values, without overflowing
    assert np.isfinite(big).all()
    assert np.allclose(big / 1e307 * peak, small, rtol=1e-12, atol=1e-12 * small.max())
    frame = res.snapshots["s"].frames[-1]
    frame *= 1 / np.abs(frame).max()
    frame *= 1.7e308
    labels = []
    real_close = plt.close

    def close(fig):   # the axes' labels, read before the figure goes
        labels.extend(ax.get_ylabel() for ax in fig.axes)
        real_close(fig)

    plt.close = close
    try:
        assert plot_probe(res, "p", tmp_path / "p.png").stat().st_size > 0
        assert plot_snapshot(res, "s", tmp_path / "s.png", frame=-1).stat().st_size > 0
    finally:
        plt.close = real_close
    assert "field (1e307 V/m)" in labels and "|spectrum| (1e307 V s/m)" in labels
    assert "ez (1e308 V/m)" in labels


@pytest.mark.parametrize("argv, needle", [
    (["run"], "scene"),
    (["run", "x.toml", "--steps", "-3"], "--steps"),
    (["run", "x.toml", "--dtype", "float8"], "--dtype"),
    (["frobnicate"], "frobnicate"),
    (["run", "missing.toml"], "no such file"),
    (["plot", "missing.h5"], "no such file"),
    (["validate", "scene.yaml"], "unknown scene file type"),
    (["validate", ""], "scene: an empty path; give a .toml or .json file"),
    (["kernels", "--variant", "bogus"], "--variant unknown kernel variant 'bogus'"),
    # past what a pass keeps on any grid (it printed the source of 'temporal')
    (["tune", "nosuch"], "scene: 'nosuch' is neither a benchmark scene (pec-box, "),
    (["kernels", "--variant", "temporal:steps=1000"], "--variant temporal steps must be an "
                                                     "integer from 2 to 8"),
    # an option of another command: the help of the command given (it said 'yeefdtd --help')
    (["validate", "x.toml", "--steps", "5"], "yeefdtd validate: error: unrecognized "
                                             "arguments: --steps 5 (see 'yeefdtd validate "
                                             "--help')"),
    (["schema", "-o", "/proc/x.json"], "cannot write in /proc (it takes no new files)"),
])
def test_bad_arguments_exit_2_with_one_line(argv, needle, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as info:
        sys.exit(main(argv))
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


@pytest.mark.parametrize("argv, needle", [
    (["bench", "--scene", "dipole-cpml", "-n", "5"],
     "-n/--size: dipole-cpml needs 30 cells a side or more"),
    (["tune", "tmz-2d-cpml", "-n", "2"], "give -n 30 or more"),
    (["bench", "--scene", "pec-box", "-n", "100000"], "more than any device holds"),
    (["bench", "--scene", "pec-box", "--variant", "nope"], "--variant nope: unknown"),
    (["bench", "--scene", "pec-box", "--variant", "temporal:steps=x"], "takes an integer"),
    (["bench", "--scene", "pec-box", "--variant", "tiled-2d"], "does not run 3d grids"),
    (["bench", "--scene", "tmz-2d", "--variant", "seed-xyz"], "does not run tmz grids"),
    (["tune", "pec-box", "--variant", "tiled-2d"], "does not run 3d grids"),
    (["tune", "missing.toml"], "no such file"),
    (["tune", "small.toml", "-n", "64"], "-n/--size: sizes only a benchmark scene"),
    (["tune", "small.toml", "--variant", "seed-xy"], "does not run tmz grids"),
    (["tune", "small.toml", "--variant", "tiled-2d", "--dtype", "float16"],
     "stores float32 or float64 fields only"),
    (["bench", "--scene", "pec-box", "--variant", "seed-plane", "--dtype", "float32",
      "--dtype", "float16"], "--variant seed-plane: variant 'seed-plane' stores float32"),
    (["bench", "--scene", "pec-box", "--variant", "temporal:steps=8"], "from 2 to 6 on 3d"),
])
def test_bench_and_tune_check_their_arguments_before_the_device(argv, needle, scene_file,
                                                                 capsys, monkeypatch):
    """Bad arguments are one line, here and on a machine with a GPU alike: they are
    checked before the CUDA backend is asked for."""
    monkeypatch.chdir(scene_file.parent)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err and "CUDA" not in err, err


def test_variant_option(scene_file, tmp_path, capsys):
    """--variant is checked, and means nothing to the numpy backend (no error there)."""
    out = tmp_path / "r.h5"
    assert main(["run", str(scene_file), "-o", str(out), "--variant", "tiled-2d", "-q",
                 "--backend", "auto"]) == 0
    capsys.readouterr()
    assert main(["run", str(scene_file), "-o", str(out), "--variant", "warp", "-q"]) == 2
    assert "variant" in capsys.readouterr().err


def test_output_must_be_hdf5(scene_file, capsys):
    assert main(["run", str(scene_file), "-o", "r.txt"]) == 2
    assert "--output" in capsys.readouterr().err


def test_a_read_only_output_is_refused_before_the_run(scene_file, tmp_path, capsys):
    """A result file made read-only was replaced without a word (the rename onto it needs
    only the directory's permission)."""
    out = tmp_path / "r.h5"
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 0
    before = out.read_bytes()
    out.chmod(0o444)
    capsys.readouterr()
    assert main(["run", str(scene_file), "-o", str(out), "-q", "--steps", "3"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is read-only" in err, err
    assert out.read_bytes() == before
    out.chmod(0o644)
    assert main(["run", str(scene_file), "-o", str(out), "-q", "--steps", "3"]) == 0


@pytest.mark.parametrize("argv", [["run", "{scene}", "-o", "we\nird.h5"],
                                  ["run", "{scene}", "-o", "o\x1bX.h5"],
                                  ["plot", "r\n.h5"], ["validate", "s\t.toml"],
                                  ["schema", "-o", "s\r.json"]])
def test_a_path_with_a_control_character_is_refused_in_one_line(argv, scene_file, capsys):
    """A newline in -o split the run's summary line in two, an escape reached the terminal
    raw: every message naming the file would carry them."""
    argv = [a.replace("{scene}", str(scene_file)) for a in argv]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a control character" in err, err


@pytest.mark.parametrize("where", ["file/r.h5", "dir.h5", "", ".h5"])
def test_an_output_that_cannot_be_written_is_refused_before_the_run(where, scene_file,
                                                                   tmp_path, capsys,
                                                                   monkeypatch):
    """Checked first, so that no run's result waits on a path that cannot take it."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("a file, not a directory")
    (tmp_path / "dir.h5").mkdir()
    ran = []
    import importlib

    monkeypatch.setattr(importlib.import_module("yeefdtd.run"), "run",
                        lambda *a, **k: ran.append(1))
    assert main(["run", str(scene_file), "-o", where, "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--output" in err and not ran


def test_a_result_that_cannot_be_saved_goes_to_the_temporary_directory(scene_file, tmp_path,
                                                                       capsys, monkeypatch):
    """The disk fills up or the directory goes away during the run: the result is saved
    in the temporary directory instead, one line says where, and the status is 1."""
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    from yeefdtd.results import Result

    real = Result.save
    out = tmp_path / "r.h5"

    def save(self, path):
        if Path(path) == out:
            raise OSError(28, "No space left on device")
        return real(self, path)

    monkeypatch.setattr(Result, "save", save)
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    spare = next((tmp_path / "tmp").glob("r-*.h5"))
    assert str(spare) in err and yf.load(spare).stats["steps"] == 60
    mask = os.umask(0o022)
    os.umask(mask)   # the mode of any new file, as the run would have written it (not 0600)
    assert spare.stat().st_mode & 0o777 == 0o666 & ~mask


def test_a_result_built_in_memory_meets_a_full_disk_as_an_os_error(scene_file, tmp_path,
                                                                    capsys, monkeypatch):
    """A result of up to IMAGE_MAX bytes is built in memory and written as bytes: a disk
    that fills up while they are written is one line, no part is left, and the result goes
    to the temporary directory."""
    import pathlib
    import tempfile

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)
    out = tmp_path / "out" / "r.h5"
    out.parent.mkdir()   # (a directory save creates is named: a line of its own)
    real = pathlib.Path.write_bytes

    def full(self, data):
        if self.parent == out.parent:
            real(self, bytes(data)[:100])
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(pathlib.Path, "write_bytes", full)
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert list(out.parent.iterdir()) == []
    assert yf.load(next((tmp_path / "tmp").glob("r-*.h5"))).stats["steps"] == 60


def test_a_disk_without_room_for_the_result_is_found_before_writing(scene_file, tmp_path,
                                                                    capsys, monkeypatch):
    """A result larger than IMAGE_MAX (written by h5py, not built in memory): where the
    file system has less free space than its arrays, save() says so before h5py starts (a
    disk that fills up under h5py can leave it unable to close the file, or end the
    process), and the run's result goes to the temporary directory."""
    import shutil
    import tempfile

    from yeefdtd import results
    from yeefdtd.results import Result

    monkeypatch.setattr(results, "IMAGE_MAX", 0)

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)
    out = tmp_path / "full" / "r.h5"
    real = shutil.disk_usage

    def usage(path):
        u = real(path)
        return u._replace(free=1000) if Path(path) == tmp_path else u

    monkeypatch.setattr(shutil, "disk_usage", usage)
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err and "MB are free" in err
    assert not out.parent.exists() or not list(out.parent.iterdir())   # no part left
    res = yf.load(next((tmp_path / "tmp").glob("r-*.h5")))
    assert res.stats["steps"] == 60
    arrays = [*res.probes["p"].data.values(), *res.probes["p"].times.values(),
              res.snapshots["s"].frames, res.snapshots["s"].times, *res.snapshots["s"].coords]
    assert Result.nbytes(res) == sum(a.nbytes for a in arrays)


def test_h5py_failing_to_close_a_file_is_an_os_error_in_one_line(scene_file, tmp_path,
                                                                 capsys, monkeypatch):
    """h5py reports a failed flush or close (a full disk) as a RuntimeError whose text spans
    lines; where it writes the file (a result larger than IMAGE_MAX) that reaches the user
    as one line, and the result goes to the temporary directory."""
    import tempfile

    import h5py

    from yeefdtd import results

    monkeypatch.setattr(results, "IMAGE_MAX", 0)

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", None)
    out = tmp_path / "r.h5"
    real = h5py.File

    def failing(name, mode="r", *a, **k):
        if mode == "w" and Path(name).parent == tmp_path:
            raise RuntimeError("Can't close dataset (file write failed: time = x\n, "
                               "errno = 28, No space left on device)")
        return real(name, mode, *a, **k)

    monkeypatch.setattr(h5py, "File", failing)
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "errno = 28" in err
    assert [p.name for p in tmp_path.iterdir() if p.suffix in (".part", ".h5")] == []
    assert next((tmp_path / "tmp").glob("r-*.h5")).exists()


def test_ctrl_c_while_the_result_is_written_waits_for_it(scene_file, tmp_path, capsys,
                                                        monkeypatch):
    """A Ctrl-C (or SIGTERM) that comes while the finished result is saved is held until the
    file is written, then ends the command with status 130, the result kept."""
    import os
    import signal

    from yeefdtd.results import Result

    real = Result.save

    def save(self, path):
        os.kill(os.getpid(), signal.SIGINT)
        os.kill(os.getpid(), signal.SIGTERM)
        return real(self, path)

    monkeypatch.setattr(Result, "save", save)
    out = tmp_path / "r.h5"
    before = signal.getsignal(signal.SIGTERM)
    before_int = signal.getsignal(signal.SIGINT)   # (_signals_interrupt's)
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted" in err and str(out) in err
    assert yf.load(out).stats["steps"] == 60
    assert signal.getsignal(signal.SIGTERM) is before   # handlers back as they were
    assert signal.getsignal(signal.SIGINT) is before_int


def test_sigterm_during_a_run_keeps_what_it_recorded(scene_file, tmp_path, capsys,
                                                     monkeypatch):
    """SIGTERM (a scheduler's or timeout's stop) is taken as Ctrl-C: the partial result is
    saved and the status is 130."""
    import signal

    _signal_at_call(monkeypatch, signal.SIGTERM, 3)
    out = tmp_path / "r.h5"
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and str(out) in err and err.count("\n") == 1
    assert 0 < yf.load(out).stats["steps"] < 60


@pytest.mark.parametrize("argv, needle", [
    (["bench", "-n", "64"], "-n/--size: applies only with --scene"),
    (["bench", "--dtype", "float16"], "--dtype: applies only with --scene"),
    (["bench", "--scene", "pec-box", "--quick"], "--quick: not with --scene"),
    (["bench", "--scene", "pec-box", "--suite", "seeds"], "--suite: not with --scene"),
    (["bench", "--scene", "pec-box", "--plots", "p"], "--plots: not with --scene"),
    # the table has no studies: its plots were none, after the whole table was timed
    (["bench", "--plots", "p"], "--plots: the table suite has no studies to plot"),
    (["bench", "--suite", "table", "--plots", "p"], "--plots: the table suite has no"),
    # the variant was not looked at
    (["kernels", "--list", "--variant", "nonsense"], "--variant: not with --list"),
])
def test_bench_options_that_would_be_ignored_are_refused(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_schema_is_written_only_under_a_json_name(tmp_path, capsys):
    """schema -o took any name, and replaced a scene file with the schema's text."""
    scene = tmp_path / "my_scene.toml"
    scene.write_text("kept = 1\n")
    assert main(["schema", "-o", str(scene)]) == 2
    err = capsys.readouterr().err
    assert err == f"yeefdtd: error: --output: {str(scene)!r} is not a JSON file name; give " \
        "one ending in .json\n"
    assert scene.read_text() == "kept = 1\n"
    assert main(["schema", "-o", str(tmp_path / "S.JSON")]) == 0


def test_paths_the_system_refuses_are_one_line(tmp_path, capsys, monkeypatch):
    """A name too long, a file where a directory goes, a loop of links, a NUL: one line
    naming the path or the option, for reading and for writing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    (tmp_path / "l1.toml").symlink_to(tmp_path / "l2.toml")
    (tmp_path / "l2.toml").symlink_to(tmp_path / "l1.toml")
    long = "x" * 300
    for argv, needle in [(["validate", f"{long}.toml"], "File name too long"),
                         (["validate", "afile/x.toml"], "Not a directory"),
                         (["validate", "l1.toml"], "symbolic links"),
                         (["plot", f"{long}.h5"], "File name too long"),
                         (["plot", "afile/x.h5"], "cannot read it"),
                         (["schema", "-o", f"{long}.json"], "--output"),
                         (["run", str(EXAMPLES / "cavity_pec.toml"), "-o", f"{long}.h5"],
                          "--output")]:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, (argv, err)
    with pytest.raises(yf.ValidationError, match="NUL"):
        yf.Scene.load("a\0b.toml")


def test_a_plot_that_cannot_be_written_leaves_the_one_before_whole(tmp_path, capsys,
                                                                   monkeypatch):
    """PNGs are written through a temporary file: where writing fails, a plot already there
    (the user's, or an earlier run's) is kept as it was."""
    import matplotlib.figure

    assert main(["run", str(EXAMPLES / "tmz_line_source.toml"), "-o",
                 str(tmp_path / "r.h5"), "-q", "--steps", "20"]) == 0
    assert main(["plot", str(tmp_path / "r.h5")]) == 0
    capsys.readouterr()
    before = {p: p.read_bytes() for p in tmp_path.glob("*.png")}
    assert before

    def fails(self, path, *a, **k):
        Path(path).write_bytes(b"part")
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", fails)
    assert main(["plot", str(tmp_path / "r.h5")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Permission denied" in err and ".png" in err
    assert {p: p.read_bytes() for p in tmp_path.glob("*.png")} == before
    assert not list(tmp_path.glob(".*.part"))


def test_an_output_directory_in_a_loop_of_links_is_refused_before_the_run(tmp_path, capsys,
                                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("loopA").symlink_to("loopB")
    Path("loopB").symlink_to("loopA")
    ran = []
    monkeypatch.setattr(importlib.import_module("yeefdtd.run"), "run",
                        lambda *a, **k: ran.append(1))
    for argv, needle in [(["run", str(EXAMPLES / "cavity_pec.toml"), "-o", "loopA/x.h5"],
                          "--output: loopA/x.h5"),
                         (["schema", "-o", "loopA/s.json"], "--output: loopA/s.json")]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err and "symbolic links" in err
    assert not ran


def test_signals_ignored_before_the_command_stay_ignored(scene_file, tmp_path, capsys,
                                                         monkeypatch):
    """A background job's SIGINT is ignored (SIG_IGN): one that comes while the result is
    written changes nothing, and the handlers are as before afterwards."""
    import os
    import signal

    from yeefdtd.results import Result

    real = Result.save

    def save(self, path):
        os.kill(os.getpid(), signal.SIGINT)
        return real(self, path)

    monkeypatch.setattr(Result, "save", save)
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert main(["run", str(scene_file), "-o", str(tmp_path / "r.h5"), "-q"]) == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, old)
    assert yf.load(tmp_path / "r.h5").stats["steps"] == 60


def test_output_that_cannot_be_written_is_one_line(tmp_path, capsys, monkeypatch):
    """Standard output on a full disk, and a plot that does not fit: one line, status 1,
    no part of a PNG left."""
    import matplotlib.figure

    assert main(["run", str(EXAMPLES / "tmz_line_source.toml"), "-o",
                 str(tmp_path / "r.h5"), "-q", "--steps", "20"]) == 0
    capsys.readouterr()

    def full(self, path, *a, **k):
        Path(path).write_bytes(b"part")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full)
    assert main(["plot", str(tmp_path / "r.h5"), "-o", str(tmp_path / "png")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "png" in err and "No space left on device" in err
    assert list((tmp_path / "png").glob("*.png")) == []
    if Path("/dev/full").exists():   # Linux: every write there fails with ENOSPC
        # buffered and unbuffered standard output alike (buffered, the write came only as
        # the interpreter exited: status 120 and "Exception ignored" after the line)
        for buffered in (True, False):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
            if not buffered:
                env["PYTHONUNBUFFERED"] = "1"
            with open("/dev/full", "w") as sink:
                done = subprocess.run([sys.executable, "-m", "yeefdtd", "validate",
                                       str(EXAMPLES / "cavity_pec.toml")], stdout=sink,
                                      stderr=subprocess.PIPE, text=True, env=env)
            assert done.returncode == 1, (buffered, done.stderr)
            assert done.stderr.count("\n") == 1 and "cannot write its output" in done.stderr


@pytest.mark.parametrize("change, needle", [
    ({"waveform": {"type": "modulated_gaussian", "frequency": 1e13, "tau": 1e-10}},
     "sources[0].waveform.frequency: 1e+13 Hz gives 0.03 cells a wavelength"),
    ({"waveform": {"type": "gaussian", "tau": 1e-11, "t0": 1.0}},
     "stays below 1e-06 of its peak"),
])
def test_validate_and_run_note_sources_that_cannot_drive_the_grid(change, needle, tmp_path,
                                                                   capsys):
    """A frequency the grid cannot carry, and a pulse the run never reaches: a note from
    `validate` and from `run` (the run goes ahead)."""
    scene = yf.Scene(
        grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
        sources=[yf.PointSource(component="ez", cell=(10, 10), **{
            "waveform": {"type": "ricker", "frequency": 10e9}} | change)],
        monitors=[yf.Probe(name="p", cell=(12, 10))],
        run=yf.RunSettings(steps=30, backend="numpy"))
    path = scene.save(tmp_path / "s.json")
    assert main(["validate", str(path)]) == 0
    assert needle in capsys.readouterr().err
    assert main(["run", str(path), "-o", str(tmp_path / "r.h5"), "-q"]) == 0
    assert needle in " ".join(yf.load(tmp_path / "r.h5").stats["notes"])


def test_validate_refuses_a_waveform_that_is_not_finite_as_run_does(tmp_path, capsys):
    scene = {"grid": {"mode": "tmz", "cells": [20, 20], "spacing": 1e-3},
             "boundaries": "pec",
             "sources": [{"component": "ez", "cell": [10, 10],
                          "waveform": {"type": "modulated_gaussian", "frequency": 1e308,
                                       "tau": 1e-10}}],
             "run": {"steps": 30, "backend": "numpy"}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scene))
    for argv in (["validate", str(path)], ["run", str(path), "-q"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "sources[0].waveform" in err


@pytest.mark.parametrize("argv, needle", [
    (["schema", "-o", "file/s.json"], "--output"), (["schema", "-o", ""], "--output"),
    (["plot", "r.h5", "-o", "file"], "--output-dir")])
def test_other_outputs_are_checked_in_one_line(argv, needle, scene_file, tmp_path, capsys,
                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("a file, not a directory")
    assert main(["run", str(scene_file), "-o", "r.h5", "-q"]) == 0
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_plot_writes_beside_a_result_in_the_current_directory(scene_file, tmp_path, capsys,
                                                              monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(scene_file), "-o", "r.h5", "-q"]) == 0
    assert main(["plot", "r.h5"]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.png")) == ["r_probe_p.png",
                                                              "r_snapshot_s.png"]


def test_outputs_are_checked_without_leaving_directories_and_written_as_open_would(
        scene_file, tmp_path, monkeypatch):
    """A refused run leaves no directory behind; files get the umask's mode, not 0600."""
    import os

    monkeypatch.chdir(tmp_path)
    # refused after the output was checked (the variant is checked next)
    assert main(["run", str(scene_file), "-o", "new/deep/r.h5", "-q", "--variant",
                 "tempral"]) == 2
    assert not (tmp_path / "new").exists()
    old = os.umask(0o022)
    try:
        assert main(["run", str(scene_file), "-o", "new/deep/r.h5", "-q"]) == 0
        assert main(["schema", "-o", "s.json"]) == 0
    finally:
        os.umask(old)
    assert (tmp_path / "new/deep/r.h5").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "s.json").stat().st_mode & 0o777 == 0o644
    (tmp_path / "s.json").chmod(0o600)   # an existing file keeps its mode
    assert main(["schema", "-o", "s.json"]) == 0
    assert (tmp_path / "s.json").stat().st_mode & 0o777 == 0o600
    assert main(["run", str(scene_file), "-o", ".h5.h5", "-q"]) == 0   # a hidden name


def test_console_entry_point(tmp_path):
    """The installed command behaves the same in a fresh process."""
    good = subprocess.run([sys.executable, "-m", "yeefdtd", "validate",
                           str(EXAMPLES / "cavity_pec.toml")], capture_output=True, text=True)
    assert good.returncode == 0, good.stderr
    (tmp_path / "bad.toml").write_text("[grid]\ncells = [4, 4]\nspacing = -1\n[run]\nsteps=1\n")
    bad = subprocess.run([sys.executable, "-m", "yeefdtd", "validate", str(tmp_path / "bad.toml")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "grid.spacing" in bad.stderr


@pytest.mark.parametrize("name", ["dipole_cpml.toml", "cavity_pec.toml", "tmz_line_source.toml"])
def test_examples_validate_and_start(name):
    scene = yf.Scene.load(EXAMPLES / name)
    res = yf.run(scene, steps=3, backend="numpy", progress=False)
    assert res.stats["steps"] == 3


def test_tune_tunes_what_the_scene_file_runs(scene_file, capsys):
    """Without --variant and --dtype, tune takes the scene file's run.variant and run.dtype
    (it tuned 'auto' in float32 whatever the file said)."""
    scene = yf.Scene.load(scene_file)
    run = scene.run.model_copy(update={"variant": "tiled-2d", "dtype": "float16"})
    path = scene.model_copy(update={"run": run}).save(scene_file.with_name("f16.toml"))
    assert main(["tune", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"yeefdtd: error: run.variant in {path}: tiled-2d: variant "
                          "'tiled-2d' stores float32 or float64 fields only"), err
    run = scene.run.model_copy(update={"variant": "temporal", "dtype": "bfloat16"})
    path = scene.model_copy(update={"run": run}).save(scene_file.with_name("bf16.toml"))
    assert main(["tune", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"run.dtype in {path}: bfloat16: dtype bfloat16 runs on the numpy backend" in err
    assert main(["tune", str(path), "--dtype", "float16", "--variant", "seed-xy"]) == 2
    assert "--variant seed-xy: variant 'seed-xy' does not run tmz" in capsys.readouterr().err


#: a sitecustomize that raises KeyboardInterrupt where the module named by YEEFDTD_TEST_CTRL_C
#: is first imported: what Python's own handler does with Ctrl-C in the first second of the
#: command, without timing. With ":signal" after the name, a real SIGINT comes there and the
#: import goes on where the handler raises nothing (the command's, which only notes it; a
#: KeyboardInterrupt from it was turned into an ImportError where it landed in NumPy's C
#: extensions' imports, dropped where it landed in an import lock's callback, and a
#: traceback where it landed after the package's handlers). With ":callback", that SIGINT
#: comes in a weakref's callback, where Python drops what a handler raises.
CTRL_C_ON_IMPORT = '''
import os
import signal
import sys

NAME, _, HOW = os.environ["YEEFDTD_TEST_CTRL_C"].partition(":")
if NAME in sys.modules:   # then the test would test nothing
    sys.exit(f"{NAME} is loaded before any yeefdtd code runs")


class CtrlC:
    def find_spec(self, name, path=None, target=None):
        if name != NAME:
            return None
        if not HOW:
            raise KeyboardInterrupt
        if HOW == "callback":   # where what a handler raises is dropped ("Exception ignored")
            import weakref

            class Gone:
                pass

            gone = Gone()
            ref = weakref.ref(gone, lambda r: ctrl_c())
            del gone
            return None
        ctrl_c()
        return None


def ctrl_c():
    signal.raise_signal(signal.SIGINT)
    for _ in range(1000):   # Python runs the signal's handler within these
        pass


sys.meta_path.insert(0, CtrlC())
'''


def _started_with_ctrl_c(argv: list[str], module: str, tmp_path: Path):
    (tmp_path / "sitecustomize.py").write_text(CTRL_C_ON_IMPORT)
    env = {**os.environ, "YEEFDTD_TEST_CTRL_C": module,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), *filter(None, [
               os.environ.get("PYTHONPATH")])])}
    # the child starts with Ctrl-C at its default, as from a terminal, whatever this process
    # inherited (SIG_IGN under nohup or `cmd &`, which the child would keep)
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


@pytest.mark.parametrize("module", ["numpy", "pydantic", "argparse", "numpy:signal",
                                    "argparse:signal", "platform:signal",
                                    "numpy:callback", "platform:callback"])
def test_ctrl_c_while_the_command_starts_is_one_line_and_status_130(module, tmp_path):
    """Ctrl-C while `import yeefdtd` loads NumPy and pydantic, or while the command loads
    its own module (argparse), before main() runs: one line and status 130 from `python -m
    yeefdtd` and from the console script, as later in the run; a program that imports
    yeefdtd keeps its KeyboardInterrupt."""
    scene = str(EXAMPLES / "cavity_pec.toml")
    script = Path(sys.executable).with_name("yeefdtd")
    commands = [[sys.executable, "-m", "yeefdtd", "validate", scene],
                [sys.executable, "-W", "ignore", "-m", "yeefdtd", "validate", scene],
                [sys.executable, "-Om", "yeefdtd", "validate", scene]]   # flags in a group
    if script.exists():   # the console script, where the package is installed
        commands.append([str(script), "validate", scene])
    for argv in commands:
        done = _started_with_ctrl_c(argv, module, tmp_path)
        assert (done.returncode, done.stderr, done.stdout) == (130, "yeefdtd: interrupted\n",
                                                               ""), argv
    if module in ("numpy", "pydantic", "numpy:signal"):   # a program's Ctrl-C stays its own
        done = _started_with_ctrl_c([sys.executable, "-c", "import yeefdtd"], module, tmp_path)
        assert done.returncode != 130 and "KeyboardInterrupt" in done.stderr


def test_a_second_signal_while_the_partial_result_is_gathered_waits(scene_file, tmp_path,
                                                                      capsys, monkeypatch):
    """Only the first Ctrl-C or SIGTERM interrupts: one more a few milliseconds later, while
    the run gathers what it recorded, waits, and the partial result is saved (it was lost
    when that second one raised KeyboardInterrupt too)."""
    import signal

    stepper_mod = importlib.import_module("yeefdtd.backends.numpy.stepper")
    real_collect = stepper_mod.NumpyStepper.collect
    _signal_at_call(monkeypatch, signal.SIGINT, 3)

    def collect(self):
        os.kill(os.getpid(), signal.SIGTERM)
        os.kill(os.getpid(), signal.SIGINT)
        return real_collect(self)

    monkeypatch.setattr(stepper_mod.NumpyStepper, "collect", collect)
    out = tmp_path / "r.h5"
    before_int = signal.getsignal(signal.SIGINT)   # (_signals_interrupt's)
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and str(out) in err and err.count("\n") == 1
    assert 0 < yf.load(out).stats["steps"] < 60
    assert signal.getsignal(signal.SIGINT) is before_int


@pytest.mark.parametrize("diverging", [False, True])
def test_a_signal_while_the_result_is_gathered_keeps_it(diverging, scene_file, tmp_path,
                                                        capsys, monkeypatch):
    """The first Ctrl-C or SIGTERM, coming after the last step while the run gathers its
    result (a completed run's, or a diverged one's), ends the command with 130 and the
    result saved: it raised KeyboardInterrupt out of the run, and the whole run was lost."""
    import signal

    stepper_mod = importlib.import_module("yeefdtd.backends.numpy.stepper")
    real_collect = stepper_mod.NumpyStepper.collect
    sent = []

    def collect(self):
        if not sent:
            sent.append(1)
            os.kill(os.getpid(), signal.SIGINT)
        return real_collect(self)

    monkeypatch.setattr(stepper_mod.NumpyStepper, "collect", collect)
    path = _diverging_scene(tmp_path) if diverging else scene_file
    out = tmp_path / "r.h5"
    before_int = signal.getsignal(signal.SIGINT)   # (_signals_interrupt's)
    assert main(["run", str(path), "-o", str(out), "-q", "--fields"]) == 130
    err = capsys.readouterr().err.splitlines()
    assert sent and str(out) in err[-1]
    res = yf.load(out)
    if diverging:
        assert "step 20" in err[-1] and res.stats["status"] == "diverged"
        assert res.stats["diverged_by_step"] == 20 and res.stats["fields_at_step"] == 20
    else:   # every step ran: the fields, of the last, are kept
        assert err == [f"yeefdtd: interrupted after 60 of 60 steps; what was recorded until "
                       f"then is in {out}"]
        assert res.stats["steps"] == 60 and res.stats["status"] == "interrupted"
        assert res.fields is not None and "notes" not in res.stats
    assert signal.getsignal(signal.SIGINT) is before_int


def test_an_output_name_near_the_longest_is_written(scene_file, tmp_path, capsys):
    """A name of 248 characters is one a directory takes (up to 255 bytes), but not with
    the 15 more of the temporary file it is written through: that file takes the name's
    first characters alone."""
    out = tmp_path / ("y" * 245 + ".h5")
    assert main(["run", str(scene_file), "-o", str(out), "-q"]) == 0
    assert yf.load(out).stats["status"] == "completed"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")] == []


def test_plot_after_a_run_that_stopped_early(tmp_path, capsys, monkeypatch):
    """--plot: a diverged run's plots are written from what it recorded; an interrupted one
    writes none (no more work after a Ctrl-C) and says how to write them."""
    import signal

    path = _diverging_scene(tmp_path)
    assert main(["run", str(path), "-o", str(tmp_path / "bad.h5"), "-q", "--plot"]) == 1
    out, err = capsys.readouterr()
    assert (tmp_path / "bad_probe_p.png").is_file() and "bad_probe_p.png" in out

    _signal_at_call(monkeypatch, signal.SIGINT, 2)
    scene = yf.Scene.load(path)
    good = scene.model_copy(update={"sources": (scene.sources[0].model_copy(
        update={"amplitude": 1.0}),)})
    path = good.save(tmp_path / "good.json")
    assert main(["run", str(path), "-o", str(tmp_path / "good.h5"), "-q", "--plot"]) == 130
    out, err = capsys.readouterr()
    assert out == "" and not (tmp_path / "good_probe_p.png").exists()
    assert f"no plots written; 'yeefdtd plot {tmp_path / 'good.h5'}' writes them\n" in err
    # plots of an earlier run to the same file stay, but are said not to be this one's
    (tmp_path / "good_probe_p.png").write_bytes(b"an earlier run's")
    _signal_at_call(monkeypatch, signal.SIGINT, 2)
    assert main(["run", str(path), "-o", str(tmp_path / "good.h5"), "-q", "--plot"]) == 130
    assert "writes them (the 1 plot beside it named as its own, good_probe_p.png, is from " \
        "an earlier run, not this one)" in capsys.readouterr().err


def test_a_scene_file_with_a_byte_order_mark_and_one_that_is_a_fifo(scene_file, tmp_path,
                                                                     capsys):
    """A byte-order mark (some editors write one) is not part of the text, in TOML as in
    JSON; a FIFO is refused before it is read (the read waited for a writer)."""
    for path in (scene_file, yf.Scene.load(scene_file).save(tmp_path / "s.json")):
        marked = tmp_path / f"bom{path.suffix}"
        marked.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
        assert main(["validate", str(marked)]) == 0
    capsys.readouterr()
    fifo = tmp_path / "f.toml"
    os.mkfifo(fifo)
    assert main(["validate", str(fifo)]) == 2
    assert capsys.readouterr().err == f"yeefdtd: error: {fifo}: not a regular file; give a " \
                                      ".toml or .json file\n"


def test_writers_refuse_what_is_not_a_regular_file_and_write_through_links(scene_file,
                                                                           tmp_path, capsys):
    """A writer renames its file onto the path: a FIFO (or a device) there was replaced by a
    regular file, and a link by the file instead of its target. Now the first is refused in
    one line before any work, and a link is written through (its target replaced)."""
    fifo = tmp_path / "f.h5"
    os.mkfifo(fifo)
    assert main(["run", str(scene_file), "-o", str(fifo), "-q"]) == 2
    assert capsys.readouterr().err == f"yeefdtd: error: --output: {fifo} is not a regular " \
                                      "file (a device, a FIFO or a socket); give a file name\n"
    with pytest.raises(yf.ValidationError, match="not a regular file"):
        yf.Scene.load(scene_file).save(tmp_path / "f.h5")
    target = tmp_path / "target.json"
    target.write_text("{}")
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    assert main(["schema", "-o", str(link)]) == 0
    assert link.is_symlink() and json.loads(target.read_text())["title"] == "Scene"


def test_plots_take_the_format_their_suffix_names_and_their_names_are_checked_first(
        scene_file, tmp_path, capsys):
    """A plot named .pdf or .svg held PNG bytes; with --plot, a plot's name that cannot be
    written (a folder of that name here) was found after the run, which was saved but
    exited 2. One too long for a file name is cut to fit (plot._file_name), checked so."""
    from yeefdtd.plot import plot_probe, plot_snapshot

    res = yf.run(yf.Scene.load(scene_file), progress=False)
    for suffix, head in (("pdf", b"%PDF"), ("svg", b"<?xml"), ("png", b"\x89PNG")):
        for plot, name in ((plot_probe, "p"), (plot_snapshot, "s")):
            path = plot(res, name, tmp_path / f"{name}.{suffix}")
            assert path.read_bytes().startswith(head), (suffix, name)
    out = tmp_path / "r.h5"
    (tmp_path / "r_probe_p.png").mkdir()
    assert main(["run", str(scene_file), "-o", str(out), "-q", "--plot"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yeefdtd: error: --plot: ") and "r_probe_p.png" in err
    assert err.count("\n") == 1 and not out.exists()
    out = tmp_path / ("y" * 245 + ".h5")   # the result's name fits, its plots' are cut
    assert main(["run", str(scene_file), "-o", str(out), "-q", "--plot"]) == 0
    plots = [p.name for p in tmp_path.iterdir() if p.name.startswith("y") and "~" in p.name]
    assert len(plots) == 2 and all(len(n) <= 255 for n in plots), plots


def test_an_output_directory_replaced_by_a_file_during_the_run_sends_the_result_to_tmp(
        scene_file, tmp_path, capsys, monkeypatch):
    """The path checked before the run can change during it: its directory replaced by a
    file made the save a ValidationError, which passed the fallback by (the result lost)."""
    import tempfile

    stepper_mod = importlib.import_module("yeefdtd.backends.numpy.stepper")
    real = stepper_mod.NumpyStepper.advance
    where = tmp_path / "gone"
    where.mkdir()

    def advance(self, *a, **k):
        if where.is_dir():
            where.rmdir()
            where.write_text("")
        return real(self, *a, **k)

    monkeypatch.setattr(stepper_mod.NumpyStepper, "advance", advance)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert main(["run", str(scene_file), "-o", str(where / "r.h5"), "-q"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the result is in" in err
    (spare,) = (tmp_path / "tmp").iterdir()
    assert yf.load(spare).stats["status"] == "completed"


def test_an_output_that_is_the_scene_file_is_refused(scene_file, tmp_path, capsys):
    """-o through a link to the scene file, or a hard link of it: refused before the run,
    in one line (the result replaced the scene file, which then read as HDF5 bytes)."""
    text = scene_file.read_bytes()
    (tmp_path / "link.h5").symlink_to(scene_file)
    os.link(scene_file, tmp_path / "hard.h5")
    for name in ("link.h5", "hard.h5"):
        assert main(["run", str(scene_file), "-o", str(tmp_path / name), "-q"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "is the scene file" in err and "--output" in err
    assert scene_file.read_bytes() == text


def test_a_scene_without_monitors_gets_a_note_that_its_result_records_nothing(tmp_path,
                                                                              capsys,
                                                                              monkeypatch):
    """A scene with no monitors ran and wrote a result of statistics alone without a word;
    'yeefdtd plot' said only later that there was nothing to plot. validate and run say so,
    and the run's note goes into the result; with --fields (the final fields kept) a run
    records those, and says nothing."""
    import importlib

    from yeefdtd.run import NO_RECORDS

    monkeypatch.setattr(importlib.import_module("yeefdtd.run"), "_notes_shown", set())
    scene = tmp_path / "bare.json"
    scene.write_text(json.dumps({"grid": {"mode": "tmz", "cells": [20, 20], "spacing": 1e-3},
                                 "boundaries": "pec", "run": {"steps": 3,
                                                              "backend": "numpy"}}))
    assert main(["validate", str(scene)]) == 0
    assert f"note: {NO_RECORDS}" in capsys.readouterr().err.splitlines()
    out = tmp_path / "bare.h5"
    assert main(["run", str(scene), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err.count(f"note: {NO_RECORDS}") == 1
    assert NO_RECORDS in yf.load(out).stats["notes"]
    res = yf.run(yf.Scene.load(scene), keep_fields=True, progress=False)
    assert NO_RECORDS not in res.stats.get("notes", ())


def test_a_probes_spectrum_is_shown_over_the_band_its_sources_drive(tmp_path, monkeypatch):
    """A closed cavity's record, cut off while it rings, leaks to its Nyquist frequency
    above 1e-4 of its peak: a cavity driven up to about 25 GHz was plotted from 0 to 320.
    The axis now ends at 1.5 times where the sources' spectra fall to 1e-3 of their peak."""


    wf = yf.Gaussian(tau=20e-12)
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(24, 30), spacing=1e-3),
                     boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(7, 8), waveform=wf)],
                     monitors=[yf.Probe(name="p", cell=(15, 21), components=["ez"])],
                     run=yf.RunSettings(steps=3000, backend="numpy", dtype="float64"))
    res = yf.run(scene, progress=False)
    reach = wf.max_frequency() / 1e9
    assert _spectrum_axis(res, tmp_path) == pytest.approx((0.0, 1.5 * reach))
    monkeypatch.setattr("yeefdtd.plot._sources_reach", lambda result: 0.0)
    # the leak's floor alone: past the band (87 GHz)
    assert _spectrum_axis(res, tmp_path)[1] > 2 * reach


def _spectrum_axis(res, tmp_path) -> tuple[float, float]:
    """The frequency axis's limits (GHz) of probe 'p''s plot in ``res``, read as the figure
    is closed."""
    import matplotlib.pyplot as plt

    from yeefdtd.plot import plot_probe

    limits = []
    real_close = plt.close

    def close(fig):
        limits.extend(ax.get_xlim() for ax in fig.axes)
        real_close(fig)

    plt.close = close
    try:
        plot_probe(res, "p", tmp_path / "p.png")
    finally:
        plt.close = real_close
    return limits[1]


def test_plot_animates_each_snapshot_as_a_gif(tmp_path, capsys):
    """'yeefdtd plot --animate' writes each snapshot's frames as a GIF beside its PNG, all of
    them up to 150 and that many taken evenly through a longer record (the first and the
    last among them); --fps without --animate is refused, as are bad values."""
    from PIL import Image

    from yeefdtd.plot import animate_snapshot

    res = _plotted_result()
    saved = res.save(tmp_path / "r.h5")
    assert main(["plot", str(saved), "--animate", "--fps", "5"]) == 0
    gif = tmp_path / "r_snapshot_s.gif"
    assert str(gif) in capsys.readouterr().out.split()
    with Image.open(gif) as im:
        assert im.n_frames == len(res.snapshots["s"].frames) == 6
        assert im.info["duration"] == 200 and im.info["loop"] == 0
    # whole hundredths of a second, spread to keep the rate (30 a second: 30, 40, 30 ms)
    with Image.open(animate_snapshot(res, "s", tmp_path / "f.gif", fps=30)) as im:
        shown = []
        for k in range(im.n_frames):
            im.seek(k)
            shown.append(im.info["duration"])
        assert shown == [30, 40, 30, 30, 40, 30], shown
    # a later run --plot to the same file leaves the animation as it was: a note says so
    scene_file = tmp_path / "r.toml"
    scene_file.write_text(res.scene.to_toml())
    capsys.readouterr()
    assert main(["run", str(scene_file), "-o", str(saved), "--plot", "-q"]) == 0
    assert f"note: {gif}: from an earlier run, not this one" in capsys.readouterr().err
    # run --plot --animate writes it again, as plot --animate does
    gif.unlink()
    assert main(["run", str(scene_file), "-o", str(saved), "--plot", "--animate", "-q"]) == 0
    assert f"  plot: {gif}" in capsys.readouterr().out and gif.is_file()
    assert main(["run", str(scene_file), "-o", str(saved), "--animate"]) == 2
    assert "--animate: writes animations beside the plots, which --plot writes" in \
        capsys.readouterr().err
    # fewer frames than the record: evenly through it, ends included
    titles = []
    from yeefdtd import plot as plot_mod

    real = plot_mod._snapshot_title
    plot_mod._snapshot_title = lambda r, n, s, k: titles.append(int(k)) or real(r, n, s, k)
    try:
        animate_snapshot(res, "s", tmp_path / "few.gif", max_frames=3)
    finally:
        plot_mod._snapshot_title = real
    assert titles[1:] == [0, 2, 5] or titles[1:] == [0, 3, 5], titles
    with Image.open(tmp_path / "few.gif") as im:
        assert im.n_frames == 3
    for kw, says in [({"fps": 0}, "fps: frames a second"), ({"max_frames": 1}, "max_frames"),
                     ({"fps": 60}, "from 0.1 to 50"),
                     ({"fps": True}, "fps: frames a second")]:
        with pytest.raises(yf.ValidationError, match=says):
            animate_snapshot(res, "s", tmp_path / "x.gif", **kw)
    with pytest.raises(yf.ValidationError, match=r"should end in \.gif"):
        animate_snapshot(res, "s", tmp_path / "x.png")
    assert main(["plot", str(saved), "--fps", "5"]) == 2
    assert "--fps: sets the animations' speed, which --animate writes" in \
        capsys.readouterr().err


def test_a_spectrum_axis_keeps_the_records_strongest_bin_past_the_sources_band(tmp_path):
    """Fields set with set_field ring at a cavity's own frequencies whatever a weak source
    drives: the axis capped by the source's band (1 GHz) hid the records' strongest bin."""


    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(3, 3), amplitude=1e-3,
                                             waveform=yf.Sine(frequency=1e9))],
                     monitors=[yf.Probe(name="p", cell=(7, 9), components=["ez"])],
                     run=yf.RunSettings(steps=2000, backend="numpy", dtype="float64"))
    model = yf.build_model(scene)
    stepper = yf.make_stepper(model, "numpy")
    blob = np.zeros((21, 21, 1))
    blob[8:13, 8:13] = 1.0
    stepper.set_field("ez", blob)
    res = yf.run_model(model, stepper, progress=False)
    from yeefdtd.spectra import spectrum

    f, mag = spectrum(res.probes["p"]["ez"], res.probes["p"].times["ez"])
    strongest = f[np.argmax(mag)] / 1e9
    limits = _spectrum_axis(res, tmp_path)
    assert strongest > 3 and limits[1] >= 1.2 * strongest * 0.999, (strongest, limits)
