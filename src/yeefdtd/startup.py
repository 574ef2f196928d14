"""Ctrl-C while the ``yeefdtd`` command starts.

NumPy and pydantic take the best part of a second to load, before cli.main can catch
anything. Ctrl-C then is taken as cli.main takes it later: one line and status 130 in the
command (``python -m yeefdtd`` or the console script); a program that imports yeefdtd keeps
its KeyboardInterrupt. Standard library only: this module is imported before the rest.
"""

from __future__ import annotations

import os
import signal  # here, not in watch(): Ctrl-C while it loads would escape
import sys

#: what ``python -m`` may run as the command
COMMAND_MODULES = ("yeefdtd", "yeefdtd.__main__", "yeefdtd.cli")
#: interpreter options that take the next argument as their value
_OPTIONS_WITH_VALUE = ("-W", "-X", "--check-hash-based-pycs")

#: whether a SIGINT came while watch() held
_caught = False


def _module_run() -> str | None:
    """The module of ``python [options] -m MODULE``, from the interpreter's own arguments
    (None where it ran a script or ``-c``)."""
    args = list(getattr(sys, "orig_argv", ()))[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a == "-m":
            return args[i + 1] if i + 1 < len(args) else None
        if a.startswith("-m"):
            return a[2:]
        if a in _OPTIONS_WITH_VALUE:
            i += 2
            continue
        if not a.startswith("-") or a.startswith("-c") or a == "-":
            return None   # a script, a command or stdin: what follows are its arguments
        i += 1
    return None


def is_command() -> bool:
    """Whether this process is the ``yeefdtd`` command rather than a program that imports
    yeefdtd: ``python -m yeefdtd`` (the interpreter's arguments say so), or the console
    script (sys.argv[0] names it)."""
    if _module_run() in COMMAND_MODULES:
        return True
    name = os.path.basename(sys.argv[0] if sys.argv else "").lower()
    return name.removesuffix(".exe").removesuffix("-script.py") == "yeefdtd"


def _note(signum, frame):
    global _caught
    _caught = True
    raise KeyboardInterrupt


def watch():
    """In the command, note a SIGINT until unwatch() (and raise KeyboardInterrupt, as
    Python's own handler does): NumPy turns a KeyboardInterrupt that lands in its C
    extensions' imports into an ImportError, which says nothing of Ctrl-C. Returns what
    unwatch() needs; a SIGINT that is ignored (a background job's) stays ignored."""
    if not is_command():
        return None
    try:
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return None
        return signal.signal(signal.SIGINT, _note)
    except (ValueError, OSError):   # not the main thread
        return None


def unwatch(before) -> None:
    if before is not None:
        signal.signal(signal.SIGINT, before)


def interrupted(exc: BaseException) -> None:
    """After ``exc`` while yeefdtd loads: where it is Ctrl-C (a KeyboardInterrupt, or what
    a library made of one while watch() held) in the command, one line and status 130;
    else nothing, for the caller to raise ``exc`` on. The process ends at once (os._exit):
    nothing has been written yet, and the interpreter's own exit would end it by SIGINT
    where the interrupt passed through C code that ran Python (status -2, not 130)."""
    if (isinstance(exc, KeyboardInterrupt) or _caught) and is_command():
        try:
            sys.stdout.flush()
            print("yeefdtd: interrupted", file=sys.stderr, flush=True)
        finally:
            os._exit(130)
