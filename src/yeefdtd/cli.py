"""The ``yeefdtd`` command: a thin layer over the package's functions.

Bad input (a malformed scene, a missing file, a wrong argument) prints one line on stderr
and exits with status 2; a run that diverges or is interrupted saves what it recorded,
prints one line and exits with 1 (or 130 for Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import sys

from . import startup

try:   # the console script imports this module before main can catch Ctrl-C
    import argparse
    import json
    import os
    import platform
    from collections.abc import Mapping
    from pathlib import Path
    from types import MappingProxyType

    from . import __version__
    from .constants import BENCH_SCENES, BENCH_SUITES, MAX_STEPS
    from .exceptions import DivergenceError, RunInterrupted, YeeError
    from .io import check_writable, new_file_mode, one_line, write_atomic
except KeyboardInterrupt as exc:
    startup.interrupted(exc)
    raise


class _Parser(argparse.ArgumentParser):
    #: the subcommands' parsers, by name (set on the top parser)
    commands: Mapping[str, argparse.ArgumentParser] = MappingProxyType({})

    def error(self, message):  # one line, status 2, no usage dump
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")

    def parse_args(self, args=None, namespace=None):
        """argparse's, with arguments a subcommand does not take refused by that
        subcommand's parser, whose help lists what it takes ('yeefdtd validate s.toml
        --steps 5' pointed to 'yeefdtd --help')."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            self.commands.get(getattr(ns, "command", None), self).error(
                f"unrecognized arguments: {' '.join(extras)}")
        return ns


def _positive_int(text: str, most: int = MAX_STEPS) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {v}")
    if v > most:
        raise argparse.ArgumentTypeError(f"must be at most {most:.0e}, got {v}"
                                         if most == MAX_STEPS else
                                         f"must be at most {most}, got {v}")
    return v


def _thread_count(text: str) -> int:
    from .backends.numpy.stepper import MAX_THREADS

    return _positive_int(text, MAX_THREADS)


def _trace_count(text: str) -> int:
    from .bscan import MAX_TRACES

    v = _positive_int(text, MAX_TRACES)
    if v < 2:
        raise argparse.ArgumentTypeError(f"a B-scan takes 2 traces or more, got {text!r}")
    return v


def _cells(text: str) -> tuple[int, ...]:
    try:
        cells = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"whole numbers of cells separated by commas, as "
                                         f"2,0,0, got {text!r}") from None
    if len(cells) not in (2, 3):
        raise argparse.ArgumentTypeError(f"2 or 3 whole numbers of cells (x,y or x,y,z), got "
                                         f"{text!r}")
    return cells


def _path(text: str) -> str:
    """A file or directory path, refused where it holds a control character (a newline,
    an escape...): every message that names the file would carry it to the terminal, a
    newline splitting the run's summary line in two."""
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise argparse.ArgumentTypeError(f"{text!r} holds a control character (a newline, "
                                         "an escape...); use a name without one")
    return text


