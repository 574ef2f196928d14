"""The errors yeefdtd raises.

Every error a user can cause derives from :class:`YeeError` and carries a message of one
line that says what went wrong and what to change. The command-line interface prints that
line and exits with status 2; it never shows a traceback for these.
"""

from __future__ import annotations


class YeeError(Exception):
    """Base class of every error that yeefdtd raises on purpose."""


class ValidationError(YeeError, ValueError):
    """A scene, a file or an argument is malformed.

    Raised on construction of a description object, on loading a scene file and by the
    command-line interface. The message names the offending field path
    (``sources[0].position``) and the change that fixes it.
    """

    def __init__(self, message: str, items: list[tuple[str, str]] | None = None):
        super().__init__(message)
        #: every problem found as (field path, what to change); ``str(self)`` shows the first
        self.items: list[tuple[str, str]] = items if items is not None else [("", message)]

    @property
    def errors(self) -> list[str]:
        """Every problem found, one line each."""
        return [f"{p}: {m}" if p else m for p, m in self.items]


class SetupError(YeeError):
    """A valid scene cannot be turned into arrays (for example, a probe lands in no cell)."""


class BackendUnavailable(YeeError):
    """The requested backend cannot run here (for example, ``cuda`` without CuPy or a GPU)."""


class DivergenceError(YeeError):
    """The fields became non-finite or grew without bound during the time loop.

    ``step`` is the step at which it was noticed; ``partial`` holds the result recorded up to
    the first record that is not finite (its ``stats["steps"]`` says how many steps that
    covers), so that nothing measured before the failure is lost.
    """

    def __init__(self, message: str, step: int, partial=None):
        super().__init__(message)
        self.step = step
        self.partial = partial


class OutOfMemory(YeeError):
    """The fields and coefficients do not fit in the memory of the chosen device."""


class KernelError(YeeError):
    """A device kernel failed to compile or to launch."""


class RunInterrupted(YeeError):
    """The run was stopped (Ctrl-C); ``partial`` holds what was recorded until then."""

    def __init__(self, message: str, step: int, partial=None):
        super().__init__(message)
        self.step = step
        self.partial = partial


class NotFound(YeeError, KeyError):
    """A name (a probe, a snapshot, a component) that a result does not hold."""

    def __str__(self) -> str:   # the message, not KeyError's quoted repr
        return str(self.args[0]) if self.args else ""
