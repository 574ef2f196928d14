"""The benchmark table's rows as text: every column in its place under the header, and the
launch column naming each role's shape and, for the marching variants, the pass's steps,
block, occupancy and registers (no GPU needed: the rows are made here); the header's
source revision."""

from __future__ import annotations

import pytest

from yeefdtd.bench import HEADER, Row, format_row, launch_text, pass_occupancy


def row(**kw) -> Row:
    base = dict(scene="dipole-cpml", n=512, variant="temporal", dtype="float32", steps=1000,
                ms_per_step=2.443, mcells_per_s=54948.0, bytes_per_cell=26.5, gb_per_s=1458.0,
                percent_of_copy=48.5, memory_bytes_per_cell=54.1,
                launch={"pass": [2, 64, 16, 64]}, vs_step_bound=0.88, steps_per_pass=2,
                occupancy=0.25, registers=128)
    base.update(kw)
    return Row(**base)


def test_marching_row_names_its_pass_shape_occupancy_and_registers():
    r = row()
    assert launch_text(r) == "pass 2,64,16,64 occ 0.25 128 regs"
    line = format_row(r)
    assert line.endswith("   2  pass 2,64,16,64 occ 0.25 128 regs")
    assert "54948" in line and "0.88" in line


def test_one_step_row_names_each_half_steps_shape_only():
    r = row(variant="indexed", launch={"h": [256, 1, 4, 0], "e": [256, 1, 4, 0]},
            steps_per_pass=1, occupancy=None, registers=None)
    assert launch_text(r) == "h 256,1,4,0 e 256,1,4,0"


def test_columns_line_up_with_the_header():
    line = format_row(row())
    for name in ("Mcells/s", "x bound", "NT"):
        end = HEADER.index(name) + len(name)
        assert line[end - 1] != " ", name   # each figure ends where its heading ends
    assert HEADER.endswith("launch") and line.index("pass") == HEADER.index("launch")


def test_pass_occupancy_comes_from_the_description():
    desc = {"variant": "temporal", "occupancy": {"registers": 128, "shared_bytes": 46464,
                                                 "local_bytes": 0, "blocks_per_sm": 1,
                                                 "occupancy": 0.25}}
    assert pass_occupancy(desc) == (0.25, 128)
    assert pass_occupancy({"variant": "indexed"}) == (None, None)
    assert pass_occupancy({"occupancy": {"registers": 64}}) == (None, None)


def test_the_source_revision_is_the_packages_own(tmp_path, monkeypatch):
    """The benchmark header names the commit of the package's own source, marked where its
    files changed; a directory that is not a checkout of it (an installed wheel, or a wheel
    inside another project's repository) gives "unknown"; $YEEFDTD_GIT_REV overrides."""
    import shutil
    import subprocess

    from yeefdtd.bench import source_revision

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    monkeypatch.delenv("YEEFDTD_GIT_REV", raising=False)
    pkg = tmp_path / "src" / "yeefdtd"
    pkg.mkdir(parents=True)
    assert source_revision(pkg) == "unknown"   # no repository at all

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t",
                        "-c", "commit.gpgsign=false", *args], check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "other.txt").write_text("a project of the user's\n")
    git("add", "other.txt")
    git("commit", "-q", "-m", "first")
    (pkg / "bench.py").write_text("x = 1\n")   # untracked: a wheel inside that repository
    assert source_revision(pkg) == "unknown"
    git("add", "src/yeefdtd/bench.py")
    git("commit", "-q", "-m", "second")
    sha = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert source_revision(pkg) == sha
    (tmp_path / "other.txt").write_text("changed outside the package\n")
    assert source_revision(pkg) == sha
    (pkg / "new.py").write_text("y = 1\n")   # a new module, not yet added
    assert source_revision(pkg) == sha + "+changes"
    (pkg / "new.py").unlink()
    (pkg / "bench.py").write_text("x = 2\n")
    assert source_revision(pkg) == sha + "+changes"
    monkeypatch.setenv("YEEFDTD_GIT_REV", "abc1234")
    assert source_revision(pkg) == "abc1234"


@pytest.mark.parametrize("error", ["missing", "timeout"])
def test_the_source_revision_is_unknown_without_a_working_git(tmp_path, monkeypatch, error):
    """No git on the path, or one that hangs past its timeout: "unknown", not an error."""
    import subprocess

    from yeefdtd import bench

    def run(*args, **kw):
        if error == "missing":
            raise FileNotFoundError("git")
        raise subprocess.TimeoutExpired("git", kw.get("timeout", 0))

    monkeypatch.delenv("YEEFDTD_GIT_REV", raising=False)
    monkeypatch.setattr(bench.subprocess, "run", run)
    assert bench.source_revision(tmp_path) == "unknown"