def _fps(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.1 <= v <= 50:
        raise argparse.ArgumentTypeError(f"frames a second from 0.1 to 50, got {text!r}")
    return v


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="yeefdtd", description="FDTD electromagnetics on the Yee grid.")
    p.add_argument("--version", action="version", version=f"yeefdtd {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    p.commands = sub.choices

    r = sub.add_parser("run", help="run a scene file and save the result (HDF5)")
    r.add_argument("scene", type=_path, help="scene file (.toml or .json)")
    r.add_argument("-o", "--output", type=_path, help="result file (default: the scene "
                   "file's name with .h5, in the current directory)")
    r.add_argument("--backend", choices=["auto", "numpy", "cuda"], help="override run.backend")
    r.add_argument("--dtype", choices=["float32", "float64", "float16", "bfloat16"],
                   help="override run.dtype (float16, bfloat16: fields stored in 16 bits)")
    r.add_argument("--steps", type=_positive_int, help="override the number of steps")
    r.add_argument("--variant", help="CUDA kernel variant (see 'yeefdtd kernels --list')")
    r.add_argument("--threads", type=_thread_count,
                   help="threads of the numpy backend (default: $YEEFDTD_THREADS, or every "
                        "processor)")
    r.add_argument("--plot", action="store_true", help="also write PNG plots beside OUTPUT")
    r.add_argument("--animate", action="store_true", help="with --plot, also each snapshot's "
                   "frames as an animated GIF (as 'yeefdtd plot --animate')")
    r.add_argument("--fields", action="store_true", help="also save the final fields")
    r.add_argument("--bscan", type=_trace_count, metavar="TRACES",
                   help="a B-scan: run the scene TRACES times, its sources and probes moved "
                        "by --step cells each time (probes saved as NAME[k])")
    r.add_argument("--step", type=_cells, help="the cells a B-scan's trace moves along x,y "
                   "(,z), as 2,0 or 2,0,0 (a negative first value as --step=-2,0)")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar")

    v = sub.add_parser("validate", help="check a scene file, summarise it and estimate its memory")
    v.add_argument("scene", type=_path)

    s = sub.add_parser("schema", help="print the JSON Schema of scene files")
    s.add_argument("-o", "--output", type=_path,
                   help="write to this file instead of stdout")

    sub.add_parser("info", help="version, backends usable here, GPU")

    b = sub.add_parser("bench", help="benchmark the CUDA backend on the standard scenes")
    b.add_argument("--suite", choices=BENCH_SUITES, help="a predefined set of cases")
    b.add_argument("--scene", choices=BENCH_SCENES, help="one scene instead")
    b.add_argument("-n", "--size", type=_positive_int, action="append",
                   help="cells per side (repeatable)")
    b.add_argument("--variant", action="append", help="kernel variant (repeatable)")
    b.add_argument("--dtype", action="append", choices=["float32", "float64", "float16"])
    b.add_argument("--steps", type=_positive_int, default=1000,
                   help="timed steps per case (default: the scenes' own 1000; a GPU at its "
                        "power cap slows down after the first second or so, so shorter runs "
                        "overstate the speed of a long one)")
    b.add_argument("--quick", action="store_true", help="smaller sizes for a fast look")
    b.add_argument("--json", type=_path, help="write the results (with device and versions) here")
    b.add_argument("--plots", type=_path, help="directory for the studies' PNG plots")

    t = sub.add_parser("tune", help="sweep launch shapes for a scene and cache the best")
    t.add_argument("scene", type=_path, help="scene file, or a benchmark scene name")
    t.add_argument("-n", "--size", type=_positive_int, help="size of a benchmark scene")
    t.add_argument("--variant", help="kernel variant (default: the scene file's run.variant, "
                   "or 'auto')")
    t.add_argument("--dtype", choices=["float32", "float64", "float16"],
                   help="field storage (default: the scene file's run.dtype, or float32)")

    k = sub.add_parser("kernels", help="print the CUDA source of a kernel variant")
    k.add_argument("--variant", help="the variant whose source to print (default: indexed)")
    k.add_argument("--list", action="store_true", help="list the variants")

    pl = sub.add_parser("plot", help="write PNG plots (and GIF animations) of a result file")
    pl.add_argument("result", type=_path, help="result file (.h5) written by 'yeefdtd run'")
    pl.add_argument("-o", "--output-dir", type=_path, help="directory for the PNG files "
                    "(default: beside the result)")
    pl.add_argument("--animate", action="store_true", help="also each snapshot's frames as "
                    "an animated GIF (at most 150, evenly through the record)")
    pl.add_argument("--fps", type=_fps, help="the animations' frames a second, up to 50 "
                    "(default 10; GIF counts time in hundredths of a second)")
    return p


def _cmd_run(args) -> int:
    from .description.scene import Scene
    from .results import RESULT_SUFFIXES

    scene = Scene.load(args.scene)
    if args.output == "":
        raise YeeError("--output: an empty path; give a file name ending in .h5")
    out = Path(args.output) if args.output is not None else Path(Path(args.scene).stem + ".h5")
    if out.suffix.lower() not in RESULT_SUFFIXES:
        raise YeeError(f"--output: {str(out)!r} is not a result file name; give one ending "
                       "in .h5 or .hdf5 (results are HDF5 files)")
    check_writable(out, "--output")
    _not_the_scene(out, args.scene, "--output")
    if (args.bscan is None) != (args.step is None):
        raise YeeError("--bscan, --step: a B-scan takes both, the traces and the cells each "
                       "moves; give both or neither")
    if args.step is not None and len(args.step) != scene.grid.ndim:
        raise YeeError(f"--step: the scene's grid is {scene.grid.ndim}D, so a step of "
                       f"{scene.grid.ndim} values ({'x,y' if scene.grid.ndim == 2 else 'x,y,z'}"
                       f"), not {len(args.step)}")
    if args.step is not None and not any(args.step):
        raise YeeError("--step: all zero, so every trace would be the same; give the cells a "
                       "trace moves along some axis")
    if args.animate and not args.plot:
        raise YeeError("--animate: writes animations beside the plots, which --plot writes; "
                       "add --plot, or leave --animate out")
    if args.bscan is not None and args.fields:
        raise YeeError("--fields: a B-scan keeps each trace's probes, not its fields; run a "
                       "trace alone for them")
    if args.plot:   # the plots' names, beside the result (plot_result's): before the run
        from .plot import _file_name

        names = [f"{out.stem}_{mon.type}_{kind}" for kind, mon in
                 zip(scene.monitor_names(), scene.monitors, strict=True)]
        if args.bscan is not None:
            names = [f"{out.stem}_bscan_{kind}_{c}" for kind, mon in
                     zip(scene.monitor_names(), scene.monitors, strict=True)
                     if mon.type == "probe" for c in (mon.components or scene.grid.components)]
        paths = [out.parent / _file_name(name) for name in names]
        if args.animate and args.bscan is None:
            paths += [out.parent / _file_name(f"{out.stem}_snapshot_{kind}", ".gif")
                      for kind, mon in zip(scene.monitor_names(), scene.monitors, strict=True)
                      if mon.type == "snapshot"]
        for plot in paths:
            check_writable(plot, "--plot")
            _not_the_scene(plot, args.scene, "--plot")
    with _Signals() as signals:
        return _run_and_save(scene, args, out, signals)


def _not_the_scene(path: Path, scene: str, what: str) -> None:
    """A one-line YeeError where writing ``path`` would replace the scene file (a link to
    it, or another name of it): it was overwritten by the result."""
    try:
        same = os.path.samefile(path, scene)
    except OSError:   # nothing there yet (or nothing to compare)
        return
    if same:
        raise YeeError(f"{what}: {path} is the scene file {scene} (another name of it, or a "
                       "link to it), which the run would overwrite; choose another name")


def _run_and_save(scene, args, out: Path, signals: _Signals) -> int:
    from .run import run

    if args.variant is not None:   # named as the option it came in (run() says 'variant')
        _check_variant_option(args.variant)
    try:
        options = {k: v for k, v in (("variant", args.variant), ("threads", args.threads))
                   if v is not None} or None
        if args.bscan is not None:
            from .bscan import bscan

            result = bscan(scene, args.bscan, args.step, backend=args.backend,
                           dtype=args.dtype, steps=args.steps,
                           progress=False if args.quiet else None, stepper_options=options)
        else:
            result = run(scene, backend=args.backend, dtype=args.dtype, steps=args.steps,
                         progress=False if args.quiet else None, keep_fields=args.fields,
                         stepper_options=options)
    except (DivergenceError, RunInterrupted) as exc:
        code = 130 if isinstance(exc, RunInterrupted) else 1
        if exc.partial is not None:
            with signals.shield():
                saved = _save_result(exc.partial, out)
            if signals.caught:
                code = 130
            if saved is None:   # said why; now what stopped the run
                print(f"yeefdtd: {exc}", file=sys.stderr)
                return code
            print(f"yeefdtd: {exc}; what was recorded until then is in {saved}",
                  file=sys.stderr)
            if args.plot:   # interrupted: no more work; diverged: plot what came before
                if isinstance(exc, RunInterrupted):
                    print(f"yeefdtd: no plots written; 'yeefdtd plot {saved}' writes them"
                          f"{_older_plots(saved)}", file=sys.stderr)
                else:
                    _plot(saved, exc.partial, args.animate)
        else:
            print(f"yeefdtd: {exc}", file=sys.stderr)
        return code
    with signals.shield():
        saved = _save_result(result, out)
    if signals.caught:   # Ctrl-C or SIGTERM while the result was written
        print(f"yeefdtd: interrupted; the result is in {saved}" if saved is not None else
              "yeefdtd: interrupted", file=sys.stderr)
        return 130
    if saved is None:
        return 1
    st = result.stats
    how = st["dtype"] + (f", {st['variant']}" if st.get("variant") else "")
    traces = f"{st['bscan']['traces']} traces of " if "bscan" in st else ""
    print(f"{scene.name}: {traces}{st['steps']} steps of {st['dt']:.4g} s on {st['backend']} "
          f"({how}) in {st['seconds']:.2f} s, {st['mcells_per_s']:.1f} Mcells/s, "
          f"{st['bytes_per_cell']:.1f} bytes/cell -> {saved}")
    if args.plot:
        _plot(saved, result, args.animate)
    return 0 if saved == out else 1


def _older_plots(saved: Path) -> str:
    """Where plots named as those of the result ``saved`` are there already (from an
    earlier run to the same file; this one wrote none), a clause that says they are not
    this run's: nothing marked them stale beside the new, shorter result."""
    from .plot import _cut_head

    own = (f"{saved.stem}_probe_", f"{saved.stem}_snapshot_", f"{saved.stem}_bscan_")

    def named_so(name: str) -> bool:
        if not name.endswith((".png", ".gif")):
            return False
        if name.startswith(own):
            return True
        head = _cut_head(name)   # a name cut to fit, whose head may end inside the stem
        return head is not None and any(o.startswith(head) for o in own)

    try:
        older = sorted(p.name for p in saved.parent.iterdir()   # (no glob: [ in names)
                       if named_so(p.name))
    except OSError:
        return ""
    if not older:
        return ""
    return (f" (the {len(older)} plot{'s' if len(older) > 1 else ''} beside it named as its "
            f"own, {older[0]}{', ...' if len(older) > 1 else ''}, "
            f"{'are' if len(older) > 1 else 'is'} from an earlier run, not this one)")


def _plot(saved: Path, result, animate: bool = False) -> None:
    """The plots of ``result``, beside the file ``saved`` that holds it (``animate``: and
    its snapshots' animations). A Ctrl-C or a write that fails while they are drawn says
    that the result is whole and how to draw them later (it said only 'interrupted', or
    named the plot that failed)."""
    from .plot import plot_result

    later = f"the result is whole in {saved}; 'yeefdtd plot {saved}' writes the plots"
    try:
        plots = plot_result(result, saved.parent, saved.stem)
        if animate:
            plots += _animations(result, saved.parent, saved.stem)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(f"while plotting; {later}") from None
    except OSError as exc:   # main says it, with the status of a failed write (1), naming
        # the plot (or their folder: without a name main would take it for standard output)
        import errno

        full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)
        raise OSError(exc.errno, f"{one_line(exc)}; {later}"
                      f"{' once it can write them' if full else ''}",
                      exc.filename or str(saved.parent)) from None
    for path in plots:
        print(f"  plot: {path}")
    _say_unplotted(saved, result, plots)
    if not animate:
        _say_older_animations(saved, result)


