"""The scene: everything a run needs, as pure data in SI units.

A scene validates itself on construction: every rule that involves more than one field
(a source inside the domain, periodic faces in pairs, a CPML no thicker than a third of the
grid, components that exist in a 2D mode...) is a small named check below, and each failure
names the field path and says what to change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, PositiveFloat, PositiveInt, field_validator, model_validator

from ..constants import KERNEL_VARIANTS, MAX_MATERIALS, MAX_STEPS
from .base import FieldError, StrictModel
from .boundaries import FACES, NAMED_FACES, Boundaries, Cpml, check_face_name
from .geometry import Object
from .grid import Grid
from .materials import BUILTIN_MATERIALS, MAX_RELATIVE, VACUUM, Material
from .monitors import Monitor, Probe, Snapshot
from .sources import Source

_EPS = 1e-9  # relative slack when testing positions against the domain's faces


def dtype_name(dtype):
    """NumPy's float32, float64 or float16 (a dtype, or its scalar type) as the name
    run.dtype takes; anything else as given, for the checks that name it."""
    import numpy as np

    if isinstance(dtype, np.dtype) or (isinstance(dtype, type) and issubclass(dtype, np.generic)):
        name = np.dtype(dtype).name
        if name in ("float32", "float64", "float16"):
            return name
    return dtype


def _apart(x: float, end: float) -> tuple[str, str]:
    """``x`` and the domain's ``end`` in as few significant digits as tell them apart (6 at
    least): a point just past the end read "x = 0.02 m is outside the domain (0 to 0.02 m)"."""
    for digits in range(6, 18):
        a, b = f"{x:.{digits}g}", f"{end:.{digits}g}"
        if a != b:
            return a, b
    return f"{x!r}", f"{end!r}"


class RunSettings(StrictModel):
    """How long to run and with what numbers."""

    _ALTERNATIVES = (("steps", "duration"),)

    steps: PositiveInt | None = Field(None, le=MAX_STEPS, description="number of time steps")
    duration: PositiveFloat | None = Field(None, description="simulated time in seconds, "
                                           "instead of steps")
    courant: float = Field(0.99, ge=1e-6, le=1.0, description="time step as a fraction of "
                           "the stability limit for the cell sizes (<= 1; an axis of one "
                           "periodic cell takes no part in it)")
    dtype: Literal["float32", "float64", "float16", "bfloat16"] = Field(
        "float32", description="precision of the fields; float16 and bfloat16 store them in "
        "16 bits (half the memory traffic) and compute in float32")
    backend: Literal["auto", "numpy", "cuda"] = Field("auto", description="'auto' picks "
                                                      "cuda where a GPU is usable")
    check_every: PositiveInt = Field(200, le=MAX_STEPS, description="steps between divergence "
                                     "checks")
    variant: str = Field("auto", min_length=1, max_length=64, description="CUDA kernel "
                         "variant: auto ('temporal' on large grids, where it was "
                         "measured faster; else 'indexed'), "
                         "indexed, fused, temporal, seed-xyz, seed-xy, seed-plane, "
                         "seed-multicell or tiled-2d, with options after a colon "
                         "(seed-xyz:pad32, temporal:steps=3); the numpy backend ignores it")

    @field_validator("dtype", mode="before")
    @classmethod
    def _numpy_dtype(cls, v):
        """NumPy's float32, float64 or float16 as their names, as run(dtype=...) takes them
        (RunSettings refused np.float32)."""
        return dtype_name(v)

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, v):
        name = v.partition(":")[0]
        if name == "auto":
            if v != "auto":
                raise ValueError("'auto' takes no options; name a variant to give them")
            return v
        if name not in KERNEL_VARIANTS:
            raise ValueError(f"unknown kernel variant {name!r}; use auto or one of "
                             f"{', '.join(KERNEL_VARIANTS)}")
        from ..backends.cuda.variants import make_variant  # options (no CuPy needed)
        from ..exceptions import YeeError

        try:
            make_variant(v)
        except YeeError as exc:
            raise ValueError(str(exc).removeprefix("variant: ")) from None
        return v

    @model_validator(mode="after")
    def _one_length(self):
        if (self.steps is None) == (self.duration is None):
            raise FieldError("", "give exactly one of 'steps' or 'duration' (seconds)")
        return self


class Scene(StrictModel):
    """A complete simulation description. Load one with :meth:`load`, save with :meth:`save`."""

    name: str = Field("scene", min_length=1, max_length=200, description="a label")
    grid: Grid = Field(description="cells, cell sizes and mode")
    materials: dict[str, Material] = Field(default_factory=dict, description="named "
                                           "materials; 'vacuum', 'pec', 'pmc' are built in")
    background: str = Field("vacuum", description="material of cells inside no object")
    objects: tuple[Object, ...] = Field((), description="geometry; later objects overwrite "
                                        "earlier ones")
    sources: tuple[Source, ...] = Field((), description="excitations")
    boundaries: Boundaries = Field(default_factory=Boundaries, description="one condition "
                                   "per face (default: CPML)")
    monitors: tuple[Monitor, ...] = Field((), description="probes and snapshots")
    run: RunSettings = Field(description="steps or duration, Courant factor, dtype, backend")

    @field_validator("objects", "sources", "monitors", mode="before")
    @classmethod
    def _a_list(cls, v, info):
        """One object, source or monitor where a list of them is asked for (a model, or a
        table: ``[sources]`` in TOML where ``[[sources]]`` was meant) was read as the list
        of its fields, each a 'source' of its own: '(and 6 more problems)'."""
        if isinstance(v, BaseModel | dict):
            what = type(v).__name__ if isinstance(v, BaseModel) else "one table"
            raise ValueError(f"a list of {info.field_name}, not {what}: wrap it in [...] (in "
                             f"TOML, [[{info.field_name}]] for each)")
        return v

    @field_validator("name")
    @classmethod
    def _one_line_label(cls, v: str) -> str:
        """A label printed in a run's summary line and kept in the result file: no control
        characters (a newline split the summary), and text HDF5 can store."""
        if any(ord(c) < 32 or ord(c) == 127 for c in v):
            raise ValueError(f"{v!r} holds a control character (a newline, a tab...); use a "
                             "label of one line")
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{v!r} is not valid text (it holds a lone surrogate)") from None
        return v

    @field_validator("boundaries", mode="before")
    @classmethod
    def _one_for_all(cls, v):
        if isinstance(v, str):   # a name no face takes is this field's error, not x_min's
            check_face_name(v)
            return {f: v for f in FACES}
        return v

    # ---- cross-field checks, each one rule -------------------------------------------

    @model_validator(mode="before")
    @classmethod
    def _drop_z_faces_of_uniform_2d(cls, data):
        # ``boundaries = "pec"`` on a 2D grid means the four in-plane faces.
        if isinstance(data, dict) and isinstance(data.get("boundaries"), str) and \
                data["boundaries"] in NAMED_FACES:
            grid = data.get("grid")
            mode = grid.get("mode") if isinstance(grid, dict) else getattr(grid, "mode", None)
            if mode in ("tmz", "tez"):
                data = {**data, "boundaries": {f: data["boundaries"] for f in FACES[:4]}}
        return data

    @model_validator(mode="after")
    def _materials_known(self):
        if len(self.materials) > MAX_MATERIALS:
            raise FieldError("materials", f"{len(self.materials)} materials is more than "
                             f"{MAX_MATERIALS}; merge materials that are the same")
        for name in self.materials:
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:   # a lone surrogate: no file could hold the scene
                raise FieldError("materials", f"the name {name!r} is not valid text (it holds "
                                 "a lone surrogate); use letters, digits, '_' or '-'") from None
            if name in BUILTIN_MATERIALS:
                raise FieldError(f"materials.{name}", f"'{name}' is built in; choose another name")
        known = set(self.materials) | set(BUILTIN_MATERIALS)
        if self.background not in known:
            raise FieldError("background", f"unknown material {self.background!r}; define it "
                             f"under [materials] or use one of {sorted(known)}")
        for i, obj in enumerate(self.objects):
            if obj.material not in known:
                raise FieldError(f"objects[{i}].material", f"unknown material {obj.material!r}; "
                                 f"define it under [materials] or use one of {sorted(known)}")
        return self

    @model_validator(mode="after")
    def _dimensions_match_grid(self):
        nd = self.grid.ndim
        checks = []
        for i, o in enumerate(self.objects):
            checks.append((f"objects[{i}].center", o.center))
            if hasattr(o, "size"):
                checks.append((f"objects[{i}].size", o.size))
        for kind, items in (("sources", self.sources), ("monitors", self.monitors)):
            for i, s in enumerate(items):
                for attr in ("position", "cell"):
                    v = getattr(s, attr, None)
                    if attr == "position" and isinstance(s, Snapshot):
                        continue
                    if v is not None:
                        checks.append((f"{kind}[{i}].{attr}", v))
        for path, v in checks:
            if len(v) != nd:
                raise FieldError(f"{path}", f"a {nd}D grid takes {nd} values, got {len(v)}")
        return self

    @model_validator(mode="after")
    def _components_exist(self):
        have = self.grid.components
        def bad(path, c):
            return FieldError(f"{path}", f"{c!r} does not exist in a {self.grid.mode!r} grid; "
                              f"use one of {', '.join(have)}")
        for i, s in enumerate(self.sources):
            if s.component not in have:
                raise bad(f"sources[{i}].component", s.component)
        for i, m in enumerate(self.monitors):
            comps = m.components if isinstance(m, Probe) else (m.component,)
            for c in comps or ():
                if c not in have:
                    raise bad(f"monitors[{i}].component{'s' if isinstance(m, Probe) else ''}",
                              c)
        return self

    @model_validator(mode="after")
    def _cylinders_along_z_in_2d(self):
        if self.grid.is_2d:
            for i, o in enumerate(self.objects):
                if getattr(o, "axis", "z") != "z":
                    raise FieldError(f"objects[{i}].axis", "a cylinder in a 2D grid lies "
                                     "along z (it is a disc); set axis = 'z'")
                # an error, not a note: a length says a finite cylinder, which a 2D grid
                # (the same at every z) cannot hold; it was ignored, so the run was of an
                # infinite one
                if getattr(o, "length", None) is not None:
                    raise FieldError(f"objects[{i}].length", "a 2D grid is the same at every "
                                     "z, so a cylinder in it is infinitely long (a disc in "
                                     "the plane); remove length, or use a 3D grid")
        return self

    @model_validator(mode="after")
    def _objects_touch_domain(self):
        size = self.grid.size
        for i, o in enumerate(self.objects):
            lo, hi = o.bounds()
            for a in range(self.grid.ndim):
                if hi[a] < 0 or lo[a] > size[a]:
                    raise FieldError(
                        f"objects[{i}]", f"lies entirely outside the domain along "
                        f"{'xyz'[a]} (spans {lo[a]:.6g} to {hi[a]:.6g} m, the domain 0 to "
                        f"{size[a]:.6g} m); move it inside")
        return self

    @model_validator(mode="after")
    def _points_inside(self):
        size, cells = self.grid.size, self.grid.cells
        for kind, items in (("sources", self.sources), ("monitors", self.monitors)):
            for i, s in enumerate(items):
                if isinstance(s, Snapshot):
                    continue
                if s.position is not None:
                    for a, x in enumerate(s.position):
                        if not (-_EPS * size[a] <= x <= size[a] * (1 + _EPS)):
                            shown, end = _apart(x, size[a])
                            raise FieldError(
                                f"{kind}[{i}].position", f"{'xyz'[a]} = {shown} m is outside "
                                f"the domain (0 to {end} m); move it inside")
                else:
                    for a, k in enumerate(s.cell):
                        if not 0 <= k < cells[a]:
                            raise FieldError(
                                f"{kind}[{i}].cell", f"index {k} along {'xyz'[a]} is outside "
                                f"0..{cells[a] - 1}; use a cell of the grid")
        return self

    @model_validator(mode="after")
    def _snapshots_fit(self):
        for i, m in enumerate(self.monitors):
            if not isinstance(m, Snapshot):
                continue
            if self.grid.is_2d:
                if m.axis != "z" or m.position is not None or m.index is not None:
                    raise FieldError(f"monitors[{i}]", "a 2D snapshot covers the whole grid; "
                                     "remove 'axis', 'position' and 'index'")
                continue
            length = self.grid.size["xyz".index(m.axis)]
            # an error, not a note: a plane past the component's last was clamped to the
            # last, so the snapshot recorded another plane than the one asked for
            last, why = self._last_plane(m.component, m.axis)
            if m.index is not None and m.index > last:
                raise FieldError(f"monitors[{i}].index", f"{m.index} is outside 0..{last}, the "
                                 f"planes of {m.component} along {m.axis}{why}; use a plane "
                                 "of the grid")
            if m.position is not None and not (
                    -_EPS * length <= m.position <= length * (1 + _EPS)):
                shown, end = _apart(m.position, length)
                raise FieldError(f"monitors[{i}].position", f"{shown} m is outside the "
                                 f"domain along {m.axis} (0 to {end} m); move it inside")
        return self

    def _last_plane(self, component: str, axis: str) -> tuple[int, str]:
        """The last plane index of ``component`` along ``axis`` and, where it is not the
        cell count, why: a component half a cell in along the axis has one plane fewer, and
        on a periodic axis plane n is plane 0 again."""
        from ..build.grid import OFFSETS

        a = "xyz".index(axis)
        n = self.grid.cells[a]
        if OFFSETS[component][a]:
            return n - 1, f" ({component} lies half a cell in along {axis})"
        if all(self.boundaries.kind(f"{axis}_{side}") == "periodic" for side in ("min", "max")):
            return n - 1, f" (periodic along {axis}: plane {n} is plane 0)"
        return n, ""

    @model_validator(mode="after")
    def _monitor_names_unique(self):
        seen = set()
        for i, name in enumerate(self.monitor_names()):
            if name in seen:
                raise FieldError(f"monitors[{i}].name", f"{name!r} is used twice; names must be "
                                 "unique")
            seen.add(name)
        return self

    @model_validator(mode="after")
    def _boundaries_consistent(self):
        b = self.boundaries
        if self.grid.is_2d:
            for f in ("z_min", "z_max"):
                if getattr(b, f) is not None:
                    raise FieldError(f"boundaries.{f}", "a 2D grid has no z faces; remove it")
        for a, axis in enumerate("xyz"[: self.grid.ndim]):
            lo, hi = b.kind(f"{axis}_min"), b.kind(f"{axis}_max")
            if (lo == "periodic") != (hi == "periodic"):
                raise FieldError(f"boundaries.{axis}_min/{axis}_max", f"periodic must be set on "
                                 f"both faces (got {lo!r} and {hi!r})")
            n = self.grid.cells[a]
            for side in ("min", "max"):
                face = b.face(f"{axis}_{side}")
                if isinstance(face, Cpml) and 3 * face.cells > n:
                    if getattr(b, f"{axis}_{side}") is None:   # the default, not written
                        raise FieldError(
                            f"boundaries.{axis}_{side}", f"not given, so the default CPML of "
                            f"{face.cells} cells, more than a third of the {n} cells along "
                            f"{axis}; give the face (\"pec\"" + (
                                f", or a CPML of at most {n // 3} cells, which reflects more "
                                "than the default's 10)" if n >= 3 else ")")
                            + " or enlarge the grid")
                    fix = (f"use at most {n // 3} or enlarge the grid" if n >= 3 else
                           f"enlarge the grid to {3 * face.cells} cells or give the face "
                           "\"pec\"")
                    raise FieldError(
                        f"boundaries.{axis}_{side}.cells", f"a CPML of {face.cells} cells is more "
                        f"than a third of the {n} cells along {axis}; {fix}")
        return self

    # ---- helpers ----------------------------------------------------------------------

    def monitor_names(self) -> list[str]:
        """Monitor names with defaults filled in (probe0, snapshot1, ...)."""
        return [m.name or f"{m.type}{i}" for i, m in enumerate(self.monitors)]

    def material(self, name: str) -> Material:
        """The material called ``name`` (built-in ones included; pec/pmc are vacuum-like); a
        NotFound listing the names there are for another."""
        if name not in self.material_names():
            from ..exceptions import NotFound

            raise NotFound(f"material {name!r}: not in this scene; it has "
                           f"{', '.join(map(repr, self.material_names()))}")
        return self.materials.get(name, VACUUM)   # (frozen: one for all)

    def material_names(self) -> list[str]:
        """All material names in table order: built-ins first, then the scene's own."""
        return [*BUILTIN_MATERIALS, *self.materials]

    # ---- files ------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | Path) -> Scene:
        """Read a scene from a .json or .toml file."""
        from ..io import load_scene

        return load_scene(path)

    def save(self, path: str | Path) -> Path:
        """Write the scene to a .json or .toml file (chosen by the extension)."""
        from ..io import save_scene

        return save_scene(self, path)

    def to_json(self, indent: int | None = 2) -> str:
        """The scene as JSON text, indented by ``indent`` spaces (None: on one line)."""
        from ..exceptions import ValidationError

        if indent is not None and (isinstance(indent, bool) or not isinstance(
                indent, int) or not 0 <= indent <= 64):
            raise ValidationError(f"indent: a number of spaces from 0 to 64, or None, not "
                                  f"{indent!r}"[:200])
        return self.model_dump_json(indent=indent, exclude_none=True)

    @classmethod
    def from_json(cls, text: str) -> Scene:
        from ..io import scene_from_text

        return scene_from_text(text, "json")

    def to_toml(self) -> str:
        from ..io import dump_toml

        return dump_toml(self.model_dump(mode="json", exclude_none=True))

    @classmethod
    def from_toml(cls, text: str) -> Scene:
        from ..io import scene_from_text

        return scene_from_text(text, "toml")

    @classmethod
    def json_schema(cls) -> dict:
        """The JSON Schema of a scene file: pydantic's, widened where the fields take a
        shorthand their validators expand (a material's scalar for all three axes, the
        string 'cpml' for a face, one condition for every face), so that the files the
        README and examples/ show are valid under it too."""
        schema = cls.model_json_schema()
        defs = schema["$defs"]
        for name in ("eps_r", "mu_r", "sigma_e", "sigma_m"):
            prop = defs["Material"]["properties"][name]
            array = {k: v for k, v in prop.items() if k not in ("default", "description",
                                                                "title")}
            defs["Material"]["properties"][name] = {
                "anyOf": [{"type": "number"}, array],
                **{k: prop[k] for k in ("default", "description", "title") if k in prop}}
        for face in FACES:
            for branch in defs["Boundaries"]["properties"][face]["anyOf"]:
                for named in branch.get("oneOf", ()):
                    if "enum" in named:
                        named["enum"] = [*named["enum"], "cpml"]
        named = {"enum": ["pec", "pmc", "periodic", "cpml"], "type": "string"}
        prop = schema["properties"]["boundaries"]
        schema["properties"]["boundaries"] = {
            "anyOf": [named, {"$ref": prop.pop("$ref")}], **prop}
        # the bounds the validators hold, so that a file the schema passes is one the
        # package takes in these fields too (eps_r = -2 passed it)
        for name in ("eps_r", "mu_r"):
            _bound(defs["Material"]["properties"][name], minimum=1.0, maximum=MAX_RELATIVE)
        for name in ("sigma_e", "sigma_m"):
            _bound(defs["Material"]["properties"][name], minimum=0.0)
        _bound(defs["Box"]["properties"]["size"], exclusiveMinimum=0.0)
        for model in ("PointSource", "Probe"):
            _bound(defs[model]["properties"]["cell"], minimum=0)
        return schema


def _bound(node, **bounds) -> None:
    """Set ``bounds`` (JSON Schema keywords) on every number or integer of the schema
    ``node``, through its anyOf branches and array items."""
    if isinstance(node, dict):
        if node.get("type") in ("number", "integer"):
            node.update(bounds)
        for key in ("anyOf", "prefixItems"):
            for branch in node.get(key, ()):
                _bound(branch, **bounds)
        _bound(node.get("items"), **bounds)
