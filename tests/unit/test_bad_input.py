"""Malformed scenes: each raises a ValidationError naming the field, and the CLI turns each
into exit status 2 with one line on stderr."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import yeefdtd as yf
from yeefdtd.cli import main


def base3d() -> dict:
    return {
        "grid": {"cells": [30, 30, 30], "spacing": 1e-3},
        "materials": {"glass": {"eps_r": 2.0}},
        "objects": [{"type": "sphere", "center": [0.015, 0.015, 0.015], "radius": 0.004,
                     "material": "glass"}],
        "sources": [{"component": "ez", "position": [0.01, 0.015, 0.015],
                     "waveform": {"type": "gaussian", "tau": 1e-11}}],
        "monitors": [{"type": "probe", "name": "p", "position": [0.02, 0.015, 0.015]},
                     {"type": "snapshot", "name": "s", "component": "ez", "axis": "z"}],
        "run": {"steps": 10},
    }


def base2d() -> dict:
    return {
        "grid": {"mode": "tmz", "cells": [40, 40], "spacing": 1e-3},
        "sources": [{"component": "ez", "cell": [20, 20],
                     "waveform": {"type": "ricker", "frequency": 10e9}}],
        "monitors": [{"type": "probe", "position": [0.03, 0.02]}],
        "run": {"steps": 10},
    }


def _holder(d: dict, path: str):
    """(the table or list that holds the item at ``path`` of ``d``, its key or index)."""
    keys = [int(k) if k.isdigit() else k for k in path.split(".")]
    cur = d
    for k in keys[:-1]:
        cur = cur[k]
    return cur, keys[-1]


def _set(path: str, value, base=base3d):
    """A case: ``path`` like 'sources.0.waveform.tau' set to ``value`` (DELETE removes)."""
    def make():
        d = base()
        cur, key = _holder(d, path)
        if value is DELETE:
            del cur[key]
        else:
            cur[key] = copy.deepcopy(value)
        return d
    return make


DELETE = object()


def _periodic_x() -> dict:
    d = base3d()
    d["boundaries"] = {"x_min": "periodic", "x_max": "periodic"}
    return d


CASES = [
    # (case id, scene maker, text the message must contain)
    ("cells-zero", _set("grid.cells", [0, 30, 30]), "grid.cells"),
    ("cells-negative", _set("grid.cells", [30, -2, 30]), "grid.cells"),
    ("cells-count", _set("grid.cells", [30, 30]), "grid.cells"),
    ("cells-float", _set("grid.cells", [30.5, 30, 30]), "grid.cells"),
    ("spacing-negative", _set("grid.spacing", -1e-3), "grid.spacing"),
    ("spacing-zero-axis", _set("grid.spacing", [1e-3, 0.0, 1e-3]), "grid.spacing"),
    ("spacing-text", _set("grid.spacing", "1mm"), "grid.spacing"),
    ("spacing-nan", _set("grid.spacing", math.nan), "grid.spacing"),
    ("mode-unknown", _set("grid.mode", "te"), "grid.mode"),
    ("grid-missing", _set("grid", DELETE), "grid"),
    ("eps-below-one", _set("materials.glass.eps_r", 0.5), "materials.glass.eps_r"),
    ("mu-below-one", _set("materials.glass.mu_r", [1, 0.9, 1]), "materials.glass.mu_r"),
    ("sigma-negative", _set("materials.glass.sigma_e", -0.1), "materials.glass.sigma_e"),
    ("sigma-m-negative", _set("materials.glass.sigma_m", -5.0), "materials.glass.sigma_m"),
    ("eps-two-values", _set("materials.glass.eps_r", [2, 3]), "materials.glass.eps_r"),
    ("material-builtin-name", _set("materials.pec", {"eps_r": 2.0}), "materials.pec"),
    ("material-unknown-key", _set("materials.glass.epsilon", 2.0), "materials.glass.epsilon"),
    ("background-unknown", _set("background", "water"), "background"),
    ("object-material-unknown", _set("objects.0.material", "gold"), "objects[0].material"),
    ("object-type-unknown", _set("objects.0.type", "cone"), "objects[0]"),
    ("sphere-radius-negative", _set("objects.0.radius", -0.001), "objects[0].radius"),
    ("box-size-zero", _set("objects.0", {"type": "box", "center": [0.01, 0.01, 0.01],
                                         "size": [0.01, 0.0, 0.01], "material": "pec"}),
     "objects[0].size"),
    ("object-outside", _set("objects.0.center", [0.5, 0.015, 0.015]), "objects[0]"),
    ("radius-infinite", _set("objects.0.radius", math.inf), "objects[0].radius"),
    ("source-component-unknown", _set("sources.0.component", "ew"), "sources[0].component"),
    ("source-outside", _set("sources.0.position", [0.01, 0.015, 0.031]),
     "sources[0].position"),
    # rounded to 6 digits, the point read as the domain's end it lies past
    ("source-just-outside", _set("sources.0.position", [0.01, 0.015, 0.030000001]),
     "sources[0].position: z = 0.030000001 m is outside the domain (0 to 0.03 m); move it "
     "inside"),
    ("snapshot-just-outside", _set("monitors.1.position", 0.030000001),
     "monitors[1].position: 0.030000001 m is outside the domain along z (0 to 0.03 m); move "
     "it inside"),
    ("source-position-2-values", _set("sources.0.position", [0.01, 0.015]),
     "sources[0].position"),
    ("source-position-and-cell", _set("sources.0.cell", [1, 1, 1]), "sources[0]"),
    ("source-cell-out-of-range", _set("sources.0", {"component": "ez", "cell": [30, 1, 1],
                                                   "waveform": {"type": "gaussian",
                                                                "tau": 1e-11}}),
     "sources[0].cell"),
    ("source-kind-unknown", _set("sources.0.kind", "firm"), "sources[0].kind"),
    ("source-unknown-key", _set("sources.0.colour", "red"), "sources[0].colour"),
    ("waveform-missing", _set("sources.0.waveform", DELETE), "sources[0].waveform"),
    ("waveform-type-unknown", _set("sources.0.waveform.type", "square"),
     "sources[0].waveform"),
    ("waveform-tau-negative", _set("sources.0.waveform.tau", -1e-12),
     "sources[0].waveform.tau"),
    ("samples-one-value", _set("sources.0.waveform", {"type": "samples", "dt": 1e-12,
                                                      "values": [1.0]}),
     "sources[0].waveform.values"),
    ("sources-not-a-list", _set("sources", "ez"), "sources"),
    ("probe-outside", _set("monitors.0.position", [-0.001, 0.015, 0.015]),
     "monitors[0].position"),
    ("probe-component-unknown", _set("monitors.0.components", ["ex", "bz"]),
     "monitors[0].components"),
    ("probe-every-zero", _set("monitors.0.every", 0), "monitors[0].every"),
    ("monitor-names-twice", _set("monitors.1.name", "p"), "monitors[1].name"),
    ("probe-name-slash", _set("monitors.0.name", "a/b"), "monitors[0].name"),
    ("probe-name-dot", _set("monitors.0.name", "."), "monitors[0].name"),
    # 40 characters, 80 bytes: with 64 of 4 bytes a plot's file name passed 255 bytes
    ("probe-name-bytes", _set("monitors.0.name", "\u00e9" * 40), "monitors[0].name"),
    ("snapshot-name-nul", _set("monitors.1.name", "s\u0000"), "monitors[1].name"),
    ("snapshot-axis-unknown", _set("monitors.1.axis", "w"), "monitors[1].axis"),
    ("snapshot-index-outside", _set("monitors.1.index", 31), "monitors[1].index"),
    ("monitor-type-missing", _set("monitors.0.type", DELETE), "monitors[0]"),
    ("courant-above-one", _set("run.courant", 1.2), "run.courant"),
    ("courant-zero", _set("run.courant", 0.0), "run.courant"),
    ("steps-zero", _set("run.steps", 0), "run.steps"),
    ("steps-and-duration", _set("run.duration", 1e-9), "run"),
    ("no-steps-no-duration", _set("run.steps", DELETE), "run"),
    ("dtype-unknown", _set("run.dtype", "float8"), "run.dtype"),
    ("backend-unknown", _set("run.backend", "opencl"), "run.backend"),
    ("spacing-tiny", _set("grid.spacing", 1e-200), "grid.spacing"),
    ("spacing-huge", _set("grid.spacing", [1e-3, 1e160, 1e-3]), "grid.spacing"),
    ("spacing-true", _set("grid.spacing", True), "grid.spacing"),
    ("spacing-list-true", _set("grid.spacing", [True, 1e-3, 1e-3]), "grid.spacing[0]"),
    ("cells-true", _set("grid.cells", [True, 30, 30]), "grid.cells[0]"),
    ("courant-tiny", _set("run.courant", 1e-320), "run.courant"),
    ("steps-huge", _set("run.steps", 10**12), "run.steps"),
    ("probe-every-huge", _set("monitors.0.every", 10**30), "monitors[0].every"),
    ("amplitude-true", _set("sources.0.amplitude", True), "sources[0].amplitude"),
    ("eps-true", _set("materials.glass.eps_r", [True, True, True]), "materials.glass.eps_r[0]"),
    ("samples-false", _set("sources.0.waveform", {"type": "samples", "dt": 1e-12,
                                                  "values": [0.0, False]}),
     "sources[0].waveform.values[1]"),
    ("variant-unknown", _set("run.variant", "tempral"), "run.variant"),
    ("variant-option-unknown", _set("run.variant", "fused:steps=2"), "run.variant"),
    ("variant-steps-one", _set("run.variant", "temporal:steps=1"), "run.variant"),
    ("variant-cells-text", _set("run.variant", "seed-multicell:cells=many"), "run.variant"),
    ("variant-switch-value", _set("run.variant", "seed-xyz:pad32=yes"), "run.variant"),
    ("variant-empty-option", _set("run.variant", "indexed:"), "run.variant: 'indexed:' has "
     "an empty option"),
    ("variant-option-twice", _set("run.variant", "seed-xyz:pad32,pad32"), "run.variant: "
     "'seed-xyz:pad32,pad32' gives option 'pad32' twice"),
    ("variant-auto-options", _set("run.variant", "auto:steps=2"), "run.variant"),
    ("cpml-too-thick", _set("boundaries", {"x_min": {"cells": 11}}), "boundaries.x_min.cells"),
    ("cpml-order-zero", _set("boundaries", {"y_max": {"order": 0}}), "boundaries.y_max.order"),
    ("periodic-one-face", _set("boundaries", {"x_min": "periodic", "x_max": "pec"}),
     "boundaries.x_min"),
    ("boundary-unknown", _set("boundaries", {"z_max": "absorbing"}), "boundaries.z_max"),
    ("unknown-top-key", _set("colour", "blue"), "colour"),
    ("2d-component-3d-only", _set("sources.0.component", "ex", base2d),
     "sources[0].component"),
    ("2d-z-face", _set("boundaries", {"z_min": "pec"}, base2d), "boundaries.z_min"),
    ("2d-position-3-values", _set("monitors.0.position", [0.03, 0.02, 0.0], base2d),
     "monitors[0].position"),
    ("2d-cylinder-along-x", _set("objects", [{"type": "cylinder", "center": [0.02, 0.02],
                                               "radius": 0.005, "axis": "x",
                                               "material": "pec"}], base2d),
     "objects[0].axis"),
    ("2d-cells-three", _set("grid.cells", [40, 40, 1], base2d), "grid.cells"),
    # a plane past the component's last: clamped to the last before (another plane recorded)
    ("snapshot-index-half-cell", _set("monitors.1.index", 30), "monitors[1].index: 30 is "
     "outside 0..29, the planes of ez along z (ez lies half a cell in along z)"),
    ("snapshot-index-periodic", _set("monitors.1", {
        "type": "snapshot", "component": "ey", "axis": "x", "index": 30}, _periodic_x),
     "monitors[1].index: 30 is outside 0..29, the planes of ey along x (periodic along x"),
    # ignored before: the run was of an infinite cylinder
    ("2d-cylinder-length", _set("objects", [{"type": "cylinder", "center": [0.02, 0.02],
                                             "radius": 0.005, "length": 0.01,
                                             "material": "pec"}], base2d),
     "objects[0].length: a 2D grid is the same at every z"),
    # valid until the run's end, whose result could not hold it
    ("material-name-surrogate", _set("materials", {"m\ud800": {"eps_r": 2.0}}),
     "materials: the name 'm\\ud800' is not valid text"),
    # a key that is not text: pydantic names only the table that holds it (none at the top)
    ("key-surrogate", _set("gr\ud800id", 1), "the key or value 'gr\\ud800id' is not valid text"),
    ("grid-key-surrogate", _set("grid.\udc00x", 3), "grid: the key or value '\\udc00x' is not "
     "valid text"),
    # the run's summary line split in two
    ("name-newline", _set("name", "sm\x07all\nnext"), "name: 'sm\\x07all\\nnext' holds a "
     "control character"),
    # the result kept one series of the two
    ("probe-component-twice", _set("monitors.0.components", ["ez", "hx", "ez"]),
     "monitors[0].components: 'ez' is listed 2 times; list each component once"),
    # pydantic's own words, which named no choice or said nothing of what to write
    ("face-not-text", _set("boundaries", {"x_min": True}), "boundaries.x_min: input should "
     "be 'pec', 'pmc', 'periodic' or 'cpml', or a table of CPML settings (got True)"),
    ("grid-array-of-tables", lambda: {**base3d(), "grid": [base3d()["grid"]]},
     "grid: must be one table, not a list of them"),
    ("waveform-text", _set("sources.0.waveform", "gaussian"), "sources[0].waveform: must be a "
     "table of settings, not text (got 'gaussian'); if 'gaussian' names its type, write "
     "type = 'gaussian' inside that table"),
    ("cells-empty", _set("grid.cells", []), "grid.cells: has the wrong number of values "
     "(got []): give at least 2, not 0"),
    ("spacing-four", _set("grid.spacing", [1e-3] * 4), "grid.spacing: has the wrong number "
     "of values (got [0.001, 0.001, 0.001, 0.001]): give at most 3, not 4"),
]


def test_there_are_at_least_thirty_cases():
    assert len(CASES) >= 30


def test_the_base_scenes_are_valid():
    yf.Scene.parse(base3d())
    yf.Scene.parse(base2d())


@pytest.mark.parametrize("make, where", [(m, w) for _, m, w in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_scene_names_the_field(make, where):
    with pytest.raises(yf.ValidationError) as info:
        yf.Scene.parse(make())
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith(where), f"{msg!r} does not start with {where!r}"


@pytest.mark.parametrize("make, where", [(m, w) for _, m, w in CASES],
                         ids=[c[0] for c in CASES])
def test_cli_reports_bad_scene_in_one_line(make, where, tmp_path, capsys):
    path = tmp_path / "scene.json"
    path.write_text(json.dumps(make()))
    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert where in err


@pytest.mark.parametrize("waveform, amplitude", [
    ({"type": "ricker", "frequency": 1e-300}, 1.0),
    ({"type": "modulated_gaussian", "frequency": 5e-324}, 1.0)])
def test_a_waveform_that_is_not_finite_is_refused_before_the_run(waveform, amplitude):
    """Found where the sources are sampled, as one line naming the source, not as a
    divergence at the first check (nor as warnings from NumPy)."""
    import warnings

    from yeefdtd.build.model import build_model

    d = base3d()
    d["sources"][0]["waveform"], d["sources"][0]["amplitude"] = waveform, amplitude
    scene = yf.Scene.parse(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(yf.SetupError, match=r"^sources\[0\]: .* not finite") as info:
            build_model(scene)
    assert "\n" not in str(info.value)


def test_a_duration_of_more_steps_than_a_run_may_take_names_it():
    from yeefdtd.build.model import make_grid, step_count

    d = base3d()
    del d["run"]["steps"]
    d["run"]["duration"] = 1e300
    scene = yf.Scene.parse(d)
    with pytest.raises(yf.ValidationError, match=r"^run\.duration: .* more than 1e\+09"):
        step_count(scene, make_grid(scene).dt)


def test_a_sphere_larger_than_floats_square_holds_everything():
    """Its radius squared overflows: every cell is inside, without NumPy's warnings."""
    import warnings

    from yeefdtd.build.model import make_grid
    from yeefdtd.build.voxelize import material_numbers, voxelize

    d = base3d()
    d["objects"][0]["radius"] = 1e308
    scene = yf.Scene.parse(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mats = voxelize(scene, make_grid(scene), "ez")
    assert (mats == material_numbers(scene)["glass"]).all()


def test_text_nested_past_the_parsers_depth_is_one_line():
    for text, parse in (('{"a":' * 100000 + "1" + "}" * 100000, yf.Scene.from_json),
                        ("a = " + "[" * 100000 + "]" * 100000, yf.Scene.from_toml)):
        with pytest.raises(yf.ValidationError, match="nested too deeply"):
            parse(text)


def test_memory_a_model_cannot_have_is_a_one_line_error(monkeypatch):
    """A MemoryError while the arrays are built becomes OutOfMemory (a YeeError: one line
    from the command line); faked, as a real one may end in the kernel's OOM killer."""
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")

    def build(*a, **k):
        raise MemoryError("Unable to allocate 1.82 TiB for an array")

    monkeypatch.setattr(run_mod, "build_model", build)
    with pytest.raises(yf.OutOfMemory, match="does not fit in this machine's memory"):
        yf.run(yf.Scene.parse(base3d()), progress=False)
    # it names the largest part and what shrinks it, as validate's note does
    d = base3d()
    d["monitors"][1]["every"] = 1
    with pytest.raises(yf.OutOfMemory, match=r"its largest part is the records \(.*\): "
                                             "record less"):
        yf.run(yf.Scene.parse(d), steps=200_000, progress=False)


def test_a_soft_source_on_a_conductor_is_said_to_add_nothing(capsys, monkeypatch):
    """Inside PEC its component is held at zero: the run goes on, but a note says so, once,
    and the result's stats keep it. A hard source there gets a note of its own (it sets a
    field the conductor does not carry; the soft one's note used to suggest it), in
    validate too."""
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")
    monkeypatch.setattr(run_mod, "_notes_shown", set())
    d = base3d()
    d["objects"][0]["material"] = "pec"
    d["sources"][0]["position"] = d["objects"][0]["center"]
    d["run"]["backend"] = "numpy"
    res = yf.run(yf.Scene.parse(d), progress=False)
    err = capsys.readouterr().err
    assert err.count("note: sources[0]: a soft source where ez is held at zero") == 1
    assert _besides_dispersion(res.stats["notes"])[0].startswith("sources[0]: a soft source")
    d["sources"][0]["kind"] = "hard"
    res = yf.run(yf.Scene.parse(d), progress=False)
    said = _besides_dispersion(res.stats["notes"])
    assert said[0].startswith("sources[0]: a hard source where ez is held at "
                              "zero (inside a PEC or PMC object, or on a PEC "
                              "wall) sets a field the conductor does not carry")
    from yeefdtd.build.model import make_grid, notes_before_run

    scene = yf.Scene.parse(d)
    assert _besides_dispersion(notes_before_run(scene, make_grid(scene), 10))[0] == said[0]
    capsys.readouterr()
    d["sources"][0]["position"] = [0.01, 0.015, 0.015]   # in vacuum: nothing to say
    res = yf.run(yf.Scene.parse(d), progress=False)
    assert not _besides_dispersion(res.stats.get("notes", [])) and \
        "source where" not in capsys.readouterr().err


def _besides_dispersion(notes) -> list[str]:
    """``notes`` less the note on the grid's dispersion, which base3d's pulse (tau 10 ps
    on 1 mm cells: 4.4 cells a wavelength where its spectrum falls to 1e-2) gets."""
    return [n for n in notes if "(10 a wavelength) keep it under" not in n]


def _notes(d: dict, steps: int = 10) -> tuple[str, ...]:
    from yeefdtd.build.model import make_grid, notes_before_run

    scene = yf.Scene.parse(d)
    return notes_before_run(scene, make_grid(scene), steps)


@pytest.mark.parametrize("waveform, field", [
    ({"type": "gaussian", "tau": 1e-11, "t0": 0.0}, "t0"),
    ({"type": "ricker", "frequency": 10e9, "t0": 0.5e-10}, "t0"),
    ({"type": "modulated_gaussian", "frequency": 10e9, "t0": 3e-11}, "t0"),
    ({"type": "samples", "dt": 1e-12, "values": [0.5, 1.0, 0.5], "start": -1e-12}, "start"),
    # zero at t = 0 itself, and cut all the same (w(0) alone was read)
    ({"type": "diff_gaussian", "tau": 1e-11, "t0": 0.0}, "t0"),
    ({"type": "modulated_gaussian", "frequency": 10e9, "t0": 25e-12}, "t0"),
])
def test_a_pulse_already_under_way_at_the_start_gets_a_note(waveform, field):
    """The run samples a waveform from t = 0 on, so a pulse whose t0 leaves it above 1e-6 of
    its peak there is switched on as a step, and its spectrum() (the reference for a
    transfer function) is not that of what was driven: a Gaussian of t0 = 0 gave a probe
    spectrum 0.47 to 0.56 times spectrum(); samples before t = 0 are never driven."""
    d = base3d()
    d["sources"][0]["waveform"] = waveform
    notes = [n for n in _notes(d) if f"waveform.{field}" in n]
    assert len(notes) == 1 and notes[0].startswith(f"sources[0].waveform.{field}: ")
    if waveform["type"] == "gaussian":   # at its peak at t = 0 ('reaches 1 of its peak')
        assert "the pulse reaches its full peak by t = 0" in notes[0]
    # the default delays, and samples that start at 0, say nothing
    del d["sources"][0]["waveform"][field]
    assert not [n for n in _notes(d) if "waveform.t0" in n or "waveform.start" in n]


def test_a_thin_cpml_gets_a_note():
    """Layers of fewer than 5 cells reflect far more than the default's 10 cells (TMz, a
    resolved pulse: 1 cell -8 dB, 2 -24, 4 -45, 10 -92; THIN_CPML_DB in build/model.py):
    one note for the faces of each thickness, none from 5 cells on or on other faces."""
    d = base3d()
    d["sources"][0]["position"] = [0.015, 0.015, 0.015]
    d["monitors"][0]["position"] = [0.016, 0.015, 0.015]
    d["boundaries"] = {"x_min": {"cells": 2}, "x_max": {"cells": 2}, "y_min": {"cells": 4},
                       "y_max": {"cells": 5}, "z_min": "periodic", "z_max": "periodic"}
    notes = [n for n in _notes(d) if n.startswith("boundaries.")]
    assert notes == ["boundaries.x_min, x_max: a CPML of 2 cells reflects about -24 dB of a "
                     "well-resolved pulse, against -92 dB for the default 10 cells; give it "
                     "10 (the default)",
                     "boundaries.y_min: a CPML of 4 cells reflects about -44 dB of a "
                     "well-resolved pulse, against -92 dB for the default 10 cells; give it "
                     "10 (the default)"]
    # an axis that takes no thicker layer (a third of it at most) says so, not "10"
    d2 = base2d()
    d2["grid"]["cells"] = [12, 40]
    d2["sources"][0]["cell"], d2["monitors"][0]["position"] = [6, 20], [0.006, 0.03]
    d2["boundaries"] = {"x_min": {"cells": 4}, "x_max": {"cells": 2}, "y_min": {"cells": 3},
                        "y_max": "pec"}
    assert [n.split("; ")[1] for n in _notes(d2) if n.startswith("boundaries.")] == [
        "give it more (4 cells, as many as the axis takes: about -44 dB)",   # x_max, 2
        "give it 10 (the default)",                                         # y_min, 3
        "a thicker one needs a longer axis (a layer takes at most a third of it)"]   # x_min


def test_a_source_or_probe_inside_a_cpml_layer_gets_a_note():
    """A layer absorbs and rescales what a source inside it radiates (a 10 GHz Ricker 1, 3
    and 6 cells from the wall of a 10-cell layer gave 1.6%, 55% and 140% of the field 12
    cells away that it gives in the medium), and a probe there records the layer's fields.
    base3d: 30 cells a side, 10-cell layers on every face."""
    d = base3d()
    d["sources"][0]["position"] = [0.003, 0.015, 0.015]   # x = 3 cells: 7 into x_min's
    d["monitors"][0]["position"] = [0.015, 0.015, 0.028]  # z = 28: 8 into z_max's
    notes = _notes(d)
    assert [n for n in notes if n.startswith("sources[0]: inside the x_min CPML of 10 "
                                             "cells, 7 cells past its inner face")]
    assert [n for n in notes if n.startswith("monitors[0] ('p'): the probe lies inside the "
                                             "z_max CPML of 10 cells")]
    # on the layers' inner faces (x = 10, z = 20 cells): nothing to say
    d["sources"][0]["position"] = [0.010, 0.015, 0.015]
    d["monitors"][0]["position"] = [0.015, 0.015, 0.020]
    assert not [n for n in _notes(d) if "CPML" in n]
    # a periodic or PEC face has no layer
    d["sources"][0]["position"] = [0.003, 0.015, 0.015]
    for face in ("pec", "periodic"):
        d["boundaries"] = {"x_min": face, "x_max": face}
        assert not [n for n in _notes(d) if "CPML" in n]
    # 2D: a probe by cell on the far y face's layer
    d2 = base2d()
    d2["monitors"][0] = {"type": "probe", "cell": [20, 36]}
    assert [n for n in _notes(d2) if n.startswith("monitors[0] ('probe0'): the probe lies "
                                                  "inside the y_max CPML of 10 cells, 6")]


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_sources_too_weak_for_32_or_16_bits_get_a_note(dtype, capsys, monkeypatch):
    """float32 arithmetic loses fields below about 1e-38, so a note says so (float16's scale
    stays in float32's range: a ZeroDivisionError at 1e-320 before, a false divergence at
    1e-300); float64 says nothing."""
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")
    monkeypatch.setattr(run_mod, "_notes_shown", set())
    d = base3d()
    d["sources"][0]["amplitude"] = 1e-300
    d["run"]["backend"] = "numpy"
    scene = yf.Scene.parse(d)
    res = yf.run(scene, dtype=dtype, progress=False)
    assert res.stats["steps"] == 10 and \
        f"below what {dtype} holds" in _besides_dispersion(res.stats["notes"])[0]
    assert capsys.readouterr().err.count("note: sources: in these 10 steps") == 1
    assert not _besides_dispersion(yf.run(scene, dtype="float64",
                                          progress=False).stats.get("notes", []))
    # validate gives the same note, with the same bound, for the scene's dtype
    from yeefdtd.build.model import make_grid, notes_before_run

    for name in (dtype, "float64"):
        d["run"]["dtype"] = name
        s2 = yf.Scene.parse(d)
        notes = notes_before_run(s2, make_grid(s2), 10)
        want = [n for n in res.stats["notes"] if n.startswith("sources: in these")]
        assert [n for n in notes if n.startswith("sources: in these")] == \
            (want if name == dtype else [])


def test_a_json_key_given_twice_is_an_error_not_the_last_one():
    with pytest.raises(yf.ValidationError, match="'name' is given twice"):
        yf.Scene.from_json('{"name": "a", "name": "b", "grid": {"cells": [4, 4, 4], '
                           '"spacing": 1e-3}, "run": {"steps": 1}}')


def test_a_single_toml_table_where_a_list_goes_says_what_to_write():
    text = ('[grid]\ncells = [10, 10, 10]\nspacing = 1e-3\n[run]\nsteps = 2\n'
            '[sources]\ncomponent = "ez"\ncell = [5, 5, 5]\n')
    with pytest.raises(yf.ValidationError, match=r"^sources: a list of sources, not one "
                       r"table: wrap it in \[...\] \(in TOML, \[\[sources\]\] for each\)$"):
        yf.Scene.from_toml(text)


@pytest.mark.parametrize("path, value, says", [
    ("materials.glass.eps_r", 1e200, "materials.glass.eps_r: must be at most 1e+12"),
    ("materials.glass.eps_r", [2.0, 2.0, 1e13], "materials.glass.eps_r: must be at most"),
    ("materials.glass.mu_r", 2e154, "materials.glass.mu_r: must be at most 1e+12")])
def test_permittivities_past_any_medium_are_refused(path, value, says, tmp_path, capsys):
    """On an object that cuts cells the coefficients square eps_r and mu_r: from about
    1.4e154 on that overflowed a float, a traceback and status 1 from validate and run."""
    d = _set(path, value)()
    d["objects"][0]["type"], d["objects"][0]["size"] = "box", [0.0071, 0.0073, 0.0075]
    del d["objects"][0]["radius"]
    f = tmp_path / "s.json"
    f.write_text(json.dumps(d))
    for cmd in ("validate", "run"):
        assert main([cmd, str(f)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err
    d = _set(path, 1e12)()   # the largest taken
    yf.Scene.parse(d)


def test_a_pulse_too_long_for_its_reach_to_be_a_number_is_no_traceback(capsys, tmp_path):
    """tau = 1e308 s: the spectrum's reach underflowed to 0 and the frequency note divided
    by it (a ZeroDivisionError and status 1 from validate and run); now the pulse, which
    never rises within the run, gets the note that it drives nothing."""
    d = base3d()
    d["sources"][0]["waveform"] = {"type": "gaussian", "tau": 1e308}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(d))
    assert main(["validate", str(f)]) == 0
    assert "so it drives nothing" in capsys.readouterr().err


def test_an_empty_variant_on_the_command_line_is_refused(tmp_path, capsys):
    path = tmp_path / "s.json"
    d = base3d()
    d["run"]["backend"] = "numpy"
    path.write_text(json.dumps(d))
    assert main(["run", str(path), "--variant", "", "-q", "-o", str(tmp_path / "r.h5")]) == 2
    err = capsys.readouterr().err   # it named 'variant' with pydantic's words, and no fix
    assert err.count("\n") == 1 and "--variant '': empty; give a kernel variant" in err
    assert main(["run", str(path), "--variant", "bogus", "-q", "-o", str(tmp_path / "r.h5")]) == 2
    assert "--variant 'bogus': unknown kernel variant 'bogus'; use auto or one of" in \
        capsys.readouterr().err
    # tune took an empty --variant for the scene's own and went on to tune that one
    assert main(["tune", str(path), "--variant", ""]) == 2
    assert "--variant '': unknown kernel variant ''" in capsys.readouterr().err


def _frequency_notes_of(scene_dict) -> list[str]:
    from yeefdtd.build.model import make_grid, notes_before_run

    scene = yf.Scene.parse(scene_dict)   # (the note on the grid's dispersion: below)
    return [n for n in _besides_dispersion(notes_before_run(scene, make_grid(scene),
                                                            scene.run.steps or 10))
            if "cells a wavelength" in n or "time step" in n]


def _dispersion_notes_of(scene_dict) -> list[str]:
    from yeefdtd.build.model import make_grid, notes_before_run

    scene = yf.Scene.parse(scene_dict)
    return [n for n in notes_before_run(scene, make_grid(scene), scene.run.steps or 10)
            if "(10 a wavelength) keep it under" in n]


def test_a_pulse_the_grid_carries_slow_gets_a_note():
    """A pulse resolved well enough to propagate (2 cells a wavelength or more at its
    reach) but not to keep its shape was run without a word: a Ricker of 1.2 GHz in soil of
    eps_r 9 on 5 mm cells, against a grid of 1.25 mm, came out 54% off and 58 ps late over
    0.5 m. Its spectrum falls to 1e-2 of its peak at 3.3 GHz, 6 cells a wavelength in the
    soil, where the Yee grid's waves travel 4.7% slow (its dispersion relation along an
    axis); a note says so from 2% on (about 9 cells a wavelength), and what cells keep it
    under. At 0.6 GHz, 12 cells a wavelength: no note."""
    from yeefdtd.build.plans import phase_error

    d = {"grid": {"mode": "tmz", "cells": [300, 200], "spacing": 5e-3},
         "materials": {"soil": {"eps_r": 9.0, "sigma_e": 0.01}}, "background": "soil",
         "sources": [{"component": "ez", "cell": [150, 100],
                      "waveform": {"type": "ricker", "frequency": 1.2e9}}],
         "run": {"duration": 10e-9}}
    said = _dispersion_notes_of(d)
    assert len(said) == 1 and said[0].startswith(
        "sources[0].waveform: at 3.31") and "ricker spectrum falls to 0.01 of its peak, the " \
        "grid's 6 cells a wavelength in 'soil' (refractive index 3) along x carry waves 4.7% " \
        "slower than c / n" in said[0] and said[0].endswith(
        "cells of at most 0.00301 m (10 a wavelength) keep it under 2%, or use a lower "
        "frequency"), said
    d["sources"][0]["waveform"]["frequency"] = 0.6e9
    assert _dispersion_notes_of(d) == []
    # a sine at its own frequency: 60 GHz on 1 mm cells, 5 cells a wavelength, 3.9% (TMz at
    # Courant 0.99); at 110 GHz, 2.7 cells, past the grid's cutoff
    d = base2d()
    d["sources"][0]["waveform"] = {"type": "sine", "frequency": 60e9}
    said = _dispersion_notes_of(d)
    assert len(said) == 1 and said[0].startswith(
        "sources[0].waveform: at its 6e+10 Hz the grid's 5 cells a wavelength along x carry "
        "waves 3.9% slower than c (the grid's dispersion, which shifts its phase "), said
    d["sources"][0]["waveform"]["frequency"] = 110e9
    said = _dispersion_notes_of(d)
    assert len(said) == 1 and said[0].startswith(
        "sources[0].waveform: at its 1.1e+11 Hz the grid's 2.7 cells a wavelength along x are "
        "past the grid's cutoff: such waves do not propagate at all"), said
    # switched off: nothing to say
    d["sources"][0]["amplitude"] = 0.0
    assert _dispersion_notes_of(d) == []
    # samples of a 25 GHz burst in the soil, 1 mm cells: their spectrum counts as a pulse's
    d = base2d()
    d["materials"] = {"soil": {"eps_r": 9.0}}
    d["background"] = "soil"
    t = np.arange(200) * 3e-12
    d["sources"][0]["waveform"] = {"type": "samples", "dt": 3e-12, "values": list(
        np.sin(2 * np.pi * 25e9 * t) * np.exp(-((t - 2e-10) / 5e-11) ** 2))}
    said = _dispersion_notes_of(d)
    assert len(said) == 1 and "where its samples spectrum falls to 0.01 of its peak" in \
        said[0], said
    # a periodic axis shorter than the wavelength holds only waves uniform along it: 400 x 2
    # x 1 cells of 1 x 10 x 1 mm, a 5 GHz sine (60 cells a wavelength along x) says nothing
    d = {"grid": {"cells": [400, 2, 1], "spacing": [1e-3, 1e-2, 1e-3]},
         "boundaries": {"y_min": "periodic", "y_max": "periodic", "z_min": "periodic",
                        "z_max": "periodic"},
         "sources": [{"component": "ez", "cell": [200, 0, 0],
                      "waveform": {"type": "sine", "frequency": 5e9}}],
         "run": {"steps": 10}}
    assert _dispersion_notes_of(d) == []
    # the relation itself: 10 cells a wavelength at a small Courant number, about
    # (k d)^2 / 24 = 1.6%; none at d -> 0; no propagation past the grid's cutoff
    assert phase_error(1e9, 3e8, 0.03, 1e-15) == pytest.approx(
        (2 * math.pi / 10) ** 2 / 24, rel=0.05)
    assert phase_error(1e9, 3e8, 1e-6, 1e-18) < 1e-9
    assert phase_error(1e9, 3e8, 0.3, 1e-12) == 1.0


def test_a_frequency_the_grid_cannot_carry_in_its_slowest_medium_is_noted():
    """The check of cells a wavelength was in vacuum alone: a 40 GHz sine over 2 mm cells in
    soil of eps_r 16 (0.94 cells a wavelength: nothing propagates) got no note, where the
    same in vacuum at 160 GHz did. It now counts the slowest medium the fields see (TMz's
    Ez sees eps_zz alone), and for a pulse without a frequency (or a Ricker) where its
    spectrum reaches 1e-3 of its peak."""
    d = base2d()
    d["grid"]["spacing"] = 2e-3
    d["grid"]["cells"] = [40, 40]
    d["materials"] = {"soil": {"eps_r": 16.0}}
    d["background"] = "soil"
    d["sources"][0]["waveform"] = {"type": "sine", "frequency": 40e9}
    said = _frequency_notes_of(d)
    assert len(said) == 1 and said[0].startswith(
        "sources[0].waveform.frequency: 4e+10 Hz gives 0.94 cells a wavelength in 'soil' "
        "(refractive index 4)"), said
    d["materials"]["soil"]["eps_r"] = [16.0, 16.0, 1.0]   # vacuum for Ez
    assert _frequency_notes_of(d) == []
    # a Ricker at 60 GHz on 1 mm cells: 5 cells at its peak, but its spectrum reaches 192
    d = base2d()
    d["sources"][0]["waveform"] = {"type": "ricker", "frequency": 60e9}
    said = _frequency_notes_of(d)
    assert len(said) == 1 and "ricker spectrum reaches 1.92e+11 Hz (1e-3 of its peak), " \
        "1.6 cells a wavelength" in said[0] and "use a lower frequency" in said[0], said
    d["sources"][0]["waveform"]["frequency"] = 30e9
    assert _frequency_notes_of(d) == []
    # a Gaussian pulse inside a dielectric object: the object's medium counts
    d = base3d()
    d["materials"]["glass"]["eps_r"] = 4.0
    said = _frequency_notes_of(d)
    assert len(said) == 1 and "1.8 cells a wavelength in 'glass' (refractive index 2)" in \
        said[0] and "use a wider pulse (tau)" in said[0], said


def test_a_frequency_given_in_ghz_where_hz_go_is_named_as_such():
    """A modulated Gaussian with its tau given and a carrier of 10 (GHz meant) ran as a
    plain Gaussian without a word; a sine of 8.2 (GHz meant), which drives nothing, was
    told to move its pulse (its delay, t0 or tau, none of which a sine has) into the run.
    Both now say to give the frequency in Hz."""
    from yeefdtd.build.model import make_grid, notes_before_run

    def notes(wf, steps=400):
        d = base2d()
        d["sources"][0]["waveform"] = wf
        d["run"]["steps"] = steps
        scene = yf.Scene.parse(d)
        return list(notes_before_run(scene, make_grid(scene), steps))

    said = notes({"type": "modulated_gaussian", "frequency": 10, "tau": 20e-12})
    assert [n for n in said if "carrier" in n] == [
        "sources[0].waveform.frequency: a carrier of 10 Hz turns 2e-10 of a cycle over the "
        "envelope's tau of 2e-11 s, so the pulse is a plain Gaussian, with no band around "
        "the carrier; give the frequency in Hz (1e+10 for 10 GHz), or use type = 'gaussian'"]
    assert not [n for n in notes({"type": "modulated_gaussian", "frequency": 10e9,
                                  "tau": 20e-12}) if "carrier" in n]
    said = [n for n in notes({"type": "sine", "frequency": 8.2}) if "drive" in n]
    assert said == ["sources[0].waveform.frequency: 8.2 Hz turns 7.7e-09 of a cycle over the "
                    "run's 9.34e-10 s, so it drives no wave (nothing, or a field that hardly "
                    "changes); give it in Hz (8.2e+09 for 8.2 GHz)"], said
    said = [n for n in notes({"type": "ricker", "frequency": 1.2}) if "drive" in n]
    assert len(said) == 1 and "give it in Hz (1.2e+09 for 1.2 GHz)" in said[0], said
    # a sine of 10 "Hz" at a phase of pi / 2 drives a constant, not nothing: noted too
    said = [n for n in notes({"type": "sine", "frequency": 10, "phase": 1.5708, "ramp": 0})
            if "give it in Hz" in n]
    assert len(said) == 1, said
    # frequencies that read as GHz the time step could not sample are not said to be GHz:
    # a carrier of 1 GHz with a tau of 2 ps (the slip is tau) gets the aliasing note
    said = notes({"type": "modulated_gaussian", "frequency": 1e9, "tau": 2e-12})
    assert not [n for n in said if "GHz" in n] and \
        [n for n in said if "past the" in n and "that the time step of" in n], said
    # a Gaussian past the run's end: its own parameters
    said = [n for n in notes({"type": "gaussian", "tau": 1e-9}, steps=10)
            if "drives nothing" in n]
    assert len(said) == 1 and said[0].endswith("move its pulse into the run (t0 or tau) or "
                                               "run longer"), said


def test_an_axis_of_one_cell_does_not_set_the_cells_a_wavelength():
    """A 3D run made 1D by one periodic cell of 1 km across (the fields cannot vary along
    those axes) was told its pulse had 7.2e-06 cells a wavelength and could not propagate,
    though the run was exact: the note took the coarsest spacing of every axis. It now
    takes the axes of more than one cell; the same pulse over 8 mm cells along x is
    still noted."""
    d = {"grid": {"mode": "3d", "cells": [400, 1, 1], "spacing": [1e-3, 1e3, 1e3]},
         "boundaries": "periodic",
         "sources": [{"component": "ez", "cell": [0, 0, 0], "kind": "hard",
                      "waveform": {"type": "gaussian", "tau": 20e-12}}],
         "run": {"steps": 10, "courant": 0.4}}
    assert _frequency_notes_of(d) == []
    d["grid"]["spacing"] = [8e-3, 1e3, 1e3]   # its reach, 41.8 GHz: 0.9 cells of 8 mm
    said = _frequency_notes_of(d)
    assert len(said) == 1 and "gaussian spectrum reaches" in said[0] and \
        "0.9 cells a wavelength" in said[0], said


def test_a_sine_the_time_step_samples_gets_no_note_about_an_aliased_pulse():
    """A 110 GHz sine over 1 mm cells (2.7 cells a wavelength, 3.9 samples a period) was
    told its 'pulse' was aliased and to widen its tau, which a sine does not have."""
    d = base2d()
    d["sources"][0]["waveform"] = {"type": "sine", "frequency": 110e9}
    assert _frequency_notes_of(d) == []


def test_sources_that_drive_nothing_get_no_note_about_their_strength(capsys, monkeypatch):
    """Amplitude 0 (or a pulse after the run's end): raising it or float64 would not help."""
    import importlib

    run_mod = importlib.import_module("yeefdtd.run")
    monkeypatch.setattr(run_mod, "_notes_shown", set())
    d = base3d()
    d["sources"][0]["amplitude"] = 0.0
    d["run"]["backend"] = "numpy"
    res = yf.run(yf.Scene.parse(d), progress=False)
    # the one note says that nothing drives the fields (below), none of their strength
    assert _besides_dispersion(res.stats["notes"]) == [NOTHING_DRIVES.format("every amplitude "
                                                                             "is 0")]
    assert len(_besides_dispersion(line for line in capsys.readouterr().err.splitlines()
                                   if line.startswith("note:"))) == 1


NOTHING_DRIVES = ("sources: {}, so nothing drives the fields: they stay zero, and every "
                  "monitor records zeros, unless set with stepper.set_field (they then evolve "
                  "from those values); add a source, or give one an amplitude")


def test_a_scene_that_drives_nothing_is_noted(tmp_path, capsys):
    """No source, or every amplitude 0, validated and ran without a word, and every
    probe read exactly zero; one source of amplitude 0 beside one that drives gets none."""
    from yeefdtd.cli import main

    d = base3d()
    d["sources"][0]["amplitude"] = 0.0
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    assert NOTHING_DRIVES.format("every amplitude is 0") in capsys.readouterr().err
    d["sources"] = []
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    assert NOTHING_DRIVES.format("none is given") in capsys.readouterr().err
    d = base3d()
    d["sources"].append({**d["sources"][0], "amplitude": 0.0})
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    assert "nothing drives" not in capsys.readouterr().err


def test_a_source_on_the_wall_behind_a_cpml_is_said_so():
    """A source on the domain's face at x_max, behind a CPML, was told it sat inside a PEC
    or PMC object or on a PEC wall, in a scene without either: it is the PEC wall that
    backs the CPML."""
    from yeefdtd.build.model import make_grid, notes_before_run

    d = base3d()
    d["grid"]["cells"] = [40, 40, 40]
    d["objects"] = []
    d["sources"][0]["position"] = [0.040, 0.020, 0.020]   # Ez on the x_max face
    scene = yf.Scene.parse(d)
    said = [n for n in _besides_dispersion(notes_before_run(scene, make_grid(scene), 10))
            if "sources[0]" in n]
    assert said == ["sources[0]: on the PEC wall behind the x_max CPML, where ez is held at "
                    "zero, so it adds nothing; move it inside the domain, out of the layer"]
    # Hx on the x_min wall's plane is normal to it: the wall does not hold it; a PMC box
    # there does, and is what the note names
    d["sources"][0] = {"component": "hx", "cell": [0, 20, 20],
                       "waveform": {"type": "gaussian", "tau": 1e-11}}
    d["objects"] = [{"type": "box", "center": [0, 0.02, 0.02], "size": [0.004, 0.01, 0.01],
                     "material": "pmc"}]
    scene = yf.Scene.parse(d)
    said = [n for n in _besides_dispersion(notes_before_run(scene, make_grid(scene), 10))
            if "sources[0]" in n]
    assert len(said) == 1 and said[0].startswith("sources[0]: a soft source where hx is held "
                                                 "at zero (inside a PEC or PMC object"), said


@pytest.mark.parametrize("path, value", [("grid.spacing", 2e4), ("grid.spacing", 1e8),
                                         ("run.courant", 5e-4)])
def test_unusual_but_usable_values_are_taken(path, value):
    """Tens-of-km cells (Earth-ionosphere models) and small Courant numbers run: the value
    is kept, and two steps on NumPy give finite fields."""
    d = _set(path, value)()
    d["run"] = {**d.get("run", {}), "steps": 2}
    d["run"].pop("duration", None)
    scene = yf.Scene.parse(d)
    holder = scene.grid if path.startswith("grid.") else scene.run
    got = getattr(holder, path.split(".")[1])
    assert np.all(np.asarray(got) == value), got
    res = yf.run(scene, backend="numpy", progress=False, keep_fields=True)
    assert res.stats["steps"] == 2
    assert all(np.isfinite(f).all() for f in res.fields.values())


@pytest.mark.parametrize("path, value, field", [
    ("grid.spacing", "0.001", "grid.spacing"), ("grid.cells", ["30", 30, 30], "grid.cells[0]"),
    ("run.steps", "40", "run.steps"), ("sources.0.amplitude", "1e3", "sources[0].amplitude"),
    ("materials.glass.eps_r", ["1", "2", "3"], "materials.glass.eps_r[0]"),
    ("sources.0.waveform.tau", "1e-11", "sources[0].waveform.tau")])
def test_a_quoted_number_is_an_error_naming_the_field(path, value, field):
    """pydantic would read "0.001" as 0.001; a scene says numbers without quotes, as the
    README asks, and a quoted one is a slip to point at."""
    with pytest.raises(yf.ValidationError) as info:
        yf.Scene.parse(_set(path, value)())
    text = str(info.value)
    assert text.startswith(f"{field}: must be a number in SI units, not a string")
    assert "\n" not in text


def test_strings_in_arrays_and_bytes_are_refused_too():
    with pytest.raises(yf.ValidationError, match=r"spacing\[0\]: must be a number"):
        yf.Grid(cells=(10, 10, 10), spacing=np.array(["1e-3"] * 3))
    with pytest.raises(yf.ValidationError, match="steps: must be a number"):
        yf.RunSettings(steps=b"3")


def test_strings_still_go_where_a_string_goes():
    """Names, components and the string forms of fields that also take numbers."""
    d = base3d()
    d["boundaries"] = "cpml"
    d["run"]["variant"] = "auto"
    assert yf.Scene.parse(d).objects[0].material == "glass"


@pytest.mark.parametrize("component, axis, last", [
    ("ez", "z", 29), ("hz", "z", 30), ("ex", "z", 30), ("hx", "x", 30), ("hx", "y", 29),
    ("ey", "y", 29)])
def test_a_snapshot_records_the_plane_its_index_names(component, axis, last):
    """The last plane a component has along the axis is taken as given (its position is
    index + offset cells), one past it is refused; nothing is clamped any more."""
    d = base3d()
    d["monitors"][1] = {"type": "snapshot", "name": "s", "component": component, "axis": axis,
                        "index": last}
    plan = yf.build_model(yf.Scene.parse(d)).snapshots[0]
    half = (component[0] == "e") == (component[1] == axis)
    assert plan.index == last and plan.position == pytest.approx((last + 0.5 * half) * 1e-3)
    d["monitors"][1]["index"] = last + 1
    with pytest.raises(yf.ValidationError, match=rf"^monitors\[1\]\.index: {last + 1} is "
                                                 rf"outside 0\.\.{last}"):
        yf.Scene.parse(d)


@pytest.mark.parametrize("obj, noted", [
    ({"type": "sphere", "center": [0.0152, 0.0152, 0.0152], "radius": 1e-4}, True),
    ({"type": "box", "center": [0.01021, 0.0105, 0.0149], "size": [4e-4, 4e-4, 4e-4]}, True),
    ({"type": "cylinder", "center": [0.0101, 0.0102, 0.01], "radius": 5e-5, "axis": "z"},
     True),
    ({"type": "sphere", "center": [-0.0009, 0.015, 0.015], "radius": 0.00095}, True),
    ({"type": "sphere", "center": [0.0152, 0.0152, 0.0152], "radius": 6e-4}, False),
    ({"type": "box", "center": [0.01, 0.01, 0.0146], "size": [4e-4, 4e-4, 4e-4]}, False),
    ({"type": "cylinder", "center": [0.0101, 0.0102, 0.01], "radius": 3e-4, "axis": "z"},
     False)])
def test_an_object_on_no_point_of_the_grid_gets_a_note(obj, noted):
    """Smaller than a cell between the grid's points, or inside the domain only where no
    point lies: a note naming objects[i] (the run goes ahead without it), from the run and
    from validate; one that holds a point of some component is said nothing of."""
    from yeefdtd.build.model import make_grid, notes_before_run
    from yeefdtd.build.voxelize import material_numbers, voxelize

    d = base3d()
    d["objects"].append({**obj, "material": "pec"})
    scene = yf.Scene.parse(d)
    grid = make_grid(scene)
    notes = [n for n in notes_before_run(scene, grid, 10) if n.startswith("objects")]
    assert len(notes) == noted
    if noted:
        assert notes[0].startswith(f"objects[1]: this {obj['type']} (")
        assert "so the run does not see it; enlarge it" in notes[0]
    seen = any((voxelize(scene, grid, c) == material_numbers(scene)["pec"]).any()
               for c in grid.components)
    assert seen != noted


@pytest.mark.parametrize("second", [{"kind": "hard", "amplitude": 0.0}, {"kind": "soft"},
                                    {"kind": "hard", "position": [0.0101, 0.0149, 0.0151]}])
def test_a_source_at_a_hard_sources_point_is_refused(second, tmp_path, capsys):
    """A hard source sets its component at every step: a second hard one there replaced
    the first (a probe read 0 with amplitudes 1 then 0), and a soft one added nothing or
    onto it by the list's order. validate and run both say so in one line; the same
    point of another component is fine."""
    d = base3d()
    first = {**d["sources"][0], "kind": "hard"}
    d["sources"] = [first, {**first, **second}]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    for argv in (["validate", str(path)], ["run", str(path), "-o", str(tmp_path / "r.h5")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "sources[1]: at the point of sources[0] (ez at " in err
    d["sources"][1]["component"] = "ex"
    yf.build_model(yf.Scene.parse(d))


@pytest.mark.parametrize("run, says", [
    ({"variant": "tiled-2d"}, "run.variant tiled-2d: variant 'tiled-2d' does not run 3d grids"),
    ({"variant": "temporal:steps=99"}, "run.variant temporal:steps=99: temporal steps must be"),
    ({"variant": "seed-xyz", "dtype": "float16"}, "run.variant seed-xyz: variant 'seed-xyz' "
     "stores float32 or float64 fields only"),
])
def test_validate_refuses_a_variant_the_cuda_backend_would(run, says, tmp_path, capsys,
                                                           monkeypatch):
    """validate says what a run on the CUDA backend would refuse as it starts, without a
    GPU, where the scene names that backend; with backend numpy (or 'auto' where no GPU
    is usable, as here) the run goes to NumPy, which takes it."""
    d = base3d()
    d["run"].update(run, backend="cuda")
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"yeefdtd: error: {says}" + err.split(says, 1)[1] and err.count("\n") == 1
    import yeefdtd.backends as backends

    monkeypatch.setattr(backends, "cuda_status", lambda: (False, "no GPU in this test"))
    for backend in ("numpy", "auto"):
        d["run"]["backend"] = backend
        path.write_text(json.dumps(d))
        assert main(["validate", str(path)]) == 0


def test_a_run_past_the_memory_available_is_refused_before_any_array(monkeypatch):
    """Arrays are made lazily, so a run past the memory available was ended by the system
    once it filled them in (status 137, no message, no file): run, build_model and the
    NumPy stepper each refuse first, naming the largest part (free memory faked)."""
    from yeefdtd import host

    d = base3d()
    d["run"]["backend"] = "numpy"
    scene = yf.Scene.parse(d)
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 20)
    with pytest.raises(yf.OutOfMemory, match=r"the run would need about .* more than the 1\.05 "
                                             r"MB available here; its largest part is the "):
        yf.run(scene, progress=False)
    with pytest.raises(yf.OutOfMemory, match=r"more than the 1\.05 MB available"):
        yf.run(scene, steps=200_000, progress=False)
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 40)
    model = yf.build_model(scene)
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 20)
    with pytest.raises(yf.OutOfMemory, match="its largest part is the CPML"):
        yf.make_stepper(model, "numpy")
    with pytest.raises(yf.OutOfMemory, match="its largest part is the source values"):
        yf.build_model(scene, steps=200_000)


def test_the_kept_fields_count_in_the_memory_check_and_their_copy_never_costs_the_run(
        monkeypatch, tmp_path, capsys):
    """--fields (keep_fields) copies the final fields at the end, beside the stepper's: the
    memory check left that copy out, so a run with room for itself but not for the copy
    ran every step, then failed on the copy and wrote no file: probes and snapshots lost.
    The check now counts it (and says so), and a copy that fails anyway leaves the fields
    out of a result that keeps everything else."""
    from yeefdtd import host
    from yeefdtd.backends.numpy.stepper import NumpyStepper
    from yeefdtd.build.memory import run_memory
    from yeefdtd.build.model import face_kinds, make_grid
    from yeefdtd.cli import main
    from yeefdtd.run import FIELDS_NO_MEMORY

    d = base3d()
    d["run"]["backend"] = "numpy"
    scene = yf.Scene.parse(d)
    grid = make_grid(scene)
    parts = run_memory(scene, grid, 10, "float32", face_kinds(scene))
    room = sum(parts.values()) + parts["fields"] // 2   # the run's, not the copy's
    monkeypatch.setattr(host, "free_bytes", lambda: room)
    assert yf.run(scene, progress=False).fields is None   # fits without the copy
    with pytest.raises(yf.OutOfMemory, match=r"of it is the copy of the final fields the "
                       r"result keeps \(--fields, keep_fields\): leave them out"):
        yf.run(scene, progress=False, keep_fields=True)
    monkeypatch.setattr(host, "free_bytes", lambda: 1 << 40)

    def no_memory(self):
        raise MemoryError("Unable to allocate 31.0 MiB")

    monkeypatch.setattr(NumpyStepper, "fields", no_memory)
    result = yf.run(scene, progress=False, keep_fields=True)
    assert result.fields is None and FIELDS_NO_MEMORY in result.stats["notes"]
    assert result.probes["p"]["ez"].shape == (10,) and result.snapshots["s"].frames.shape[0]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    capsys.readouterr()
    assert main(["run", str(path), "-q", "--fields", "-o", str(tmp_path / "r.h5")]) == 0
    assert "fields: left out: no memory" in capsys.readouterr().err
    assert yf.load(tmp_path / "r.h5").probes["p"]["ez"].shape == (10,)


def test_a_default_cpml_too_thick_for_the_grid_is_said_as_the_default():
    """A 20^3 grid without boundaries failed with 'boundaries.x_min.cells: a CPML of 10
    cells...', a field the scene does not have; the message now says it is the default and
    what to give instead. A CPML the scene gives keeps naming its cells."""
    d = base3d()
    d["grid"]["cells"] = [20, 30, 30]
    d.pop("boundaries", None)
    with pytest.raises(yf.ValidationError, match=r"^boundaries\.x_min: not given, so the "
                       r"default CPML of 10 cells, more than a third of the 20 cells along x; "
                       r"give the face \(\"pec\", or a CPML of at most 6 cells, which "
                       r"reflects more than the default's 10\)"):
        yf.Scene.parse(d)
    d["boundaries"] = {"x_min": {"cells": 8}, "x_max": "pec"}
    with pytest.raises(yf.ValidationError, match=r"^boundaries\.x_min\.cells: a CPML of 8 "):
        yf.Scene.parse(d)


def test_a_backend_that_cannot_run_names_the_setting_not_only_the_flag(monkeypatch):
    """From Python, 'use --backend numpy' named a flag of the CLI; the message names the
    setting too."""
    import yeefdtd.backends as backends

    monkeypatch.setattr(backends, "cuda_status", lambda: (False, "no GPU here"))
    with pytest.raises(yf.BackendUnavailable, match="use backend 'numpy' "
                       r"\(--backend numpy\)"):
        backends.get_stepper_class("cuda")


@pytest.mark.parametrize("given, field", [("CPML", "boundaries"), ("cpml ", "boundaries"),
                                          ({"x_min": "absorbing"}, "boundaries.x_min")])
def test_a_face_name_no_condition_takes_lists_cpml_and_names_what_was_given(given, field):
    """'absorbing' on x_min was told the face takes 'pec', 'pmc' or 'periodic', leaving
    out 'cpml'; boundaries = "CPML" for the whole scene was reported against x_min, with
    '(and 5 more problems)'."""
    for mode, cells in (("3d", [30, 30, 30]), ("tmz", [30, 30])):
        d = {"grid": {"mode": mode, "cells": cells, "spacing": 1e-3}, "boundaries": given,
             "run": {"steps": 10}}
        with pytest.raises(yf.ValidationError) as info:
            yf.Scene.parse(d)
        text = str(info.value)
        assert text.startswith(f"{field}: input should be 'pec', 'pmc', 'periodic' or "
                               "'cpml'"), text
        assert "more problems" not in text


def test_one_source_monitor_or_object_where_a_list_is_asked_for_says_to_wrap_it():
    """sources=PointSource(...) was read as the list of its fields: 'sources[0]: input
    should be a valid dictionary or instance of PointSource (got ('type', 'point')) (and 6
    more problems)'; a TOML [sources] table (for [[sources]]) likewise."""
    g = yf.Grid(cells=(30, 30, 30), spacing=1e-3)
    one = {"sources": yf.PointSource(component="ez", cell=(5, 5, 5),
                                     waveform=yf.Ricker(frequency=1e10)),
           "monitors": yf.Probe(name="p", cell=(5, 5, 5)),
           "objects": {"type": "box", "center": [0, 0, 0], "size": [1, 1, 1],
                       "material": "pec"}}
    for field, value in one.items():
        with pytest.raises(yf.ValidationError) as info:
            yf.Scene(grid=g, run=yf.RunSettings(steps=10), **{field: value})
        kind = "one table" if isinstance(value, dict) else type(value).__name__
        assert str(info.value) == (f"{field}: a list of {field}, not {kind}: wrap it in "
                                   f"[...] (in TOML, [[{field}]] for each)")
    d = base3d()
    d["sources"] = d["sources"][0]
    with pytest.raises(yf.ValidationError, match=r"^sources: a list of sources, not one "):
        yf.Scene.parse(d)


def test_printing_a_result_gives_a_summary_not_every_value():
    """print(result) printed every array: more than 2000 lines for the README's 64^3
    example, at once in a notebook."""
    d = base3d()
    d["run"]["backend"] = "numpy"
    r = yf.run(yf.Scene.parse(d), progress=False, keep_fields=True)
    assert repr(r) == ("Result(10 steps, completed; probes ['p']; snapshots ['s']; fields "
                       "ex, ey, ez, hx, hy, hz)")
    assert repr(r.probes["p"]).startswith("ProbeData('p', ex: 10 values, ")
    assert repr(r.snapshots["s"]) == ("SnapshotData('s', ez on the plane z = 0.0155 m, "
                                      "frames (1, 31, 31))")


def test_a_scene_file_not_in_utf8_says_so(tmp_path, capsys):
    """A Latin-1 scene file was refused as 'cannot read it (UnicodeDecodeError)', which
    did not say what to change."""
    from yeefdtd.cli import main

    path = tmp_path / "latin.toml"
    path.write_bytes(b'name = "caf\xe9"\n')
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"yeefdtd: error: {path}: not UTF-8 text (byte 11 is b'\\xe9'); save it as "
                   "UTF-8 (TOML and JSON files are)")