def _say_older_animations(saved: Path, result) -> None:
    """A note on animations named as this result's snapshots' (plot --animate of an
    earlier run to the same file), which this run did not write: they sat beside the new
    result as its own."""
    from .plot import _file_name

    older = [saved.parent / _file_name(f"{saved.stem}_snapshot_{name}", ".gif")
             for name in result.snapshots]
    older = [p for p in older if p.is_file()]
    if older:
        print(f"note: {older[0]}{' and others' if len(older) > 1 else ''}: from an earlier "
              f"run, not this one; 'yeefdtd plot {saved} --animate' writes this run's",
              file=sys.stderr)


def _say_unplotted(path: Path, result, plots: list) -> None:
    """A note on what the plots of the result in ``path`` leave out (plot.unplotted), and
    that there are none, where there are none: the command said nothing before."""
    from .plot import unplotted

    left = unplotted(result)
    if not plots:
        why = "; ".join(left) if left else "it has no probe or snapshot"
        print(f"note: {path}: nothing to plot: {why}", file=sys.stderr)
    elif left := [w for w in left if "recorded nothing" in w]:
        print(f"note: {path}: not plotted: {'; '.join(left)}", file=sys.stderr)


class _Signals:
    """While it holds: SIGTERM (a scheduler's or timeout's stop) is taken as Ctrl-C, so that
    what a run recorded is saved as for Ctrl-C. Only the first of them interrupts: those
    after it wait (as in ``shield()``), since the run is then on its way to saving what it
    recorded (a second Ctrl-C a few milliseconds after the first, while the partial result
    was gathered, used to lose it). While ``shield()`` holds, both are deferred until the
    save inside it is done (``caught`` says whether one came), so that a result being
    written is not lost to them. Outside the main thread, where Python cannot set handlers,
    it changes nothing."""

    def __init__(self):
        import signal

        self.caught = False
        self._signals = (signal.SIGINT, signal.SIGTERM)
        self._before: dict = {}

    def _interrupt(self, signum, frame):
        self.caught = True
        self._during = {sig: self._note for sig in self._ours}   # the next ones wait
        self._set(self._during)
        raise KeyboardInterrupt

    def _note(self, signum, frame):
        self.caught = True

    def _set(self, handlers: dict) -> None:
        import signal

        for sig, handler in handlers.items():
            try:
                signal.signal(sig, handler)
            except (ValueError, OSError):   # not the main thread
                pass

    def __enter__(self):
        import signal

        self._before = {sig: signal.getsignal(sig) for sig in self._signals}
        # signals ignored (a background job's SIGINT, a SIGTERM its parent set aside) or
        # handled outside Python (None) are left as they are
        self._ours = [sig for sig, h in self._before.items()
                      if h is not None and h is not signal.SIG_IGN]
        self._during = {sig: self._interrupt for sig in self._ours}
        self._set(self._during)
        return self

    def __exit__(self, *exc):
        import signal

        if self.caught and startup.is_command():
            # the command ends now with 130: one more signal while the interpreter shuts
            # down would end it by that signal instead (status -2 or 143), the result saved
            self._set({sig: signal.SIG_IGN for sig in self._ours})
            return
        self._set({sig: self._before[sig] for sig in self._ours})

    def shield(self):
        import contextlib

        @contextlib.contextmanager
        def held():
            self._set({sig: self._note for sig in self._ours})
            try:
                yield
            finally:
                self._set(self._during)
        return held()


