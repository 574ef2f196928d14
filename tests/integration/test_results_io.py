"""Results: HDF5 round trip, atomic writes, loading errors."""

from __future__ import annotations

import copy

import h5py
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
    # record r of a monitor every k steps follows step (r + 1) k - 1: E at (r + 1) k dt, H
    # half a step earlier (absolute tolerance 0: the times are about 1e-11 s)
    dt = res.stats["dt"]
    np.testing.assert_allclose(back.probes["b"].times["hz"], (np.arange(1, 6) * 7 - 0.5) * dt,
                               rtol=1e-12, atol=0)
    np.testing.assert_allclose(back.probes["a"].times["ez"], np.arange(1, 41) * dt,
                               rtol=1e-12, atol=0)
    assert back.snapshots["s"].frames.shape == (4, 17, 13)
    np.testing.assert_allclose(back.snapshots["s"].times, np.arange(1, 5) * 9 * dt,
                               rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype, kept", [("float32", np.float32), ("float64", np.float64),
                                         ("float16", np.float32), ("bfloat16", np.float32)])
def test_records_keep_the_runs_arithmetic_dtype_in_the_result_and_its_file(dtype, kept,
                                                                          tmp_path):
    """Probes, snapshots and fields are kept and saved in the dtype the run computed in
    (16-bit storage computes in float32): a float32 run's records were upcast to float64,
    twice the memory and the file for no digit more. The values are the run's own: a
    float64 copy of the float32 records is what an upcast gave."""
    scene = yf.Scene(
        grid=yf.Grid(cells=(12, 10, 8), spacing=1e-3),
        sources=[yf.PointSource(component="ez", cell=(6, 5, 4), waveform=yf.Ricker(
            frequency=20e9))],
        monitors=[yf.Probe(name="p", cell=(8, 5, 4)),
                  yf.Snapshot(name="s", component="ez", axis="z", every=5)],
        boundaries="pec", run=yf.RunSettings(steps=30, backend="numpy", dtype=dtype))
    res = yf.run(scene, keep_fields=True, progress=False)
    arrays = [*res.probes["p"].data.values(), res.snapshots["s"].frames, *res.fields.values()]
    assert all(a.dtype == kept for a in arrays)
    assert np.abs(res.probes["p"]["ez"]).max() > 0
    back = yf.load(res.save(tmp_path / "r.h5"))
    assert back == res
    assert back.probes["p"]["ez"].dtype == kept and back.snapshots["s"].frames.dtype == kept
    assert back.probes["p"].times["ez"].dtype == np.float64   # times stay float64
    with h5py.File(tmp_path / "r.h5") as f:
        assert f["snapshots/s/frames"].dtype == kept


def test_a_hard_sources_own_record_is_its_waveform():
    """A probe at a hard source's point records the waveform at the probe's own times,
    which record_times gives as (n + 1) dt for E: the source's timing and the records'
    checked against each other through the run, not through one table."""
    wf = yf.ModulatedGaussian(frequency=10e9)
    scene = yf.Scene(
        grid=yf.Grid(cells=(12, 12, 12), spacing=1e-3),
        sources=[yf.PointSource(component="ez", cell=(6, 6, 6), waveform=wf, kind="hard")],
        monitors=[yf.Probe(name="p", cell=(6, 6, 6), components=["ez"])],
        boundaries="pec", run=yf.RunSettings(steps=200, backend="numpy", dtype="float64"))
    res = yf.run(scene, progress=False)
    t = res.probes["p"].times["ez"]
    np.testing.assert_allclose(t, np.arange(1, 201) * res.stats["dt"], rtol=1e-12, atol=0)
    np.testing.assert_allclose(res.probes["p"]["ez"], wf(t), rtol=0, atol=1e-12)


def test_a_directory_save_creates_is_named(tmp_path, capsys):
    """Save creates the directories its path needs; a slip in the path (-o /nonexistent/
    dir/x.h5) made a new tree without a word, so the directory it creates is named (as a
    plot's, where one is drawn to a path)."""
    from yeefdtd.plot import plot_probe

    res = small_result(keep_fields=False)
    capsys.readouterr()
    res.save(tmp_path / "a" / "b" / "r.h5")
    assert capsys.readouterr().err == \
        f"note: created the directory {tmp_path / 'a' / 'b'} for r.h5\n"
    plot_probe(res, "a", tmp_path / "c" / "p.png")
    assert capsys.readouterr().err == f"note: created the directory {tmp_path / 'c'} for p.png\n"
    res.save(tmp_path / "a" / "b" / "s.h5")   # there now: nothing to say
    assert capsys.readouterr().err == ""
    assert yf.load(tmp_path / "a" / "b" / "r.h5") == res


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


