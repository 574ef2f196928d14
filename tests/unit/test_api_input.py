"""The Python API beyond scene files: results, plots, spectra and steppers say in one line
what they take (a YeeError), and take NumPy's numbers where numbers go."""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd import spectra
from yeefdtd.plot import plot_probe, plot_result, plot_snapshot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def result():
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(12, 12), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(6, 6),
                                             waveform=yf.Ricker(frequency=2e10))],
                     monitors=[yf.Probe(name="p", cell=(7, 6)),
                               yf.Snapshot(name="s", component="ez", every=2)],
                     run=yf.RunSettings(steps=10, backend="numpy"))
    return yf.run(scene, progress=False)


def test_a_name_a_result_does_not_hold_lists_those_it_does(result):
    with pytest.raises(yf.NotFound, match="probe 'q': not in this result; it has 'p'"):
        result.probes["q"]
    with pytest.raises(KeyError):   # a NotFound is a KeyError too: `in` and .get() work
        result.probes["p"]["bx"]
    assert result.snapshots.get("x") is None and "p" in result.probes
    # a list of names: Python's "unhashable type: 'list'" before
    with pytest.raises(yf.NotFound, match=r"probe \['p'\]: not a name; give one of 'p'"):
        result.probes[["p"]]
    with pytest.raises(yf.NotFound, match=r"component \['ez'\]: not a name; give one of"):
        result.probes["p"][["ez"]]


@pytest.mark.parametrize("path, says", [("", "empty path"), (None, "not NoneType"),
                                        (5, "not int"), ("a\x00b.h5", "NUL")])
def test_saving_to_a_path_that_cannot_be_one_is_a_one_line_error(result, path, says, tmp_path):
    with pytest.raises(yf.ValidationError, match=says):
        result.save(path)
    with pytest.raises(yf.ValidationError, match="is a directory"):
        result.scene.save(tmp_path)


@pytest.mark.parametrize("name", ["r.txt", "r.json", "r", "r.h5.part", ".h5"])
def test_a_result_is_saved_only_under_an_hdf5_name(result, name, tmp_path):
    """HDF5 written under another name (a .txt) misleads whoever opens it: refused in one
    line naming the argument, as the CLI's --output is, and nothing is written."""
    with pytest.raises(yf.ValidationError, match=re.escape(
            f"path: {str(tmp_path / name)!r} is not a result file name; give one ending in "
            ".h5")):
        result.save(tmp_path / name)
    assert list(tmp_path.iterdir()) == []
    for good in ("r.h5", "r.hdf5", "R.H5"):
        assert yf.load(result.save(tmp_path / good)) == result


def test_numpy_numbers_in_stats_are_saved_as_numbers(result, tmp_path):
    result.stats["extra"] = np.float32(1.5)
    try:
        assert yf.load(result.save(tmp_path / "r.h5")).stats["extra"] == 1.5
    finally:
        del result.stats["extra"]


def test_plots_check_their_name_frame_and_path(result, tmp_path):
    assert plot_probe(result, "p", tmp_path / "x") == tmp_path / "x.png"
    assert (tmp_path / "x.png").stat().st_size > 0
    assert plot_snapshot(result, "s", tmp_path / "new" / "s.png", frame=-1).exists()
    with pytest.raises(yf.NotFound):
        plot_probe(result, "missing", tmp_path / "a.png")
    for frame in (100, True, 1.5):
        with pytest.raises(yf.ValidationError, match="frame: a whole number from 0 to 4"):
            plot_snapshot(result, "s", tmp_path / "a.png", frame=frame)
    with pytest.raises(yf.ValidationError, match="an image type matplotlib writes"):
        plot_probe(result, "p", tmp_path / "a.txt")
    assert plot_probe(result, "p", tmp_path / "a.svg").stat().st_size > 0   # not PNG only
    (tmp_path / "file").write_text("")
    with pytest.raises(yf.ValidationError, match="is a file"):
        plot_result(result, tmp_path / "file", "r")


def test_a_refused_plot_leaves_no_figure_open(result, tmp_path):
    """pyplot keeps a figure open until it is closed: each plot that refused its record on
    the way (here a probe's times made uneven) left one, and a loop or a notebook piled
    them up past matplotlib's warning at 20."""
    import matplotlib.pyplot as plt

    plt.close("all")
    times = result.probes["p"].times
    first = next(iter(times))
    kept = times[first]
    times[first] = np.sort(kept ** 2)
    try:
        for _ in range(3):
            with pytest.raises(yf.ValidationError, match="evenly spaced"):
                plot_probe(result, "p", tmp_path / "p.png")
    finally:
        times[first] = kept
    assert plt.get_fignums() == [] and not (tmp_path / "p.png").exists()


def test_snapshot_plots_outline_objects_where_they_lie_and_name_their_plane(
        tmp_path, monkeypatch):
    """A box of x 5..10, y 2..6 mm on 1 mm cells: its outline was drawn from the materials
    at the shown component's points, half a cell outside faces on them (5 x 5 mm in the Ex
    plot, 6 x 5 in the Ez plot); a plane at 123.5 mm was titled 124 mm, the next plane."""
    import matplotlib.axes

    drawn, titles = [], []
    contour, title = matplotlib.axes.Axes.contour, matplotlib.axes.Axes.set_title

    def spy(self, *a, **k):
        cs = contour(self, *a, **k)
        # matplotlib 3.8 made a contour set one collection (get_paths); 3.7, which
        # pyproject allows, keeps a collection a level
        paths = (cs.get_paths() if hasattr(cs, "get_paths")
                 else [p for c in cs.collections for p in c.get_paths()])
        drawn.extend(p.vertices for p in paths if len(p.vertices))
        return cs

    monkeypatch.setattr(matplotlib.axes.Axes, "contour", spy)
    monkeypatch.setattr(matplotlib.axes.Axes, "set_title",
                        lambda self, t, *a, **k: titles.append(t) or title(self, t, *a, **k))
    scene = yf.Scene(grid=yf.Grid(cells=(16, 10, 20), spacing=1e-3), boundaries="pec",
                     materials={"d": yf.Material(eps_r=4)},
                     objects=[yf.Box(center=(0.0075, 0.004, 0.012), size=(0.005, 0.004, 0.004),
                                     material="d")],
                     sources=[yf.PointSource(component="ez", position=(0.003, 0.008, 0.003),
                                             waveform=yf.Gaussian(tau=2e-11))],
                     monitors=[yf.Snapshot(name="ex", component="ex", position=0.012, every=5),
                               yf.Snapshot(name="ez", component="ez", position=0.012, every=5),
                               yf.Snapshot(name="x", component="ex", axis="x",
                                           position=0.0075, every=5)],
                     run=yf.RunSettings(steps=10, backend="numpy"))
    r = yf.run(scene, progress=False)
    for name in ("ex", "ez"):
        drawn.clear()
        plot_snapshot(r, name, tmp_path / f"{name}.png")
        v = np.vstack(drawn)
        assert np.allclose([v[:, 0].min(), v[:, 0].max(), v[:, 1].min(), v[:, 1].max()],
                           [5, 10, 2, 6], atol=1e-9)
    plot_snapshot(r, "x", tmp_path / "x.png")
    assert titles[-1].endswith(", x = 7.5 mm")


