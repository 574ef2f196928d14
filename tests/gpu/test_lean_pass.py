"""benchmarks/lean_pass.py: the probe's kernel computes the update NumPy computes, in each
of its forms (so the speeds it reports are of the whole update), and its check catches a
pass whose overlap is too narrow for its steps."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "lean_pass.py"
_spec = importlib.util.spec_from_file_location("lean_pass", _PATH)
lean_pass = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lean_pass)

#: (NT, BY, V, blocks an SM, TRIM, IDS, SHT[, C]): each option at least once, clusters of
#: 2 and 4 blocks along y among them (the 40 rows checked cross their blocks' edges)
RIGHT = [(1, 8, 2, 2, 0, 0, 0), (2, 16, 4, 1, 0, 0, 0), (3, 16, 2, 1, 1, 0, 0),
         (3, 16, 2, 1, 0, 2, 0), (2, 16, 2, 1, 0, 2, 1), (3, 20, 2, 1, 0, 0, 0, 2),
         (2, 8, 2, 1, 0, 0, 0, 4)]
#: 5 steps a pass on an overlap of 4 cells along x: the lanes at a tile's edges reach
#: owned cells with wrong values
WRONG = (5, 16, 2, 1, 0, 0, 0)


@pytest.fixture(scope="module")
def module():
    import cupy as cp

    names = list(dict.fromkeys(lean_pass.name(c) for c in (*RIGHT, WRONG)))
    mod = cp.RawModule(code=lean_pass.SRC, options=("-std=c++17",), name_expressions=names)
    lean_pass.set_materials(mod, lean_pass.materials())
    return mod


@pytest.mark.parametrize("cfg", RIGHT, ids=lambda c: ",".join(map(str, c)))
def test_lean_pass_matches_numpy(module, cfg):
    assert lean_pass.check(module, cfg, lean_pass.materials()) < lean_pass.TOLERANCE


def test_lean_pass_check_catches_a_narrow_overlap(module):
    assert lean_pass.check(module, WRONG, lean_pass.materials()) > 100 * lean_pass.TOLERANCE
