"""What a run returns: probe time series, snapshots and statistics, saved to HDF5.

Arrays are indexed [x, y, z] (or [x, y] on a plane) and in SI units: V/m for E, A/m for H,
seconds and metres for the coordinates.
"""

from __future__ import annotations

import errno
import io
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .constants import UNITS
from .exceptions import NotFound, ValidationError
from .io import nearest_existing, one_line, output_path, path_arg, write_atomic

FORMAT_VERSION = 1
#: the names a result file may end in (HDF5's)
RESULT_SUFFIXES = (".h5", ".hdf5")
#: how snapshot frames and saved fields are compressed: HDF5's standard byte shuffle and
#: gzip filters, which every HDF5 reader has. Shuffling first groups the floats' bytes by
#: significance; with it gzip level 1 packs as well as level 4 did without it and writes
#: in about 60% of the time (50 frames of 512^2 float32: 0.59 s against 0.95 s, 14.5 MB
#: against 14.3; with noise in every value 1.16 s and 43.7 MB against 1.77 s and 48.2 MB).
#: every array is stored with a Fletcher-32 checksum of each chunk, which a read checks: a
#: probe's series was stored bare, and a byte changed on disk read back as another value
CHECKED = {"fletcher32": True}
PACKED = {"compression": "gzip", "compression_opts": 1, "shuffle": True, **CHECKED}
#: the root attribute that holds a CRC-32 of what load reads besides the arrays' values,
#: which their chunks' own checksums (CHECKED) leave out: names, attributes, the arrays'
#: types and shapes (_names_crc); and the one that holds each array's CRC-32 of its values
#: as saved (JSON, by path), which load compares with the values it reads: a bit flipped
#: in a probe's position, or in where HDF5 finds a chunk (read back as zeros), or in the
#: type of its elements (float64 read as float128), loaded with no word. Files written
#: before them have neither, and load as before; what load does not read (a note, a group
#: added with h5py) is left out
ATTRS_CRC = "checksum"
VALUES_CRC = "array_checksums"


@dataclass
class ProbeData(Mapping):
    """One probe: a time series per component, each at its own point and times; a mapping
    of its components to their values (``in``, iteration, keys(), items(), get(): those
    went through __getitem__ with 0, 1, ... and said "component 0: not in this
    result")."""

    name: str
    data: dict[str, np.ndarray]                       #: component -> values
    times: dict[str, np.ndarray]                      #: component -> seconds
    positions: dict[str, tuple[float, float, float]]  #: component -> metres

    def __post_init__(self):
        for what in ("data", "times", "positions"):
            v = getattr(self, what)
            if not isinstance(v, dict):
                raise ValidationError(f"probe {self.name!r} {what}: a dict of components, "
                                      f"not {type(v).__name__}")
            setattr(self, what, Named(f"probe {self.name!r} component", v))

    def __getitem__(self, component: str) -> np.ndarray:
        return self.data[component]

    def __iter__(self):
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:   # not every value: a notebook printed thousands of lines
        comps = ", ".join(f"{c}: {np.shape(v)[0]} values" for c, v in self.data.items())
        return f"ProbeData({self.name!r}, {comps or 'no components'})"

    def __eq__(self, other):
        return (isinstance(other, ProbeData) and self.name == other.name
                and _same(self.data, other.data) and _same(self.times, other.times)
                and _same(self.positions, other.positions))   # (arrays too: save takes them)


@dataclass
class SnapshotData:
    """One snapshot monitor: frames of one component on a plane."""

    name: str
    component: str
    axis: str                  #: plane normal
    position: float            #: plane location along the normal, metres
    frames: np.ndarray         #: (records, n1, n2)
    times: np.ndarray          #: seconds
    coords: tuple[np.ndarray, np.ndarray]  #: in-plane coordinates, metres

    def __repr__(self) -> str:
        return (f"SnapshotData({self.name!r}, {self.component} on the plane {self.axis} = "
                f"{self.position:.6g} m, frames {np.shape(self.frames)})")

    def __eq__(self, other):
        return (isinstance(other, SnapshotData)
                and (self.name, self.component, self.axis, self.position)
                == (other.name, other.component, other.axis, other.position)
                and _equal(self.frames, other.frames) and _equal(self.times, other.times)
                and len(self.coords) == len(other.coords)
                and all(_equal(a, b) for a, b in zip(self.coords, other.coords, strict=True)))


