"""What a kernel's loops hold, counted in its SASS (static: no GPU, no timing): each named
instance compiled with NVCC for one architecture from the project's kernel sources and
options, its SASS read with cuobjdump, and every loop of at least --min instructions
(a backward branch and the instructions it spans) summed by kind as benchmarks/sass_mix.py
sorts them, with the global (and generic) memory operations by width. Blocks the compiler
placed out of the span (a conditional load or store laid out after the loop, jumped to
and back) are counted with it, as "out of line": the instructions from a branch out of
the loop up to an unconditional branch back into it (the paths a loop takes, not how
often).

    python3 benchmarks/sass_loops.py --files march.cu march3v.cu \
        "lean3v<float, float, unsigned char, true, 3, 2, 24>" \
        "lean3f<float, float, unsigned char, true, 3, 2, 16, 4>" [--arch sm_90] \
        [--options=-DMARCH_LEAN=0]

An instance is named as the backend names it (MarchStepper's kernel names); each compiles
alone, instantiated by taking its address. Needs nvcc and cuobjdump (on PATH, or
$CUOBJDUMP); prints registers and spills as ptxas reports them, which can differ by a few
from the runtime compiler's.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("sass_mix", _HERE / "sass_mix.py")
sass_mix = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sass_mix)

_LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_TARGET = re.compile(r"\bBRA\b.*?(0x[0-9a-f]+)")


def functions(sass: str) -> dict[str, list[tuple[int, str]]]:
    """{function name: [(address, instruction)]} from the text of ``cuobjdump -sass``."""
    out: dict[str, list[tuple[int, str]]] = {}
    name = None
    for line in sass.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
            continue
        m = _LINE.match(line)
        if m and name is not None:
            out[name].append((int(m.group(1), 16), m.group(2).strip()))
    return out


def resources(report: str) -> dict[str, str]:
    """{function name: its registers and spills} from ptxas's ``-v`` report."""
    out: dict[str, str] = {}
    name = None
    for line in report.splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?(\w+)", line)
        if m:
            name = m.group(1)
        elif name and ("spill" in line or "registers" in line):
            text = line.split(":", 1)[-1].strip() if "ptxas info" in line else line.strip()
            out[name] = f"{out[name]}; {text}" if name in out else text
    return out


def loops(ins: list[tuple[int, str]], least: int = 50) -> list[tuple[int, int]]:
    """The loops of a function's instructions: (first, last) indices of each backward branch
    and its target, spanning at least ``least`` instructions, in the order of the code. A
    backward branch from past a loop's end into it is a block laid out of line returning
    (out_of_line), not a loop of its own."""
    at = {a: n for n, (a, _) in enumerate(ins)}
    back = []
    for n, (a, text) in enumerate(ins):
        m = _TARGET.search(text)
        if m:
            target = int(m.group(1), 16)
            if target <= a and target in at:
                back.append((at[target], n))
    return [(t, n) for t, n in back if n - t + 1 >= least
            and not any(t2 <= t <= n2 < n for t2, n2 in back)]


def out_of_line(ins: list[tuple[int, str]], first: int, last: int,
                most: int = 400) -> list[int]:
    """The indices of the blocks a loop (first .. last) branches out to and back from: from
    each branch in the loop to an address outside it, the instructions up to an unpredicated
    branch back into the loop (none where an exit or ``most`` instructions come first)."""
    at = {a: n for n, (a, _) in enumerate(ins)}
    lo, hi = ins[first][0], ins[last][0]
    out: set[int] = set()
    for n in range(first, last + 1):
        m = _TARGET.search(ins[n][1])
        if not m:
            continue
        target = int(m.group(1), 16)
        if lo <= target <= hi or target not in at:
            continue
        walked = []
        for q in range(at[target], min(len(ins), at[target] + most)):
            text = ins[q][1]
            walked.append(q)
            if sass_mix.unguarded(text).startswith("EXIT"):
                walked = []
                break
            back = _TARGET.search(text)
            if back and not text.startswith("@") and lo <= int(back.group(1), 16) <= hi:
                break
        else:
            walked = []
        out.update(walked)
    return sorted(out)


