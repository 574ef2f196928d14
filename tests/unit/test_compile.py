"""The kernels' modules: instances split into groups compiled side by side (no GPU needed:
a stand-in for CuPy records what would be compiled)."""

import sys
import threading
import types

import pytest

from yeefdtd.backends.cuda import compile as C
from yeefdtd.exceptions import KernelError


@pytest.fixture(autouse=True)
def _own_registry(monkeypatch):
    """Each test starts with no module copies held or handed out."""
    monkeypatch.setattr(C, "_HELD", {})
    monkeypatch.setattr(C, "_USED", set())


def test_groups_deal_every_name_once_in_a_fixed_number_of_groups():
    names = [f"k{i}" for i in range(20)] + ["k3"]   # a duplicate is compiled once
    parts = C.groups(names)
    assert len(parts) == C.MODULE_GROUPS == 8
    assert sorted(n for g in parts for n in g) == sorted(set(names))
    assert parts[0] == ["k0", "k8", "k16"] and parts[7] == ["k7", "k15"]
    assert C.groups(["a", "b"]) == [["a"], ["b"]]   # no empty module
    assert C.groups(names) == parts                  # the same modules every time (cache keys)


def test_compile_threads_follow_cores_and_memory(monkeypatch):
    from yeefdtd import host

    monkeypatch.setattr(host, "cores", lambda: 16)
    monkeypatch.setattr(host, "free_bytes", lambda: 64 * C.NVRTC_BYTES)
    assert C.compile_threads(8) == 8
    monkeypatch.setattr(host, "free_bytes", lambda: 12 * C.NVRTC_BYTES)
    assert C.compile_threads(8) == 3          # a quarter of the free memory
    monkeypatch.setattr(host, "free_bytes", lambda: 0)
    assert C.compile_threads(8) == 1
    monkeypatch.setattr(host, "cores", lambda: 2)
    monkeypatch.setattr(host, "free_bytes", lambda: 64 * C.NVRTC_BYTES)
    assert C.compile_threads(8) == 2


class _Pointer:
    def __init__(self, log, module, name):
        self.log, self.module, self.name = log, module, name

    def copy_from_host(self, src, nbytes):
        self.log.append((self.module, self.name, src, nbytes))


def _fake_cupy(log, fail=None):
    """A stand-in for the parts of CuPy load_module uses."""
    class CompileException(Exception):
        pass

    class Device:
        def __init__(self, i=3):   # the caller's current device: not CuPy's default 0
            self.id = i

        def __enter__(self):
            log.append(("device", self.id, threading.current_thread().name))

        def __exit__(self, *a):
            return False

    class RawModule:
        def __init__(self, code, options, name_expressions):
            self.names = list(name_expressions)
            self.code = code

        def compile(self):
            if fail in self.names:
                raise CompileException(f"error: {fail} does not compile\nmore")
            log.append(("compile", tuple(self.names), threading.current_thread().name))

        def get_function(self, name):
            assert name in self.names
            return ("fn", name, id(self))

        def get_global(self, name):
            return _Pointer(log, id(self), name)

    runtime = types.SimpleNamespace(deviceSynchronize=lambda: log.append(("sync",)))
    cuda = types.SimpleNamespace(Device=Device, runtime=runtime,
                                 compiler=types.SimpleNamespace(CompileException=CompileException))
    return types.SimpleNamespace(RawModule=RawModule, cuda=cuda, __version__="14.2.0")


def test_load_module_compiles_each_group_on_threads_and_writes_constants_to_all(monkeypatch):
    from concurrent import futures

    from yeefdtd import host

    log, pools = [], []
    real = futures.ThreadPoolExecutor
    monkeypatch.setattr(futures, "ThreadPoolExecutor", lambda n: pools.append(n) or real(n))
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(log))
    monkeypatch.setattr(host, "cores", lambda: 4)
    monkeypatch.setattr(host, "free_bytes", lambda: 64 * C.NVRTC_BYTES)
    names = [f"k<{i}>" for i in range(11)]
    mods = C.load_module(("march.cu",), names)
    compiled = [e for e in log if e[0] == "compile"]
    assert sorted(n for e in compiled for n in e[1]) == sorted(names)
    assert len(compiled) == 8
    assert pools == [4]                                           # side by side
    assert all(e[2] != threading.current_thread().name for e in compiled)
    assert {e[1] for e in log if e[0] == "device"} == {3}         # the caller's device
    for n in names:                                               # from the module holding it
        fn = mods.get_function(n)
        assert fn[1] == n
    assert mods.get_function("k<0>")[2] != mods.get_function("k<1>")[2]
    mods.get_global("c_tab").copy_from_host(1234, 64)
    writes = [e for e in log if e[1] == "c_tab"]
    assert len(writes) == 8 and len({e[0] for e in writes}) == 8
    assert all(e[2:] == (1234, 64) for e in writes)


def test_load_module_in_turn_where_one_core_and_a_compile_error_is_one_line(monkeypatch):
    from yeefdtd import host

    log = []
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(log))
    monkeypatch.setattr(host, "cores", lambda: 1)
    C.load_module(("march.cu",), ["a", "b", "c"])
    assert [e[2] for e in log if e[0] == "compile"] == [threading.current_thread().name] * 3
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(log, fail="b"))
    monkeypatch.setattr(host, "cores", lambda: 4)
    with pytest.raises(KernelError, match=r"^kernel compilation failed: error: b does not "
                                          r"compile$"):
        C.load_module(("march.cu",), ["a", "b", "c"])
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(log))
    assert C.load_module(("march.cu",), ["a", "b", "c"]).copies == [0, 0, 0]   # freed