@pytest.mark.parametrize("keep_fields", [False, True])
def test_a_result_written_before_names_took_at_most_64_bytes_is_read_back(keep_fields,
                                                                          tmp_path):
    """A monitor's name took at most 64 characters, and now 64 bytes in UTF-8; a file of a
    run before, whose probe and snapshot have names of 64 characters of 2 bytes, loads as
    it did, with its fields too (their shapes were checked against the whole stored scene,
    validated again)."""
    import h5py

    res = small_result(keep_fields=keep_fields)
    path = res.save(tmp_path / "r.h5")
    old = {"a": "\u00e9" * 64, "s": "\u00e8" * 64}
    with h5py.File(path, "r+") as f:
        del f.attrs["checksum"], f.attrs["array_checksums"]   # (written before them)
        f["probes"].move("a", old["a"])
        f["snapshots"].move("s", old["s"])
        f.attrs["scene"] = f.attrs["scene"].replace('"name":"a"', f'"name":"{old["a"]}"') \
            .replace('"name":"s"', f'"name":"{old["s"]}"')
    back = yf.load(path)
    assert set(back.probes) == {old["a"], "b"} and set(back.snapshots) == {old["s"]}
    np.testing.assert_array_equal(back.probes[old["a"]]["ez"], res.probes["a"]["ez"])
    np.testing.assert_array_equal(back.snapshots[old["s"]].frames, res.snapshots["s"].frames)
    assert (back.fields is None) == (not keep_fields)
    if keep_fields:
        assert all(np.array_equal(back.fields[c], res.fields[c]) for c in res.fields)


def test_plots_of_names_too_long_for_a_file_name_are_written(tmp_path):
    """A probe of a result written before names took at most 64 bytes may have 64
    characters of 4 bytes: its plot's file name, with the stem's, passed the 255 bytes a
    file name may have, and plot_result stopped there, writing none after it. The name is
    cut to fit, with a CRC-32 of the whole that keeps two such names apart."""
    import h5py

    from yeefdtd.plot import plot_result

    path = small_result(keep_fields=False).save(tmp_path / "r.h5")
    long = ["\U0001f600" * 64, "\U0001f600" * 63 + "x"]
    with h5py.File(path, "r+") as f:
        del f.attrs["checksum"], f.attrs["array_checksums"]   # (written before them)
        f["probes"].move("a", long[0])
        f["probes"].move("b", long[1])
    written = plot_result(yf.load(path), tmp_path / "plots", "r")
    names = sorted(p.name for p in written)
    assert len(names) == 3 and all(p.exists() for p in written)
    cut = [n for n in names if "~" in n]
    assert len(cut) == 2 and cut[0] != cut[1]
    assert all(len(n.encode()) <= 255 and n.endswith(".png") for n in cut)
    assert "r_snapshot_s.png" in names


@pytest.mark.parametrize("scene_json, says", [
    ("[" * 100_000 + "]" * 100_000, "scene_json: nested too deeply to be a scene"),
    ("{not json", "scene_json: not JSON text"),
    ("[1]", "scene_json: a scene's table, not list"),
])
def test_save_with_fields_names_a_stored_scene_it_cannot_read(scene_json, says, tmp_path):
    """The shapes of a result's fields are checked against its stored scene's grid: a scene
    that is no scene is one line (RecursionError from JSON nested too deeply, a
    traceback), said once."""
    res = yf.Result(scene_json=scene_json, fields={"ex": np.zeros((2, 2, 2))})
    with pytest.raises(yf.ValidationError) as info:
        res.save(tmp_path / "r.h5")
    assert str(info.value) == says


def test_load_rejects_other_files(tmp_path):
    with pytest.raises(yf.ValidationError, match="no such file"):
        yf.load(tmp_path / "missing.h5")
    (tmp_path / "text.h5").write_text("hello")
    with pytest.raises(yf.ValidationError, match="not an HDF5 file"):
        yf.load(tmp_path / "text.h5")