def _save_result(result, out: Path) -> Path | None:
    """Save ``result`` to ``out``; where that fails (the disk filled up, the directory went
    away during the run), to a file of the same name in the temporary directory instead,
    with one line on stderr saying where it went. None (and one line) if neither worked."""
    import tempfile

    from .exceptions import ValidationError

    try:
        return result.save(out)
    except (OSError, ValidationError) as exc:   # the latter: the path changed during the run
        why = one_line(exc)                     # (its directory replaced by a file, say)
    spare = None
    try:
        fd, spare = tempfile.mkstemp(prefix=f"{out.stem[:64]}-", suffix=out.suffix)
        os.close(fd)
        os.chmod(spare, new_file_mode())   # a file as the run would have written (not 0600)
        result.save(spare)
    except OSError as exc:
        if spare is not None:
            Path(spare).unlink(missing_ok=True)
        print(f"yeefdtd: error: could not write {out} ({why}) nor "
              f"{spare or 'a file in ' + tempfile.gettempdir()} ({one_line(exc)}); the "
              "result is lost", file=sys.stderr)
        return None
    print(f"yeefdtd: error: could not write {out} ({why}); the result is in {spare}",
          file=sys.stderr)
    return Path(spare)


def _cmd_validate(args) -> int:
    from . import host
    from .build.memory import gpu_line, gpu_memory, memory_lines, run_memory
    from .build.model import face_kinds, make_grid, notes_before_run, step_count
    from .description.scene import Scene

    scene = Scene.load(args.scene)
    from .backends import resolve

    # what the CUDA backend would refuse as it starts, where the run would go to it (with
    # 'auto', where a GPU is usable here; elsewhere 'auto' runs on NumPy, which takes it)
    if resolve(scene.run.backend)[0] == "cuda":
        _check_variants([scene.run.variant], scene.grid.mode, [scene.run.dtype],
                        "run.variant", "run.dtype")
    grid = make_grid(scene)
    steps = step_count(scene, grid.dt)
    # the run's notes, from the points involved alone (no arrays of the grid); raises
    # where a source is not finite, as a run does
    notes = list(notes_before_run(scene, grid, steps))
    from .run import no_records_note

    notes += no_records_note(scene)
    if scene.run.backend == "cuda":   # a scene for a GPU machine, looked at elsewhere
        from .backends import cuda_status

        ok, why = cuda_status()
        if not ok:
            notes.insert(0, f"run.backend: 'cuda' cannot run on this machine ({why}), so "
                            "'run' refuses the scene here; it runs where CUDA is usable, or "
                            "here with --backend numpy")
    dtype = scene.run.dtype
    faces = face_kinds(scene)
    parts = run_memory(scene, grid, steps, dtype, faces)
    memory, note = memory_lines(parts, dtype, host.total_bytes())
    on_gpu = gpu_line(gpu_memory(scene, grid, steps, dtype, faces, parts), dtype)
    for text in [*notes, *filter(None, [note])]:
        print(f"note: {text}", file=sys.stderr)
    cells = "x".join(str(n) for n in scene.grid.cells)
    print(f"{args.scene}: valid. {scene.grid.mode} grid of {cells} cells "
          f"({scene.grid.num_cells / 1e6:.3g} M), dt = {grid.dt:.4g} s, {steps} steps "
          f"({steps * grid.dt:.4g} s), {len(scene.objects)} objects, {len(scene.sources)} "
          f"sources, {len(scene.monitors)} monitors")
    print(memory)
    print(on_gpu)
    return 0


