"""benchmarks/sass_loops.py: the functions, loops and kinds it reads from cuobjdump's SASS and
the registers from ptxas's report (small texts written here, in the layouts those tools
print); compiling needs nvcc and is not run here."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "sass_loops.py"
_spec = importlib.util.spec_from_file_location("sass_loops", _PATH)
sass_loops = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sass_loops)

SASS = """
	code for sm_90
		Function : _Z4tickPx
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
        /*0010*/                   EXIT ;                                 /* 0x000000000000794d */
		Function : _Z6lean3vIffhLb1ELi3ELi2ELi24ELb0EEvPKT0_
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x000000 */
        /*0010*/                   FFMA R2, R3, R4, R5 ;                  /* 0x000000 */
        /*0020*/                   LDG.E.64.CONSTANT R6, desc[UR4][R8.64] ;
        /*0030*/                   STG.E.64 desc[UR4][R8.64], R6 ;
        /*0040*/              @!P0 BRA 0x10 ;                             /* 0x000000 */
        /*0050*/                   FADD R2, R3, R4 ;                      /* 0x000000 */
        /*0060*/                   BRA 0x50 ;                             /* 0x000000 */
        /*0070*/                   BRA 0x80 ;                             /* 0x000000 */
        /*0080*/                   EXIT ;                                 /* 0x000000 */
"""

REPORT = """ptxas info    : Compiling entry function '_Z4tickPx' for 'sm_90'
ptxas info    : Function properties for _Z4tickPx
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 8 registers, used 0 barriers
ptxas info    : Compiling entry function '_Z6lean3vIffhLb1ELi3ELi2ELi24ELb0EEvPKT0_' for 'sm_90'
ptxas info    : Function properties for _Z6lean3vIffhLb1ELi3ELi2ELi24ELb0EEvPKT0_
    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 80 registers, used 1 barriers, 8 bytes cumulative stack size
"""


def test_functions_loops_and_their_kinds():
    fns = sass_loops.functions(SASS)
    name = "_Z6lean3vIffhLb1ELi3ELi2ELi24ELb0EEvPKT0_"
    assert list(fns) == ["_Z4tickPx", name]
    ins = fns[name]
    assert len(ins) == 9 and ins[2] == (0x20, "LDG.E.64.CONSTANT R6, desc[UR4][R8.64]")
    # backward branches only (0x40 -> 0x10: 4 instructions; 0x60 -> 0x50: 2), not the
    # forward one at 0x70, nor loops shorter than the least asked for
    assert sass_loops.loops(ins, 2) == [(1, 4), (5, 6)]
    assert sass_loops.loops(ins, 3) == [(1, 4)]
    kinds, memory = sass_loops.loop_mix([t for _, t in ins[1:5]])
    assert kinds == {"float math": 1, "global loads and stores": 2,
                     "branches and convergence": 1}
    assert memory == {"LDG.E.64.CONSTANT": 1, "STG.E.64": 1}


def test_resources_per_function():
    got = sass_loops.resources(REPORT)
    assert got["_Z4tickPx"].endswith("Used 8 registers, used 0 barriers")
    assert got["_Z6lean3vIffhLb1ELi3ELi2ELi24ELb0EEvPKT0_"] == (
        "8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads; Used 80 registers, "
        "used 1 barriers, 8 bytes cumulative stack size")


def test_without_nvcc_one_line_and_status_2(monkeypatch, capsys):
    monkeypatch.setattr(sass_loops.shutil, "which", lambda name: None)
    assert sass_loops.main(["lean3v<float>"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nvcc not found" in err[0]


OUT_OF_LINE = """
		Function : k
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   FFMA R2, R3, R4, R5 ;
        /*0020*/               @P0 BRA 0x60 ;
        /*0030*/                   FADD R2, R3, R4 ;
        /*0040*/               @P2 BRA 0xa0 ;
        /*0050*/              @!P1 BRA 0x10 ;
        /*0060*/                   LDG.E.64 R6, desc[UR4][R8.64] ;
        /*0070*/                   ST.E.64 [R8.64], R6 ;
        /*0080*/                   BRA 0x30 ;
        /*0090*/                   EXIT ;
        /*00a0*/                   STG.E desc[UR4][R8.64], R6 ;
        /*00b0*/                   EXIT ;
        /*00c0*/                   BRA 0xc0;
"""


def test_blocks_out_of_line_counted_with_their_loop():
    """A load and store the compiler laid out after the loop (branched to and back) count
    with it; a branch out to an exit does not, nor SASS's closing branch to itself."""
    ins = sass_loops.functions(OUT_OF_LINE)["k"]
    assert sass_loops.loops(ins, 2) == [(1, 5)]
    assert sass_loops.out_of_line(ins, 1, 5) == [6, 7, 8]
    kinds, memory = sass_loops.loop_mix([t for _, t in ins[1:6]]
                                        + [ins[q][1] for q in sass_loops.out_of_line(ins, 1, 5)])
    assert memory == {"LDG.E.64": 1, "ST.E.64": 1}   # a store through a generic address
    assert kinds["branches and convergence"] == 4
