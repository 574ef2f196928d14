"""Scene description: defaults, round trips through JSON and TOML, schema, waveforms."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import yeefdtd as yf

from .test_bad_input import base2d, base3d


def full_scene() -> yf.Scene:
    """A scene that uses every kind of field at least once."""
    return yf.Scene(
        name="everything",
        grid=yf.Grid(cells=(24, 20, 18), spacing=(1e-3, 1.2e-3, 0.8e-3)),
        materials={"glass": yf.Material(eps_r=4, sigma_e=0.01),
                   "ferrite": yf.Material(mu_r=(2, 3, 4), sigma_m=1000.0)},
        background="vacuum",
        objects=[yf.Box(center=(0.01, 0.01, 0.007), size=(0.004, 0.004, 0.004), material="pec"),
                 yf.Sphere(center=(0.015, 0.012, 0.007), radius=0.003, material="glass"),
                 yf.Cylinder(center=(0.005, 0.012, 0.007), radius=0.002, axis="y",
                             material="ferrite"),
                 yf.Cylinder(center=(0.02, 0.02, 0.007), radius=0.001, length=0.004,
                             material="pmc")],
        sources=[yf.PointSource(component="ez", position=(0.012, 0.012, 0.007),
                                waveform=yf.ModulatedGaussian(frequency=10e9)),
                 yf.PointSource(component="hx", cell=(3, 4, 5), kind="hard", amplitude=2.0,
                                waveform=yf.Samples(dt=1e-12, values=(0.0, 1.0, 0.5, 0.0)))],
        boundaries={"x_min": "pec", "x_max": "pmc", "y_min": {"cells": 5, "kappa_max": 3.0},
                    "y_max": "pec",
                    "z_min": "periodic", "z_max": "periodic"},
        monitors=[yf.Probe(name="a", position=(0.02, 0.012, 0.007), components=("ex", "hz")),
                  yf.Probe(cell=(1, 2, 3), every=3),
                  yf.Snapshot(component="ey", axis="x", position=0.01, every=5)],
        run=yf.RunSettings(duration=1e-10, courant=0.9, dtype="float64", backend="numpy"),
    )


def test_defaults_are_sensible():
    s = yf.Scene.parse(base3d())
    assert s.run.courant == 0.99 and s.run.dtype == "float32" and s.run.backend == "auto"
    assert s.boundaries.kind("x_min") == "cpml"
    c = s.boundaries.face("z_max")
    assert (c.cells, c.order, c.kappa_max, c.alpha_max) == (10, 3.0, 5.0, 0.05)
    assert s.monitor_names() == ["p", "s"]
    assert yf.Material(eps_r=2).eps_r == (2.0, 2.0, 2.0)


def test_round_trip_json_and_toml(tmp_path):
    scene = full_scene()
    assert yf.Scene.from_json(scene.to_json()) == scene
    assert yf.Scene.from_toml(scene.to_toml()) == scene
    for ext in ("json", "toml"):
        path = scene.save(tmp_path / f"s.{ext}")
        assert yf.Scene.load(path) == scene
    two_d = yf.Scene.parse(base2d())
    assert yf.Scene.from_toml(two_d.to_toml()) == two_d


def test_names_of_any_characters_survive_a_toml_round_trip(tmp_path):
    """Keys and strings that TOML must quote or escape: non-ASCII letters (not bare keys in
    TOML) and DEL (which JSON's escapes leave bare)."""
    d = base3d()
    d["name"] = "bench mark é"   # (DEL: in a material name; a label refuses it)
    d["materials"] = {"verre é": {"eps_r": 2.0}, "x\x7f": {"eps_r": 3.0}}
    d["objects"][0]["material"] = "verre é"
    d["monitors"][0]["name"] = "pé😀"
    scene = yf.Scene.parse(d)
    assert yf.Scene.from_toml(scene.to_toml()) == scene
    assert yf.Scene.load(scene.save(tmp_path / "s.toml")) == scene


def test_uniform_boundaries_shorthand_in_2d_and_3d():
    s3 = yf.Scene.parse({**base3d(), "boundaries": "pec"})
    assert all(s3.boundaries.kind(f) == "pec" for f in yf.description.FACES)
    s2 = yf.Scene.parse({**base2d(), "boundaries": "periodic"})
    assert s2.boundaries.z_min is None and s2.boundaries.kind("x_max") == "periodic"


def test_json_schema_takes_the_shorthands_the_scene_files_use():
    """The schema was pydantic's alone, which rejected the README's and examples' own
    files: a scalar eps_r, 'cpml' for a face, boundaries = "pec" (the validators expand
    them). Checked here by structure (no JSON Schema validator among the dependencies;
    jsonschema 4.26 on the README's TOML and the examples: no errors)."""
    schema = yf.Scene.json_schema()
    mat = schema["$defs"]["Material"]["properties"]
    for name in ("eps_r", "mu_r", "sigma_e", "sigma_m"):
        assert any(b.get("type") == "number" for b in mat[name]["anyOf"]), name
        assert any(b.get("type") == "array" for b in mat[name]["anyOf"]), name
    face = schema["$defs"]["Boundaries"]["properties"]["x_min"]
    enums = [n["enum"] for b in face["anyOf"] for n in b.get("oneOf", ()) if "enum" in n]
    assert enums == [["pec", "pmc", "periodic", "cpml"]]
    top = schema["properties"]["boundaries"]["anyOf"]
    assert top[0]["enum"] == ["pec", "pmc", "periodic", "cpml"]
    assert top[1] == {"$ref": "#/$defs/Boundaries"}


def test_json_schema_describes_the_scene():
    schema = yf.Scene.json_schema()
    text = json.dumps(schema)
    for key in ("grid", "materials", "sources", "boundaries", "monitors", "run", "eps_r",
                "waveform", "S/m"):
        assert key in text


def test_scenes_are_frozen_and_take_their_fields_by_name():
    """In one line each (pydantic's frozen-instance error spans three; Python's TypeError
    for a value by position does not say what to write)."""
    s = yf.Scene.parse(base3d())
    with pytest.raises(yf.ValidationError, match=r"^name: a Scene does not change once made; "
                                                 r"make another with \.model_copy"):
        s.name = "other"
    with pytest.raises(yf.ValidationError, match=r"^Grid: takes its fields by name \(mode=..., "
                                                 r"cells=..., spacing=...\), not 1 value"):
        yf.Grid((4, 4, 4))


def test_unknown_file_type_and_missing_file(tmp_path):
    with pytest.raises(yf.ValidationError, match="unknown scene file type"):
        yf.Scene.load(tmp_path / "scene.yaml")
    with pytest.raises(yf.ValidationError, match="no such file"):
        yf.Scene.load(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[grid\ncells = 3")
    with pytest.raises(yf.ValidationError, match="TOML syntax error"):
        yf.Scene.load(bad)


WAVEFORMS = [
    yf.Gaussian(tau=20e-12),
    yf.DiffGaussian(tau=20e-12, t0=90e-12),
    yf.Ricker(frequency=12e9),
    yf.ModulatedGaussian(frequency=10e9, tau=80e-12),
]


@pytest.mark.parametrize("w", WAVEFORMS, ids=lambda w: w.type)
def test_analytic_spectra_match_numerical_transform(w):
    """The closed-form spectra of the Gaussian family equal a fine numerical transform
    (trapezoid rule over the support, 40 samples per period of the highest frequency:
    error ~1e-9 of the peak)."""
    f = np.linspace(0, 2 * w.max_frequency(), 23)
    exact = w.spectrum(f)
    numeric = w._numerical(f, *w.support(), chosen=False)
    assert np.max(np.abs(exact - numeric)) < 1e-6 * np.max(np.abs(exact))


def test_waveform_values_and_peaks():
    assert yf.Gaussian(tau=1e-11)(5e-11) == pytest.approx(1.0)
    dg = yf.DiffGaussian(tau=1e-11)
    t = np.linspace(0, 1e-10, 20001)
    assert np.max(np.abs(dg(t))) == pytest.approx(1.0, rel=1e-6)
    # t0 is its zero crossing (its schema said "time of the peak", Gaussian's words)
    assert t[np.argmax(dg(t))] == pytest.approx(dg.delay - 1e-11 / math.sqrt(2), abs=1e-14)
    assert dg(dg.delay) == 0.0 and "zero crossing" in type(dg).model_fields["t0"].description
    assert yf.Ricker(frequency=1e10)(1.5e-10) == pytest.approx(1.0)
    s = yf.Sine(frequency=1e9)
    assert s(-1e-9) == 0.0 and s(0.0) == 0.0
    assert s(3.25e-9) == pytest.approx(math.sin(2 * math.pi * 3.25))  # past the ramp
    sm = yf.Samples(dt=1.0, values=(0.0, 2.0, 4.0), start=1.0)
    assert np.allclose(sm([0.5, 1.5, 2.5, 3.5]), [0.0, 1.0, 3.0, 0.0])


def test_samples_spectrum_is_the_exact_transform_of_the_joined_samples():
    """Samples' spectrum is the transform of the samples joined by straight lines, in
    closed form; against the trapezoid rule on 2000 points between each two samples (exact
    for the lines, off by about (2 pi f h)^2 / 12 for the phase factor: 2e-7 at 490 MHz),
    to 1e-6 of the largest value. Far past the samples' band it falls like 1/f^2: it used to
    come back aliased (2.16e-9 at 1e8, 1e14 and 3e14 Hz alike)."""
    rng = np.random.default_rng(1)
    s = yf.Samples(dt=1e-9, values=list(rng.normal(size=50)), start=3e-9)
    f = np.array([0.0, 1e6, 1e8, 3.3e8, 4.9e8])
    t = s.start + 1e-9 * np.linspace(0, 49, 49 * 2000 + 1)
    from yeefdtd.description.waveforms import _trapezoid

    want = np.array([_trapezoid(s(t) * np.exp(-2j * np.pi * fi * t), t) for fi in f])
    got = s.spectrum(f)
    assert np.max(np.abs(got - want)) < 1e-6 * np.max(np.abs(want))
    v = np.asarray(s.values)
    assert got[0].real == pytest.approx(1e-9 * (v.sum() - (v[0] + v[-1]) / 2), rel=1e-12, abs=0)
    far = abs(yf.Samples(dt=1e-9, values=[0, 1, 1, 0.5, 0]).spectrum([1e8, 1e14, 3e14]))
    assert far[0] > 1e-9 and far[1] < 1e-30 and far[2] < far[1]


@pytest.mark.parametrize("w", [yf.Gaussian(tau=1e-11), yf.DiffGaussian(tau=1e-11),
                               yf.Ricker(frequency=1e9), yf.ModulatedGaussian(frequency=1e9)])
def test_closed_form_spectra_far_past_their_band_are_zero_not_nan(w):
    with np.errstate(all="raise"):   # and no warnings on the way
        out = w.spectrum([1e200, -1e300, 1e308])
    assert np.array_equal(out, np.zeros(3))


def test_a_numerical_spectrum_refuses_frequencies_it_cannot_resolve():
    """A pulse's spectrum up to a t_end inside it is numerical over [start, t_end]: past
    400 000 samples over it (40 a period) the frequency is refused in one line instead of
    returned aliased."""
    g = yf.Gaussian(tau=1e-11)
    assert abs(g.spectrum([1e10], t_end=5e-11)[0]) > 1e-12
    with pytest.raises(yf.ValidationError, match=r"freqs: 1e\+16 Hz is past what a numerical "
                                                 "spectrum of this gaussian waveform resolves"):
        g.spectrum([1e10, 1e16], t_end=5e-11)


@pytest.mark.parametrize("w", [yf.Sine(frequency=3e9, phase=0.7, ramp=0.5e-9),
                               yf.Sine(frequency=1e9), yf.Sine(frequency=2e9, ramp=0)],
                         ids=["ramp", "default", "no-ramp"])
def test_the_sines_spectrum_is_its_exact_transform_up_to_any_t_end(w):
    """The sine's spectrum is in closed form up to any t_end (its support's end by
    default), inside the ramp too: against the trapezoid rule on 400 000 intervals (error
    about h^2 / 12 of the second derivative's integral), to 1e-8 of the largest value. Each
    frequency's value is its own: it was numerical, with samples set by the highest
    frequency asked for, so that 2 GHz moved in the 5th digit with 15 GHz beside it."""
    from yeefdtd.description.waveforms import _trapezoid

    f = w.frequency * np.array([0.0, 0.05, 0.67, 1.0, 1.67, 5.0, -1.0])
    for t_end in (0.3e-9, 0.7e-9, 5e-9, None):
        t1 = w.support()[1] if t_end is None else t_end
        t = np.linspace(0, t1, 400_001)
        want = np.array([_trapezoid(w(t) * np.exp(-2j * np.pi * fi * t), t) for fi in f])
        got = w.spectrum(f, t_end=t_end)
        assert np.max(np.abs(got - want)) < 1e-8 * np.max(np.abs(want)), t_end
        assert np.array_equal(w.spectrum(f[2:3], t_end=t_end), got[2:3])
    with np.errstate(all="raise"):
        assert np.array_equal(w.spectrum([1e308, -1e308]), np.zeros(2))


def test_waveforms_take_numpy_1s_trapz():
    """NumPy < 2 (pyproject allows 1.24) has no np.trapezoid, only np.trapz."""
    import types

    from yeefdtd.description.waveforms import _trapezoid, _trapezoid_of

    def trapz(y, x):
        return 0.0

    assert _trapezoid_of(types.SimpleNamespace(trapz=trapz)) is trapz
    # the module's own pick: np.trapezoid on NumPy 2, np.trapz on 1.x
    assert _trapezoid is (np.trapezoid if hasattr(np, "trapezoid") else np.trapz)  # noqa: NPY201


def test_a_cpml_on_a_grid_under_3_cells_asks_for_a_larger_grid():
    """The advice was "use at most 0" cells, which no CPML has."""
    with pytest.raises(yf.ValidationError) as info:
        yf.Scene(grid=yf.Grid(cells=(2, 40, 40), spacing=1e-3), run=yf.RunSettings(steps=1),
                 boundaries={"x_min": {"cells": 10}})
    msg = str(info.value)
    assert "boundaries.x_min.cells" in msg and "enlarge the grid to 30 cells" in msg
    assert "at most 0" not in msg

    with pytest.raises(yf.ValidationError) as info:   # the default CPML, not given
        yf.Scene(grid=yf.Grid(cells=(2, 40, 40), spacing=1e-3), run=yf.RunSettings(steps=1))
    msg = str(info.value)
    assert "boundaries.x_min" in msg and "(\"pec\") or enlarge" in msg
    assert "at most 0" not in msg


def test_json_schema_holds_the_bounds_the_validators_hold():
    """eps_r = -2, a negative box size and a negative cell index passed the schema, which
    had no bounds, though the package refuses them."""
    defs = yf.Scene.json_schema()["$defs"]
    mat = defs["Material"]["properties"]

    def numbers(node):
        if node.get("type") in ("number", "integer"):
            yield node
        for key in ("anyOf", "prefixItems"):
            for branch in node.get(key, ()):
                yield from numbers(branch)
        if isinstance(node.get("items"), dict):
            yield from numbers(node["items"])

    for name, bounds in (("eps_r", {"minimum": 1.0, "maximum": 1e12}),
                         ("mu_r", {"minimum": 1.0, "maximum": 1e12}),
                         ("sigma_e", {"minimum": 0.0}), ("sigma_m", {"minimum": 0.0})):
        found = list(numbers(mat[name]))
        assert len(found) == 4 and all(n.items() >= bounds.items() for n in found), name
    assert [n["exclusiveMinimum"] for n in numbers(defs["Box"]["properties"]["size"])] == [0.0]
    for model in ("PointSource", "Probe"):
        assert [n["minimum"] for n in numbers(defs[model]["properties"]["cell"])] == [0]
    with pytest.raises(yf.ValidationError):   # and the package refuses what they bound
        yf.Material(eps_r=-2)
