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
    ("@UP0 FADD.FTZ R6, R38, -R18 ;", "float math"),
    ("@!UPT IADD3 R12, P3, R71, UR38, RZ ;", "integer and address"),
    ("@PT MOV R19, R39 ;", "register moves"),
    ("HFMA2.MMA R14, -RZ, RZ, 0, 0 ;", "register moves"),
    ("HFMA2 R3, R4, R5, R6 ;", "float math"),
    ("HADD2.F32 R7, -RZ, R8.H0_H0 ;", "conversions and unpacking"),
    ("CS2R R72, SRZ ;", "register moves"),
    ("CS2R R4, SR_CLOCKLO ;", "special registers"),
    ("DFMA R2, R4, R6, R8 ;", "float math"),
    ("DSETP.GT.AND P0, PT, R2, R4, PT ;", "predicates and selects"),
    ("ULDC.64 UR10, c[0x3][-0xcd8] ;", "other constant loads"),
    ("LDC R1, c[0x3][0x10] ;", "other constant loads"),
    ("LDL R0, [R1+0x4] ;", "local loads and stores"),
    ("STL [R1+0x1c], R8 ;", "local loads and stores"),
    ("MUFU.RCP R16, R16 ;", "float math"),
    ("IABS R15, R14 ;", "integer and address"),
    ("FENCE.VIEW.ASYNC.S ;", "barriers and mbarriers"),
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


def test_a_kernel_profiled_twice_keeps_two_tables():
    kernels = sass_mix.read_source_page((PAGE + PAGE).splitlines())
    assert list(kernels) == ["void k<float>(float *)", "void k<float>(float *) #2"]
    assert [len(rows) for rows in kernels.values()] == [6, 6]


@pytest.mark.parametrize("page, words", [
    (PAGE.replace('"Instructions Executed"', '"Executed Instructions"'),
     "no column 'Instructions Executed'"),
    (PAGE.replace('"Source",', '"Text",'), "no column 'Source'"),
    (PAGE.replace('"      LDC R14, c[0x0][0x288] ;"', '"  "'), "0x50: its Source cell is empty"),
    (PAGE.replace('"0x20","  @!P3 IMAD.MOV.U32 R5, RZ, RZ, R6 ;","1","50"',
                  '"0x20","  @!P3 IMAD.MOV.U32 R5, RZ, RZ, R6 ;","1","n/a"'),
     "0x20: 'Instructions Executed' is 'n/a'"),
])
def test_bad_pages_are_one_line_errors(tmp_path, capsys, page, words):
    f = tmp_path / "page.csv"
    f.write_text(page)
    assert sass_mix.main([str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_not_a_source_page_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "details.csv"
    bad.write_text('"ID","Kernel Name","Metric Name"\n"0","k","gpu__time_duration.sum"\n')
    assert sass_mix.main([str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--page source" in err
    assert sass_mix.main([str(tmp_path / "missing.csv")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
