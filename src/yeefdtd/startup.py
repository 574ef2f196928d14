"""Ctrl-C while the ``yeefdtd`` command starts.

NumPy and pydantic take the best part of a second to load, before cli.main can catch
anything. Ctrl-C then is taken as cli.main takes it later: one line and status 130 in the
command (``python -m yeefdtd`` or the console script); a program that imports yeefdtd keeps
its KeyboardInterrupt. In the command, a SIGINT while the package and the command's module
load is only noted, and cli.main raises it once it can catch it (settle): raised where it
came, it could land outside every handler (a traceback), inside an import lock's callback
(where Python drops it and the command went on), or in NumPy's C extensions' imports (which
turn it into an ImportError). Standard library only: this module is imported before the
rest.
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
#: the SIGINT handler watch() replaced, while it holds
_before = None
_watching = False


def _module_run() -> str | None:
    """The module of ``python [options] -m MODULE``, from the interpreter's own arguments
    (None where it ran a script or ``-c``)."""
    args = list(getattr(sys, "orig_argv", ()))[1:]
    i = 0
    while i < len(args):
        a = args[i]
        if a in _OPTIONS_WITH_VALUE:
            i += 2
            continue
        if not a.startswith("-") or a == "-":
            return None   # a script, a command or stdin: what follows are its arguments
        if not a.startswith("--"):   # flags alone or in a group (-m, -Om, -uEm): to m or c
            for k, flag in enumerate(a[1:], start=1):
                if flag == "c":
                    return None
                if flag == "m":
                    rest = a[k + 1:]
                    return rest or (args[i + 1] if i + 1 < len(args) else None)
                if flag in "WX":   # the rest of the group, or the next argument, is its value
                    i += 0 if a[k + 1:] else 1
                    break
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


def watch() -> None:
    """In the command, note a SIGINT (without raising) until settle(). A SIGINT that is
    ignored (a background job's) stays ignored; a program that imports yeefdtd keeps
    Python's own handler."""
    global _before, _watching
    if not is_command():
        return
    try:
        if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
            return
        _before = signal.signal(signal.SIGINT, _note)
        _watching = True
    except (ValueError, OSError):   # not the main thread
        return


def settle() -> None:
    """cli.main, first thing in its handlers' reach: put back the SIGINT handler that
    watch() replaced, and raise KeyboardInterrupt if a SIGINT came while it held."""
    global _watching, _caught
    if _watching:
        _watching = False
        signal.signal(signal.SIGINT, _before)
    if _caught:
        _caught = False
        raise KeyboardInterrupt


def interrupted(exc: BaseException) -> None:
    """After ``exc`` while yeefdtd loads: where it is Ctrl-C (a KeyboardInterrupt that came
    before watch(), or a failure while a noted SIGINT waits) in the command, one line and
    status 130; else nothing, for the caller to raise ``exc`` on. The process ends at once
    (os._exit): nothing has been written yet, and the interpreter's own exit would end it
    by SIGINT where the interrupt passed through C code that ran Python (status -2, not
    130)."""
    if (isinstance(exc, KeyboardInterrupt) or _caught) and is_command():
        try:
            sys.stdout.flush()
            print("yeefdtd: interrupted", file=sys.stderr, flush=True)
        finally:
            os._exit(130)