def _cmd_schema(args) -> int:
    from .description.scene import Scene
    from .exceptions import ValidationError

    text = json.dumps(Scene.json_schema(), indent=2)
    if args.output is not None:
        if not str(args.output).lower().endswith(".json"):   # a scene file was overwritten
            raise ValidationError(f"--output: {args.output!r} is not a JSON file name; give "
                                  "one ending in .json")
        out = check_writable(args.output, "--output")
        try:
            write_atomic(out, lambda p: p.write_text(text + "\n", encoding="utf-8"))
        except OSError as exc:
            raise YeeError(f"--output: cannot write {out} ({exc.strerror or exc})") from None
    else:
        print(text)
    return 0


def _cmd_info(args) -> int:
    import numpy

    from .backends import cuda_status
    from .backends.numpy.stepper import default_threads

    threads = default_threads()   # a bad YEEFDTD_THREADS: one line, before any output
    ok, what = cuda_status()
    print(f"yeefdtd {__version__} (Python {platform.python_version()}, NumPy {numpy.__version__})")
    print(f"backends: numpy (usable; {threads} thread{'s' if threads != 1 else ''}, "
          "YEEFDTD_THREADS sets them)")
    if ok:
        import cupy

        from .backends.cuda.compile import cupy_caches_modules

        print(f"          cuda  (usable: {what}; CuPy {cupy.__version__})")
        if not cupy_caches_modules():
            print("          kernels are compiled again in every process: CuPy 14.2 or later, "
                  "with its disk cache (CUPY_CACHE_IN_MEMORY unset), keeps them")
    else:
        print(f"          cuda  (not usable: {what})")
    return 0