def test_a_module_a_live_stepper_holds_is_compiled_again_for_the_next(monkeypatch):
    """CuPy hands out one module (and its constants) per source and instances: a second live
    stepper gets its own copy, compiled from the source with a comment naming it; a copy is
    free again once its holder is gone, even from a reference cycle."""
    import gc

    from yeefdtd import host

    log = []
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(log))
    monkeypatch.setattr(host, "cores", lambda: 1)
    files = ("tiled2d.cu",)   # and instances no other test asks for
    a = C.load_module(files, ["cx", "cy"])
    b = C.load_module(files, ["cx", "cy"])
    assert a.copies == [0, 0] and b.copies == [1, 1]
    assert [m.code for m in a.modules] == [C.kernel_source(files)] * 2   # the plain source
    assert all(m.code.endswith("// copy 1 (another live stepper's)\n") for m in b.modules)
    c = C.load_module(files, ["cx", "cz"])   # "cx" is held twice, "cz" by none
    assert c.copies == [2, 0]
    assert ("sync",) not in log                      # no copy handed out twice yet
    del a
    d = C.load_module(files, ["cx", "cy"])
    assert d.copies == [0, 0]
    assert log[-1] == ("sync",)   # a's kernels may still be queued: the device finishes first
    gc.disable()
    try:
        class Holder:
            pass
        h = Holder()
        h.me, h.mods = h, C.load_module(files, ["cw"])
        del h                                 # unreachable, but in a cycle
        assert C.load_module(files, ["cw"]).copies == [0]
    finally:
        gc.enable()


def test_copies_are_per_device_and_compiler_options(monkeypatch):
    """A module on another device, or compiled with other options, is another CuPy module:
    the plain source serves it."""
    from yeefdtd import host

    log = []
    fake = _fake_cupy(log)
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(host, "cores", lambda: 1)
    files = ("tiled2d.cu",)
    held = C.load_module(files, ["k1"])
    assert C.load_module(files, ["k1"]).copies == [1]
    real = fake.cuda.Device
    monkeypatch.setattr(fake.cuda, "Device", lambda i=5: real(i))
    assert C.load_module(files, ["k1"]).copies == [0]
    monkeypatch.setattr(fake.cuda, "Device", real)
    monkeypatch.setenv("YEEFDTD_NVRTC_OPTIONS", "-DMARCH_TRIM=0")
    assert C.load_module(files, ["k1"]).copies == [0]
    assert held.copies == [0]


@pytest.mark.parametrize("version, cached", [("13.6.0", False), ("14.0.1", False),
                                             ("14.1.1", False), ("14.2.0", True),
                                             ("14.2.0rc1", True), ("15.0.0", True)])
def test_the_disk_cache_of_modules_needs_cupy_14_2(monkeypatch, version, cached):
    fake = _fake_cupy([])
    fake.__version__ = version
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.delenv("CUPY_CACHE_IN_MEMORY", raising=False)
    assert C.cupy_caches_modules() is cached
    monkeypatch.setenv("CUPY_CACHE_IN_MEMORY", "1")
    assert C.cupy_caches_modules() is False


def test_available_memory_is_meminfo_within_a_cgroup_limit(tmp_path, monkeypatch):
    from yeefdtd import host

    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       131072000 kB\nMemFree:          1024000 kB\n"
                       "MemAvailable:    65536000 kB\n")
    monkeypatch.setattr(host, "MEMINFO", str(meminfo))
    monkeypatch.setattr(host, "CGROUP_MAX", str(tmp_path / "none"))
    assert host.free_bytes() == 65536000 * 1024                 # not MemFree
    (tmp_path / "max").write_text("8589934592\n")
    (tmp_path / "current").write_text("2147483648\n")
    monkeypatch.setattr(host, "CGROUP_MAX", str(tmp_path / "max"))
    monkeypatch.setattr(host, "CGROUP_CURRENT", str(tmp_path / "current"))
    assert host.free_bytes() == 6 << 30                          # the container's room
    (tmp_path / "max").write_text("max\n")
    assert host.free_bytes() == 65536000 * 1024


@pytest.mark.parametrize("version, in_memory, warned", [
    ("13.6.0", None, True), ("14.2.0", None, False), ("14.2.0", "1", True)])
def test_info_says_where_kernels_compile_in_every_process(monkeypatch, capsys, version,
                                                         in_memory, warned):
    from yeefdtd import backends, cli

    fake = _fake_cupy([])
    fake.__version__ = version
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.delenv("CUPY_CACHE_IN_MEMORY", raising=False)
    if in_memory:
        monkeypatch.setenv("CUPY_CACHE_IN_MEMORY", in_memory)
    monkeypatch.setattr(backends, "cuda_status", lambda: (True, "a test GPU"))
    assert cli.main(["info"]) == 0
    out = capsys.readouterr().out
    assert f"CuPy {version}" in out
    assert ("compiled again in every process" in out) is warned


def test_host_workers_follow_cores_and_memory(monkeypatch):
    """host.workers: as many as the work, the cores and a quarter of the available memory
    allow, and never fewer than one."""
    from yeefdtd import host

    monkeypatch.setattr(host, "cores", lambda: 6)
    monkeypatch.setattr(host, "free_bytes", lambda: 40 * 100)
    assert host.workers(8, 100) == 6           # the cores
    assert host.workers(3, 100) == 3           # the work
    assert host.workers(8, 200) == 5           # a quarter of 4000 bytes at 200 each
    assert host.workers(8, 10**6) == 1
    assert host.workers(8, 0) == 6