def _damage(path, how, keep_checksum=False):
    """``how`` done to the file at ``path``; without ``keep_checksum``, as to a file written
    before the checksums of its names and attributes and of its arrays' values
    (results.ATTRS_CRC, VALUES_CRC), which load checks first: the checks of each part
    behind them, for such files."""
    import h5py

    from yeefdtd.results import ATTRS_CRC, VALUES_CRC

    with h5py.File(path, "r+") as f:
        how(f)
        if not keep_checksum:
            f.attrs.__delitem__(ATTRS_CRC)
            f.attrs.__delitem__(VALUES_CRC)


@pytest.mark.parametrize("how", [
    lambda f: f["probes/a/ez"].attrs.__setitem__("position", [0.0101, 0.007, 0.006]),
    lambda f: f["snapshots/s"].attrs.__setitem__("position", 0.5),
    lambda f: f.attrs.__setitem__("stats", f.attrs["stats"].replace('"steps": 40',
                                                                    '"steps": 41')),
    lambda f: f.attrs.__setitem__("scene", f.attrs["scene"].replace("20000000000.0",
                                                                    "20000000001.0")),
    lambda f: f["probes"].move("b", "c"),
    lambda f: f.__delitem__("probes/b"),
    lambda f: f.attrs.__setitem__("checksum", "x"),
    lambda f: f["probes"].__setitem__("c", f["probes/a"]),   # a second link to a probe
    lambda f: f["probes"].__setitem__("c", h5py.SoftLink("/probes/a")),
    lambda f: _swap(f, "probes/a/ez", f["probes/a/ez"][()].astype(np.float32)),
    lambda f: f["probes/a/ez"].__setitem__(3, 1.0),   # its chunk's own checksum made anew
    lambda f: f["fields/hx"].__setitem__((9, 0, 0), 0.0),
])
def test_load_refuses_a_file_whose_names_or_attributes_changed(how, tmp_path):
    """The chunks' own checksums (fletcher32) leave the names and attributes out, and a
    change that HDF5 makes or does not see in them (values written over, a chunk that is
    no longer found, read as zeros): a probe's position changed by 0.1 mm, the stats' step
    count or the scene's frequency by one unit, a probe renamed, gone or linked twice, an
    array of another type or with other values, each loaded as if written so. CRC-32s of
    them and of the arrays' values say so. What load does not read (a note, a position on
    a probe's times, a group) may be added."""
    res = small_result(keep_fields=True)
    path = res.save(tmp_path / "r.h5")
    before = tmp_path / "before.h5"
    before.write_bytes(path.read_bytes())
    _damage(path, how, keep_checksum=True)
    with pytest.raises(yf.ValidationError, match="do not match their checksum") as info:
        yf.load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    _damage(before, lambda f: (f["probes/a"].attrs.__setitem__("note", "checked"),
                               f["probes/a/ez_time"].attrs.__setitem__("position", 0.0),
                               f.create_group("analysis").create_dataset("x", data=[1.0])),
            keep_checksum=True)
    assert yf.load(before) == res


@pytest.mark.parametrize("gone", ["checksum", "array_checksums"])
def test_load_refuses_a_file_that_holds_one_of_its_two_checksums(gone, tmp_path):
    """save writes both; a file with one alone was damaged (an attribute's name changed),
    and the other's checks would be left out: a probe's position changed then loaded."""
    path = small_result(keep_fields=False).save(tmp_path / "r.h5")
    with h5py.File(path, "r+") as f:
        f["probes/a/ez"].attrs["position"] = [0.0101, 0.007, 0.006]
        f.attrs[gone + "_"] = f.attrs[gone]
        del f.attrs[gone]
    with pytest.raises(yf.ValidationError, match=f"holds .* but not {gone}: damaged") as info:
        yf.load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_an_array_added_beside_a_probes_series_is_refused_saying_where_to_add_it(tmp_path):
    """A processed trace kept beside the probe's own (probes/a/ez_dewow) is a name load
    reads, so the file no longer matches its checksum; the line says to add such data
    outside probes, snapshots and fields, where it loads."""
    res = small_result(keep_fields=False)
    path = res.save(tmp_path / "r.h5")
    with h5py.File(path, "r+") as f:
        f["probes/a"].create_dataset("ez_dewow", data=f["probes/a/ez"][()])
    with pytest.raises(yf.ValidationError, match=r"do not match their checksum: changed or "
                       r"damaged since it was written \(an array added under probes, "
                       r"snapshots or fields counts: keep what you add outside them\)$"):
        yf.load(path)
    with h5py.File(path, "r+") as f:
        f.move("probes/a/ez_dewow", "processed_ez_dewow")
    assert yf.load(path) == res


