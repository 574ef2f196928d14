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

FLOAT = {"FFMA", "FADD", "FMUL", "FMNMX", "HFMA2", "HADD2", "HMUL2", "FCHK", "FRND", "MUFU",
         "DFMA", "DADD", "DMUL", "DMNMX"}
CONTROL = {"BRA", "BRX", "BSSY", "BSYNC", "BREAK", "EXIT", "CALL", "RET", "YIELD", "NOP", "JMP",
           "JMX", "KILL", "BPT", "ENDCOLLECTIVE", "ELECT"}
PREDICATE = {"ISETP", "FSETP", "DSETP", "HSETP2", "PLOP3", "P2R", "R2P", "VOTE", "VOTEU",
             "UISETP", "PSETP", "SEL", "FSEL", "USEL", "UPLOP3"}
CONVERT = {"PRMT", "I2F", "F2I", "I2FP", "F2IP", "F2FP", "F2F", "I2I"}
SYNC = {"SYNCS", "BAR", "WARPSYNC", "NANOSLEEP", "MEMBAR", "DEPBAR", "ARRIVES", "FENCE", "CCTL",
        "ERRBAR"}
SPECIAL = {"S2R", "S2UR"}
KINDS = ("float math", "register moves", "branches and convergence", "integer and address",
         "predicates and selects", "indexed constant loads", "other constant loads",
         "special registers", "shared loads and stores", "global loads and stores",
         "local loads and stores", "shuffles", "barriers and mbarriers",
         "conversions and unpacking")
#: the columns of the source page this tool reads
COLUMNS = ("Source", "Instructions Executed", "Warp Stall Sampling (All Samples)")


def unguarded(sass: str) -> str:
    """One SASS instruction without its predicate guard ("@!P3 IMAD.MOV.U32 R1, ..." ->
    "IMAD.MOV.U32 R1, ..."); its first word is the opcode with its modifiers."""
    return re.sub(r"^@!?U?P\w+\s+", "", sass.strip())


def kind(sass: str) -> str:
    """The kind of one SASS instruction as Nsight Compute prints it ("@!P3 IMAD.MOV.U32 R1,
    RZ, RZ, R2 ;"), predicate guard and all. Immediates and zeros written into a register
    (HFMA2.MMA from -RZ, CS2R from SRZ) count as moves, a half unpacked to float
    (HADD2.F32 from -RZ) as a conversion, local memory (spills, local arrays) apart from
    global memory, and a constant load as indexed where its bank-3 offset is a register."""
    text = unguarded(sass)
    if not text:
        raise ValueError("an empty instruction")
    full = text.split()[0]
    op = full.split(".")[0]
    operands = text[len(full):]
    if (op in ("MOV", "UMOV", "MOVM") or full.startswith("IMAD.MOV")
            or (op == "HFMA2" and ".MMA" in full and "-RZ" in operands)
            or (op == "CS2R" and "SRZ" in operands)):
        return "register moves"
    if op == "HADD2" and full.startswith("HADD2.F32") and "-RZ" in operands:
        return "conversions and unpacking"
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
    if op in SPECIAL or op == "CS2R":
        return "special registers"
    if op in ("LDC", "ULDC"):
        return ("indexed constant loads" if re.search(r"c\[0x3\]\[\s*U?R\d", operands)
                else "other constant loads")
    if op in ("LDS", "STS", "LDSM", "ATOMS"):
        return "shared loads and stores"
    if op in ("LDL", "STL"):
        return "local loads and stores"
    if op in ("LDG", "STG", "LDGSTS", "LDGDEPBAR", "ATOMG", "ATOM", "RED", "REDG", "LD", "ST"):
        return "global loads and stores"
    if op == "SHFL":
        return "shuffles"
    return "integer and address"


def read_source_page(lines: list[str]) -> dict[str, list[tuple[str, int, int]]]:
    """{kernel name: [(SASS, warp instructions executed, stall samples)]} from the lines of
    ``ncu --page source --csv --print-source sass``; one table per kernel profiled (a kernel
    profiled more than once keeps one table per launch, named "#2", "#3" ...)."""
    kernels: dict[str, list[tuple[str, int, int]]] = {}
    name, header = None, None
    for line in lines:
        if not line.startswith('"'):
            continue
        cells = next(csv.reader([line]))
        if cells[0] == "Kernel Name":
            base = cells[1] if len(cells) > 1 else "kernel"
            name, header, q = base, None, 1
            while name in kernels:
                q += 1
                name = f"{base} #{q}"
            kernels[name] = []
        elif cells[0] == "Address":
            missing = [c for c in COLUMNS if c not in cells]
            if missing:
                raise ValueError(f"the source page has no column {missing[0]!r}: profile with "
                                 "--section SourceCounters and print it with --page source "
                                 "--csv --print-source sass")
            header = cells
            if name is None:
                name = "kernel"
                kernels[name] = []
        elif header is not None and cells[0].startswith("0x"):
            row = dict(zip(header, cells, strict=False))
            source = (row.get("Source") or "").strip()
            if not source:
                raise ValueError(f"instruction at {cells[0]}: its Source cell is empty")
            counts = []
            for column in COLUMNS[1:]:
                try:
                    counts.append(int((row.get(column) or "0").replace(",", "")))
                except ValueError:
                    raise ValueError(f"instruction at {cells[0]}: {column!r} is "
                                     f"{row.get(column)!r}, not a whole number") from None
            kernels[name].append((source, counts[0], counts[1]))
    if not any(kernels.values()):
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
