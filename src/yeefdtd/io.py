"""Scene files: JSON and TOML, read and written.

TOML is read with the standard library (``tomllib``, or its backport ``tomli`` on Python
3.10) and written by the small emitter below, which covers what a scene holds: tables,
arrays of tables, strings, numbers, booleans and arrays of those.
"""

from __future__ import annotations

import errno
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from .exceptions import ValidationError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_FORMATS = {".json": "json", ".toml": "toml"}


def _format_of(path: Path) -> str:
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ValidationError(f"{path}: unknown scene file type {path.suffix!r}; use a .toml "
                              "or .json file")
    return fmt


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list) -> dict:
    """A JSON object, refusing a key given twice (JSON keeps the last silently)."""
    out = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


def parse_text(text: str, fmt: str, source: str = "scene") -> dict:
    """Parse JSON or TOML text into a dict, with a one-line error on bad syntax."""
    if not isinstance(text, str):
        raise ValidationError(f"{source}: {fmt.upper()} text, not {type(text).__name__}")
    try:
        if fmt == "json":
            data = json.loads(text, object_pairs_hook=_unique_keys)
        else:
            data = tomllib.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"{source}: JSON syntax error at line {exc.lineno}, column "
                              f"{exc.colno}: {exc.msg}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValidationError(f"{source}: TOML syntax error: {exc}") from None
    except _DuplicateKey as exc:
        raise ValidationError(f"{source}: the key {exc.args[0]!r} is given twice in one "
                              "table; keep one") from None
    except RecursionError:
        raise ValidationError(f"{source}: nested too deeply to be a scene") from None
    except ValueError as exc:   # e.g. an integer of more digits than Python converts
        why = one_line(exc).split(";")[0]   # not Python's advice on raising its limit
        raise ValidationError(f"{source}: a value cannot be read ({why}); write numbers "
                              "of at most a few dozen digits") from None
    if not isinstance(data, dict):
        raise ValidationError(f"{source}: the top level must be a table of keys, got "
                              f"{type(data).__name__}")
    return data


def scene_from_text(text: str, fmt: str, source: str = "scene"):
    from .description.scene import Scene

    return Scene.parse(parse_text(text, fmt, source))


def path_arg(path, what: str = "path") -> Path:
    """``path`` (a str or os.PathLike) as a Path, or a one-line ValidationError naming
    ``what`` and the type given instead."""
    if not isinstance(path, (str, os.PathLike)):
        raise ValidationError(f"{what}: a file name, not {type(path).__name__}")
    if "\0" in os.fspath(path):
        raise ValidationError(f"{what}: {os.fspath(path)!r} holds a NUL character")
    return Path(path)


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (h5py's and others' span several)."""
    text = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return " ".join(str(text).split())


def load_scene(path: str | Path):
    """Read and validate a scene from a .json or .toml file."""
    if isinstance(path, (str, os.PathLike)) and os.fspath(path) == "":
        raise ValidationError("scene: an empty path; give a .toml or .json file")
    path = path_arg(path)
    fmt = _format_of(path)
    try:
        if path.exists() and not path.is_file() and not path.is_dir():
            # a FIFO or a device would hold the read open until something writes to it
            raise ValidationError(f"{path}: not a regular file; give a .toml or .json file")
        # a byte-order mark (some editors write one) is not part of the text
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except FileNotFoundError:
        raise ValidationError(f"{path}: no such file; check the path") from None
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{path}: not UTF-8 text (byte {exc.start} is "
                              f"{exc.object[exc.start:exc.start + 1]!r}); save it as UTF-8 "
                              f"(TOML and JSON files are)") from None
    except (IsADirectoryError, PermissionError) as exc:
        raise ValidationError(f"{path}: cannot read it ({type(exc).__name__})") from None
    except OSError as exc:   # a name too long, a file where a directory goes, a link loop
        raise ValidationError(f"{path}: cannot read it ({one_line(exc)}); check the "
                              "path") from None
    return scene_from_text(text, fmt, str(path))


def _through_link(path: Path) -> Path:
    """The file a symbolic link at ``path`` names (resolved), or ``path`` itself."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path


def make_directory(directory: Path, why: str) -> None:
    """``directory`` and those above it that are missing, made; where any was, a note on
    stderr names it (and ``why``): a slip in a path (-o /nonexistent/dir/x.h5) made a new
    tree without a word."""
    directory = Path(directory)
    if directory.is_dir():
        return
    directory.mkdir(parents=True, exist_ok=True)
    print(f"note: created the directory {directory} {why}", file=sys.stderr)


def write_atomic(path: Path, write) -> Path:
    """Call ``write(tmp_path)`` then rename onto ``path``: a crash never leaves half a file.
    A symbolic link at ``path`` is written through (its target replaced, the link kept);
    returns ``path`` as given. A directory it creates for it is named on stderr (a slip in
    the path made a new tree without a word)."""
    given = Path(path)
    path = _through_link(given)
    make_directory(path.parent, f"for {path.name}")
    # the name's first characters alone: a name near the longest a directory takes (255
    # bytes) would not take the temporary file's 15 more
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".part", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, _new_file_mode(path))   # not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return given


def output_path(path, what: str = "path") -> Path:
    """``path`` for a writer (Result.save, Scene.save): a file name that can be written
    (check_writable), or a one-line ValidationError."""
    return check_writable(path, what)   # a str or path, without NUL characters