class Named(dict):
    """A dict of a result's probes, snapshots or components: a name it does not hold is a
    one-line NotFound (a KeyError too) naming those it does."""

    def __init__(self, what: str, items=()):
        super().__init__(items)
        self.what = what

    def _held(self) -> str:
        return ", ".join(map(repr, self)) or "none"

    def __missing__(self, key):
        raise NotFound(f"{self.what} {key!r}: not in this result; it has {self._held()}")

    def __getitem__(self, key):
        try:
            return super().__getitem__(key)
        except TypeError:   # a list of names: Python's "unhashable type: 'list'"
            raise NotFound(f"{self.what} {key!r}: not a name; give one of "
                           f"{self._held()}"[:300]) from None


def _plain(v):
    """NumPy's numbers and arrays in stats as JSON's (anything else: its text)."""
    if isinstance(v, (np.generic, np.ndarray)):
        return v.tolist()
    return str(v)


def _equal(a, b) -> bool:
    """Arrays (or numbers) equal value for value, NaN equal to NaN (a diverged run's partial
    result is equal to itself and to its saved copy)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if np.issubdtype(a.dtype, np.inexact) and np.issubdtype(b.dtype, np.inexact):
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)


@dataclass
class Result:
    """The outcome of a run. ``stats`` holds steps, dt, seconds, Mcells/s, bytes per cell..."""

    scene_json: str
    probes: dict[str, ProbeData] = field(default_factory=dict)
    snapshots: dict[str, SnapshotData] = field(default_factory=dict)
    stats: dict = field(default_factory=dict)
    fields: dict[str, np.ndarray] | None = None   #: final fields, when asked for

    def __post_init__(self):
        if not isinstance(self.scene_json, str):
            raise ValidationError(f"scene_json: the scene as JSON text, not "
                                  f"{type(self.scene_json).__name__}")
        for what in ("probes", "snapshots", "fields"):
            v = getattr(self, what)
            if not isinstance(v, dict) and not (what == "fields" and v is None):
                raise ValidationError(f"{what}: a dict of names and their data, not "
                                      f"{type(v).__name__}")
        self.probes = Named("probe", self.probes)
        self.snapshots = Named("snapshot", self.snapshots)
        if self.fields is not None:
            self.fields = Named("field", self.fields)

    def __repr__(self) -> str:
        """A summary: the arrays stay in the attributes (print(result) gave every value)."""
        st = self.stats
        steps = f"{st['steps']} steps, {st.get('status', '?')}" if "steps" in st else "no stats"
        fields = "none" if self.fields is None else ", ".join(self.fields)
        return (f"Result({steps}; probes {list(self.probes)}; snapshots "
                f"{list(self.snapshots)}; fields {fields})")

    @property
    def scene(self):
        from .description.scene import Scene

        return Scene.from_json(self.scene_json)

    def __eq__(self, other):
        if not isinstance(other, Result):
            return NotImplemented
        return (self.scene_json == other.scene_json and self.probes == other.probes
                and self.snapshots == other.snapshots and self.stats == other.stats
                and ((self.fields is None and other.fields is None)
                     or (self.fields is not None and other.fields is not None
                         and _same(self.fields, other.fields))))

    def save(self, path: str | Path) -> Path:
        """Write to HDF5 (through a temporary file renamed at the end). Results of up to
        IMAGE_MAX bytes of arrays are built in memory and written as one block of bytes, so
        that a full disk is a plain OSError; h5py writing to a disk that fills up can fail
        to close the file and end the process in its cleanup. Larger ones are written by
        h5py after a check that the free space holds their arrays (_room_for)."""
        import h5py

        path = output_path(path)
        if path.suffix.lower() not in RESULT_SUFFIXES:   # HDF5 under another name misleads
            raise ValidationError(f"path: {str(path)!r} is not a result file name; give one "
                                  "ending in .h5 or .hdf5 (results are HDF5 files)")
        if not isinstance(self.scene_json, str):
            raise ValidationError(f"scene_json: the scene as JSON text, not "
                                  f"{type(self.scene_json).__name__}")
        try:   # what HDF5 keeps of a string
            if "\0" in self.scene_json:
                raise ValueError
            self.scene_json.encode("utf-8")
        except (UnicodeEncodeError, ValueError):
            raise ValidationError("scene_json: not text HDF5 keeps (a NUL character or a "
                                  "lone surrogate in it); give the scene's JSON") from None
        self._check()
        nbytes = self.nbytes()
        if nbytes <= IMAGE_MAX:
            image = io.BytesIO()
            with h5py.File(image, "w") as f:
                self._fill(f)
            return write_atomic(Path(path), lambda tmp: tmp.write_bytes(image.getbuffer()))
        _room_for(Path(path), nbytes, self.datasets())

        def write(tmp: Path):
            try:
                with h5py.File(tmp, "w") as f:
                    self._fill(f)
            except RuntimeError as exc:   # h5py's failed flush or close (a full disk)
                raise OSError(errno.EIO, one_line(exc)) from None

        return write_atomic(Path(path), write)

    def _check(self) -> None:
        """A one-line ValidationError naming the part that save() could not write, or that
        load() would not read back: each name an HDF5 group or dataset can take, each
        array real numbers of the dimensions its part has and the lengths that go
        together."""
        from .description.monitors import _file_safe_name

        def name(v, what):
            if not isinstance(v, str) or v == "":
                raise ValidationError(f"{what}: {v!r} is not a name; give a non-empty string")
            try:
                v.encode("utf-8")
                # any length: a result written before names took at most 64 bytes (64
                # characters of up to 4 bytes) is read back; a plot's file name too long
                # for the file system is an OSError that names it
                _file_safe_name(v, most_bytes=None)
            except (UnicodeEncodeError, ValueError) as exc:
                why = "not valid text" if isinstance(exc, UnicodeEncodeError) else str(exc)
                raise ValidationError(f"{what}: {why}") from None

        def array(v, what, ndim):
            try:
                a = np.asarray(v)
            except (ValueError, TypeError):
                a = None
            # (kinds, not issubdtype: NumPy counts timedelta64 among the integers)
            if a is None or a.ndim != ndim or a.dtype.kind not in "iuf":
                got = "not an array" if a is None else f"{a.ndim}-D of {a.dtype}"
                raise ValidationError(f"{what}: must be a {ndim}-D array of real numbers "
                                      f"({got})")
            wide(a, what)
            return a

        def wide(a, what):
            # load() refuses them (a damaged float64's type reads as float128), and their
            # bytes are the platform's own (80-bit x87 or 128-bit)
            if a.dtype.itemsize > 8:
                raise ValidationError(f"{what}: {a.dtype} takes {a.dtype.itemsize} bytes a "
                                      "value; give at most 8 (convert it to float64)")

        if not isinstance(self.stats, dict) or not all(isinstance(k, str)
                                                       for k in self.stats):
            raise ValidationError(f"stats: a table of values by name (str keys), not "
                                  f"{type(self.stats).__name__}" + (
                                      "" if not isinstance(self.stats, dict) else
                                      " with keys that are not names"))
        try:
            json.dumps(self.stats, default=_plain)
        except (TypeError, ValueError) as exc:   # a value JSON cannot hold, a cycle
            raise ValidationError(f"stats: {one_line(exc)}; give numbers, text, lists and "
                                  "tables of them") from None
        for what, part, kind in (("probes", self.probes, ProbeData),
                                 ("snapshots", self.snapshots, SnapshotData)):
            for key, item in part.items():
                name(key, f"{what}[{key!r}]")
                if not isinstance(item, kind):
                    raise ValidationError(f"{what}[{key!r}]: a {kind.__name__}, not "
                                          f"{type(item).__name__}")
                if item.name != key:   # load() names each by its key
                    raise ValidationError(f"{what}[{key!r}]: holds {item.name!r}; key each "
                                          "by its own name")
        for key, p in self.probes.items():
            for part in ("data", "times", "positions"):
                if not isinstance(getattr(p, part), dict):
                    raise ValidationError(f"probes[{key!r}].{part}: a table of components")
            if set(p.times) != set(p.data) or set(p.positions) != set(p.data):
                raise ValidationError(f"probes[{key!r}]: data, times and positions must "
                                      "name the same components")
            for c, v in p.data.items():
                at = f"probes[{key!r}].data[{c!r}]"
                name(c, at)
                if c.endswith("_time"):
                    raise ValidationError(f"{at}: a component's name may not end in '_time'")
                n = len(array(v, at, 1))
                t = array(p.times[c], f"probes[{key!r}].times[{c!r}]", 1)
                if len(t) != n:
                    raise ValidationError(f"probes[{key!r}].times[{c!r}]: {len(t)} times "
                                          f"for {n} values")
                if array(p.positions[c], f"probes[{key!r}].positions[{c!r}]", 1).shape != (3,):
                    raise ValidationError(f"probes[{key!r}].positions[{c!r}]: must be 3 "
                                          "coordinates (x, y, z)")
        for key, sn in self.snapshots.items():
            at = f"snapshots[{key!r}]"
            if sn.component not in ("ex", "ey", "ez", "hx", "hy", "hz"):
                raise ValidationError(f"{at}.component: {sn.component!r} is not one of ex, "
                                      "ey, ez, hx, hy, hz")
            if sn.axis not in ("x", "y", "z"):
                raise ValidationError(f"{at}.axis: {sn.axis!r} is not one of x, y, z")
            array(sn.position, f"{at}.position", 0)
            if not isinstance(sn.coords, (tuple, list)) or len(sn.coords) != 2:
                raise ValidationError(f"{at}.coords: must be two arrays (u, v)")
            want = (len(array(sn.times, f"{at}.times", 1)),
                    len(array(sn.coords[0], f"{at}.coords[0]", 1)),
                    len(array(sn.coords[1], f"{at}.coords[1]", 1)))
            if array(sn.frames, f"{at}.frames", 3).shape != want:
                raise ValidationError(f"{at}.frames: shape {np.shape(sn.frames)}, not {want} "
                                      "(times, u, v)")
        if self.fields is not None:
            if not isinstance(self.fields, dict):
                raise ValidationError("fields: a table of components and their arrays")
            for c, a in self.fields.items():
                name(c, f"fields[{c!r}]")
                v = np.asarray(a) if isinstance(a, np.ndarray) else None
                if v is None or v.dtype.kind not in "iuf" or v.ndim == 0:
                    raise ValidationError(f"fields[{c!r}]: must be an array of real numbers")
                wide(v, f"fields[{c!r}]")
            if self.fields:   # the scene's grid's components, on its nodes
                from .build.model import make_grid

                try:
                    grid = make_grid(_grid_scene(self.scene_json))
                except ValidationError as exc:
                    raise ValidationError(f"scene_json: {exc}") from None
                want = tuple(grid.shape)
                for c, a in self.fields.items():
                    if c not in grid.components or np.shape(a) != want:
                        raise ValidationError(
                            f"fields[{c!r}]: shape {np.shape(a)}; the scene's grid holds "
                            f"{', '.join(grid.components)} of its node shape {want}")

    def _fill(self, f) -> None:
        """Everything save() writes, into the open HDF5 file ``f``."""
        f.attrs["format"] = "yeefdtd-result"
        f.attrs["format_version"] = FORMAT_VERSION
        f.attrs["scene"] = self.scene_json
        f.attrs["stats"] = json.dumps(self.stats, default=_plain)
        sums = {}

        def put(g, name, data, how):
            ds = g.create_dataset(name, data=data, **how)
            sums[ds.name] = _values_crc(np.asarray(data, dtype=ds.dtype))
            return ds

        # for other tools: the time step and steps at the root, and each array's SI unit
        # (load reads neither: what it reads is what the checksums cover)
        for key in ("dt", "steps"):
            value = self.stats.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                f.attrs[key] = value
        def units(ds, u):
            if u is not None:
                ds.attrs["units"] = u
            return ds

        gp = f.create_group("probes")
        for name, p in self.probes.items():
            g = gp.create_group(name)
            for c, v in p.data.items():
                ds = units(put(g, c, v, CHECKED), UNITS.get(c))
                ds.attrs["position"] = np.asarray(p.positions[c])
                units(put(g, f"{c}_time", p.times[c], CHECKED), "s")
        gs = f.create_group("snapshots")
        for name, s in self.snapshots.items():
            g = gs.create_group(name)
            units(put(g, "frames", s.frames, PACKED), UNITS.get(s.component))
            units(put(g, "time", s.times, CHECKED), "s")
            units(put(g, "u", s.coords[0], CHECKED), "m")
            units(put(g, "v", s.coords[1], CHECKED), "m")
            g.attrs["component"] = str(s.component)   # (h5py takes no NumPy str_)
            g.attrs["axis"] = str(s.axis)
            g.attrs["position"] = s.position
        if self.fields is not None:
            gf = f.create_group("fields")
            for c, a in self.fields.items():
                units(put(gf, c, a, PACKED), UNITS.get(c))
        f.attrs[VALUES_CRC] = json.dumps(sums)
        f.attrs[ATTRS_CRC] = np.int64(_names_crc(f))

    def datasets(self) -> int:
        """How many arrays save() writes, each a dataset of its own."""
        return (sum(2 * len(p.data) for p in self.probes.values()) + 4 * len(self.snapshots)
                + len(self.fields or ()))

    def nbytes(self) -> int:
        """The bytes of the arrays save() writes, uncompressed: at most what the file takes
        beyond its small metadata."""
        out = sum(np.asarray(v).nbytes + np.asarray(p.times[c]).nbytes
                  for p in self.probes.values() for c, v in p.data.items())
        out += sum(np.asarray(s.frames).nbytes + np.asarray(s.times).nbytes
                   + sum(np.asarray(c).nbytes for c in s.coords)
                   for s in self.snapshots.values())   # (lists are taken too)
        if self.fields is not None:
            out += sum(np.asarray(a).nbytes for a in self.fields.values())
        return int(out)


#: results with at most this many bytes of arrays are built in memory before writing (see
#: Result.save); larger ones would need as much memory again
IMAGE_MAX = 1 << 30
#: what a result file takes beyond its arrays (attributes, the scene, HDF5's structures),
#: at most, for the free-space check before writing: this, and DATASET_OVERHEAD a dataset
#: (a chunked one with its checksums took 2.5 KB more than its 8 KB of data: 2400 of them,
#: 25.2 MB for 19.2 MB)
SAVE_OVERHEAD = 1 << 20
DATASET_OVERHEAD = 4096


def _room_for(path: Path, nbytes: int, datasets: int = 0) -> None:
    """An OSError (ENOSPC) where the file system that will hold ``path`` has less free space
    than ``nbytes``, SAVE_OVERHEAD and DATASET_OVERHEAD for each of ``datasets``: a disk
    that fills up while h5py writes can leave it unable to close the file, or end the
    process (a fault in its cleanup), where this leaves the result for the caller to save
    elsewhere."""
    import shutil

    try:
        free = shutil.disk_usage(nearest_existing(path.parent)[0]).free
    except OSError:
        return   # not known: write and see
    need = nbytes + SAVE_OVERHEAD + DATASET_OVERHEAD * datasets
    if free < need:
        raise OSError(errno.ENOSPC, f"No space left on device: the result needs up to "
                                    f"{need / 1e6:.3g} MB, {free / 1e6:.3g} MB are free")


def _read(f) -> Result:
    """A Result from an open result file, every part checked for what save() writes (a
    KeyError, ValueError or TypeError names what is missing or wrong)."""
    def group(parent, name):
        g = parent[name]
        if not hasattr(g, "items"):
            raise TypeError(f"{name!r} is not a group")
        return g

    sums = f.attrs.get(VALUES_CRC)   # (files written before it have none)
    if sums is not None:
        sums = json.loads(sums)
        if not isinstance(sums, dict):
            raise ValueError(f"{VALUES_CRC} is not a table")

    def array(g, name, ndim):
        item = g[name]
        if hasattr(item, "items"):   # a group where an array goes: h5py's [()] on it raised
            raise TypeError(f"{g.name}/{name} is a group, not a {ndim}-D array")   # its own
        try:
            a = item[()]
        except OSError as exc:
            if "filter returned failure" not in str(exc):
                raise
            # a checksum (CHECKED) that does not match, or compressed bytes that do not decode
            raise ValueError(f"{g.name}/{name}: its stored bytes do not match their checksum "
                             "(changed since it was written)") from None
        if not isinstance(a, np.ndarray) or a.ndim != ndim or a.dtype.kind not in "iuf" \
                or a.dtype.itemsize > 8:   # (a damaged float64's type read as float128)
            raise ValueError(f"{g.name}/{name} is not a {ndim}-D array of real numbers")
        if sums is not None and sums.get(item.name) != _values_crc(a):
            raise ValueError(f"{item.name}: its values do not match their checksum (changed "
                             "since it was written)")
        return a

    stats = json.loads(f.attrs["stats"])
    if not isinstance(stats, dict):
        raise ValueError("stats is not a table")
    scene = f.attrs["scene"]
    if not isinstance(scene, str):
        raise ValueError(f"its scene is not text but {type(scene).__name__}")
    res = Result(scene_json=scene, stats=stats)
    for name, g in group(f, "probes").items():
        comps = [k for k in group(f["probes"], name) if not k.endswith("_time")]
        data, times, where = {}, {}, {}
        for c in comps:
            data[c], times[c] = array(g, c, 1), array(g, f"{c}_time", 1)
            if len(data[c]) != len(times[c]):
                raise ValueError(f"probe {name!r} {c}: {len(data[c])} values for "
                                 f"{len(times[c])} times")
            at = np.asarray(g[c].attrs["position"])
            if at.ndim != 1 or at.dtype.kind not in "iuf":
                raise ValueError(f"{g.name}/{c}: its position is not a list of coordinates")
            where[c] = tuple(float(x) for x in at)
        res.probes[name] = ProbeData(name=name, data=data, times=times, positions=where)
    for name, g in group(f, "snapshots").items():
        snap = SnapshotData(
            name=name, component=str(g.attrs["component"]), axis=str(g.attrs["axis"]),
            position=_scalar(g, "position"), frames=array(g, "frames", 3),
            times=array(g, "time", 1), coords=(array(g, "u", 1), array(g, "v", 1)))
        want = (len(snap.times), len(snap.coords[0]), len(snap.coords[1]))
        if snap.frames.shape != want:
            raise ValueError(f"snapshot {name!r}: frames of shape {snap.frames.shape}, not "
                             f"{want} (times, u, v)")
        if snap.axis not in ("x", "y", "z"):
            raise ValueError(f"snapshot {name!r}: axis {snap.axis!r}")
        if snap.component not in ("ex", "ey", "ez", "hx", "hy", "hz"):
            raise ValueError(f"snapshot {name!r}: component {snap.component!r}")
        res.snapshots[name] = snap
    if "fields" in f:
        fg = group(f, "fields")   # (a group among them: array() says so)
        res.fields = Named("field", {c: array(fg, c, getattr(fg[c], "ndim", 3)) for c in fg})
    try:   # what save() would refuse to write
        res._check()
    except ValidationError as exc:
        raise ValueError(str(exc)) from None
    return res


def _grid_scene(scene_json: str):
    """The stored scene with its grid and boundaries alone, validated, for the shape of its
    fields: the rest is not validated again (a scene of an earlier version may break a rule
    added since: a monitor's name of more than 64 bytes made a result with its fields
    unreadable)."""
    from .description.scene import Scene

    try:
        data = json.loads(scene_json)
    except ValueError:
        raise ValidationError("not JSON text") from None
    except RecursionError:
        raise ValidationError("nested too deeply to be a scene") from None
    if not isinstance(data, dict):
        raise ValidationError(f"a scene's table, not {type(data).__name__}")
    kept = {k: data[k] for k in ("grid", "boundaries") if k in data}
    return Scene.model_validate({**kept, "run": {"steps": 1}})


def _names_crc(f) -> int:
    """CRC-32 of what load reads of the open HDF5 file ``f`` besides the arrays' values:
    the root's attributes (the values' checksums among them), and under probes, snapshots
    and fields the names as load walks them (links: a second link to a probe read as
    another probe), with the attributes load reads of what they name (READ_ATTRS) and each
    array's type and shape. What load does not read (a group or an attribute added with
    h5py) is left out."""
    crc = zlib.crc32(_attrs_bytes(f, READ_ATTRS["/"]))
    for top, depth in (("probes", 2), ("snapshots", 2), ("fields", 1)):
        item = f.get(top)
        crc = zlib.crc32(_item_bytes(top, item, ()), crc)
        stack = [((top,), item, depth)]
        while stack:
            path, g, left = stack.pop()
            if left == 0 or not hasattr(g, "keys"):
                continue
            for name in sorted(g.keys(), key=_name_bytes):
                sub = g.get(name)
                where = (*path, name)
                crc = zlib.crc32(_item_bytes(name, sub, where), crc)
                stack.append((where, sub, left - 1))
    return crc


#: the attributes load reads, by where they are: the root, a probe's component (a dataset
#: two below probes), a snapshot (a group one below snapshots)
READ_ATTRS = {"/": ("format", "format_version", "scene", "stats", VALUES_CRC),
              "probes/2": ("position",), "snapshots/1": ("component", "axis", "position")}


def _name_bytes(name) -> bytes:
    """A link's name as bytes (h5py gives one that is not UTF-8 as bytes)."""
    return name if isinstance(name, bytes) else name.encode("utf-8", "surrogatepass")