def _need_cuda() -> None:
    from .backends import cuda_status
    from .exceptions import BackendUnavailable

    ok, why = cuda_status()
    if not ok:
        raise BackendUnavailable(f"this command needs the CUDA backend, which cannot run here: "
                                 f"{why}")


def _bench_scenes(name: str, sizes, variants=None, dtypes=()) -> dict:
    """The benchmark scene ``name`` at each of ``sizes`` (None: its own), built before any
    device work, with each variant checked against it: a size the scene cannot take, an
    unknown variant or option, or a variant that does not run the scene's grid or a dtype
    is one line naming the argument."""
    from .bench import CPML_CELLS, bench_scene
    from .exceptions import ValidationError

    scenes = {}
    for n in sizes:
        if n is not None and "cpml" in name and n < 3 * CPML_CELLS:
            raise ValidationError(f"-n/--size: {name} needs {3 * CPML_CELLS} cells a side or "
                                  f"more (a CPML of {CPML_CELLS} cells on each face); give -n "
                                  f"{3 * CPML_CELLS} or more")
        try:
            scenes[n] = bench_scene(name, n)
        except ValidationError as exc:
            raise ValidationError(f"-n/--size: {name} cannot be built with {n} cells a side: "
                                  f"{exc}") from None
    if variants is not None:
        _check_variants(variants, next(iter(scenes.values())).grid.mode, dtypes)
    return scenes


def _check_variant_option(variant: str) -> None:
    """A one-line error naming --variant where ``variant`` is empty or not a kernel
    variant."""
    from .description.scene import RunSettings

    if not variant.strip():
        raise YeeError(f"--variant {variant!r}: empty; give a kernel variant (yeefdtd kernels "
                       "--list) or leave the option out")
    try:
        RunSettings(steps=1, variant=variant)
    except YeeError as exc:
        raise type(exc)(f"--variant {variant!r}: "
                        f"{str(exc).removeprefix('run.').removeprefix('variant: ')}") from None


def _check_variants(variants, mode: str, dtypes, where: str = "--variant",
                    dtype_where: str = "--dtype") -> None:
    """Each of ``variants`` known, its options valid, and running ``mode`` grids with each
    of ``dtypes`` (for 'auto', the dtype alone); else one line naming where the variant or
    the dtype was given."""
    from .backends.cuda.variants import make_variant

    for d in dtypes:   # the dtype alone, on a variant that runs every grid and dtype
        try:
            make_variant("indexed").check(mode, d)
        except YeeError as exc:
            raise type(exc)(f"{dtype_where} {d}: {exc}") from None
    for v in variants:
        if v == "auto":
            continue
        for d in dtypes:
            try:
                make_variant(v).check(mode, d)
            except YeeError as exc:
                raise type(exc)(f"{where} {v or repr(v)}: "
                                f"{str(exc).removeprefix('variant: ')}") from None