def loop_mix(body: list[str]) -> tuple[Counter, Counter]:
    """(instructions by kind, global and generic loads and stores by opcode with its
    widths: LD and ST where the compiler cannot tell the address's space)."""
    kinds, memory = Counter(), Counter()
    for text in body:
        kinds[sass_mix.kind(text)] += 1
        op = sass_mix.unguarded(text).split()[0]
        if op.split(".")[0] in ("LDG", "STG", "LD", "ST"):   # global, or generic addresses
            memory[op] += 1
    return kinds, memory


def compile_instance(files: tuple[str, ...], instance: str, arch: str, work: Path,
                     extra: tuple[str, ...] = ()) -> tuple[str, str]:
    """(ptxas's report, cuobjdump's SASS) of ``instance`` compiled alone (``extra``: more
    compiler options, such as the kernels' -D switches)."""
    sys.path.insert(0, str(_HERE.parent / "src"))
    from yeefdtd.backends.cuda.compile import OPTIONS, kernel_source

    cu, cubin = work / "k.cu", work / "k.cubin"
    cu.write_text(kernel_source(files) + f"\nvoid* sass_loops_keep = (void*)&{instance};\n")
    r = subprocess.run(["nvcc", f"-arch={arch}", *OPTIONS, *extra, "-cubin", "-o", str(cubin),
                        str(cu), "-Xptxas", "-v", "-diag-suppress", "177"],
                       capture_output=True, text=True)
    if r.returncode:
        errors = [ln for ln in r.stderr.splitlines() if "error" in ln][:3]
        raise RuntimeError("nvcc failed: " + (" | ".join(errors) or r.stderr[-500:]))
    tool = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not tool:
        raise RuntimeError("cuobjdump not found: put it on PATH or name it in $CUOBJDUMP")
    s = subprocess.run([tool, "-sass", str(cubin)], capture_output=True, text=True)
    if s.returncode:
        raise RuntimeError(f"cuobjdump failed: {s.stderr.strip()[-300:]}")
    return r.stderr, s.stdout


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("instances", nargs="+", help="kernel instances, as the backend names them")
    p.add_argument("--files", nargs="+", default=["march.cu", "march3v.cu"],
                   help="the kernel files of the module (after the shared ones)")
    p.add_argument("--arch", default="sm_90")
    p.add_argument("--min", type=int, default=50, help="the fewest instructions a loop counted")
    p.add_argument("--options", default="",
                   help="more compiler options, space-separated (e.g. -DMARCH_IDS_ROW=0)")
    a = p.parse_args(argv)
    if a.min < 2:
        p.error(f"--min: {a.min}: give at least 2 instructions")
    if not shutil.which("nvcc"):
        print("sass_loops: nvcc not found: put the CUDA toolkit's bin on PATH", file=sys.stderr)
        return 2
    status = 0
    for instance in a.instances:
        print(instance)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                report, sass = compile_instance(tuple(a.files), instance, a.arch, Path(tmp),
                                                tuple(a.options.split()))
            except RuntimeError as e:
                print(f"  sass_loops: {instance}: {e}", file=sys.stderr)
                status = 1
                continue
        base = instance.split("<")[0]
        usage = resources(report)
        for name, ins in functions(sass).items():
            if f"{len(base)}{base}" not in name:   # the instance, not the support kernels
                continue
            print(f"  {name[:90]}: {len(ins)} instructions; {usage.get(name, '?')}")
            for first, last in loops(ins, a.min):
                aside = out_of_line(ins, first, last)
                kinds, memory = loop_mix([t for _, t in ins[first:last + 1]]
                                         + [ins[q][1] for q in aside])
                print(f"    loop of {last - first + 1} at 0x{ins[first][0]:04x} and "
                      f"{len(aside)} out of line: "
                      + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
                print("      global: " + ", ".join(f"{op} {n}" for op, n in sorted(memory.items())))
    return status


if __name__ == "__main__":
    sys.exit(main())