def _item_bytes(name, item, where: tuple) -> bytes:
    """A link's name and what it holds for _names_crc: a group, a dataset with its storage,
    or nothing (a dangling link); and the attributes load reads there."""
    kind = b"-" if item is None else b"g" if hasattr(item, "keys") else b"d"
    out = b"\0" + _name_bytes(name) + b"\0" + kind
    if kind == b"d":
        out += _storage_bytes(item)
    keys = READ_ATTRS.get(f"{where[0]}/{len(where) - 1}", ()) if where else ()
    if where and where[0] == "probes" and _name_bytes(name).endswith(b"_time"):
        keys = ()   # (a component's times: load reads no attribute of theirs)
    if keys and item is not None:
        out += _attrs_bytes(item, keys)
    return out


def _attrs_bytes(obj, keys) -> bytes:
    return b"".join(key.encode() + b"=" + (_attr_bytes(obj.attrs[key]) if key in obj.attrs
                                           else b"?") + b"\0" for key in keys)


def _storage_bytes(ds) -> bytes:
    """A dataset's element type and shape (not how it is stored: a file repacked with
    other filters, its values the same, loads)."""
    return repr((ds.dtype.str, ds.shape)).encode()


def _values_crc(a: np.ndarray) -> int:
    """CRC-32 of an array's values, little-endian, in C order."""
    a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    return zlib.crc32(memoryview(a.reshape(-1)).cast("B")) if a.size else 0