def _cmd_bench(args) -> int:
    from .exceptions import ValidationError

    if not args.scene:
        given = [o for o, v in (("-n/--size", args.size), ("--variant", args.variant),
                                ("--dtype", args.dtype)) if v]
        if given:
            raise ValidationError(f"{given[0]}: applies only with --scene (a suite runs its "
                                  "own cases); add --scene, or leave it out")
    else:
        given = [o for o, v in (("--suite", args.suite), ("--quick", args.quick),
                                ("--plots", args.plots)) if v]
        if given:
            raise ValidationError(f"{given[0]}: not with --scene, which runs that scene "
                                  "alone; leave one of them out")
    if args.plots is not None and not args.scene and (args.suite or "table") == "table":
        # (it was taken, and the table timed, for no plot)
        from .bench_studies import SUITES

        studies = [s for s in SUITES if s != "table"]
        raise ValidationError(f"--plots: the table suite has no studies to plot; give a "
                              f"study suite (--suite {', '.join(studies[:-1])} or "
                              f"{studies[-1]}), or leave --plots out")
    if args.json is not None:
        check_writable(args.json, "--json")
    if args.plots is not None:
        check_writable(args.plots, "--plots", directory=True)
    variants, dtypes = args.variant or ["indexed"], args.dtype or ["float32"]
    if args.scene:
        scenes = _bench_scenes(args.scene, args.size or [None], variants, dtypes)
    _need_cuda()
    from . import bench_studies
    from .bench import HEADER, copy_bandwidth, environment, write_json
    from .bench_studies import plot_studies, run_cases, run_suite

    env = environment()
    copy_bw = copy_bandwidth()
    feed = f", memory {env['memory_feed']:.1f} B per SM cycle" if env["memory_feed"] else ""
    print(f"# {env['device']}, {env['memory_gib']:.0f} GiB, {env['sms']} SMs{feed}; copy "
          f"bandwidth {copy_bw / 1e9:.0f} GB/s (read + write); yeefdtd {env['yeefdtd']} "
          f"({env['git']}), CuPy {env['cupy']}, {env['date']}", flush=True)
    if args.json:   # each row kept as it comes, so that a later failure loses none
        kept: tuple[list, dict] = ([], {})

        def keep(row, study):
            (kept[1].setdefault(study, []) if study else kept[0]).append(row)
            write_json(Path(args.json), env, copy_bw, *kept, complete=False)

        bench_studies.ROW_HOOK = keep
    try:
        if args.scene:
            print(HEADER, flush=True)
            cases = [(args.scene, sc.grid.cells[0], v, d)
                     for sc in scenes.values() for v in variants for d in dtypes]
            rows, studies = run_cases(cases, args.steps, copy_bw), {}
        else:
            rows, studies = run_suite(args.suite or "table", args.steps, copy_bw, args.quick)
    finally:
        bench_studies.ROW_HOOK = None
    if args.json:
        write_json(Path(args.json), env, copy_bw, rows, studies)
    if args.plots and studies:
        for p in plot_studies(studies, Path(args.plots)):
            print(f"plot: {p}")
    return 0


def _cmd_tune(args) -> int:
    from .bench import SCENES
    from .build.model import build_model
    from .description.scene import Scene
    from .exceptions import ValidationError

    if args.scene in SCENES:
        scene = _bench_scenes(args.scene, [args.size])[args.size]
    else:
        if args.size is not None:
            raise ValidationError(f"-n/--size: sizes only a benchmark scene ({', '.join(SCENES)})"
                                  f"; {args.scene} is a scene file, whose grid is its own")
        if Path(args.scene).suffix.lower() not in (".toml", ".json"):   # (file types alone)
            raise ValidationError(f"scene: {args.scene!r} is neither a benchmark scene ("
                                  f"{', '.join(SCENES)}) nor a scene file (.toml or .json)")
        scene = Scene.load(args.scene)
    # what `yeefdtd run` would run, unless told otherwise
    # (an empty --variant is refused as one, not taken for the scene's: is None, not falsy)
    given_v, given_d = args.variant is not None, args.dtype is not None
    variant = args.variant if given_v else scene.run.variant
    dtype = args.dtype if given_d else scene.run.dtype
    file = args.scene not in SCENES
    _check_variants([variant], scene.grid.mode, [dtype],
                    f"run.variant in {args.scene}:" if file and not given_v else "--variant",
                    f"run.dtype in {args.scene}:" if file and not given_d else "--dtype")
    _need_cuda()
    from .backends.cuda.stepper import CudaStepper

    st = CudaStepper(build_model(scene, steps=1), dtype, variant=variant, tune=True)
    for role, cfg in st.configs.items():
        sweep = st.tuning.get(role)
        how = "swept" if sweep else "cached"
        print(f"{st.variant.name} {role}: {list(cfg)} ({how})")
        for c, ms in sweep or []:
            print(f"    {c}: {ms:.3f} ms")
    return 0


