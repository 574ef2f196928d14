"""The stepper interface every backend implements.

A stepper owns the field arrays of one model on one device. Its methods are the FDTD
half-steps and the hooks around them; boundaries and sources are hooks that do nothing
unless a backend (or a model) needs them. :meth:`advance` runs whole steps in the fixed
order below, and the run loop only ever calls :meth:`advance`, :meth:`max_abs`,
:meth:`collect` and :meth:`fields`, so it never needs to know which backend it has::

    for n in steps:
        update_h()            H^(n+1/2) from H^(n-1/2) and E^n (interior)
        update_h_boundaries() CPML corrections to H
        inject_h(n)           magnetic sources (soft: add, hard: set)
        update_e()            E^(n+1) from E^n and H^(n+1/2)
        update_e_boundaries() CPML corrections to E
        inject_e(n)           electric sources
        record(n)             probes and snapshots due after step n

A backend may override :meth:`advance` to run several steps per call (fused or temporally
blocked kernels) as long as the results are the same.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..build.model import Model
from ..build.storage import compute_dtype, field_bound, storage_for


@dataclass
class Records:
    """What the monitors recorded: host arrays in the run's arithmetic dtype (float32 for
    float32 and 16-bit storage, float64 for float64), as the fields are."""

    probes: list[np.ndarray]     #: per probe group: (records, channels)
    snapshots: list[np.ndarray]  #: per snapshot plan: (records, n1, n2)


class Stepper:
    """Base class of the backends' steppers."""

    #: backend name, as chosen by ``run.backend``
    name = "base"
    #: a line the run says before its steps, or None (the NumPy backend's: more threads
    #: than processors)
    note: str | None = None

    def __init__(self, model: Model, dtype: str = "float32"):
        self.model = model
        #: the arithmetic dtype; ``storage`` says how the fields are kept (16-bit storage
        #: computes in float32)
        self.dtype = compute_dtype(dtype)
        self.storage = storage_for(model, str(dtype))

    # ---- the half steps -----------------------------------------------------------
    def update_h(self) -> None:
        raise NotImplementedError

    def update_e(self) -> None:
        raise NotImplementedError

    # ---- hooks (nothing by default) ----------------------------------------------
    def update_h_boundaries(self) -> None:
        """Corrections after the H update (CPML)."""

    def update_e_boundaries(self) -> None:
        """Corrections after the E update (CPML)."""

    def inject_h(self, n: int) -> None:
        """Magnetic sources of step n."""

    def inject_e(self, n: int) -> None:
        """Electric sources of step n."""

    def record(self, n: int) -> None:
        """Monitors due after step n."""

    # ---- whole steps ---------------------------------------------------------------
    def check_span(self, start: int, count: int) -> tuple[int, int]:
        """(start, count) as Python ints, where the steps may run: within the model's steps
        (its source waveforms and monitor records are laid out for ``model.steps`` steps,
        so a step beyond would read or write past them), and in order: ``start`` is the step
        after the last one run (the fields hold the state of that step, and step n drives
        the sources' values at n and fills record row n: a stepper started at step 10, or
        run over steps twice, gave fields and records of no run, without a word). Every
        advance checks its span here first, and sets steps_done to start + count once its
        steps have run; until then steps_done is None, so that an advance cut short
        (Ctrl-C, an error) leaves a stepper that refuses to go on from fields that belong
        to no whole step."""
        from ..exceptions import SetupError

        for what, v in (("start", start), ("count", count)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise SetupError(f"advance: {what} must be a whole number >= 0, not {v!r}")
        start, count = int(start), int(count)   # (a NumPy int16 sum wrapped round)
        if start + count > self.model.steps:
            raise SetupError(f"advance: steps {start} to {start + count - 1} pass the model's "
                             f"{self.model.steps} steps (0 to {self.model.steps - 1}); build "
                             "it with more steps (build_model(scene, steps=...))")
        if self.steps_done is None:
            raise SetupError("advance: an earlier advance stopped within its steps "
                             "(interrupted, or an error), so the fields belong to no whole "
                             "step; make a new stepper with make_stepper(model)")
        if start != self.steps_done:
            raise SetupError(f"advance: start {start}, but this stepper has run "
                             f"{self.steps_done} steps, and steps run in order from 0; "
                             f"continue with advance({self.steps_done}, ...) or make a new "
                             "stepper with make_stepper(model)")
        self.steps_done = None   # until the steps have run (see above)
        return start, count

    #: the step after the last one advanced (0: none yet; run_model starts only from it;
    #: None: an advance under way, or one cut short)
    steps_done: int | None = 0

    def advance(self, start: int, count: int) -> None:
        """Run steps ``start`` .. ``start + count - 1`` (``start``: the steps run so far)."""
        start, count = self.check_span(start, count)
        for n in range(start, start + count):
            self.update_h()
            self.update_h_boundaries()
            self.inject_h(n)
            self.update_e()
            self.update_e_boundaries()
            self.inject_e(n)
            self.record(n)
        self.steps_done = start + count

    # ---- reading back --------------------------------------------------------------
    def max_abs(self) -> float:
        """Largest |field| over all components (NaN if any value is NaN)."""
        raise NotImplementedError

    def fields(self) -> dict[str, np.ndarray]:
        """Host copies of every field array (grid shape, x fastest)."""
        raise NotImplementedError

    def set_field(self, component: str, values: np.ndarray) -> None:
        """Overwrite one field array (an initial condition): ``values`` of the grid's node
        shape (``model.grid.shape``; in 2D its first two sides will do), real and finite."""
        raise NotImplementedError

    def _component(self, component, what: str) -> None:
        """A one-line SetupError naming ``what`` where ``component`` is not one of the
        grid's components."""
        from ..exceptions import SetupError

        comps = self.model.grid.components
        if not isinstance(component, str) or component not in comps:
            raise SetupError(f"{what}: no component {component!r} on this "
                             f"{self.model.grid.mode} grid; use one of {', '.join(comps)}")

    def field_values(self, component: str, values) -> np.ndarray:
        """``values`` for set_field as an array of the grid's node shape, or a one-line
        SetupError naming what to change (the component, the shape, the numbers)."""
        from ..exceptions import SetupError

        self._component(component, "set_field")
        shape = tuple(self.model.grid.shape)
        try:
            a = np.asarray(values)
        except (TypeError, ValueError):
            a = np.asarray(None)
        if a.dtype.kind not in "iuf":
            raise SetupError(f"set_field: {component} takes real numbers, not "
                             f"{type(values).__name__} of {a.dtype}")
        if shape[2] == 1 and a.shape == shape[:2]:
            a = a[:, :, None]
        if a.shape != shape:
            also = f" (or {shape[:2]})" if shape[2] == 1 else ""
            raise SetupError(f"set_field: {component} values of shape {a.shape}; give an "
                             f"array of the grid's node shape {shape}{also}")
        if not np.isfinite(a).all():
            raise SetupError(f"set_field: {component} values hold NaN or infinity")
        name = self.storage.name
        most = self.storage.largest(component)
        peak = float(np.abs(a).max()) if a.size else 0.0
        if peak > most:
            raise SetupError(f"set_field: {component} values up to {peak:.3g} are more than "
                             f"this run's {name} fields hold ({most:.3g}); use smaller values"
                             + (", or float32" if name == "float16" else ", or float64"))
        if peak > 0:
            at = self.held_at_zero(component)
            off = np.abs(np.where(at, a, 0.0))
            if off.max() > 1e-6 * peak:   # below: rounding of a mode that is zero there
                i = np.unravel_index(int(off.argmax()), off.shape)
                n = int(np.count_nonzero(off))
                raise SetupError(f"set_field: {component} values are not zero at {n} "
                                 f"point{'s' if n != 1 else ''} the run holds at zero "
                                 f"(on a PEC or CPML wall, inside a conductor, or past the "
                                 f"component's last point), the largest {off[i]:.3g} at "
                                 f"{tuple(int(x) for x in i)}; set them to zero "
                                 "(stepper.held_at_zero(component) gives those points)")
            a = np.where(at, 0.0, a)
        tiny = float(np.finfo(np.float64 if name == "float64" else np.float32).tiny)
        if name != "float16" and 0 < peak < tiny:
            # stored as zeros or as subnormals of a few bits (float16 has its own check)
            raise SetupError(f"set_field: {component} values peak at {peak:.3g}, below the "
                             f"smallest normal number of this run's {name} fields "
                             f"({tiny:.3g}); scale the values up (the fields are linear in "
                             "them)" + (", or use float64" if name != "float64" else ""))
        if name == "float16" and 0 < peak < self.storage.scale(component) and \
                field_bound(self.model) == 0:
            # float16's scale comes from what the sources drive; with none it stays 1, where
            # a field of small values is stored in few bits or as subnormals (a field of
            # 1e-6 V/m came back with errors of twice its size)
            raise SetupError(f"set_field: {component} values peak at {peak:.3g}, below the "
                             f"{self.storage.scale(component):.3g} that this run's float16 "
                             "fields are scaled to (it has no sources to scale them by); "
                             "scale the values up (the fields are linear in them), or use "
                             "bfloat16 or float32")
        return a

    def held_at_zero(self, component: str) -> np.ndarray:
        """Where the run holds ``component`` at zero (booleans of the grid's node shape): on
        PEC and CPML walls, inside conductors, past the component's last point. set_field
        takes only zeros there."""
        self._component(component, "held_at_zero")
        table = self.model.tables[component]
        return np.isin(table.ids, np.flatnonzero(~table.table.any(axis=1)))

    def collect(self) -> Records:
        """Everything the monitors recorded so far: copies of the rows taken (of a run cut
        short, not those of the steps it did not run), which the steps after do not
        change."""
        raise NotImplementedError

    def memory_bytes(self) -> int:
        """Bytes this stepper holds on its device."""
        raise NotImplementedError

    def synchronize(self) -> None:
        """Wait for queued device work (timing); nothing on the host."""
