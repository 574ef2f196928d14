"""The strict base model and the error formatting every description shares.

Every description class is frozen, forbids unknown keys, rejects NaN and infinity, and turns
pydantic's errors into :class:`yeefdtd.exceptions.ValidationError` whose message names the
field path (``sources[0].waveform.tau``) and says what to change.
"""

from __future__ import annotations

import difflib
import re
import typing
from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
import pydantic
from pydantic import BaseModel, ConfigDict, Field

from ..exceptions import ValidationError

#: a field component name
Component = Literal["ex", "ey", "ez", "hx", "hy", "hz"]
#: an axis name
Axis = Literal["x", "y", "z"]
#: a point or extent in metres: two values in 2D (x, y), three in 3D (x, y, z)
Vec = Annotated[tuple[float, ...], Field(min_length=2, max_length=3)]
#: a cell index: two values in 2D, three in 3D
Index = Annotated[tuple[int, ...], Field(min_length=2, max_length=3)]

# Tags of discriminated unions; pydantic puts them in error paths, where they only confuse.
_TAGS = {
    "box", "sphere", "cylinder", "point", "probe", "snapshot", "cpml", "gaussian",
    "diff_gaussian", "ricker", "modulated_gaussian", "sine", "samples", "named",
}
_TYPE_WORDS = ("float", "int", "str", "bool", "tuple[", "list[", "function-", "literal[",
               "dict[", "json-or-python", "nullable[", "lax-or-strict", "constrained-")