def _cmd_kernels(args) -> int:
    from .backends.cuda.compile import kernel_source
    from .backends.cuda.variants import VARIANTS, make_variant
    from .exceptions import ValidationError

    if args.list:
        if args.variant is not None:   # (it was not looked at)
            raise ValidationError("--variant: not with --list, which lists every variant; "
                                  "leave one of them out")
        for v in VARIANTS:
            var = make_variant(v)
            print(f"{v:<16} {'/'.join(var.dims):<14} coefficients: {var.form}")
        return 0
    try:
        var = make_variant(args.variant if args.variant is not None else "indexed")
        # options whose range depends on the grid (temporal's steps): within one's at least
        refusals = []
        for mode in var.dims:
            try:
                var.check(mode)
            except YeeError as exc:
                refusals.append(exc)
        if refusals and len(refusals) == len(var.dims):
            raise refusals[-1]
    except YeeError as exc:
        raise type(exc)(f"--variant {str(exc).removeprefix('variant: ')}") from None
    print(kernel_source(var.files))
    return 0


def _animations(result, outdir: Path, stem: str, fps: float | None = None) -> list[Path]:
    """Every snapshot of ``result`` that holds frames as a GIF, named as its PNG is, at
    ``fps`` frames a second (None: plot.FPS)."""
    from .exceptions import ValidationError
    from .plot import FPS, _file_name, animate_snapshot

    out = []
    for name, snap in result.snapshots.items():
        if len(snap.frames):
            try:
                out.append(animate_snapshot(result, name, outdir / _file_name(
                    f"{stem}_snapshot_{name}", ".gif"), fps=FPS if fps is None else fps))
            except ValidationError as exc:
                raise ValidationError(f"snapshot {name!r}: {exc}") from None
    return out


def _cmd_plot(args) -> int:
    from .exceptions import ValidationError
    from .plot import plot_result
    from .results import load

    path = Path(args.result)
    if args.fps is not None and not args.animate:
        raise ValidationError("--fps: sets the animations' speed, which --animate writes; add "
                              "--animate, or leave --fps out")
    result = load(path)
    outdir = check_writable(args.output_dir if args.output_dir is not None else path.parent,
                            "--output-dir", directory=True)
    try:
        plots = plot_result(result, outdir, path.stem)
        if args.animate:
            plots += _animations(result, outdir, path.stem, args.fps)
    except ValidationError as exc:   # a file that load() read but whose parts do not plot
        raise ValidationError(f"{path}: {exc}") from None
    for p in plots:
        print(p)
    _say_unplotted(path, result, plots)
    return 0


COMMANDS = {"run": _cmd_run, "validate": _cmd_validate, "schema": _cmd_schema,
            "info": _cmd_info, "plot": _cmd_plot, "bench": _cmd_bench, "tune": _cmd_tune,
            "kernels": _cmd_kernels}


def main(argv: list[str] | None = None) -> int:
    try:
        startup.settle()   # a Ctrl-C while the command loaded: raised here
        args = parser().parse_args(argv)
        code = COMMANDS[args.command](args)
        sys.stdout.flush()   # a full disk or a closed pipe: caught below, not at exit
        return code
    except YeeError as exc:
        print(f"yeefdtd: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:
        print(f"yeefdtd: interrupted{f' {exc}' if exc.args else ''}", file=sys.stderr)
        return 130
    except MemoryError as exc:   # what no step above turned into OutOfMemory
        print(f"yeefdtd: error: not enough memory ({exc}); use fewer or larger cells, or "
              "fewer steps", file=sys.stderr)
        return 2
    except OSError as exc:   # writing a plot or to stdout: a full disk, a closed pipe
        # the files it writes are named in their errors; a write without a name is to its
        # standard output
        import errno

        writing = exc.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT,
                                errno.EFBIG)
        what = f"{exc.filename}: " if exc.filename else \
            "cannot write its output: " if writing else ""
        print(f"yeefdtd: error: {what}{one_line(exc)}", file=sys.stderr)
        if writing and not exc.filename:
            _drop_stdout()
        return 1


def _drop_stdout() -> None:
    """Point the process's standard output at the null device, so that what its buffer
    still holds cannot fail again as the interpreter exits ("Exception ignored ... OSError",
    status 120, after the one line). Only where sys.stdout is the process's own (a caller
    that captures it keeps it)."""
    import os

    if sys.stdout is not sys.__stdout__:
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):   # no file descriptor behind it
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
