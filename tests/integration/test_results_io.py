"""Results: HDF5 round trip, atomic writes, loading errors."""

from __future__ import annotations

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd import io


def small_result(keep_fields=True) -> yf.Result:
    scene = yf.Scene(
        grid=yf.Grid(cells=(16, 14, 12), spacing=1e-3),
        sources=[yf.PointSource(component="ey", cell=(8, 7, 6), waveform=yf.Ricker(
            frequency=20e9))],
        monitors=[yf.Probe(name="a", cell=(10, 7, 6)),
                  yf.Probe(name="b", cell=(4, 4, 4), components=["hz"], every=7),
                  yf.Snapshot(name="s", component="ey", axis="y", every=9)],
        boundaries={"x_min": {"cells": 4}, "x_max": {"cells": 4}, "y_min": "pec",
                    "y_max": "pec", "z_min": "pmc", "z_max": "pmc"},
        run=yf.RunSettings(steps=40, backend="numpy"),
    )
    return yf.run(scene, keep_fields=keep_fields, progress=False)


def test_result_round_trip(tmp_path):
    res = small_result()
    path = res.save(tmp_path / "r.h5")
    back = yf.load(path)
    assert back == res
    assert back.scene == res.scene
    assert back.probes["b"]["hz"].shape == (5,)
    assert np.allclose(back.probes["b"].times["hz"], (np.arange(1, 6) * 7 - 0.5) *
                       res.stats["dt"])
    assert back.snapshots["s"].frames.shape == (4, 17, 13)


def test_save_is_atomic(tmp_path, monkeypatch):
    res = small_result(keep_fields=False)
    target = tmp_path / "r.h5"
    res.save(target)
    before = target.read_bytes()

    def boom(p):
        p.write_bytes(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        io.write_atomic(target, boom)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["r.h5"]


def test_load_rejects_other_files(tmp_path):
    with pytest.raises(yf.ValidationError, match="no such file"):
        yf.load(tmp_path / "missing.h5")
    (tmp_path / "text.h5").write_text("hello")
    with pytest.raises(yf.ValidationError, match="not an HDF5 file"):
        yf.load(tmp_path / "text.h5")


def _damage(path, how):
    import h5py

    with h5py.File(path, "r+") as f:
        how(f)


def _swap(f, name, data):
    del f[name]
    f[name] = data


@pytest.mark.parametrize("how, says", [
    (lambda f: f.attrs.__setitem__("format_version", 99), "format version 99"),
    (lambda f: f.attrs.__setitem__("stats", "{not json"), "damaged"),
    (lambda f: f.attrs.__delitem__("scene"), "damaged"),
    (lambda f: f.__delitem__("probes/a/ez_time"), "ez_time"),
    (lambda f: _swap(f, "probes/a/ez", np.zeros((3, 3))), "1-D array"),
    (lambda f: _swap(f, "probes/a/ez", np.zeros(3)), "values for"),
    (lambda f: _swap(f, "probes/a/ez", np.array([b"x"] * 40)), "array of numbers"),
    (lambda f: _swap(f, "snapshots/s/frames", np.zeros((4, 3, 3))), "frames of shape"),
    (lambda f: f["snapshots/s"].attrs.__setitem__("axis", "w"), "axis 'w'"),
    (lambda f: f["snapshots/s"].attrs.__setitem__("component", "q"), "component 'q'"),
    (lambda f: (f.__delitem__("probes"), f.create_dataset("probes", data=[1])),
     "'probes' is not a group"),
])
def test_load_says_in_one_line_what_is_wrong_with_a_damaged_file(how, says, tmp_path):
    path = small_result(keep_fields=False).save(tmp_path / "r.h5")
    _damage(path, how)
    with pytest.raises(yf.ValidationError, match=says) as info:
        yf.load(path)
    assert "\n" not in str(info.value)


def test_load_refuses_a_directory_and_a_non_path(tmp_path):
    with pytest.raises(yf.ValidationError, match="a directory"):
        yf.load(tmp_path)
    with pytest.raises(yf.ValidationError, match="a file name, not NoneType"):
        yf.load(None)
