"""benchmarks/sass_mix.py: the kinds it gives SASS instructions and the sums it makes of an
Nsight Compute source page (a small page written here, in the layout ncu prints)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "sass_mix.py"
_spec = importlib.util.spec_from_file_location("sass_mix", _PATH)
sass_mix = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sass_mix)

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed",'
          '"Thread Instructions Executed"')
PAGE = '''"Kernel Name","void k<float>(float *)",
''' + HEADER + '''
"0x10","      FFMA.FTZ R1, R2, R3, R4 ;","5","100","3200"
"0x20","  @!P3 IMAD.MOV.U32 R5, RZ, RZ, R6 ;","1","50","1600"
"0x30","      @!P4  BRA 0x7fb9057bd9c0","30","50","1600"
"0x40","      LDC.64 R12, c[0x3][R26+0x28] ;","2","40","1280"
"0x50","      LDC R14, c[0x0][0x288] ;","0","10","320"
"0x60","      IADD3 R12, P3, R71, UR38, RZ ;","2","50","1600"
'''


@pytest.mark.parametrize("sass, expected", [
    ("FFMA.FTZ R1, R2, R3, R4 ;", "float math"),
    ("@!P3 IMAD.MOV.U32 R5, RZ, RZ, R6 ;", "register moves"),
    ("IMAD R13, R71, UR5, RZ ;", "integer and address"),
    ("@P0 BRA `(.L_x_35) ;", "branches and convergence"),
    ("BSYNC B2 ;", "branches and convergence"),
    ("LDC.64 R12, c[0x3][R26+0x28] ;", "indexed constant loads"),
    ("LDC R14, c[0x0][0x288] ;", "other constant loads"),
    ("LDG.E.64.CONSTANT R42, desc[UR8][R42.64] ;", "global loads and stores"),
    ("STS.64 [R3+0x100], R18 ;", "shared loads and stores"),
    ("SYNCS.PHASECHK.TRANS64.TRYWAIT P3, [R5+URZ+0x8], R4 ;", "barriers and mbarriers"),
    ("SHFL.DOWN PT, R54, R70, 0x1, 0x1f ;", "shuffles"),
    ("ISETP.GE.AND P3, PT, R7, UR41, PT ;", "predicates and selects"),
    ("PRMT R45, R34, 0x7610, R45 ;", "conversions and unpacking"),
])
def test_kinds(sass, expected):
    assert sass_mix.kind(sass) == expected


def test_page_sums_by_kind():
    kernels = sass_mix.read_source_page(PAGE.splitlines())
    assert list(kernels) == ["void k<float>(float *)"]
    total, executed, stalls = sass_mix.mix(kernels["void k<float>(float *)"])
    assert total == 300
    assert executed["float math"] == 100 and executed["register moves"] == 50
    assert executed["branches and convergence"] == 50 and stalls["branches and convergence"] == 30
    assert executed["indexed constant loads"] == 40 and executed["other constant loads"] == 10
    assert executed["integer and address"] == 50


def test_not_a_source_page_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "details.csv"
    bad.write_text('"ID","Kernel Name","Metric Name"\n"0","k","gpu__time_duration.sum"\n')
    assert sass_mix.main([str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--page source" in err
    assert sass_mix.main([str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
