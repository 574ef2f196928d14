"""Markers by folder, the backend fixture, and small scene helpers shared by the tests."""

from __future__ import annotations

import pathlib

import pytest

from yeefdtd.backends import cuda_status

ROOT = pathlib.Path(__file__).resolve().parent
_FOLDER_MARK = {"unit": "unit", "physics": "physics", "integration": "integration",
                "gpu": "gpu"}


def pytest_collection_modifyitems(config, items):
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