def _run_with_plots_failing(failure, tmp_path, capsys, monkeypatch):
    """(status, last line of stderr, result path) of `yeefdtd run --plot` on base3d, with
    the plots raising ``failure``."""
    import yeefdtd.plot
    from yeefdtd.cli import main

    def fail(*a, **k):
        raise failure

    monkeypatch.setattr(yeefdtd.plot, "plot_result", fail)
    d = base3d()
    d["run"]["backend"] = "numpy"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    out = tmp_path / "r.h5"
    code = main(["run", str(path), "-q", "--plot", "-o", str(out)])
    return code, capsys.readouterr().err.strip().splitlines()[-1], out


@pytest.mark.parametrize("failure, code, said", [
    (KeyboardInterrupt(), 130, "yeefdtd: interrupted while plotting; the result is whole in "),
    (OSError(28, "No space left on device", "x_probe_p.png"), 1,
     "yeefdtd: error: x_probe_p.png: No space left on device; the result is whole in ")])
def test_a_plot_that_fails_says_the_result_is_whole(failure, code, said, tmp_path, capsys,
                                                   monkeypatch):
    """A Ctrl-C while --plot drew said only 'yeefdtd: interrupted', and a full disk named
    the plot alone: neither said that the result file was whole, nor how to finish."""
    got, err, out = _run_with_plots_failing(failure, tmp_path, capsys, monkeypatch)
    assert got == code
    assert err == f"{said}{out}; 'yeefdtd plot {out}' writes the plots" + \
        ("" if code == 130 else " once it can write them")
    assert yf.load(out).probes["p"]["ez"].shape == (10,)


