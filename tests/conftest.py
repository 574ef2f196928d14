"""Markers by folder, the backend fixture, and small scene helpers shared by the tests."""

from __future__ import annotations

import pathlib

import pytest

from yeefdtd.backends import cuda_status

ROOT = pathlib.Path(__file__).resolve().parent
_FOLDER_MARK = {"unit": "unit", "physics": "physics", "integration": "integration",
                "gpu": "gpu"}


def pytest_addoption(parser):
    parser.addoption("--shard", default=None, metavar="K/N",
                     help="run only the K-th of N shares of the collected tests (K from 0), "
                          "dealt in turn, so that N calls together run them all (for "
                          "time-limited GPU machines; see benchmarks/gpu_check.sh)")


def shard_of(text: str) -> tuple[int, int]:
    """(K, N) from --shard's 'K/N', or a one-line UsageError saying what it takes."""
    try:
        k, n = (int(p) for p in text.split("/"))
    except ValueError:
        k, n = -1, 0
    if not 0 <= k < n:
        raise pytest.UsageError(f"--shard: {text!r} is not understood; give K/N with "
                                "0 <= K < N, e.g. 0/3")
    return k, n


def pytest_collection_modifyitems(config, items):
    shard = config.getoption("--shard")
    if shard:
        k, n = shard_of(shard)
        config.hook.pytest_deselected(items=[it for q, it in enumerate(items) if q % n != k])
        items[:] = items[k::n]
    for item in items:
        folder = pathlib.Path(str(item.fspath)).relative_to(ROOT).parts[0]
        mark = _FOLDER_MARK.get(folder)
        if mark:
            item.add_marker(getattr(pytest.mark, mark))
        if mark == "gpu" and not cuda_status()[0]:
            item.add_marker(pytest.mark.skip(reason=f"no usable GPU: {cuda_status()[1]}"))


def available_backends() -> list[str]:
    return ["numpy"] + (["cuda"] if cuda_status()[0] else [])


@pytest.fixture(params=available_backends())
def backend(request) -> str:
    """Runs the test body once per backend usable here (numpy always, cuda with a GPU)."""
    return request.param