def test_a_result_whose_stored_scene_breaks_a_newer_rule_still_plots(tmp_path):
    """An earlier version stored scenes that today's rules refuse (a 2D cylinder's length):
    its snapshots are plotted without the outline, not refused; and results whose probe
    positions are arrays (save takes them) compare without a ValueError."""
    import json

    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
                     objects=[yf.Cylinder(center=(0.01, 0.01), radius=0.003,
                                          material="pec")],
                     sources=[yf.PointSource(component="ez", cell=(5, 5),
                                             waveform=yf.Gaussian(tau=2e-11))],
                     monitors=[yf.Snapshot(name="s", component="ez", every=2),
                               yf.Probe(name="p", cell=(15, 15))],
                     run=yf.RunSettings(steps=6, backend="numpy"))
    r = yf.run(scene, progress=False)
    old = json.loads(r.scene_json)
    old["objects"][0]["length"] = 0.005
    r.scene_json = json.dumps(old)
    with pytest.raises(yf.ValidationError, match=r"objects\[0\]\.length"):
        r.scene   # noqa: B018
    assert plot_snapshot(r, "s", tmp_path / "s.png").exists()
    p = r.probes["p"]
    p.positions = {c: np.asarray(x) for c, x in p.positions.items()}
    assert copy.deepcopy(r) == r and yf.load(r.save(tmp_path / "r.h5")) == r


@pytest.mark.parametrize("options, says", [
    ({"thread": 4}, "stepper_options: no backend takes 'thread' (the numpy backend takes "
                    "threads; the cuda backend takes variant, tune, graphs, launch)"),
    ({"dtype": "float64"}, "stepper_options: 'dtype' is an argument of its own; give it as "
                           "dtype=..."),
    ({"model": 1}, "stepper_options: 'model' is an argument of its own")])
def test_stepper_options_no_backend_takes_are_refused(options, says):
    """A misspelt 'thread' was passed over as another backend's option (the run took every
    core), and 'dtype' or 'model' met a TypeError naming make_stepper."""
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=3, backend="numpy"))
    with pytest.raises(yf.ValidationError, match=re.escape(says)):
        yf.run(scene, stepper_options=options, progress=False)


def test_make_stepper_names_itself_and_points_steps_to_build_model():
    """make_stepper(model, steps=10) was told "stepper_options: 'steps' is an argument of
    its own; give it as steps=...", which is what it did (make_stepper has no steps: the
    model's are set by build_model), and a misspelt 'thread' blamed stepper_options, not
    an argument of make_stepper."""
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=3, backend="numpy"))
    model = yf.build_model(scene)
    with pytest.raises(yf.ValidationError, match=re.escape(
            "make_stepper: takes no steps; a model's steps are set where it is built: "
            "build_model(scene, steps=...)")):
        yf.make_stepper(model, steps=10)
    with pytest.raises(yf.ValidationError, match=re.escape(
            "make_stepper: no backend takes 'thread' (the numpy backend takes threads")):
        yf.make_stepper(model, thread=2)


def test_the_stepper_options_named_are_those_the_steppers_take():
    import inspect

    from yeefdtd.backends.cuda.stepper import CudaStepper
    from yeefdtd.backends.numpy.stepper import NumpyStepper
    from yeefdtd.run import STEPPER_OPTIONS

    for name, cls in (("numpy", NumpyStepper), ("cuda", CudaStepper)):
        params = list(inspect.signature(cls.__init__).parameters)
        assert params[:3] == ["self", "model", "dtype"]
        assert tuple(params[3:]) == STEPPER_OPTIONS[name]


def _ring(n=400, dt=1e-11, f=1e9):
    t = np.arange(n) * dt
    return np.sin(2 * np.pi * f * t) * np.exp(-t / 2e-9), t


@pytest.mark.parametrize("call, says", [
    (lambda x, t: spectra.spectrum(x, t[::-1]), "evenly spaced and increasing"),
    (lambda x, t: spectra.spectrum(x, np.sort(t ** 1.1)), "evenly spaced"),
    (lambda x, t: spectra.spectrum(x[:-1], t), "one value per time"),
    (lambda x, t: spectra.spectrum(x[:1], t[:1]), "at least 2"),
    (lambda x, t: spectra.spectrum([], []), "at least 2"),
    (lambda x, t: spectra.spectrum(None, None), "arrays of real numbers"),
    # complex values lost their imaginary part, text and booleans were read as numbers
    (lambda x, t: spectra.dft(x * 1j, t, [1e9]), "real numbers, not ndarray of complex128"),
    (lambda x, t: spectra.dft(["1", "2"], t[:2], [1e9]), "real numbers, not list of <U1"),
    (lambda x, t: spectra.dft([True, False], t[:2], [1e9]), "real numbers, not list of bool"),
    (lambda x, t: spectra.dft([10**400, 1], t[:2], [1e9]), "real numbers"),   # OverflowError
    (lambda x, t: spectra.spectrum(x, t, pad=0), "pad"),
    (lambda x, t: spectra.spectrum(x, t, pad=2**40), "pad: a whole number from 1 to 64"),
    (lambda x, t: spectra.spectrum(np.where(t > 1e-9, np.nan, x), t), "NaN"),
    (lambda x, t: spectra.dft(x, t[:5], [1e9]), "one value per time"),
    (lambda x, t: spectra.peak_frequencies(x, t, 0), "count"),
    (lambda x, t: spectra.peak_frequencies(x, t, 1.5), "count"),
    (lambda x, t: spectra.peak_frequencies([], [], 1), "at least 3"),
    (lambda x, t: spectra.refine_peak(np.zeros_like(x), t, 0.5e9, 2e9), "constant"),
    # past the Nyquist frequency: it said to record longer, which finds no bin there either
    (lambda x, t: spectra.refine_peak(x, t, 1e15, 2e15), "f_lo: 1e.15 Hz is past the record's "
                                                          "Nyquist frequency 5e.10 Hz"),
    (lambda x, t: spectra.refine_peak(x, t, 1e9, 1.0005e9),
     "f_lo, f_hi: no frequency bin above zero between"),
    (lambda x, t: spectra.refine_peak(x, t, 2e9, 0.5e9), "give the band's lower end first"),
    (lambda x, t: spectra.peak_frequencies(x, t, 1, fmin=-1), "fmin: -1 Hz is below zero"),
    (lambda x, t: spectra.refine_peak(x, t, -1e9, 2e9), "f_lo: -1e.09 Hz is below zero"),
    (lambda x, t: spectra.refine_peak(x + 3, t, 0, 0.3e9), "no peak between 0 and"),
    (lambda x, t: spectra.refine_peak(x, t, 1.2e9, 1.4e9), "only the flank"),
    (lambda x, t: spectra.peak_frequencies(np.full_like(x, 2.0), t, 1), "constant"),
    (lambda x, t: spectra.peak_frequencies(np.zeros_like(x), t, 1), "constant"),
    (lambda x, t: spectra.peak_frequencies(x, t, 1, floor_db=3), "floor_db: how far"),
    # past the record's Nyquist frequency (50 GHz at 10 ps): an alias's value, or nothing
    (lambda x, t: spectra.dft(x, t, [1e9, 51e9]), "freqs: 5.1e.10 Hz is past the record's "
                                                   "Nyquist frequency 5e.10 Hz"),
    (lambda x, t: spectra.dft(x, t, -99e9), "freqs: -9.9e.10 Hz is past"),
    # GHz where Hz go: the record's sum (its value at 0 Hz), without a word
    (lambda x, t: spectra.dft(x, t, [0, 1.0]), r"^freqs: every one is at most 1 Hz, which "
                                               r"turns less than a millionth of a cycle over "
                                               r"the record's 3.99e-09 s, so each DFT is the "
                                               r"record's sum .*; give frequencies in Hz "
                                               r"\(1e\+09 for 1 GHz\)$"),
    (lambda x, t: spectra.peak_frequencies(x, t, 2, fmin=1e13), "fmin: 1e.13 Hz is past"),
    (lambda x, t: spectra.peak_frequencies(x, t, 2, fmin=1e9, fmax=1.0005e9),
     "fmin, fmax: no frequency bin above zero between")])
