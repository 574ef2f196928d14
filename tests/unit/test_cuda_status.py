"""What the CUDA backend says where it cannot run: the driver's own reason, and advice that
fits the cause (a fake CuPy stands in, so these run without a GPU)."""

from __future__ import annotations

import sys
import types

import pytest

import yeefdtd as yf
from yeefdtd import backends
from yeefdtd.backends import cuda as cuda_pkg


class CUDARuntimeError(RuntimeError):
    """Named as CuPy's own, so the message shows the same type name."""


def _fake_cupy(monkeypatch, error):
    def count():
        raise error

    runtime = types.SimpleNamespace(getDeviceCount=count)
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=runtime))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    cuda_pkg.device_status.cache_clear()


@pytest.fixture(autouse=True)
def _fresh_status():
    cuda_pkg.device_status.cache_clear()
    yield
    cuda_pkg.device_status.cache_clear()


def test_an_old_driver_is_named_with_what_to_change(monkeypatch):
    _fake_cupy(monkeypatch, CUDARuntimeError(
        "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime "
        "version"))
    ok, why = backends.cuda_status()
    assert not ok
    assert "CUDARuntimeError: cudaErrorInsufficientDriver" in why
    assert "update the driver" in why and "the CUDA version nvidia-smi shows" in why
    with pytest.raises(yf.BackendUnavailable) as info:
        backends.get_stepper_class("cuda")
    text = str(info.value)
    assert "\n" not in text
    assert "cudaErrorInsufficientDriver" in text
    # CuPy is installed: the general advice to install it (again) would change nothing
    assert "install the extra of your CUDA" not in text


def test_no_visible_device_says_where_to_look(monkeypatch):
    _fake_cupy(monkeypatch, CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is "
                                             "detected"))
    ok, why = backends.cuda_status()
    assert not ok
    assert "cudaErrorNoDevice" in why and "CUDA_VISIBLE_DEVICES" in why


def test_cupy_missing_still_advises_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", None)   # import cupy raises ImportError
    ok, why = backends.cuda_status()
    assert not ok and "not importable" in why
    with pytest.raises(yf.BackendUnavailable, match=r"yeefdtd\[cuda12\] or yeefdtd\[cuda13\]"):
        backends.get_stepper_class("cuda")


def test_install_advice_follows_the_kind_of_reason_not_its_words(monkeypatch):
    """The advice to install the extra comes with reasons that installing would mend
    (backends.NotInstalled: CuPy or the backend missing), whatever their words: a driver's
    reason that happens to say "not installed" gets none."""
    monkeypatch.setattr(backends, "cuda_status", lambda: (
        False, "no usable CUDA device (RuntimeError: a library is not installed on this node)"))
    with pytest.raises(yf.BackendUnavailable) as info:
        backends.get_stepper_class("cuda")
    assert "install the extra" not in str(info.value)
    monkeypatch.setattr(backends, "cuda_status", lambda: (
        False, backends.NotInstalled("CuPy could not be loaded")))
    with pytest.raises(yf.BackendUnavailable, match=r"yeefdtd\[cuda12\] or yeefdtd\[cuda13\]"):
        backends.get_stepper_class("cuda")