def _attr_bytes(v) -> bytes:
    """An attribute's value as bytes that tell its type and value apart."""
    if isinstance(v, str):
        return b"s" + v.encode("utf-8", "surrogatepass")
    if isinstance(v, bytes):
        return b"b" + v
    a = np.asarray(v)
    if a.dtype.kind == "O":   # (strings in an array)
        return b"o" + repr(a.tolist()).encode("utf-8", "surrogatepass")
    return b"a" + f"{a.dtype.str}{a.shape}".encode() + a.tobytes()


def _scalar(g, key: str) -> float:
    """Attribute ``key`` of group ``g`` as one real number, or a ValueError naming it."""
    v = np.asarray(g.attrs[key])
    if v.ndim != 0 or v.dtype.kind not in "iuf":
        raise ValueError(f"{g.name}: its {key} is not a number")
    return float(v)


def load(path: str | Path) -> Result:
    """Read a result written by :meth:`Result.save`."""
    import h5py

    path = path_arg(path)
    try:
        if path.exists() and not path.is_file() and not path.is_dir():
            # open() on a FIFO waits for a writer: a device, FIFO or socket is refused first
            raise ValidationError(f"{path}: not a regular file (a device, a FIFO or a "
                                  "socket); give a result file (.h5)")
        with open(path, "rb"):   # what keeps it from being read, before what h5py says
            pass
    except FileNotFoundError:
        raise ValidationError(f"{path}: no such file; check the path") from None
    except IsADirectoryError:
        raise ValidationError(f"{path}: a directory; give a result file (.h5)") from None
    except OSError as exc:   # permission, a file where a directory goes, a name too long
        raise ValidationError(f"{path}: cannot read it ({one_line(exc)}); check the "
                              "path") from None
    try:
        f = h5py.File(path, "r")
    except FileNotFoundError:
        raise ValidationError(f"{path}: no such file; check the path") from None
    except OSError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ValidationError(f"{path}: not an HDF5 file ({first})") from None
    with f:
        try:
            return _checked(f, path)
        except ValidationError:
            raise
        except (KeyError, ValueError, TypeError, AttributeError, OSError, RuntimeError) as exc:
            # h5py's own errors where the file's bytes are damaged (RuntimeError: a group's
            # links; OSError: a block that does not decode)
            first = exc.args[0] if exc.args else None
            what = " ".join(first.split()) if isinstance(first, str) else one_line(exc)
            raise ValidationError(f"{path}: a damaged or foreign result file ({what})") from None