def test_spectra_say_what_a_record_must_be(call, says):
    x, t = _ring()
    with pytest.raises(yf.ValidationError, match=says):
        call(x, t)


def test_spectra_of_a_good_record_find_its_frequency():
    """float64 or float32 times alike; an empty record's DFT is zero."""
    x, t = _ring()
    f, _ = spectra.spectrum(x, t, pad=np.int8(2))   # 400 x 2 overflowed np.int8
    assert len(f) == 1024 // 2 + 1
    assert spectra.peak_frequencies(x, t, 1)[0] == pytest.approx(1e9, rel=1e-3)
    t32 = (np.arange(2000) * 1e-11).astype(np.float32)
    x32 = np.sin(2 * np.pi * 1e9 * t32)
    assert spectra.peak_frequencies(x32, t32, 1)[0] == pytest.approx(1e9, rel=1e-3)
    assert spectra.dft([], [], [1e9]) == 0
    # a sweep from 1 Hz up is taken, its lowest values the record's sum, as at 0 Hz
    sweep = spectra.dft(x, t, np.logspace(0, 10, 11))
    assert sweep[0] == pytest.approx(spectra.dft(x, t, 0.0), rel=1e-6)


def test_spectra_of_values_near_floats_largest():
    """A finite record near float's largest (a diverged float64 run's): dft's sum overflowed
    into NaN, and peak_frequencies' and refine_peak's mean into "constant" or "NaN or
    infinity among them"; each is scaled to the record's peak, as spectrum is."""
    x, t = _ring()
    big = x * 1.5e308
    assert np.abs(big).max() < np.inf
    want = spectra.dft(x, t, [1e9, 2e9, 50e9])
    got = spectra.dft(big, t, [1e9, 2e9, 50e9])
    assert np.allclose(got / 1.5e308, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    assert spectra.peak_frequencies(big, t, 1) == pytest.approx(
        spectra.peak_frequencies(x, t, 1), rel=1e-8)   # a flat top: found to ~1e-9
    assert spectra.refine_peak(big, t, 0.5e9, 2e9)[0] == pytest.approx(
        spectra.refine_peak(x, t, 0.5e9, 2e9)[0], rel=1e-8)
    # at the Nyquist frequency itself, either side of zero: the same value
    assert spectra.dft(x, t, 50e9) == pytest.approx(spectra.dft(x, t, -50e9))


def test_peaks_are_resonances_not_a_static_offset_or_a_windows_sidelobes():
    """A static offset (as a pulse with a mean leaves in a closed cavity) and the Hann
    window's sidelobes (31.5 dB below their peak) came back as peaks: a lone sine asked for
    three peaks gave two more at its first sidelobes, and a constant gave sidelobe "peaks".
    Now the mean is taken out and peaks under floor_db (-31 dB) are left out, as are those
    a stronger peak's sidelobes may account for, whatever the floor; a weaker real peak
    stays."""
    t = np.arange(200) * 1e-11   # 2 ns: sidelobes 1.2 GHz either side of a peak
    x = np.sin(2 * np.pi * 3e9 * t)
    assert spectra.peak_frequencies(x, t, 3) == pytest.approx([3e9], rel=1e-3)
    assert spectra.peak_frequencies(x + 5, t, 3) == pytest.approx([3e9], rel=1e-3)
    y = x + 0.1 * np.sin(2 * np.pi * 7e9 * t) + 2   # a real peak 20 dB down
    assert spectra.peak_frequencies(y, t, 3) == pytest.approx([3e9, 7e9], rel=2e-3)
    assert spectra.peak_frequencies(y, t, 3, floor_db=-60) == pytest.approx([3e9, 7e9],
                                                                             rel=2e-3)
    f, height = spectra.refine_peak(x + 3, t, 2e9, 4e9)   # relative to peaks, not the offset
    assert f == pytest.approx(3e9, rel=1e-3) and height == 1.0
    # a small ring on a large offset: the offset's sidelobes are no peak (refine_peak took
    # one at 5.24 GHz for this record, and a "peak" of a constant one)
    t = np.arange(2000) * 1e-12
    z = 1.0 + 1e-4 * np.sin(2 * np.pi * 20e9 * t)
    assert spectra.refine_peak(z, t, 5e9, 40e9)[0] == pytest.approx(20e9, rel=1e-4)
    with pytest.raises(yf.ValidationError, match="values: constant, so no peak"):
        spectra.refine_peak(np.ones(200), t[:200], 1e10, 3e10)


def test_a_band_that_holds_only_a_sidelobe_is_refused_and_close_peaks_get_a_note(capsys):
    """refine_peak over a band just past a strong resonance returned its window's first
    sidelobe as a peak (a WR-90 cavity's 7.5 ns record: '8.5555 GHz', 8.5359 with 15 ns,
    no mode there); and peak_frequencies returned, for two modes closer than the record
    resolves, a 'peak' between them without a word. A lone 3 GHz sine over 2 ns: its first
    sidelobe lies near 4.2 GHz (2.4 / 2 ns from it)."""
    t = np.arange(200) * 1e-11
    x = np.sin(2 * np.pi * 3e9 * t)
    with pytest.raises(yf.ValidationError, match=r"^f_lo, f_hi: the strongest peak between "
                       r"4e\+09 and 5e\+09 Hz, at 4.1\d+e\+09 Hz, 3\d.\d dB below the one at "
                       r"2.9.*e\+09 Hz, is where that one's window sidelobes reach"):
        spectra.refine_peak(x, t, 4e9, 5e9)
    # a real peak 26 dB down, 3 GHz away (6 over the record's length): found (pulled 0.6%
    # by the stronger one's sidelobes, which reach 0.15% of it there, 3% of this one)
    y = x + 0.05 * np.sin(2 * np.pi * 6e9 * t)
    assert spectra.refine_peak(y, t, 4e9, 7e9)[0] == pytest.approx(6e9, rel=1e-2)
    # two sines 0.5 GHz apart, under 3 / 2 ns = 1.5 GHz: a note says so; 2 GHz apart: none
    capsys.readouterr()
    spectra.peak_frequencies(x + np.sin(2 * np.pi * 3.5e9 * t), t, 2)
    err = capsys.readouterr().err
    assert err.startswith("note: peak_frequencies: the peaks at ") and \
        "closer than the record resolves (3 / its 2e-09 s = 1.5e+09 Hz)" in err, err
    found = spectra.peak_frequencies(x + np.sin(2 * np.pi * 5e9 * t), t, 2)
    assert found == pytest.approx([3e9, 5e9], rel=5e-3)   # (each pulls the other 0.24%)
    assert capsys.readouterr().err == ""
    # a sidelobe is no source of sidelobes: a mode 34 dB down, 3.5 / 10 ns from a strong
    # one, lies where the strong one's first sidelobe "reached" it, and was dropped
    t = np.arange(1000) * 1e-11
    x = np.sin(2 * np.pi * 3e9 * t) + 10 ** (-34 / 20) * np.sin(2 * np.pi * 3.35e9 * t)
    assert spectra.peak_frequencies(x, t, 4, floor_db=-50) == pytest.approx([3e9, 3.35e9],
                                                                             rel=2e-3)
    assert spectra.refine_peak(x, t, 3.3e9, 3.4e9)[0] == pytest.approx(3.35e9, rel=2e-3)
    # a band holding a sidelobe and a weaker mode of its own (36 dB down, 6 / 10 ns away):
    # the mode, not a refusal
    x = np.sin(2 * np.pi * 3e9 * t) + 10 ** (-36 / 20) * np.sin(2 * np.pi * 3.6e9 * t)
    assert spectra.refine_peak(x, t, 3.2e9, 3.7e9)[0] == pytest.approx(3.6e9, rel=1e-2)
    # a static step (a pulse with a mean, in a closed cavity) under a decaying mode: its
    # zero-frequency term's first sidelobe, at 2.35 / 10 ns, came back as a peak
    x = np.where(t > 0.2e-9, 10.0, 0.0) + \
        np.sin(2 * np.pi * 3e9 * t) * np.exp(-2 * t / 1e-8) * (t > 0.2e-9)
    assert spectra.peak_frequencies(x, t, 5) == pytest.approx([3e9], rel=1e-3)


def test_a_loaded_results_fields_and_a_probes_times_say_which_names_there_are(result,
                                                                              tmp_path):
    path = yf.Result(scene_json=result.scene_json, fields={"ez": np.zeros((13, 13, 1))},
                     stats={}).save(tmp_path / "f.h5")
    with pytest.raises(yf.ValidationError, match=r"fields\['ez'\]: shape \(2, 2, 1\); the "
                                                 "scene's grid holds ez, hx, hy"):
        yf.Result(scene_json=result.scene_json, fields={"ez": np.zeros((2, 2, 1))},
                  stats={}).save(tmp_path / "g.h5")
    with pytest.raises(yf.NotFound, match="field 'zz'"):
        yf.load(path).fields["zz"]
    with pytest.raises(yf.NotFound, match="component 'bx'"):
        result.probes["p"].times["bx"]


def test_a_probe_is_a_mapping_of_its_components(result):
    """'"ez" in probe' and 'for c in probe' went through __getitem__ with 0, 1, ... and
    raised "component 0: not in this result"; keys() did not exist."""
    p = result.probes["p"]
    assert "ez" in p and "ex" not in p and 0 not in p
    assert list(p) == list(p.keys()) == ["ez", "hx", "hy"] and len(p) == 3
    assert all(v is p[c] for c, v in p.items())
    assert list(p.values()) == [p[c] for c in p] and p.get("ex") is None and \
        p.get("ez") is p["ez"]


def test_run_model_refuses_a_stepper_of_another_model():
    def model(n):
        return yf.build_model(yf.Scene(grid=yf.Grid(cells=(n, 8, 8), spacing=1e-3),
                                       boundaries="pec", run=yf.RunSettings(steps=2)))
    a, b = model(8), model(9)
    with pytest.raises(yf.SetupError, match="stepper: built for another model"):
        yf.run_model(a, yf.make_stepper(b, "numpy"), progress=False)
    with pytest.raises(yf.SetupError, match="stepper: a stepper from make_stepper"
                                            r"\(model\), not NoneType"):
        yf.run_model(a, None, progress=False)
    with pytest.raises(yf.SetupError, match="model: a Model"):
        yf.make_stepper(a.scene, "numpy")


def test_run_model_refuses_a_stepper_that_has_run_and_flags_that_are_not_booleans():
    """A stepper that ran before holds that run's fields: a second run_model went on from
    them with its times counted from zero, as a run of its own."""
    m = yf.build_model(yf.Scene(grid=yf.Grid(cells=(8, 8, 8), spacing=1e-3),
                                boundaries="pec", run=yf.RunSettings(steps=3)))
    st = yf.make_stepper(m, "numpy")
    for what, value in (("progress", "yes"), ("keep_fields", "yes")):
        with pytest.raises(yf.ValidationError, match=f"{what}: True or False, not 'yes'"):
            yf.run_model(m, st, **{what: value})
    assert yf.run_model(m, st, progress=False).stats["steps"] == 3
    with pytest.raises(yf.SetupError, match="stepper: it has run 3 steps already; a run "
                                            "starts at step 0: make a new one"):
        yf.run_model(m, st, progress=False)


def test_numpy_numbers_are_taken_and_numpy_booleans_are_not():
    m = yf.Material(eps_r=np.float32(4), sigma_e=np.float64(0.1), mu_r=np.int32(2))
    assert m.eps_r == (4.0, 4.0, 4.0) and m.mu_r == (2.0, 2.0, 2.0)
    assert yf.Material(eps_r=np.array(3.0)).eps_r == (3.0, 3.0, 3.0)
    g = yf.Grid(cells=(np.int64(10),) * 3, spacing=np.float32(1e-3))
    assert g.cells == (10, 10, 10)
    with pytest.raises(yf.ValidationError, match=r"cells\[0\]: must be a number"):
        yf.Grid(cells=(np.bool_(True), 10, 10), spacing=1e-3)
    # an array of booleans was read as 1.0 / 0.0
    with pytest.raises(yf.ValidationError, match=r"values\[0\]: must be a number"):
        yf.Samples(dt=1e-9, values=np.array([True, False]))
    with pytest.raises(yf.ValidationError, match=r"values\[1\]: must be a number"):
        yf.Samples(dt=1e-9, values=np.array([2.0, True], dtype=object))
    # an empty array of booleans raised a bare StopIteration
    with pytest.raises(yf.ValidationError, match="give at least 2, not 0"):
        yf.Samples(dt=1e-9, values=np.array([], dtype=bool))
    assert yf.Samples(dt=1e-9, values=np.array([1, 2])).values == (1.0, 2.0)
    with pytest.raises(yf.ValidationError, match="too large"):
        yf.Material(eps_r=10**400)
    with pytest.raises(yf.ValidationError, match="digit number of cells"):
        yf.Scene.from_json('{"grid": {"cells": [1' + "0" * 400 + ', 10, 10], "spacing": '
                           '0.001}, "run": {"steps": 5}}')


def test_a_waveforms_spectrum_says_what_it_takes():
    w = yf.Sine(frequency=1e9)
    g = yf.Gaussian(tau=1e-11)   # cut by t_end, its transform is numerical
    with pytest.raises(yf.ValidationError, match=r"freqs: 1e\+16 Hz is past what a numerical"):
        g.spectrum(1e16, t_end=5e-11)   # it would alias: 400k samples over 4.6e5 periods
    with pytest.raises(yf.ValidationError, match="more than a numerical spectrum takes"):
        g._numerical(np.array([1.0]), 0.0, 1e-3, chosen=True)   # 3.4e9 samples
    assert abs(w.spectrum(1e9, t_end=1e-3)[0]) == pytest.approx(5e-4, rel=1e-5)  # T/2 - ramp/4
    long = yf.Samples(dt=1e-12, values=list(np.sin(np.arange(50_000) * 0.01)))
    assert np.isfinite(long.spectrum([1e11])).all()   # its own support: the samples
    for freqs, t_end, says in ((np.nan, None, "freqs: NaN or infinity"),
                               (1e9, "x", "t_end: a number of seconds, not 'x'"),
                               (1e9, math.inf, "t_end: a finite number"),
                               (1e9, -1.0, "not after the waveform's start")):
        with pytest.raises(yf.ValidationError, match=says):
            w.spectrum(freqs, t_end=t_end)
    assert w.spectrum([]).shape == (0,)
    assert w.spectrum(np.full((2, 2), 1e9), t_end=1e-8).shape == (2, 2)
    # parameters far out of the grid's scale: a finite value, or one line (an OverflowError
    # from fp^3 past 5.6e102 Hz before, and NaN from samples 1e300 s apart)
    assert np.isfinite(yf.Ricker(frequency=1e103).spectrum([1e9])).all()
    with pytest.raises(yf.ValidationError, match=r"waveform: its spectrum overflows at 1e\+09"):
        yf.Samples(dt=1e300, values=(0, 1, 0)).spectrum([0.0, 1e9])


ALL_WAVEFORMS = [yf.Gaussian(tau=1e-11), yf.DiffGaussian(tau=1e-11), yf.Ricker(frequency=1e10),
                 yf.ModulatedGaussian(frequency=1e10), yf.Sine(frequency=1e9),
                 yf.Samples(dt=1e-12, values=[0.0, 1.0, 0.0])]


@pytest.mark.parametrize("w", ALL_WAVEFORMS, ids=lambda w: w.type)
@pytest.mark.parametrize("freqs, says", [
    ("abc", "freqs: frequencies in Hz (a number or an array of numbers), not 'abc'"),
    ("1e9", "not '1e9'"), ([1e9, "x"], "freqs: frequencies in Hz"), (None, "not None"),
    (True, "not True"), ([1e9, [2e9]], "freqs: frequencies in Hz"),
    (1e9 + 1j, "not (1000000000+1j)"),
    ([1e9, np.nan], "freqs: NaN or infinity among them"), (np.inf, "freqs: NaN or infinity")])
def test_every_waveforms_spectrum_refuses_frequencies_that_are_not_finite_numbers(w, freqs,
                                                                                 says):
    """Text, None, booleans, complex, ragged lists and non-finite values: one line naming
    freqs, from the closed-form spectra (a bare NumPy ValueError or TypeError before) as
    from the numerical ones."""
    with pytest.raises(yf.ValidationError, match=re.escape(says)) as err:
        w.spectrum(freqs)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("w", ALL_WAVEFORMS[:4], ids=lambda w: w.type)
def test_a_closed_form_spectrum_honours_a_t_end_that_cuts_its_pulse(w):
    """t_end past the pulse: the closed form; before its end: the transform of the part
    up to t_end, as for the numerical spectra (the closed form ignored t_end before)."""
    f = np.array([0.3, 1.0]) * w.max_frequency()
    t0, t1 = w.support()
    assert np.array_equal(w.spectrum(f, t_end=2 * t1), w.spectrum(f))
    cut = 0.5 * (t0 + t1)
    part, whole = w.spectrum(f, t_end=cut), w.spectrum(f)
    assert np.array_equal(part, w._numerical(f, t0, cut, chosen=True))
    assert np.max(np.abs(part - whole)) > 0.1 * np.max(np.abs(whole))
    with pytest.raises(yf.ValidationError, match="t_end: a number of seconds"):
        w.spectrum(f, t_end="1e-9")


@pytest.mark.parametrize("call, says", [
    (lambda x, t: spectra.dft(x, t, "abc"), "freqs: frequencies in Hz"),
    (lambda x, t: spectra.dft(x, t, [np.nan]), "freqs: NaN or infinity"),
    (lambda x, t: spectra.refine_peak(x, t, "1e9", 2e9), "f_lo: a number of Hz"),
    (lambda x, t: spectra.refine_peak(x, t, 0.5e9, np.inf), "f_hi: a finite number of Hz"),
    (lambda x, t: spectra.peak_frequencies(x, t, 1, fmin=None), "fmin: a number of Hz"),
    (lambda x, t: spectra.peak_frequencies(x, t, 1, fmax=[2e9]), "fmax: a number of Hz")])
def test_spectra_of_records_refuse_frequencies_that_are_not_finite_numbers(call, says):
    x, t = _ring()
    with pytest.raises(yf.ValidationError, match=says):
        call(x, t)


def test_a_material_a_scene_does_not_have_is_not_vacuum(result):
    scene = result.scene
    assert scene.material("pec") == yf.Material()
    with pytest.raises(yf.NotFound, match="material 'glass': not in this scene"):
        scene.material("glass")


@pytest.mark.parametrize("kw, says", [
    ({"stepper_options": [1]}, "stepper_options: a dict of options by name"),
    ({"stepper_options": {1: 2}}, "keys that are not names"),
    ({"keep_fields": "no"}, "keep_fields: True or False, not 'no'"),
    ({"progress": 3}, "progress: True or False, not 3"),
    ({"stepper_options": {"variant": "nonsense"}}, "unknown kernel variant 'nonsense'"),
])
def test_run_arguments_of_the_wrong_kind_are_one_line_errors(kw, says):
    """Checked before anything is built, on every backend (a CUDA variant's name too, which
    the NumPy backend would otherwise pass over)."""
    scene = yf.Scene.load(EXAMPLES / "cavity_pec.toml")
    with pytest.raises(yf.ValidationError, match=re.escape(says)) as info:
        yf.run(scene, steps=3, backend="numpy", **kw)
    assert "\n" not in str(info.value)


def test_a_monitor_that_records_nothing_in_the_run_is_noted():
    """A snapshot every 10 steps in a run of 3 records nothing: a note names it; the probe
    every step is not noted, nor the snapshot in a run of 10."""
    from yeefdtd.io import parse_text

    d = parse_text((EXAMPLES / "cavity_pec.toml").read_text(), "toml")
    d["monitors"].append({"type": "snapshot", "name": "late", "component": "ez",
                          "axis": "z", "every": 10})
    scene = yf.Scene.parse(d)
    notes = yf.run(scene, steps=3, backend="numpy", progress=False).stats["notes"]
    said = [n for n in notes if "records nothing" in n]
    assert len(said) == 1 and said[0].startswith("monitors[1] ('late'): records every 10")
    res = yf.run(scene, steps=10, backend="numpy", progress=False)
    assert not any("records nothing" in n for n in res.stats.get("notes", []))


def test_the_results_scene_is_the_one_that_ran(tmp_path):
    """Arguments that override the scene's run settings (the CLI's --steps, --dtype,
    --backend, --variant) are in the result's scene: its file said 800 float32 steps after
    --steps 50 --dtype float64, so running r.scene again ran another simulation."""
    from yeefdtd.cli import main

    out = tmp_path / "t.h5"
    assert main(["run", str(EXAMPLES / "tmz_line_source.toml"), "--steps", "7", "--dtype",
                 "float64", "--backend", "numpy", "--variant", "fused", "-q", "-o",
                 str(out)]) == 0
    r = yf.load(out)
    assert (r.scene.run.steps, r.scene.run.duration, r.scene.run.dtype, r.scene.run.backend,
            r.scene.run.variant) == (7, None, "float64", "numpy", "fused")
    again = yf.run(r.scene, progress=False)
    assert again.stats["steps"] == 7 and again.stats["dtype"] == "float64"
    for name in r.probes:
        for c, v in r.probes[name].data.items():
            assert np.array_equal(again.probes[name][c], v)
    plain = yf.Scene.load(EXAMPLES / "tmz_line_source.toml")
    assert yf.run(plain, steps=3, progress=False).scene.run.steps == 3
    assert yf.run(plain.model_copy(update={"run": plain.run.model_copy(
        update={"steps": 3})}), progress=False).scene_json == \
        plain.model_copy(update={"run": plain.run.model_copy(update={"steps": 3})}).to_json(
            indent=None)


def test_a_courant_number_of_one_is_noted():
    """At the stability limit itself a grid-scale mode grows linearly (periodic faces, PMC
    walls; tests/physics/test_stability.py): a run at courant 1 says so, one at 0.99
    does not."""
    from yeefdtd.io import parse_text

    d = parse_text((EXAMPLES / "cavity_pec.toml").read_text(), "toml")
    for courant, noted in ((1.0, 1), (0.99, 0)):
        d["run"]["courant"] = courant
        notes = yf.run(yf.Scene.parse(d), steps=2, backend="numpy",
                       progress=False).stats.get("notes", [])
        assert sum(n.startswith("run.courant: 1 is the stability limit") for n in notes) \
            == noted


def test_empty_backend_or_dtype_and_boundaries_of_other_dimensions_are_refused():
    """An empty backend or dtype was taken as not given (the scene's ran); uniform
    boundaries for 0 or 5 dimensions gave a scene of CPML everywhere or took it."""
    scene = yf.Scene(grid=yf.Grid(cells=(8, 8, 8), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=2, backend="numpy"))
    with pytest.raises(yf.YeeError, match="unknown backend ''"):
        yf.run(scene, backend="", progress=False)
    with pytest.raises(yf.ValidationError, match="dtype: '' is not one of"):
        yf.run(scene, dtype="", progress=False)
    for n in (0, 5, True, np.bool_(True), np.int64(4)):
        with pytest.raises(yf.ValidationError, match=r"ndim: 2 or 3 \(the grid's "):
            yf.Boundaries.uniform("pec", ndim=n)
    assert yf.Boundaries.uniform("pec", ndim=2).z_min is None
    # a NumPy integer, as len(shape) of an array gives, is a number like any other
    assert yf.Boundaries.uniform("pec", np.int64(3)) == yf.Boundaries.uniform("pec", 3)
    assert yf.Boundaries.uniform("pec", np.int32(2)).z_min is None


def test_model_copy_validates_its_update_and_sets_are_refused():
    """pydantic's model_copy took its update unchecked: a probe outside the grid recorded
    from a clamped point, two probes of one name lost the first's data, an unknown material
    failed deep in the build. Sets were taken sorted, where the order counts."""
    s = yf.Scene(grid=yf.Grid(cells=(16, 16, 16), spacing=1e-3), boundaries="pec",
                 monitors=[yf.Probe(name="p", cell=(9, 8, 8))],
                 run=yf.RunSettings(steps=2, backend="numpy"))
    for update, says in [
            ({"monitors": (yf.Probe(name="p", cell=(40, 1, 1)),)}, "monitors[0].cell: index 40"),
            ({"monitors": (yf.Probe(name="a", cell=(1, 1, 1)), yf.Probe(name="a", cell=(2, 2, 2)))},
             "monitors[1].name: 'a' is used twice"),
            ({"objects": (yf.Sphere(center=(0.008,) * 3, radius=0.002, material="nope"),)},
             "objects[0].material: unknown material 'nope'"),
            ({"name": ""}, "name: "), ({"colour": 1}, "update: Scene has no field 'colour'")]:
        with pytest.raises(yf.ValidationError, match=re.escape(says)):
            s.model_copy(update=update)
    assert s.model_copy(update={"name": "x"}).name == "x" and s.model_copy() == s
    for make, field in [(lambda: yf.Material(eps_r={4.0, 1.0, 2.0}), "eps_r"),
                        (lambda: yf.Grid(cells={20, 3, 9}, spacing=1e-3), "cells"),
                        (lambda: yf.Samples(dt=1e-12, values={0.0, 1.0}), "values")]:
        with pytest.raises(yf.ValidationError, match=f"^{field}: must be a list"):
            make()


def test_pydantics_validate_methods_give_one_line():
    """Scene.model_validate and model_validate_json, which pydantic gives every model, raise
    yeefdtd's one-line ValidationError naming the field (pydantic's own error spans lines
    and links its website)."""
    for call, says in ((lambda: yf.Scene.model_validate({"grid": 5}), "grid: must be a table"),
                       (lambda: yf.Scene.model_validate_json('{"grid": 5}'),
                        "grid: must be a table"),
                       (lambda: yf.Scene.model_validate_json("{bad"), "invalid JSON"),
                       (lambda: yf.Grid.model_validate({"cells": [4, 4, 4], "spacing": -1}),
                        "spacing: must be > 0")):
        with pytest.raises(yf.ValidationError, match=says) as err:
            call()
        assert "\n" not in str(err.value) and "pydantic" not in str(err.value)
    good = {"grid": {"cells": [4, 4, 4], "spacing": 1e-3}, "boundaries": "pec",
            "run": {"steps": 2}}
    assert yf.Scene.model_validate(good).grid.cells == (4, 4, 4)


@pytest.mark.parametrize("call, says", [
    (lambda: yf.Boundaries.uniform("pec", 3.0), "ndim: 2 or 3"),   # a TypeError of slices
    (lambda: yf.Boundaries().face("w_min"), "face: 'w_min' is not a face"),  # AttributeError
    (lambda: yf.Boundaries().kind(5), "face: 5 is not a face"),   # TypeError
    (lambda: yf.Gaussian(tau=1e-11)("abc"), "t: times in seconds"),   # NumPy's ValueError
    (lambda: yf.Gaussian(tau=1e-11)(None), "t: times in seconds"),   # NaN, silently
    (lambda: yf.Material(eps_r=np.array([1.0, 2.0])), "takes one value or three"),  # "eps_r[2]"
    (lambda: spectra.dft([1.0], [0.0], [1e9]), "one sample, which has no time step"),  # 1 s
    (lambda: spectra.peak_frequencies(np.sin(np.arange(100.0)), np.arange(100) * 1e-12, 2,
                                      fmin=5e10, fmax=1e10), "fmin, fmax: 5e.10 Hz is above"),
])
def test_more_misuses_give_one_line(call, says):
    """Each gave a traceback, a message that did not say what to change, or a silent
    answer (noted beside each)."""
    with pytest.raises(yf.ValidationError, match=says) as err:
        call()
    assert "\n" not in str(err.value)


def test_peaks_of_values_near_floats_largest():
    """A ring of amplitude 1e307: the same peak as of amplitude 1 (its golden-section
    search overflowed into NaN and stopped at a wrong frequency, 48.8 GHz for 47.7)."""
    t = np.arange(100) * 1e-12
    x = np.sin(np.arange(100) * 0.3)
    f1, h1 = spectra.refine_peak(x, t, 1e9, 1e11)
    with np.errstate(all="raise"):
        f2, h2 = spectra.refine_peak(1e307 * x, t, 1e9, 1e11)
        assert spectra.peak_frequencies(1e307 * x, t, 1) == pytest.approx([f1], rel=1e-8)
    assert h1 == h2 == 1.0
    assert f2 == pytest.approx(f1, rel=1e-8) and f1 == pytest.approx(0.3 / (2 * np.pi * 1e-12),
                                                                     rel=1e-3)


def test_run_and_make_stepper_take_the_same_numpy_dtypes():
    """make_stepper took np.dtype('float64'); run() refused it, after building the model."""
    scene = yf.Scene(grid=yf.Grid(mode="tmz", cells=(20, 20), spacing=1e-3), boundaries="pec",
                     run=yf.RunSettings(steps=3, backend="numpy"))
    for given, name in ((np.dtype("float64"), "float64"), (np.float16, "float16")):
        r = yf.run(scene, dtype=given, progress=False)
        assert r.stats["dtype"] == r.scene.run.dtype == name
        model = yf.build_model(scene)
        assert yf.make_stepper(model, dtype=given).storage.name == name
        # and the run settings themselves (RunSettings refused np.float32)
        assert yf.RunSettings(steps=3, dtype=given).dtype == name
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")
    built = []
    real = run_mod.build_model
    try:
        run_mod.build_model = lambda *a, **k: built.append(1) or real(*a, **k)
        with pytest.raises(yf.ValidationError, match=r"^dtype: dtype\('int32'\) is not one of "):
            yf.run(scene, dtype=np.dtype("int32"), progress=False)
    finally:
        run_mod.build_model = real
    assert built == []   # refused before the model was built


def test_evenly_spaced_float32_times_are_taken_however_many():
    """Evenly spaced float32 times were refused as 'not evenly spaced' from about 16 000
    samples on: their rounding spread the steps by more than a thousandth of one. A step
    off by a fifth is still refused."""
    from yeefdtd import spectra

    t = (np.arange(1, 20001) * 2.3e-12).astype(np.float32)
    x = np.sin(2 * np.pi * 1e10 * t)
    got = spectra.dft(x, t, 1e10)
    exact = spectra.dft(x, np.arange(1, 20001) * 2.3e-12, 1e10)
    assert np.allclose(got, exact, rtol=1e-4, atol=0)
    t[100] += np.float32(0.2 * 2.3e-12)
    with pytest.raises(yf.ValidationError, match="not evenly spaced"):
        spectra.dft(x, t, 1e10)


@pytest.mark.parametrize("call, says", [
    (lambda: yf.Material().axis(3), r"a: an axis 0, 1 or 2 \(x, y, z\), not 3"),
    (lambda: yf.Material().axis("x"), "not 'x'"),
    (lambda: yf.Material().axis(-1), "not -1"),   # was the z axis's values
    (lambda: yf.Box(center=(0, 0, 0), size=(1, 1, 1), material="pec").contains("a", 0, 0),
     "x: coordinates in metres"),
    (lambda: yf.Sphere(center=(0, 0, 0), radius=1, material="pec").contains(
        np.zeros(3), np.zeros(4), 0), "do not broadcast together"),
    (lambda: yf.Cylinder(center=(0, 0, 0), radius=1, length=1, axis="z",
                         material="pec").contains(0, None, 0), "y: coordinates"),
    (lambda: _scene().to_json(indent="x"), "indent: a number of spaces from 0 to 64"),
    (lambda: _scene().to_json(indent=-1), "indent: a number of spaces"),
])
def test_helpers_of_the_description_check_their_arguments(call, says):
    """Public helpers of scene objects: one line naming the argument (they raised
    IndexError, TypeError, NumPy's broadcast error or an OverflowError)."""
    with pytest.raises(yf.ValidationError, match=says) as info:
        call()
    assert "\n" not in str(info.value)


def _scene():
    return yf.Scene(grid=yf.Grid(cells=(40, 40, 40), spacing=1e-3), run=yf.RunSettings(steps=2))


def test_a_waveform_at_a_nan_time_is_nan():
    """Sine is 0 before t = 0, and NaN compared as neither before nor after: it gave 0 for
    a NaN time, where the other waveforms give NaN."""
    for w in (yf.Sine(frequency=1e9), yf.Gaussian(tau=1e-11), yf.Ricker(frequency=1e9)):
        v = w(np.array([np.nan, 2e-9]))
        assert np.isnan(v[0]) and np.isfinite(v[1]), w
    assert np.isnan(yf.Sine(frequency=1e9)(float("nan")))
    assert yf.Sine(frequency=1e9)(np.arange(3.0) * 1e-10).dtype == np.float64


def test_a_built_models_steps_and_arrays_are_fixed():
    """model.steps = 40 on a model built for 20 ran past its source values with an
    IndexError deep in the NumPy stepper; model.steps = "20" with a TypeError in the memory
    estimate. What the arrays are laid out for is now set once; the scene and the notes, which
    run() sets, are not."""
    scene = yf.Scene(grid=yf.Grid(cells=(16, 16, 16), spacing=1e-3), boundaries="pec",
                     sources=[yf.PointSource(component="ez", cell=(8, 8, 8),
                                             waveform=yf.Ricker(frequency=20e9))],
                     run=yf.RunSettings(steps=20))
    model = yf.build_model(scene)
    for name, value in (("steps", 40), ("steps", "20"), ("sources", [])):
        with pytest.raises(yf.SetupError, match=f"model.{name}: fixed when the model is "
                                                "built") as info:
            setattr(model, name, value)
        assert "build_model(scene, steps=...)" in str(info.value)
    model.notes = ()
    assert model.steps == 20
    assert yf.run_model(model, yf.make_stepper(model, "numpy")).stats["steps"] == 20


def test_plots_check_the_result_they_are_given(result, tmp_path):
    """A plot of what is not a result, or of parts save() would refuse, fails in one line
    naming the part (it failed inside matplotlib or NumPy, or drew a component 'qq' in
    A/m), and plot_result takes only text for its file names' stem (None wrote
    None_probe_p.png)."""
    from yeefdtd.plot import unplotted

    for call in (lambda: plot_probe(None, "p", tmp_path / "a.png"),
                 lambda: plot_result([1], tmp_path, "r"), lambda: unplotted("x")):
        with pytest.raises(yf.ValidationError, match="result must be a Result"):
            call()
    bad = yf.Result(scene_json=result.scene_json, probes={"p": yf.ProbeData(
        "p", {"ez": np.zeros(3)}, {"ez": np.arange(2.0)}, {"ez": (0.0, 0.0, 0.0)})})
    with pytest.raises(yf.ValidationError, match=r"probes\['p'\]"):
        plot_probe(bad, "p", tmp_path / "a.png")
    snap = result.snapshots["s"]
    odd = yf.Result(scene_json=result.scene_json, snapshots={"s": yf.SnapshotData(
        "s", "qq", snap.axis, snap.position, snap.frames, snap.times, snap.coords)})
    with pytest.raises(yf.ValidationError, match="component: 'qq'"):
        plot_snapshot(odd, "s", tmp_path / "a.png")
    with pytest.raises(yf.ValidationError, match="stem: the start of the plots' file names"):
        plot_result(result, tmp_path, None)
    assert not list(tmp_path.glob("*.png"))


def test_spectra_refuse_time_steps_below_floats_normal_range():
    """A step of 1e-320 s: 1 / step overflowed, and spectrum's frequencies came out as NaN
    and infinity, peak_frequencies' as NaN."""
    x, t = _ring()
    t = np.arange(len(x)) * 1e-320
    for call in (lambda: spectra.spectrum(x, t), lambda: spectra.dft(x, t, [0.0]),
                 lambda: spectra.peak_frequencies(x, t, 1)):
        with pytest.raises(yf.ValidationError, match="times: a step of 1e-320 s, below "):
            call()
    f, _ = spectra.spectrum(x, np.arange(len(x)) * 1e-300)   # small, but normal: finite
    assert np.isfinite(f).all()


def test_a_spectrum_too_large_for_memory_says_so_in_one_line(monkeypatch):
    """An FFT that finds no memory (tens of millions of samples with a large pad) ended in a
    bare MemoryError; it says what to change instead."""
    x, t = _ring()

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(np.fft, "rfft", no_memory)
    with pytest.raises(yf.ValidationError,
                       match=r"pad: the FFT of 400 samples padded to 2048 points does not "
                             r"fit in memory; give a smaller pad"):
        spectra.spectrum(x, t)


def test_arrays_and_exact_numbers_given_for_numbers_are_named_in_one_line():
    """An array of the wrong shape was shown by NumPy's repr, over several lines; a Decimal
    or a Fraction was told to be a list."""
    import decimal
    import fractions

    with pytest.raises(yf.ValidationError) as info:
        yf.Grid(cells=(10, 10, 10), spacing=np.full((3, 1), 1e-3))
    assert str(info.value) == ("spacing: input should be a valid number (got an array of "
                               "shape (3, 1))")
    with pytest.raises(yf.ValidationError) as info:
        yf.Samples(dt=1e-12, values=np.zeros((2, 2, 2)))
    assert "\n" not in str(info.value) and "shape (2, 2)" in str(info.value)
    for exact in (decimal.Decimal("2.5"), fractions.Fraction(3, 2)):
        with pytest.raises(yf.ValidationError) as info:
            yf.Material(eps_r=exact)
        assert str(info.value).startswith("eps_r: must be a plain number, a float or an int "
                                          f"(got {exact!r})"), str(info.value)
    assert yf.Material(eps_r=float(decimal.Decimal("2.5"))).eps_r == (2.5, 2.5, 2.5)