def check_writable(path: str | Path, what: str, directory: bool = False) -> Path:
    """``path`` if a file (``directory``: files in a directory) can be written there, else a
    one-line ValidationError naming ``what`` (the option or field that gave the path).
    Called before a run or a benchmark, so that no result waits on a path that cannot take
    it. Nothing is left behind: a directory that does not exist yet is judged by the
    nearest one above it (the writers create it)."""
    if str(path) == "":
        raise ValidationError(f"{what}: an empty path; give a "
                              f"{'directory' if directory else 'file name'}")
    try:
        return _check_writable(path_arg(path, what), what, directory)
    except OSError as exc:   # a name too long, a link loop: what stat or mkstemp said
        raise ValidationError(f"{what}: {path}: {one_line(exc)}; choose another "
                              "path") from None


def _stat(path: Path):
    """``os.stat(path)``, or None where nothing is there; any other OSError (a link loop, a
    name too long) is raised, where Path.exists() would say False."""
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def nearest_existing(path: Path) -> tuple[Path, os.stat_result]:
    """``path`` or the nearest directory above it that exists, with its stat (the place a
    writer that creates the directories it lacks will write in); an OSError where one
    cannot be looked at (a link loop, a name too long)."""
    for up in (path, *path.parents):
        st = _stat(up)
        if st is not None:
            return up, st
    raise FileNotFoundError(errno.ENOENT, "no directory above it exists", str(path))


def _check_writable(path: Path, what: str, directory: bool) -> Path:
    import stat

    st = _stat(path)
    if not directory and st is not None and stat.S_ISDIR(st.st_mode):
        raise ValidationError(f"{what}: {path} is a directory; give a file name in it")
    if not directory and st is not None and not stat.S_ISREG(st.st_mode):
        # a writer renames its file onto the path: a device or a FIFO would be replaced
        raise ValidationError(f"{what}: {path} is not a regular file (a device, a FIFO or "
                              "a socket); give a file name")
    if directory and st is not None and not stat.S_ISDIR(st.st_mode):
        raise ValidationError(f"{what}: {path} is a file; give a directory")
    if not directory and st is not None and not st.st_mode & 0o222:
        # the writer's rename would replace it without a word (the directory allows it)
        raise ValidationError(f"{what}: {path} is read-only (no write permission for "
                              "anyone); make it writable (chmod u+w) to replace it, or "
                              "choose another name")
    target = _through_link(path) if not directory else path   # where the writer writes
    up, st = nearest_existing(target if directory else target.parent)   # a directory
    if not stat.S_ISDIR(st.st_mode):
        raise ValidationError(f"{what}: {up} is a file, not a directory; choose another "
                              "path")
    try:
        fd, probe = tempfile.mkstemp(prefix=".yeefdtd-", suffix=".check", dir=up)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:   # (ENOENT from a directory that is there: /proc takes no files)
        why = "it takes no new files" if exc.errno == errno.ENOENT else \
            (exc.strerror or str(exc))
        raise ValidationError(f"{what}: cannot write in {up} ({why}); choose another "
                              "path") from None
    return path


def _new_file_mode(path: Path) -> int:
    """The mode ``path`` keeps (an existing file's), or that open() would give a new one."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return new_file_mode()


def new_file_mode() -> int:
    """The mode open() gives a new file: 0o666 less the umask."""
    try:   # Linux says the umask without changing it
        with open("/proc/self/status", encoding="ascii") as f:
            mask = next(int(line.split()[1], 8) for line in f if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError, IndexError):
        mask = os.umask(0o022)
        os.umask(mask)
    return 0o666 & ~mask


def save_scene(scene, path: str | Path) -> Path:
    path = output_path(path)
    text = scene.to_json() + "\n" if _format_of(path) == "json" else scene.to_toml()
    return write_atomic(path, lambda p: p.write_text(text, encoding="utf-8"))


# ---- a small TOML emitter ---------------------------------------------------------------

def _string(s: str) -> str:
    """A TOML basic string: JSON's escapes, and DEL (which JSON leaves bare) escaped too."""
    return json.dumps(s, ensure_ascii=False).replace("\x7f", "\\u007f")


def _key(k: str) -> str:
    return k if k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k) else _string(k)


def _scalar(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError("TOML cannot hold NaN or infinity")
        text = repr(v)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_scalar(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_scalar(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def _emit(table: dict, prefix: str, out: list[str]) -> None:
    plain = {k: v for k, v in table.items() if not isinstance(v, dict) and not _is_table_array(v)}
    for k, v in plain.items():
        out.append(f"{_key(k)} = {_scalar(v)}")
    for k, v in table.items():
        name = f"{prefix}.{_key(k)}" if prefix else _key(k)
        if isinstance(v, dict):
            if not v:
                continue
            out.append("")
            out.append(f"[{name}]")
            _emit(v, name, out)
        elif _is_table_array(v):
            for item in v:
                out.append("")
                out.append(f"[[{name}]]")
                _emit(item, name, out)


def dump_toml(data: dict) -> str:
    """Write a dict of TOML-representable values as TOML text."""
    out: list[str] = []
    _emit(data, "", out)
    return "\n".join(out).lstrip("\n") + "\n"