class StrictModel(BaseModel):
    """Frozen, ``extra="forbid"``, finite floats only; errors become one-line messages."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        allow_inf_nan=False,
        validate_default=True,
        populate_by_name=False,
    )

    #: groups of fields that stand for one another (steps or duration): model_copy drops
    #: the others of a group where its update gives one
    _ALTERNATIVES: ClassVar[tuple[tuple[str, ...], ...]] = ()

    def __init__(self, /, *args: Any, **data: Any):
        if args:   # Python's own TypeError would not say what to write
            names = ", ".join(f"{n}=..." for n in list(type(self).model_fields)[:3])
            raise ValidationError(f"{type(self).__name__}: takes its fields by name ({names}"
                                  f"), not {len(args)} value{'s' if len(args) != 1 else ''} "
                                  "by position")
        try:
            super().__init__(**data)
        except pydantic.ValidationError as exc:
            raise from_pydantic(exc) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_") and name in (self.__private_attributes__ or {}):
            return super().__setattr__(name, value)   # not a field: set by the model itself
        # frozen: pydantic's own error spans three lines
        raise ValidationError(f"{name}: a {type(self).__name__} does not change once made; "
                              f"make another with .model_copy(update={{{name!r}: ...}})")

    def model_copy(self, *, update: dict | None = None, deep: bool = False):
        """A copy with ``update``'s fields replaced, validated as a new one is (pydantic's
        copy takes them unchecked: a probe outside the grid, an unknown material or two
        monitors of one name then ran, or failed deep in a run). A dict given for a part
        that is itself a description (``{"run": {"steps": 10}}``) updates that part's copy
        the same way, the rest of it kept (it replaced the part, whose other fields went
        back to their defaults: float64 became float32 without a word); a dict that gives a
        ``type`` (a waveform's) replaces the part. A field that stands for another
        (``steps`` for ``duration``, ``cell`` for ``position``), given, replaces it."""
        if not update:
            return super().model_copy(deep=deep)
        return self._updated(update, "update")

    def _updated(self, update, where: str):
        if not isinstance(update, dict):
            why = f"a dict of {type(self).__name__}'s fields, not {type(update).__name__}"
            raise ValidationError(f"{where}: {why}", [(where, why)])
        unknown = sorted(set(update) - set(type(self).model_fields), key=str)
        if unknown:
            why = (f"{type(self).__name__} has no field {unknown[0]!r} (its fields are "
                   f"{', '.join(type(self).model_fields)})"
                   f"{_close(_nearest(unknown[0], type(self).model_fields))}"
                   if isinstance(unknown[0], str) else
                   f"{type(self).__name__} has no field {unknown[0]!r}; its fields are named "
                   f"by text: {', '.join(type(self).model_fields)}")
            raise ValidationError(f"{where}: {why}", [(where, why)])
        data = {name: getattr(self, name) for name in type(self).model_fields
                if name in self.model_fields_set}
        for group in self._ALTERNATIVES:   # (None given for one leaves the other be)
            if any(update.get(name) is not None for name in group):
                for name in group:
                    data.pop(name, None)
        update = dict(update)
        for name, value in update.items():
            part = getattr(self, name)
            if isinstance(part, StrictModel) and isinstance(value, dict) and \
                    "type" not in value:
                try:
                    update[name] = part._updated(value, f"{where}[{name!r}]")
                except ValidationError as exc:
                    if exc.items and exc.items[0][0].startswith(where):
                        raise   # (the update itself, named already)
                    items = [(join_path(name, p), m) for p, m in exc.items]
                    # its line, its count of problems as it was made, under the part's name
                    head = join_path(name, str(exc)) if exc.items[0][0] else \
                        f"{name}: {exc}"
                    raise ValidationError(head, items) from None
        return type(self)(**{**data, **update})

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any):
        """pydantic's, with its errors as one-line ValidationErrors (its own span lines)."""
        try:
            return super().model_validate(obj, **kwargs)
        except pydantic.ValidationError as exc:
            raise from_pydantic(exc) from None

    @classmethod
    def model_validate_json(cls, json_data: Any, **kwargs: Any):
        """pydantic's, with its errors as one-line ValidationErrors (its own span lines);
        a scene file's text reads better through Scene.from_json, which names what is
        wrong in the file."""
        try:
            return super().model_validate_json(json_data, **kwargs)
        except pydantic.ValidationError as exc:
            raise from_pydantic(exc) from None

    @pydantic.model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        """A key the table does not take is named first (from_pydantic), with the nearest
        key it takes and the whole list of them: a misspelled required key ('centre') was
        reported as the one it stood for missing ('center: is required; add it'), the
        misspelling itself left out of the line. Its value is handed on wrapped in an
        _Unknown, which pydantic's own error for the key carries to from_pydantic, so that
        the table's other problems are found too."""
        if not isinstance(data, dict):
            return data
        own = cls.model_fields["type"].default if "type" in cls.model_fields else None
        if own is not None and data.get("type", own) != own:
            return data   # a table of another type: pydantic's error says which it takes
        data = dict(data)
        for key in list(data):
            if not isinstance(key, str) or key in cls.model_fields:
                continue
            try:
                key.encode("utf-8")
            except UnicodeEncodeError:   # pydantic's own error says so (_message)
                continue
            fields = list(cls.model_fields)
            what = "a " + ({"point": "point source", "cpml": "CPML"}.get(own, own)
                           if own in _TAGS else cls.__name__)
            scene_key = ""
            if cls.__name__ != "Scene" and key in _SCENE_KEYS:
                scene_key = (f"; if it is the scene's own {key!r}, write it before the first "
                             "[table] of a TOML file")
            near = _nearest(key, fields)
            data[key] = _Unknown(f"is not a known key{_close(near)}{scene_key} ({what} takes "
                                 f"{', '.join(fields)})", near)
        return data

    @pydantic.model_validator(mode="before")
    @classmethod
    def _no_booleans_for_numbers(cls, data: Any) -> Any:
        """true or false where a number goes (which pydantic would read as 1 or 0: a grid
        spacing of true is 1 m), or a quoted number ("0.001"), is an error naming the
        field."""
        if isinstance(data, dict):
            for name, value in data.items():
                if isinstance(value, (set, frozenset)):   # pydantic would take it, sorted
                    raise FieldError(str(name), "must be a list (its order counts), not a "
                                                "set")
            for name, field in cls.model_fields.items():
                if not _takes_number(field.annotation):
                    continue
                at = _bool_at(data.get(name))
                if at is not None:
                    raise FieldError(name + at, "must be a number, not true or false")
                at = _complex_at(data.get(name))
                if at is not None:   # NumPy's would pass, as its real part alone
                    lossy = "; a lossy medium takes sigma_e or sigma_m beside it" if \
                        name in ("eps_r", "mu_r") else ""
                    raise FieldError(name + at, "must be a real number, not a complex "
                                     f"one{lossy}")
                at = _str_at(data.get(name))
                if at is not None and not _takes_str(field.annotation):
                    # pydantic would read "0.001" as 0.001: a quoted number is a slip
                    raise FieldError(name + at, "must be a number in SI units, not a string;"
                                                " write it without quotes")
        return data

    @classmethod
    def parse(cls, data: Any):
        """Validate ``data`` (a mapping) into this class, raising yeefdtd's ValidationError."""
        if not isinstance(data, dict):
            raise ValidationError(f"expected a table of keys, got {type(data).__name__}")
        try:
            return cls.model_validate(data)
        except pydantic.ValidationError as exc:
            raise from_pydantic(exc) from None


#: the keys of a scene's top level (a TOML file's key after its last [table] lands in that
#: table; not 'name', which a source or an object may well have been given)
_SCENE_KEYS = ("grid", "materials", "background", "objects", "sources", "boundaries",
               "monitors", "run")

#: what other FDTD packages and textbooks call a key, where spelling alone would lead
#: elsewhere (sigma to sigma_m, a magnetic loss; probes to objects)
_SYNONYMS = {
    "sigma": ("sigma_e", "sigma_m"), "conductivity": ("sigma_e",), "epsilon": ("eps_r",),
    "eps": ("eps_r",), "permittivity": ("eps_r",), "er": ("eps_r",), "mu": ("mu_r",),
    "permeability": ("mu_r",), "ur": ("mu_r",), "probes": ("monitors",),
    "snapshots": ("monitors",), "polarization": ("component",),
    "polarisation": ("component",), "field": ("component",), "location": ("position",),
    "origin": ("center",), "centre": ("center",), "boundary": ("boundaries",),
    "pml": ("boundaries",), "dx": ("spacing",), "resolution": ("spacing",),
    "shape": ("cells",), "size_cells": ("cells",), "time": ("duration",),
    "nsteps": ("steps",), "waveform_type": ("type",), "freq": ("frequency",),
    "f0": ("frequency",), "amp": ("amplitude",), "thickness": ("cells",),
}


class _Unknown:
    """A value under a key its table does not take, with what to say of the key and the
    known keys it may stand for (_known_keys)."""

    __slots__ = ("message", "near")

    def __init__(self, message: str, near: list[str]):
        self.message = message
        self.near = near


def _nearest(key: str, names) -> list[str]:
    """The name among ``names`` nearest to ``key`` (or those _SYNONYMS says it may stand
    for), or none."""
    names = list(names)
    near = [n for n in _SYNONYMS.get(key.lower(), ()) if n in names]
    if not near:
        near = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    if not near:   # a shared stem (sigma_max for sigma_factor): the first such name
        stem = key.split("_")[0]
        near = [n for n in names if "_" in key and n.split("_")[0] == stem][:1]
    return near


def _close(near: list[str]) -> str:
    """"; did you mean 'x'?" for the names ``near``, or ''."""
    return f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""


def _takes_number(tp: Any) -> bool:
    """Whether the annotation ``tp`` takes an int or a float (alone, in a union, or as the
    items of a tuple) and no bool: the fields where true or false would be read as 1 or 0."""
    if tp is bool:
        return False
    if tp in (int, float):
        return True
    if typing.get_origin(tp) is Literal:
        return False
    args = typing.get_args(tp)
    return bool(args) and bool not in args and any(_takes_number(a) for a in args)


def _takes_str(tp: Any) -> bool:
    """Whether the annotation ``tp`` takes a string (str, a Literal of one, or a union or
    tuple holding either)."""
    if tp is str:
        return True
    if typing.get_origin(tp) is Literal:
        return any(isinstance(a, str) for a in typing.get_args(tp))
    return any(_takes_str(a) for a in typing.get_args(tp))


def _found_at(value: Any, is_one, whole_array) -> str | None:
    """Where ``value`` holds an item ``is_one`` says yes to: '' for the value itself, '[q]'
    for its first item that is one (a list, a tuple, a NumPy array of objects), '[0]' for a
    non-empty NumPy array whose dtype ``whole_array`` says yes to; None where it holds none."""
    if is_one(value):
        return ""
    if isinstance(value, np.ndarray):
        if whole_array(value):
            return "[0]" if value.size else None
        items = value.flat if value.dtype == object else ()
    else:
        items = value if isinstance(value, (list, tuple)) else ()
    return next((f"[{q}]" for q, v in enumerate(items) if is_one(v)), None)


def _str_at(value: Any) -> str | None:
    """Where ``value`` holds a string (_found_at)."""
    return _found_at(value, lambda v: isinstance(v, (str, bytes)),
                     lambda a: a.dtype.kind in "SU")


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def _bool_at(value: Any) -> str | None:
    """Where ``value`` holds a bool, Python's or NumPy's (_found_at)."""
    return _found_at(value, _is_bool, lambda a: a.dtype == np.bool_)


def _complex_at(value: Any) -> str | None:
    """Where ``value`` holds a complex number, Python's or NumPy's (_found_at): pydantic
    refuses Python's complex but takes NumPy's as their real part."""
    return _found_at(value, lambda v: isinstance(v, complex | np.complexfloating),
                     np.iscomplexobj)


def format_loc(loc: tuple) -> str:
    """``('sources', 0, 'point', 'waveform', 'gaussian', 'tau')`` -> ``sources[0].waveform.tau``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        text = str(part)
        if text in _TAGS or text.startswith(_TYPE_WORDS):
            continue
        out += ("." if out else "") + text
    return out


def _short(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.ndim > 0:   # its repr spans lines
        return f"an array of shape {value.shape}"
    text = " ".join(repr(value).split())
    return text if len(text) <= 48 else text[:45] + "..."


_BOUNDS = {
    "greater_than": (">", "gt"),
    "greater_than_equal": (">=", "ge"),
    "less_than": ("<", "lt"),
    "less_than_equal": ("<=", "le"),
}


def real_array(value, what: str, quantity: str, shown: str | None = None) -> np.ndarray:
    """``value`` as a NumPy array of real numbers, as given (integers or floats, not cast),
    or a one-line ValidationError: "<what>: <quantity> (a number or an array of numbers),
    not <shown>" (``shown``: the value's repr). Text, None, booleans, complex values and
    ragged lists are refused (NumPy would read "1e9" as text, True as a number)."""
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):   # a ragged list
        a = np.asarray(None)
    if a.dtype.kind not in "iuf":
        raise ValidationError(f"{what}: {quantity} (a number or an array of numbers), not "
                              f"{repr(value) if shown is None else shown}"[:200])
    return a


def _message(err: dict, field: str = "") -> str:
    """What to say of pydantic's error ``err`` at the field named ``field`` (its last
    name, without an item's index)."""
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    got = err.get("input")
    if kind == "int_from_float" and field == "cell":
        return (f"must hold whole numbers, cell indices (got {_short(got)}); a point in "
                "metres goes in 'position'")
    if kind == "int_from_float" and field == "index":
        return (f"must be a whole number, a plane's index (got {_short(got)}); a plane's "
                "position in metres goes in 'position'")
    if kind == "missing":
        return "is required; add it"
    if kind == "extra_forbidden":
        if isinstance(got, _Unknown):
            return got.message
        return "is not a known key; remove it or check its spelling"
    if kind in _BOUNDS:
        sign, key = _BOUNDS[kind]
        return f"must be {sign} {ctx.get(key)} (got {_short(got)})"
    if kind in ("too_short", "too_long"):
        n = ctx.get("actual_length")
        most = (f"at least {ctx.get('min_length')}" if kind == "too_short"
                else f"at most {ctx.get('max_length')}")
        return (f"has the wrong number of values (got {_short(got)}): give {most}"
                + ("" if n is None else f", not {n}"))
    if isinstance(got, (Decimal, Fraction)):
        return (f"must be a plain number, a float or an int (got {_short(got)}); write "
                f"float(...) of it")
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        # (here: boundaries imports this module)
        from .boundaries import FACES

        if field in FACES:
            return (f"input should be 'pec', 'pmc', 'periodic' or 'cpml', or a table of CPML "
                    f"settings (got {_short(got)})")
        if isinstance(got, list) and got and all(isinstance(x, dict) for x in got):
            return (f"must be one table, not a list of them (got {_short(got)}); in TOML "
                    f"write [{field}], not [[{field}]]")
        if isinstance(got, str):
            return (f"must be a table of settings, not text (got {_short(got)}); if {got!r} "
                    f"names its type, write type = {got!r} inside that table")
        return f"must be a table of settings (got {_short(got)})"
    if kind == "union_tag_invalid":
        return (f"type {_short(ctx.get('tag'))} is unknown; use one of "
                f"{ctx.get('expected_tags')}")
    if kind == "union_tag_not_found":
        return "needs a 'type' key saying what it is"
    if kind in ("tuple_type", "list_type") and isinstance(got, dict):
        return (f"must be a list (got {_short(got)}); in TOML, [[name]] tables or "
                "name = [...], not a single [name] table")
    if kind in ("tuple_type", "list_type"):
        return f"must be a list of values, [a, b, ...] (got {_short(got)})"
    if kind == "finite_number":
        return "must be a finite number (got NaN or infinity)"
    if kind == "string_unicode":   # a key (pydantic names only the table holding it) or value
        return (f"the key or value {_short(got)} is not valid text (it holds a lone "
                "surrogate, half of a UTF-16 pair); write it as plain text")
    if kind == "int_parsing_size":   # a number past what an integer field could ever take
        return f"is far too large for this field (got {_short(got)}); give a smaller whole number"
    msg = err.get("msg", "is invalid")
    if msg.startswith("Value error, "):
        return msg[len("Value error, "):]
    if msg.startswith("Assertion failed, "):
        return msg[len("Assertion failed, "):]
    return f"{msg[0].lower()}{msg[1:]} (got {_short(got)})"


class FieldError(ValueError):
    """Raised by a validator: ``path`` is relative to the model that raises it."""

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.message = message


def join_path(outer: str, inner: str) -> str:
    if not outer:
        return inner
    if not inner:
        return outer
    return outer + inner if inner.startswith("[") else f"{outer}.{inner}"


def from_pydantic(exc: pydantic.ValidationError) -> ValidationError:
    """Turn a pydantic error into one yeefdtd ValidationError, one item per problem."""
    def listed(path: str) -> str:   # the list a path is an item of ('cell[0]': 'cell')
        return re.sub(r"\[\d+\]$", "", path)

    items: list[tuple[str, str]] = []
    kinds: dict[str, str] = {}
    errors = exc.errors(include_url=False)
    unknown = [(format_loc(tuple(e.get("loc", ()))), e["input"]) for e in errors
               if e.get("type") == "extra_forbidden" and isinstance(e.get("input"), _Unknown)]
    # the key a misspelling may stand for, missing beside it, is the same problem
    stands_for = {join_path(p.rpartition(".")[0], n) for p, u in unknown for n in u.near}
    unknown_paths = {p for p, _ in unknown}
    errors = [e for e in errors if not (
        e.get("type") == "missing" and format_loc(tuple(e.get("loc", ()))) in stands_for)]
    # an unknown key leads: it may well explain the rest; and of a union's alternatives for
    # one list given, its length's error leads (a list of 4 spacings is not 'a number')
    first: dict[str, int] = {}
    for n, e in enumerate(errors):
        first.setdefault(format_loc(tuple(e.get("loc", ()))), n)

    def order(e: dict) -> tuple:
        path = format_loc(tuple(e.get("loc", ())))
        return (path not in unknown_paths, first[path],
                not (e.get("type") in ("too_short", "too_long")
                     and isinstance(e.get("input"), (list, tuple))))
    errors.sort(key=order)
    for err in errors:
        path = format_loc(tuple(err.get("loc", ())))
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, ValidationError):  # a nested model's own __init__ raised it
            items += [(join_path(path, p), m) for p, m in cause.items]
        elif isinstance(cause, FieldError):
            items.append((join_path(path, cause.path), cause.message))
        else:
            items.append((path, _message(err, listed(path).rsplit(".", 1)[-1])))
            kinds.setdefault(path, err.get("type", ""))
    unique: list[tuple[str, str]] = []
    seen: set = set()
    more = 0   # problems besides the first, those of the same kind in one list as one
    for p, m in items:  # a union reports each alternative; keep the first per path
        field = listed(p)
        if p and p in seen:
            continue
        if kinds.get(p) == "too_short" and any(q.startswith(p + "[") for q, _ in items):
            continue   # 'at least 1 item after validation, not 0': its items were refused
        if unique and not (p != field and (field, kinds.get(p)) in seen):
            more += 1
        seen.add(p)
        seen.add((field, kinds.get(p)))
        unique.append((p, m))
    if not unique:
        unique = [("", str(exc).splitlines()[0])]
    p, m = unique[0]
    head = f"{p}: {m}" if p else m
    if more:
        head += f" (and {more} more problem{'s' if more > 1 else ''})"
    return ValidationError(head, unique)