def test_bench_json_keeps_the_rows_measured_before_a_failure(tmp_path, monkeypatch):
    """`yeefdtd bench --json` into a directory not made yet: each row reaches the file as it
    is measured, so a case that fails later (out of memory, Ctrl-C) loses none of them;
    the file says it is not complete. Stand-ins for the device and the measurement."""
    import json

    from yeefdtd import bench, bench_studies, cli

    calls, fail = [], ["temporal"]

    def measure(model, variant, dtype, steps, copy_bw, launch=None, tune=None):
        calls.append(variant)
        if variant in fail:
            raise KeyboardInterrupt
        return row(variant=variant, n=model.grid.cells[0])

    monkeypatch.setattr(cli, "_need_cuda", lambda: None)
    monkeypatch.setattr(bench, "copy_bandwidth", lambda: 3.0e12)
    monkeypatch.setattr(bench, "environment", lambda: {"device": "stand-in", "memory_gib": 1,
                                                       "sms": 1, "memory_feed": None,
                                                       "yeefdtd": "0", "git": "x",
                                                       "cupy": "0", "date": "today"})
    monkeypatch.setattr(bench_studies, "measure", measure)
    out = tmp_path / "new" / "dir" / "bench.json"
    args = ["bench", "--scene", "pec-box", "-n", "16", "--variant", "indexed",
            "--variant", "fused", "--variant", "temporal", "--json", str(out)]
    assert cli.main(args) == 130   # "yeefdtd: interrupted"
    data = json.loads(out.read_text())
    assert [r["variant"] for r in data["rows"]] == ["indexed", "fused"]
    assert data["complete"] is False
    assert bench_studies.ROW_HOOK is None
    fail.clear()
    assert cli.main(args) == 0
    data = json.loads(out.read_text())
    assert [r["variant"] for r in data["rows"]] == ["indexed", "fused", "temporal"]
    assert data["complete"] is True


@pytest.mark.parametrize("name, n, needle", [
    ("pec-box", 0, "n: 0 is not a size"), ("pec-box", 2.5, "n: 2.5 is not a size"),
    ("pec-box", True, "n: True"), ("nope", None, "unknown benchmark scene 'nope'"),
    ("nope", 64, "unknown benchmark scene 'nope'")])
def test_bench_scene_refuses_sizes_and_names_it_cannot_build(name, n, needle):
    """A size of 0 built the default size (512^3 cells) in place of an error."""
    from yeefdtd.bench import bench_scene

    with pytest.raises(ValueError, match=needle):
        bench_scene(name, n)


def test_with_walls_puts_walls_on_the_faces_named_and_refuses_others():
    """The benchmarks' --walls: every face, or the faces named (a symmetry plane at z_min),
    the others as the scene had them; a face or kind it does not know, or a 3D face on a
    2D scene, is a one-line ValueError naming the option."""
    from yeefdtd.bench import bench_scene, with_walls

    scene = bench_scene("dipole-cpml", 64)
    half = with_walls(scene, "z_min=pmc,x_max=pec").boundaries
    assert (half.z_min, half.x_max) == ("pmc", "pec")
    assert half.z_max == scene.boundaries.z_max and half.y_min == scene.boundaries.y_min
    every = with_walls(scene, "pec").boundaries
    assert {getattr(every, f) for f in ("x_min", "x_max", "y_min", "y_max", "z_min",
                                        "z_max")} == {"pec"}
    for bad in ("z_min=pml", "w_min=pec", "z_min", ""):
        with pytest.raises(ValueError, match=r"--walls: .*give pec, pmc"):
            with_walls(scene, bad)
    with pytest.raises(ValueError, match="a face is given twice"):
        with_walls(scene, "x_min=pec,x_min=pmc")
    with pytest.raises(ValueError, match=r"--walls: .*y_min, y_max\)"):
        with_walls(bench_scene("tmz-2d", 64), "z_min=pec")
    # the scene's own refusal (a periodic pair broken), named as the option's
    periodic = scene.model_copy(update={"boundaries": scene.boundaries.model_copy(
        update={"x_min": "periodic", "x_max": "periodic"})})
    with pytest.raises(ValueError, match=r"^--walls: 'x_min=pec': the scene refuses them: "
                                         r"boundaries.x_min/x_max: periodic must be set"):
        with_walls(periodic, "x_min=pec")


def test_timed_segments_are_whole_passes(monkeypatch):
    """time_stepper's segments: whole passes of a marching stepper (NT 3: 200-step segments
    each ended in a pass of 2 steps, which moves what a whole pass moves), what is left
    over in the last one; every step timed once. Stand-ins for CuPy and the stepper."""
    import sys
    import types

    from yeefdtd.bench import time_stepper

    class Event:
        def record(self, stream):
            pass

        def synchronize(self):
            pass

    cuda = types.SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: 1.0)
    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(cuda=cuda))
    for nt, steps in ((3, 1000), (6, 1000), (2, 1000), (1, 7), (3, 7)):
        calls = []
        st = types.SimpleNamespace(steps_per_pass=nt, _stream=None, synchronize=lambda: None,
                                   advance=lambda start, n, c=calls: c.append((start, n)))
        time_stepper(st, steps, warmup=20)
        sizes = [n for _, n in calls[1:]]
        assert calls[0] == (0, 20) and sum(sizes) == steps
        assert [start for start, _ in calls[1:]] == [20 + sum(sizes[:q]) for q in
                                                     range(len(sizes))]
        assert all(n % nt == 0 for n in sizes[:-1]), (nt, sizes)
        assert sizes[-1] % nt == steps % nt