def _checked(f, path) -> Result:
    """load's reading of the open result file ``f``: its format and version checked, then
    _read."""
    if f.attrs.get("format") != "yeefdtd-result":
        raise ValidationError(f"{path}: not a yeefdtd result file")
    version = f.attrs.get("format_version", 1)
    if not isinstance(version, (int, np.integer)) or not 1 <= version <= FORMAT_VERSION:
        shown = int(version) if isinstance(version, (int, np.integer)) else \
            repr(version.item() if isinstance(version, np.generic) else version)
        raise ValidationError(f"{path}: result format version {shown}; this yeefdtd "
                              f"reads 1 to {FORMAT_VERSION} (a newer file needs a newer "
                              "yeefdtd)")
    if (ATTRS_CRC in f.attrs) != (VALUES_CRC in f.attrs):   # (save writes both)
        there, gone = (ATTRS_CRC, VALUES_CRC) if ATTRS_CRC in f.attrs else \
            (VALUES_CRC, ATTRS_CRC)
        raise ValidationError(f"{path}: it holds {there} but not {gone}: damaged since it "
                              "was written (a damaged name would leave its checks out)")
    stored = f.attrs.get(ATTRS_CRC)
    if stored is not None:   # (files written before it have none)
        stored = np.asarray(stored)
        if stored.shape != () or stored.dtype.kind not in "iu" or int(stored) != _names_crc(f):
            raise ValidationError(f"{path}: its names or attributes (the scene, the stats, "
                                  "positions) do not match their checksum: changed or "
                                  "damaged since it was written (an array added under "
                                  "probes, snapshots or fields counts: keep what you add "
                                  "outside them)")
    return _read(f)