def test_a_plot_failure_without_a_file_name_names_the_folder(tmp_path, capsys, monkeypatch):
    """An OSError without a file name names the plots' folder: main took it for a failed
    write to standard output, and closed that."""
    code, err, _ = _run_with_plots_failing(OSError(28, "No space left on device"), tmp_path,
                                           capsys, monkeypatch)
    assert code == 1
    assert err.startswith(f"yeefdtd: error: {tmp_path}: No space left on device; the result "
                          "is whole in "), err
    print("still open")   # standard output was not closed
    assert capsys.readouterr().out == "still open\n"


def test_older_plots_are_found_beside_a_result_named_with_glob_characters(tmp_path):
    from yeefdtd.cli import _older_plots

    (tmp_path / "run[1]_probe_p.png").write_bytes(b"")
    (tmp_path / "run[1]_other.png").write_bytes(b"")
    assert "run[1]_probe_p.png, is from an earlier run" in _older_plots(tmp_path / "run[1].h5")


@pytest.mark.parametrize("stem_bytes", [200, 245, 250])
def test_older_plots_are_found_where_their_names_were_cut_to_fit(stem_bytes, tmp_path):
    """A plot name longer than a file name may be is cut, with '~' and a CRC-32; from a
    stem of about 240 bytes on, the cut falls inside the stem, and the earlier plots were
    not named as the result's own. Another name cut so, of another stem, is not."""
    from yeefdtd.cli import _older_plots
    from yeefdtd.plot import _file_name

    stem = "é" * (stem_bytes // 2)
    name = _file_name(f"{stem}_probe_{'p' * 60}")
    assert "~" in name
    (tmp_path / name).write_bytes(b"")
    (tmp_path / _file_name(f"{'o' * stem_bytes}_probe_{'p' * 60}")).write_bytes(b"")
    (tmp_path / "é~0badf00d.png").write_bytes(b"")   # a short name with the tag's form
    said = _older_plots(tmp_path / f"{stem}.h5")
    assert f"the 1 plot beside it named as its own, {name}, is from an earlier run" in said


def test_a_diverged_run_whose_fields_found_no_memory_names_no_fields_step(monkeypatch):
    """fields_at_step was set whenever the fields were asked for, also where their copy
    failed and they were left out."""
    from yeefdtd.backends.numpy.stepper import NumpyStepper

    def no_memory(self):
        raise MemoryError("Unable to allocate")

    monkeypatch.setattr(NumpyStepper, "fields", no_memory)
    d = base3d()
    d["run"].update(backend="numpy", check_every=1)
    d["sources"][0]["amplitude"] = 1e300
    with pytest.raises(yf.DivergenceError) as info:
        yf.run(yf.Scene.parse(d), progress=False, keep_fields=True)
    partial = info.value.partial
    assert partial.fields is None and "fields_at_step" not in partial.stats


def test_numpy_complex_numbers_are_refused_not_cut_to_their_real_part():
    """Python's complex was refused, but NumPy's passed as its real part alone (a
    ComplexWarning at most): a complex permittivity lost its loss, a complex amplitude
    of 1j became 0."""
    cases = [
        (lambda: yf.Material(eps_r=[np.complex128(4 + 0.5j)] * 3), "eps_r[0]", True),
        (lambda: yf.Material(mu_r=np.complex128(2)), "mu_r", True),
        (lambda: yf.PointSource(component="ez", cell=(1, 1), amplitude=np.complex64(1j),
                                waveform=yf.Gaussian(tau=1e-11)), "amplitude", False),
        (lambda: yf.Samples(dt=1e-12, values=np.exp(1j * np.linspace(0, 3, 8))),
         "values[0]", False),
        (lambda: yf.Grid(cells=(10, 10), spacing=np.complex128(1e-3), mode="tmz"),
         "spacing", False)]
    for make, field, lossy in cases:
        with pytest.raises(yf.ValidationError) as info:
            make()
        text = str(info.value)
        assert text.startswith(f"{field}: must be a real number, not a complex one"), text
        assert ("sigma_e or sigma_m" in text) == lossy
    assert yf.Material(eps_r=np.float32(4)).eps_r == (4.0, 4.0, 4.0)   # real NumPy: taken


def test_run_model_results_hold_the_scene_that_ran_and_coordinates_of_their_own():
    """run_model's result said the scene's 200 float32 steps where 50 float64 ran; and a
    snapshot's coordinates were one array shared by the model and every result of it, so
    that converting one result's to mm in place changed the next run's."""
    d = base2d()
    d["run"]["steps"] = 200
    d["monitors"].append({"type": "snapshot", "name": "s", "component": "ez", "every": 10})
    scene = yf.Scene.parse(d)
    model = yf.build_model(scene, steps=50)
    r1 = yf.run_model(model, yf.make_stepper(model, "numpy", dtype="float64"))
    assert (r1.stats["steps"], r1.stats["dtype"]) == (50, "float64")
    assert (r1.scene.run.steps, r1.scene.run.dtype) == (50, "float64")
    first = r1.snapshots["s"].coords[0].copy()
    r1.snapshots["s"].coords[0][:] *= 1e3
    r2 = yf.run_model(model, yf.make_stepper(model, "numpy"))
    assert np.array_equal(r2.snapshots["s"].coords[0], first)
    assert (r2.scene.run.steps, r2.scene.run.dtype) == (50, "float32")
    same = yf.build_model(scene)   # nothing overridden: the scene as given
    assert yf.run_model(same, yf.make_stepper(same, "numpy")).scene == scene


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sources_past_the_divergence_limit_get_a_note_before_the_run(dtype, tmp_path, capsys):
    """An amplitude of 1e45 validated without a word, and the run then stopped as diverged
    at its first check: validate now says so, in any dtype, and the run still stops with
    what it recorded."""
    from yeefdtd.cli import main

    d = base3d()
    d["sources"][0]["amplitude"] = 1e45
    d["run"].update(backend="numpy", dtype=dtype)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert "V/m, past the 1e+30 V/m at which a run is stopped as diverged; lower their " \
        "amplitudes (the fields are linear in them)" in err, err
    assert main(["run", str(path), "-q", "-o", str(tmp_path / "r.h5")]) == 1
    assert "fields became" in capsys.readouterr().err
    d["sources"][0]["amplitude"] = 1e3   # an ordinary strong source: no such note
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    assert "past the 1e+30" not in capsys.readouterr().err


def test_sources_whose_sum_passes_floats_range_get_the_divergence_note(tmp_path, capsys):
    """An amplitude of 1.5e308: the sum of what the source adds overflowed to infinity, which
    the bound dropped as not a number, so validate gave no note (and NumPy's overflow
    warning in its place)."""
    from yeefdtd.cli import main

    d = base3d()
    d["sources"][0]["amplitude"] = 1.5e308
    d["run"]["steps"] = 400
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    err = capsys.readouterr().err
    assert "they drive fields past any float's range, past the 1e+30 V/m" in err, err
    assert "RuntimeWarning" not in err and "overflow" not in err


def test_a_sampled_waveform_far_below_its_largest_sample_in_the_run_is_noted(capsys, tmp_path):
    """Samples of 0 and 1 a second apart, in a run of nanoseconds: the source rises to about
    1e-10 of its largest sample and drives nothing. Sampled waveforms were noted only where
    they were exactly zero through the run; the others below 1e-6 of their peak were."""
    from yeefdtd.cli import main

    d = base3d()
    d["sources"][0]["waveform"] = {"type": "samples", "dt": 1.0, "values": [0.0, 1.0]}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    assert "its samples waveform stays below 1e-06 of its peak" in capsys.readouterr().err
    d["sources"][0]["waveform"] = {"type": "samples", "dt": 1e-12, "values": [0.0, 1.0, 0.0]}
    path.write_text(json.dumps(d))
    assert main(["validate", str(path)]) == 0
    assert "drives nothing" not in capsys.readouterr().err


@pytest.mark.parametrize("path, value", [("run.steps", 1e300), ("grid.cells[1]", 1e20)])
def test_a_number_past_any_whole_numbers_range_says_so(path, value):
    """pydantic's own words named a string that was not there ("unable to parse input
    string as an integer, exceeded maximum size") and said nothing of what to change."""
    d = base3d()
    if path == "run.steps":
        d["run"]["steps"] = value
    else:
        d["grid"]["cells"][1] = value
    with pytest.raises(yf.ValidationError) as info:
        yf.Scene.parse(d)
    text = str(info.value)
    assert text.startswith(f"{path}: is far too large for this field") and "string" not in text
    assert "give a smaller whole number" in text


@pytest.mark.parametrize("value", [-1.2e-3, 0.0, float("nan"), float("inf")])
def test_a_bad_value_in_a_list_of_spacings_is_named_by_its_place(value):
    """It was reported against the whole list, as "input should be a valid number" (the
    message of a single spacing), with no place and nothing to change."""
    with pytest.raises(yf.ValidationError) as info:
        yf.Grid(cells=(10, 10, 10), spacing=[1e-3, value, 0.8e-3])
    assert str(info.value).startswith("spacing[1]: must be a positive, finite cell size in "
                                      "metres")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("t0", [None, 1e-11])
def test_a_pulse_wider_than_floats_range_gets_no_note_of_nan(t0, capsys, tmp_path):
    """tau = 1e308: the cut-at-t = 0 note read the pulse's support, which overflowed, and
    said "reaches nan of its peak ... use a t0 of nan s" (or inf s, after NumPy's overflow
    warnings, with a t0 given)."""
    from yeefdtd.cli import main

    d = base3d()
    d["sources"][0]["waveform"] = {"type": "gaussian", "tau": 1e308}
    if t0 is not None:
        d["sources"][0]["waveform"]["t0"] = t0
    f = tmp_path / "s.json"
    f.write_text(json.dumps(d))
    assert main(["validate", str(f)]) == 0
    err = capsys.readouterr().err
    assert "nan" not in err and " inf " not in err and "Warning" not in err, err


def test_a_monitor_held_at_zero_gets_a_note(tmp_path):
    """A probe whose components are all held at zero (on a PEC wall, inside a PEC object)
    and a snapshot of E along a PEC wall record only zeros, without a word before (a soft
    source there was noted). Each noted monitor does record zeros; one a cell in, one of a
    component normal to the wall, and one of which a component moves get no note."""
    from yeefdtd.build.model import make_grid, notes_before_run

    scene = yf.Scene.load("examples/cavity_pec.toml")   # PEC walls, 24 x 20 x 16 cells
    mons = [yf.Probe(name="wall", cell=(0, 5, 5), components=["ez", "ey"]),
            yf.Probe(name="inside", cell=(20, 15, 10), components=["ex"]),
            yf.Snapshot(name="s", component="ez", axis="x", index=0),
            yf.Snapshot(name="s2", component="ey", axis="x", index=24),
            # nothing to say of these
            yf.Probe(name="normal", cell=(0, 5, 5), components=["ex", "ey"]),
            yf.Probe(name="in", cell=(1, 5, 5), components=["ez"]),
            yf.Snapshot(name="n", component="ex", axis="x", index=0),
            yf.Snapshot(name="a", component="ez", axis="z", index=0),
            yf.Snapshot(name="b", component="ez", axis="x", index=1)]
    box = yf.Box(center=(0.0205, 0.019, 0.0085), size=(0.005, 0.008, 0.005), material="pec")
    scene = scene.model_copy(update={"monitors": mons, "objects": [box]})
    notes = [n for n in notes_before_run(scene, make_grid(scene), 50)
             if n.startswith("monitors")]
    assert notes == [
        "monitors[0] ('wall'): ez, ey are held at zero at the probe's point (on a PEC wall, "
        "or inside a PEC or PMC object), so it records only zeros; move it off the conductor",
        "monitors[1] ('inside'): ex is held at zero at the probe's point (on a PEC wall, or "
        "inside a PEC or PMC object), so it records only zeros; move it off the conductor",
        "monitors[2] ('s'): its plane lies on the x_min PEC wall, where ez is held at zero, "
        "so it records only zeros; move it a cell in, or record a component normal to the "
        "wall",
        "monitors[3] ('s2'): its plane lies on the x_max PEC wall, where ey is held at zero, "
        "so it records only zeros; move it a cell in, or record a component normal to the "
        "wall"]
    res = yf.run(scene, steps=50, progress=False)
    assert [n for n in res.stats["notes"] if n.startswith("monitors")] == notes
    zero = {"wall", "inside", "s", "s2"}
    for name in ("wall", "inside", "normal", "in"):
        moved = any(np.any(v != 0) for v in res.probes[name].data.values())
        assert moved == (name not in zero), name
    for name in ("s", "s2", "n", "a", "b"):
        assert np.any(res.snapshots[name].frames != 0) == (name not in zero), name
    # a hard source of the component at the probe's point, or on the snapshot's plane, sets
    # it every step: nothing to say, and it records the waveform
    src = yf.PointSource(component="ez", cell=(0, 5, 5), kind="hard",
                         waveform=yf.Gaussian(tau=2e-11))
    hard = scene.model_copy(update={"sources": [*scene.sources, src],
                                    "monitors": [mons[0], mons[2]]})
    assert not [n for n in notes_before_run(hard, make_grid(hard), 50)
                if n.startswith("monitors")]
    res = yf.run(hard, steps=50, progress=False)
    assert np.abs(res.probes["wall"].data["ez"]).max() > 0.5
    assert np.abs(res.snapshots["s"].frames).max() > 0.5
    # CPML faces: E along the PEC wall behind the layer
    d = scene.model_copy(update={"boundaries": yf.Boundaries.uniform(yf.Cpml(cells=4)),
                                 "objects": []})
    notes = [n for n in notes_before_run(d, make_grid(d), 50) if n.startswith("monitors")]
    assert notes[0].startswith("monitors[0] ('wall'): ez, ey are held at zero")
    assert notes[1].startswith("monitors[2] ('s'): its plane lies on the x_min CPML wall")


def test_a_duration_shorter_than_a_step_gets_a_note():
    """run.duration shorter than dt ran one whole step (1.8 ps for 1 fs asked), without a
    word; a duration of a step or more (rounded up by less than one) gets none."""
    from yeefdtd.build.model import make_grid, notes_before_run

    scene = yf.Scene.load("examples/cavity_pec.toml")
    dt = make_grid(scene).dt
    short = scene.model_copy(update={"run": yf.RunSettings(duration=1e-15)})
    res = yf.run(short, progress=False)
    assert res.stats["steps"] == 1
    assert res.stats["notes"][0] == (
        f"run.duration: 1e-15 s is less than one time step ({dt:.4g} s), so the run takes "
        f"one, {dt / 1e-15:.3g} times as long; give a duration of a step or more")
    for d in (dt, 1.5 * dt):
        s = scene.model_copy(update={"run": yf.RunSettings(duration=d)})
        assert not [n for n in notes_before_run(s, make_grid(s), 2) if "duration" in n]


def test_samples_between_the_runs_instants_are_said_to_be_so():
    """Samples 0.2 ps apart, all between two of the instants a run of 1.83 ps steps reads
    them at, drive nothing: the note said to move them into the run or run longer, neither
    of which helps; it says to resample them. Samples past the run's end keep the old
    advice."""
    from yeefdtd.build.model import make_grid, notes_before_run

    s = yf.Scene.load("examples/cavity_pec.toml")

    def note(start):
        src = s.sources[0].model_copy(update={"waveform": yf.Samples(
            dt=0.2e-12, values=[0, 1, 0, -1, 0], start=start)})
        d = s.model_copy(update={"sources": [src]})
        return [n for n in notes_before_run(d, make_grid(d), 300) if "drives nothing" in n]

    dt = make_grid(s).dt
    assert note(0.0) == [f"sources[0]: its samples lie between the instants the run reads "
                         f"its waveform at (every {dt:.4g} s), so it drives nothing; resample "
                         f"them at {dt:.4g} s or more"]
    assert np.abs(yf.run(s.model_copy(update={"sources": [s.sources[0].model_copy(update={
        "waveform": yf.Samples(dt=0.2e-12, values=[0, 1, 0, -1, 0])})]}), steps=300,
        progress=False).probes["inside"]["ez"]).max() == 0   # it does drive nothing
    for start in (1e-9, -1e-9):   # past the run's end (0.55 ns), or before its start
        assert note(start)[0].endswith("move its samples into the run (start) or run longer")


def _misspelled(path: str, wrong: str):
    """base3d with the key at ``path`` (dotted, as _set) renamed to ``wrong``."""
    def make():
        d = base3d()
        cur, key = _holder(d, path)
        cur[wrong] = cur.pop(key)
        return d
    return make


@pytest.mark.parametrize("make, says", [
    (_misspelled("objects.0.center", "centre"),
     r"^objects\[0\].centre: is not a known key; did you mean 'center'\? \(a sphere takes "
     r"material, type, center, radius\)$"),
    (_misspelled("grid.spacing", "spacng"), r"^grid.spacng: .*did you mean 'spacing'\?"),
    (_misspelled("grid", "gird"), r"^gird: is not a known key; did you mean 'grid'\? \(a "
                                  r"Scene takes name, grid, "),
    (_set("boundaries", {"x_min": {"sigma_max": 1e3}}),
     r"^boundaries.x_min.sigma_max: .*did you mean 'sigma_factor'\? \(a CPML takes type, "
     r"cells, order, sigma_factor, kappa_max"),
    # TOML puts a top-level key written after the last [[monitors]] table into that table
    (_set("monitors.0.boundaries", "pec"),
     r"^monitors\[0\].boundaries: is not a known key; if it is the scene's own "
     r"'boundaries', write it before the first \[table\] of a TOML file \(a probe takes "),
    (_set("sources.0.waveform.frequncy", 1e9), r"^sources\[0\].waveform.frequncy: is not a "
                                               r"known key \(a gaussian takes type, tau, t0\)$"),
    # what other packages call a key, where its spelling would point elsewhere
    (_set("materials.glass.sigma", 1.0), r"^materials.glass.sigma: is not a known key; did "
                                         r"you mean 'sigma_e' or 'sigma_m'\?"),
    (_misspelled("monitors", "probes"), r"^probes: .*did you mean 'monitors'\?"),
    (_set("sources.0.polarization", "z"), r"^sources\[0\].polarization: .*did you mean "
                                          r"'component'\? \(a point source takes "),
    # a name given to a source is not said to be the scene's
    (_set("sources.0.name", "src"), r"^sources\[0\].name: is not a known key \(a point "
                                    r"source takes "),
    # a table of another type: which type it takes, first
    (_set("boundaries", {"x_min": {"type": "box", "cels": 5}}),
     r"^boundaries.x_min.type: input should be 'cpml' \(got 'box'\)"),
])
def test_a_misspelled_key_is_named_with_the_key_it_may_stand_for(make, says):
    """A misspelled required key was reported as the one it stood for missing ('center: is
    required; add it (and 1 more problem)'), the misspelling itself in no line the command
    prints; an unknown key now leads, with the nearest known one and the table's keys."""
    with pytest.raises(yf.ValidationError, match=says):
        yf.Scene.model_validate(make())


def test_an_unknown_key_leads_and_its_tables_other_problems_are_found_too():
    """An unknown key stopped its table's validation, so a second problem of the same table
    was found only after the first was mended; it now leads, the others follow, and the
    known key it may stand for is not also said to be missing."""
    d = base3d()
    src = d["sources"][0]
    src["amplitud"] = 2.0
    src["waveform"] = {"type": "gaussian", "tau": -1.0}
    d["objects"][0]["centre"] = d["objects"][0].pop("center")
    with pytest.raises(yf.ValidationError) as info:
        yf.Scene.model_validate(d)
    paths = [p for p, _ in info.value.items]
    assert paths[:2] == ["objects[0].centre", "sources[0].amplitud"], paths
    assert "sources[0].waveform.tau" in paths and "objects[0].center" not in paths, paths
    assert str(info.value).endswith("(and 2 more problems)"), str(info.value)


@pytest.mark.parametrize("make, says, problems", [
    (lambda: yf.Probe(name="p", cell=(0.015, 0.015, 0.015)),
     r"^cell\[0\]: must hold whole numbers, cell indices \(got 0.015\); a point in metres "
     r"goes in 'position'$", 3),
    (lambda: yf.Probe(name="p", components=["e"], cell=(1, 1, 1)),
     r"^components\[0\]: input should be 'ex', .* \(got 'e'\)$", 1),
    (lambda: yf.Grid(cells=64, spacing=1e-3), r"^cells: must be a list of values, \[a, b, "
                                              r"\.\.\.\] \(got 64\)$", 1),
    (lambda: yf.Snapshot(component="ez", index=1.5),
     r"^index: must be a whole number, a plane's index \(got 1.5\); a plane's position in "
     r"metres goes in 'position'$", 1),
])
def test_a_list_s_refused_items_are_its_problem(make, says, problems):
    """A list whose items were refused was also said to hold 'at least 1 item after
    validation, not 0', and three bad items of one list counted as three problems (or
    four); a cell of metres says where metres go."""
    with pytest.raises(yf.ValidationError, match=says) as info:
        make()
    assert len(info.value.items) == problems


def test_model_copy_of_a_part_by_a_dict_keeps_the_rest_of_it():
    """A dict for a part that is a description replaced it, its other fields back at their
    defaults: a float64 scene's run went to float32 without a word, and a grid's new cells
    wanted its spacing again. A field that stands for another replaces it (steps for
    duration), in a part or in the model itself."""
    scene = yf.Scene.model_validate({**base3d(), "run": {"duration": 1e-10,
                                                          "dtype": "float64"}})
    run = scene.model_copy(update={"run": {"steps": 10}}).run
    assert (run.steps, run.duration, run.dtype) == (10, None, "float64")
    assert scene.run.model_copy(update={"steps": 7}).steps == 7
    grid = scene.model_copy(update={"grid": {"cells": [32, 30, 30]}}).grid
    assert grid.cells == (32, 30, 30) and grid.spacing == scene.grid.spacing
    src = scene.sources[0].model_copy(update={"cell": (5, 5, 5)})
    assert src.cell == (5, 5, 5) and src.position is None
    # a waveform of another type replaces the waveform; of the same, updates it
    wf = scene.sources[0].model_copy(update={"waveform": {"type": "ricker",
                                                          "frequency": 1e9}}).waveform
    assert wf.type == "ricker"
    assert scene.sources[0].model_copy(update={"waveform": {"t0": 1e-10}}).waveform.tau == \
        1e-11
    # a type given: a new part, its fields at their defaults
    wf = scene.sources[0].model_copy(update={"waveform": {"type": "gaussian",
                                                          "tau": 2e-11}}).waveform
    assert wf.tau == 2e-11 and wf.t0 is None
    # None for one of a pair leaves the other be
    probe = scene.monitors[0]
    assert probe.model_copy(update={"cell": None}).position == probe.position
    assert scene.run.model_copy(update={"steps": None}).duration == 1e-10
    with pytest.raises(yf.ValidationError, match=r"^run.steps: must be > 0 \(got -1\)$"):
        scene.model_copy(update={"run": {"steps": -1}})
    # the part's problems counted as when it is made
    with pytest.raises(yf.ValidationError, match=r"^grid.cells\[0\]: input should be a valid "
                                                 r"integer, .*\(got 1.5\)$"):
        scene.model_copy(update={"grid": {"cells": [1.5, 2.5, 3.5]}})
    with pytest.raises(yf.ValidationError, match=r"^update: Probe has no field 1; its fields "
                                                 r"are named by text: "):
        probe.model_copy(update={1: 2})
    with pytest.raises(yf.ValidationError, match=r"^update\['run'\]: RunSettings has no "
                                                 r"field 'stepz' \(its fields are steps, "
                                                 r".*\); did you mean 'steps'\?$"):
        scene.model_copy(update={"run": {"stepz": 10}})


def test_a_cpml_face_too_weak_for_a_medium_it_holds_gets_a_note():
    """Every CPML face is matched to the background: GPR soil (eps_r = 9) as the
    background and air above it as a box left the faces in the air at a third of the air's
    optimum conductivity, and probes near them saw reflections of -38.6 to -45 dB, without
    a word (with the faces given sigma_factor = 3, or the air as the background, -58.5 to
    -78.9; CPML_MISMATCH). One note names the faces, the medium and the sigma_factor that
    matches them to it; faces the air holds less than a tenth of, the reverse case (a layer
    too strong for the soil, which costs less), a sigma_factor given, and conductors say
    nothing."""
    def scene(background="soil", box="vacuum", box_y=(0.06, 0.1), **faces):
        lo, hi = box_y
        return {"grid": {"mode": "tmz", "cells": [40, 20], "spacing": 5e-3},
                "materials": {"soil": {"eps_r": 9.0, "sigma_e": 0.01}},
                "background": background,
                "objects": [{"type": "box", "center": [0.1, (lo + hi) / 2],
                             "size": [0.2, hi - lo], "material": box}],
                "boundaries": {"x_min": {"cells": 6}, "x_max": {"cells": 6},
                               "y_min": {"cells": 6}, "y_max": {"cells": 6}, **faces},
                "sources": [{"component": "ez", "cell": [20, 10],
                             "waveform": {"type": "ricker", "frequency": 0.4e9}}],
                "monitors": [{"type": "probe", "cell": [22, 10]}],
                "run": {"steps": 10}}

    def said(d):
        return [n for n in _notes(d) if "CPML" in n and "optimum" in n]

    notes = said(scene())
    assert notes == [
        "boundaries.x_min, x_max, y_max: their CPMLs are matched to the background 'soil' "
        "(refractive index 3 across them), but 'vacuum' (1) holds 25 to 100% of their inner "
        "faces, for which their conductivity is 0.33 times the optimum, and a layer too weak "
        "reflects far more than one too strong; give each sigma_factor = 3 to match them to "
        "'vacuum'"], notes
    assert said(scene(box_y=(0.095, 0.1))) == []   # the air above y = 95 mm: 3% of x_min
    assert said(scene(background="vacuum", box="soil", box_y=(0.0, 0.06))) == []
    three = {"cells": 6, "sigma_factor": 3.0}
    assert said(scene(x_min=three, x_max=three, y_max=three)) == []
    one = said(scene(x_min=three, x_max=three))
    assert len(one) == 1 and one[0].startswith("boundaries.y_max: its CPML is matched to the "
                                               "background 'soil'") and \
        "'vacuum' (1) holds 100% of its inner face" in one[0]
    assert said(scene(box="pec")) == []
    # air inside the y_max layer alone meets no other face; the background itself, on faces
    # given a weak sigma_factor, is what the user chose
    assert said(scene(box_y=(0.075, 0.1))) == []
    weak = {"cells": 6, "sigma_factor": 0.3}
    assert said(scene(background="vacuum", x_min=weak, x_max=weak, y_min=weak,
                      y_max=weak)) == []
