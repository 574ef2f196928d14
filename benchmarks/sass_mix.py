"""What a kernel's executed instructions are: Nsight Compute's per-instruction counts, summed
by kind (float math, register moves, branches, address arithmetic, loads, ...), with the
share of the warp stall samples each kind holds.

    ncu --clock-control none --section SourceCounters --import-source no -k regex:^march3v$ \
        --launch-skip 1 --launch-count 1 -o pass -f python3 benchmarks/profile_step.py \
        --scene dipole-cpml -n 512 --variant temporal --launch 2,64,16,64 --steps 6
    ncu -i pass.ncu-rep --page source --csv --print-source sass > pass_sass.csv
    python3 benchmarks/sass_mix.py pass_sass.csv

Needs no GPU: it reads the CSV that Nsight Compute wrote.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter

FLOAT = {"FFMA", "FADD", "FMUL", "FMNMX", "HFMA2", "HADD2", "HMUL2", "F2F", "FCHK", "FRND"}
CONTROL = {"BRA", "BRX", "BSSY", "BSYNC", "BREAK", "EXIT", "CALL", "RET", "YIELD", "NOP", "JMP",
           "JMX", "KILL", "BPT"}
PREDICATE = {"ISETP", "FSETP", "PLOP3", "P2R", "R2P", "VOTE", "VOTEU", "UISETP", "PSETP", "SEL",
             "FSEL", "USEL", "UPLOP3"}
CONVERT = {"PRMT", "I2F", "F2I", "MUFU", "IABS", "I2FP", "F2IP", "F2FP"}
SYNC = {"SYNCS", "BAR", "WARPSYNC", "NANOSLEEP", "MEMBAR", "DEPBAR", "ARRIVES"}
SPECIAL = {"S2R", "S2UR", "CS2R", "ULDC"}
KINDS = ("float math", "register moves", "branches and convergence", "integer and address",
         "predicates and selects", "indexed constant loads", "other constant loads",
         "special registers", "shared loads and stores", "global loads and stores", "shuffles",
         "barriers and mbarriers", "conversions and unpacking")


def kind(sass: str) -> str:
    """The kind of one SASS instruction as Nsight Compute prints it ("@!P3 IMAD.MOV.U32 R1,
    RZ, RZ, R2 ;"), predicate guard and all."""
    text = re.sub(r"^@!?U?P\w+\s+", "", sass.strip())
    if not text:
        raise ValueError("an empty instruction")
    full = text.split()[0]
    op = full.split(".")[0]
    if op in ("MOV", "UMOV", "MOVM") or full.startswith("IMAD.MOV"):
        return "register moves"
    if op in FLOAT:
        return "float math"
    if op in CONTROL:
        return "branches and convergence"
    if op in PREDICATE:
        return "predicates and selects"
    if op in CONVERT:
        return "conversions and unpacking"
    if op in SYNC:
        return "barriers and mbarriers"
    if op in SPECIAL:
        return "special registers"
    if op == "LDC":
        return "indexed constant loads" if "c[0x3]" in text else "other constant loads"
    if op in ("LDS", "STS", "LDSM", "ATOMS"):
        return "shared loads and stores"
    if op in ("LDG", "STG", "LDGSTS", "LDGDEPBAR", "ATOMG", "RED", "LD", "ST", "LDL", "STL"):
        return "global loads and stores"
    if op == "SHFL":
        return "shuffles"
    return "integer and address"


def read_source_page(lines: list[str]) -> dict[str, list[tuple[str, int, int]]]:
    """{kernel name: [(SASS, warp instructions executed, stall samples)]} from the lines of
    ``ncu --page source --csv --print-source sass``; one table per kernel profiled."""
    kernels: dict[str, list[tuple[str, int, int]]] = {}
    name, header = None, None
    for line in lines:
        if not line.startswith('"'):
            continue
        cells = next(csv.reader([line]))
        if cells[0] == "Kernel Name":
            name, header = cells[1], None
            kernels.setdefault(name, [])
        elif cells[0] == "Address":
            header = cells
            if name is None:
                name = "kernel"
                kernels.setdefault(name, [])
        elif header is not None and cells[0].startswith("0x"):
            row = dict(zip(header, cells, strict=False))
            try:
                executed = int(row.get("Instructions Executed") or 0)
                stalls = int(row.get("Warp Stall Sampling (All Samples)") or 0)
            except ValueError:
                raise ValueError(f"instruction at {cells[0]}: counts are not integers") from None
            kernels[name].append((row["Source"], executed, stalls))
    if not kernels or not any(kernels.values()):
        raise ValueError("no per-instruction rows: give the CSV of `ncu -i REPORT --page source "
                         "--csv --print-source sass` from a report with the SourceCounters section")
    return kernels


def mix(rows: list[tuple[str, int, int]]) -> tuple[int, Counter, Counter]:
    """(warp instructions executed, executed by kind, stall samples by kind)."""
    executed, stalls = Counter(), Counter()
    for sass, n, s in rows:
        k = kind(sass)
        executed[k] += n
        stalls[k] += s
    return sum(executed.values()), executed, stalls


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("csv", help="ncu --page source --csv --print-source sass output")
    a = p.parse_args(argv)
    try:
        with open(a.csv, encoding="utf-8", errors="replace") as f:
            kernels = read_source_page(f.read().splitlines())
    except (OSError, ValueError) as e:
        print(f"sass_mix: {a.csv}: {e}", file=sys.stderr)
        return 2
    for name, rows in kernels.items():
        total, executed, stalls = mix(rows)
        samples = sum(stalls.values()) or 1
        print(f"{name[:100]}\n  {total:.4g} warp instructions executed")
        print(f"  {'kind':<28}{'executed':>10}{'stall samples':>15}")
        for k in KINDS:
            if executed[k] or stalls[k]:
                print(f"  {k:<28}{100 * executed[k] / max(total, 1):>9.1f}%"
                      f"{100 * stalls[k] / samples:>14.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