def test_a_result_file_tells_other_tools_its_time_step_and_units(tmp_path):
    """The time step and the step count were only inside the stats' JSON, and no array said
    its unit: a reader in another tool had to know them. The root has dt and steps, and
    each array a 'units' attribute (SI), which load does not read."""
    res = small_result(keep_fields=True)
    path = res.save(tmp_path / "r.h5")
    with h5py.File(path, "r") as f:
        assert f.attrs["dt"] == res.stats["dt"] and f.attrs["steps"] == 40
        assert f["probes/a/ez"].attrs["units"] == "V/m"
        assert f["probes/a/hx"].attrs["units"] == "A/m"
        assert f["probes/a/ez_time"].attrs["units"] == "s"
        assert f["snapshots/s/frames"].attrs["units"] == "V/m"   # ey
        assert [f[f"snapshots/s/{k}"].attrs["units"] for k in ("time", "u", "v")] == \
            ["s", "m", "m"]
        assert f["fields/hx"].attrs["units"] == "A/m"
    assert yf.load(path) == res


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
    (lambda f: _swap(f, "probes/a/ez", np.array([b"x"] * 40)), "array of real numbers"),
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


def test_load_says_in_one_line_where_h5py_finds_the_bytes_damaged(tmp_path, monkeypatch):
    """h5py reports some damage as RuntimeError (a group's links) or as an OSError while
    reading a block: each is the file's one-line error, naming it."""
    from yeefdtd import results

    path = small_result(keep_fields=False).save(tmp_path / "r.h5")
    for exc in (RuntimeError("Unable to get group info (unknown symbol table entry\n"
                             "cache type)"),
                OSError("Can't synchronously read data (ran off end of input buffer)")):
        def broken(f, exc=exc):
            raise exc
        monkeypatch.setattr(results, "_read", broken)
        with pytest.raises(yf.ValidationError, match="damaged or foreign") as info:
            yf.load(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("part", ["probes/a/ey", "probes/a/ey_time", "snapshots/s/time",
                                  "snapshots/s/frames", "fields/hx"])
def test_a_byte_changed_on_disk_is_found_by_its_checksum(part, tmp_path):
    """Every array is saved with checksums: one bit flipped in a probe's series read back
    as another value, with no word (its bytes were stored bare); now load names the array.
    (A compressed one's bytes may instead fail to decode: damaged all the same.)"""
    import h5py

    res = small_result()
    path = res.save(tmp_path / "r.h5")
    with h5py.File(path) as f:
        ds = f[part]
        assert ds.fletcher32 and ds.chunks is not None
        at = ds.id.get_chunk_info(0).byte_offset + ds.id.get_chunk_info(0).size // 2
    data = bytearray(path.read_bytes())
    data[at] ^= 0x08
    path.write_bytes(data)
    with pytest.raises(yf.ValidationError) as info:
        yf.load(path)
    msg = str(info.value)
    assert "\n" not in msg and f"/{part}: its stored bytes do not match their checksum" in msg


#: NumPy's name of this platform's long double (float128 on x86-64 Linux, float96 on 32-bit)
_LONG = np.dtype(np.longdouble).name


def _probe(data=(0.0, 1.0, 2.0), times=(0.0, 1.0, 2.0), where=(0.0, 0.0, 0.0), c="ez",
           name="p"):
    return yf.ProbeData(name, {c: data}, {c: times}, {c: where})


def _snapshot(**change):
    parts = dict(name="s", component="ez", axis="z", position=0.0,
                 frames=np.zeros((2, 3, 4)), times=np.arange(2.0),
                 coords=(np.arange(3.0), np.arange(4.0)))
    parts.update(change)
    return yf.SnapshotData(**parts)


@pytest.mark.parametrize("parts, says", [
    (dict(probes={"p": _probe(data=np.zeros(3), times=np.arange(5.0))}),
     r"probes\['p'\].times\['ez'\]: 5 times for 3 values"),
    (dict(probes={"p": _probe(data=np.zeros((3, 2)))}), "must be a 1-D array of real numbers"),
    (dict(probes={"p": _probe(data="abc")}), "1-D array of real numbers"),
    (dict(probes={"p": _probe(data=np.zeros(3, complex))}), "real numbers"),
    (dict(probes={"p": _probe(data=[None] * 3)}), "real numbers"),
    (dict(probes={"p": _probe(where="abc")}), r"positions\['ez'\]"),
    (dict(probes={"a/b": _probe(name="a/b")}), "slash"),
    (dict(probes={"": _probe()}), "is not a name"),
    (dict(probes={1: _probe()}), "is not a name"),
    (dict(probes={"p": _probe(c="ez_time")}), "may not end in '_time'"),
    (dict(probes={"p": 3}), "a ProbeData, not int"),
    (dict(snapshots={"s": _snapshot(times=np.arange(5.0))}), r"frames: shape \(2, 3, 4\)"),
    (dict(snapshots={"s": _snapshot(component="qq")}), "component: 'qq'"),
    (dict(snapshots={"s": _snapshot(axis="w")}), "axis: 'w'"),
    (dict(fields={"ez": "x"}), r"fields\['ez'\]: must be an array of real numbers"),
    # these saved, and load() refused the file, or save gave a traceback
    (dict(stats=None), "stats: a table of values by name"),
    (dict(stats=[1, 2]), "stats: a table of values by name"),
    (dict(stats={("a", 1): 2}), "with keys that are not names"),
    (dict(fields={"ez": np.zeros(3, "m8[s]")}), "must be an array of real numbers"),
    (dict(probes={"p": _probe(data=np.zeros(3, "m8[s]"))}), "1-D array of real numbers"),
    # these raised a bare ValueError from the values' checksum, and load refuses them
    *(pytest.param(parts, says, marks=pytest.mark.skipif(
        np.dtype(np.longdouble).itemsize <= 8, reason="long double is float64 here"))
      for parts, says in [
        (dict(probes={"p": _probe(data=np.zeros(3, np.longdouble))}),
         rf"probes\['p'\].data\['ez'\]: {_LONG} takes \d+ bytes a value; give at most 8"),
        (dict(probes={"p": _probe(where=np.zeros(3, np.longdouble))}),
         rf"positions\['ez'\]: {_LONG} takes \d+ bytes"),
        (dict(snapshots={"s": _snapshot(frames=np.zeros((2, 3, 4), np.longdouble))}),
         rf"snapshots\['s'\].frames: {_LONG} takes \d+ bytes"),
        (dict(fields={"hx": np.zeros((2, 2, 2), np.longdouble)}),
         rf"fields\['hx'\]: {_LONG} takes \d+ bytes")]),
])
def test_save_refuses_in_one_line_what_load_could_not_read_back(parts, says, tmp_path):
    """Result.save writes only what load() reads back: each part a name HDF5 takes and
    arrays of real numbers whose lengths go together; else one line naming the part, and
    no file."""
    res = yf.Result(scene_json=small_result(keep_fields=False).scene_json, **parts)
    with pytest.raises(yf.ValidationError, match=says) as info:
        res.save(tmp_path / "r.h5")
    assert "\n" not in str(info.value) and not (tmp_path / "r.h5").exists()


def test_results_parts_must_be_tables():
    with pytest.raises(yf.ValidationError, match="probes: a dict of names and their data, "
                                                 "not list"):
        yf.Result(scene_json="{}", probes=[1, 2])
    with pytest.raises(yf.ValidationError, match="fields: a dict"):
        yf.Result(scene_json="{}", fields=[1])
    with pytest.raises(yf.ValidationError, match="probe 'p' data: a dict of components"):
        yf.ProbeData("p", [1], {}, {})


def test_saved_parts_that_do_not_plot_are_named_with_the_file(tmp_path, capsys):
    from yeefdtd.cli import main

    base = small_result(keep_fields=False)
    probe = base.probes["a"]
    times = {c: t[::-1].copy() for c, t in probe.times.items()}   # read back, not plotted
    res = yf.Result(scene_json=base.scene_json,
                    probes={"a": yf.ProbeData("a", dict(probe.data), times,
                                              dict(probe.positions))})
    path = res.save(tmp_path / "r.h5")
    assert main(["plot", str(path), "-o", str(tmp_path / "png")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"yeefdtd: error: {path}: probe 'a': times: not evenly spaced")
    assert err.count("\n") == 1


def test_save_takes_lists_numpy_strings_and_refuses_text_hdf5_cannot_keep(tmp_path):
    """A snapshot of lists, a NumPy str_ component and a cyclic stats table: saved and
    read back, or refused in one line (tracebacks from nbytes, h5py and json before)."""
    base = small_result(keep_fields=False)
    snap = _snapshot(frames=np.zeros((2, 3, 4)).tolist(), times=[0.0, 1.0],
                     coords=([0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 3.0]), component=np.str_("ez"))
    path = yf.Result(scene_json=base.scene_json, snapshots={"s": snap}).save(tmp_path / "l.h5")
    back = yf.load(path).snapshots["s"]
    assert back.component == "ez" and back.frames.shape == (2, 3, 4)
    cyclic: dict = {}
    cyclic["me"] = cyclic
    for parts, says in ((dict(stats=cyclic), "stats: Circular reference"),
                        (dict(scene_json="a\0b"), "scene_json: not text HDF5 keeps"),
                        (dict(scene_json="\ud800"), "scene_json: not text HDF5 keeps")):
        parts.setdefault("scene_json", base.scene_json)
        with pytest.raises(yf.ValidationError, match=says) as info:
            yf.Result(**parts).save(tmp_path / "r.h5")
        assert "\n" not in str(info.value) and not (tmp_path / "r.h5").exists()


def test_load_refuses_a_fifo_without_waiting_on_it(tmp_path):
    """open() on a FIFO waits for a writer: load() refused nothing and hung."""
    import os

    fifo = tmp_path / "r.h5"
    os.mkfifo(fifo)
    with pytest.raises(yf.ValidationError, match="not a regular file") as info:
        yf.load(fifo)
    assert "\n" not in str(info.value)


def test_results_with_nan_equal_themselves_and_their_saved_copy(tmp_path):
    """A diverged run's partial result holds NaN: it is equal to itself and to what load()
    gives back (NaN compared unequal, so neither was)."""
    res = small_result()
    res.fields["ey"][0, 0, 0] = np.nan
    res.probes["a"].data["ez"][3] = np.nan
    res.snapshots["s"].frames[1, 2, 3] = np.nan
    assert copy.deepcopy(res) == res
    assert yf.load(res.save(tmp_path / "r.h5")) == res
    other = yf.load(res.save(tmp_path / "o.h5"))
    other.fields["ey"][0, 0, 1] = 1.0
    assert other != res


@pytest.mark.parametrize("how, says", [
    (lambda f: f["probes/a/ez"].attrs.__setitem__("position", [1.0]), "must be 3 coordinates"),
    (lambda f: f.attrs.__setitem__("scene", 5), "scene is not text"),
    (lambda f: _swap(f, "fields/ex", np.zeros((2, 2))),
     r"fields\['ex'\]: shape \(2, 2\); the scene's grid holds ex, ey, ez, hx, hy, hz of its "
     r"node shape \(17, 15, 13\)"),
    (lambda f: _swap(f, "fields/ex", np.zeros((17, 15, 12))), "shape"),
    (lambda f: f["fields"].__setitem__("qq", np.zeros((17, 15, 13))), r"fields\['qq'\]"),
])
def test_load_refuses_what_save_would_not_write(how, says, tmp_path):
    path = small_result().save(tmp_path / "r.h5")
    _damage(path, how)
    with pytest.raises(yf.ValidationError, match=says) as info:
        yf.load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_results_parts_are_keyed_by_their_names(tmp_path):
    res = small_result(keep_fields=False)
    res.probes["x"] = res.probes.pop("a")
    with pytest.raises(yf.ValidationError, match=r"probes\['x'\]: holds 'a'"):
        res.save(tmp_path / "r.h5")
    with pytest.raises(yf.ValidationError, match="scene_json: the scene as JSON text, not int"):
        yf.Result(scene_json=5)


@pytest.mark.parametrize("how, says", [
    (lambda f: (f.__delitem__("probes/a/ez_time"), f.create_group("probes/a/ez_time")),
     "/probes/a/ez_time is a group, not a 1-D array"),
    (lambda f: f["probes/a/ez"].attrs.__setitem__("position", "abc"),
     "/probes/a/ez: its position is not a list of coordinates"),
    (lambda f: f["snapshots/s"].attrs.__setitem__("position", [1.0, 2.0]),
     "/snapshots/s: its position is not a number"),
    (lambda f: (f.__delitem__("fields/ex"), f.create_group("fields/ex")),
     "/fields/ex is a group"),
])
def test_load_names_the_damaged_part_where_h5py_would_not(how, says, tmp_path):
    """A group where an array goes, or a position of the wrong kind, was reported in
    h5py's or NumPy's words ("Accessing a group is done with bytes or str", "only
    0-dimensional arrays can be converted to Python scalars"), not naming the part."""
    path = small_result().save(tmp_path / "r.h5")
    _damage(path, how)
    with pytest.raises(yf.ValidationError, match=says) as info:
        yf.load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
