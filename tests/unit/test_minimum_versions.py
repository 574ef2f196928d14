"""tests/minimum-versions.txt (what `make test-min` pins) names the floor of every
dependency pyproject.toml bounds from below, so that raising a floor, or adding a
dependency, cannot leave the oldest versions untested."""

from __future__ import annotations

import pathlib
import re

try:
    import tomllib
except ImportError:   # Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _floors() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    floors = {}
    for req in [*project["dependencies"], *project["optional-dependencies"]["test"]]:
        m = re.match(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9.]+)", req)
        if m and m.group(1) != "ruff":   # the linter: `make test-min` runs no lint
            floors[m.group(1).lower()] = m.group(2)
    return floors


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "tests" / "minimum-versions.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([0-9.]+)\.\*", line)
            assert m, f"tests/minimum-versions.txt: {line!r} is not NAME==MAJOR.MINOR.*"
            pins[m.group(1).lower()] = m.group(2)
    return pins


def test_every_floor_is_pinned_at_its_release():
    floors, pins = _floors(), _pins()
    assert {"numpy", "pydantic", "h5py", "matplotlib", "tqdm"} <= set(floors)
    assert set(pins) == set(floors), "pins and pyproject's floors name different packages"
    for name, floor in floors.items():
        release = ".".join(floor.split(".")[:2])
        assert pins[name] == release, (
            f"{name}: pyproject's floor {floor} but tests/minimum-versions.txt pins "
            f"{pins[name]}.*")
