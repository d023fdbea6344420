"""The one instruction-set audit (.ci/wheel_audit.py, run by .ci/wheels.sh and
`nox -s wheel`): its verdict on objdump lines, without building a wheel."""
import pathlib
import runpy

AUDIT = runpy.run_path(str(pathlib.Path(__file__).parents[2] / ".ci" / "wheel_audit.py"))
isa_counts, isa_finding = AUDIT["isa_counts"], AUDIT["isa_finding"]

AVX2 = "    1000:\tvpaddd %ymm1,%ymm2,%ymm0\n"
ZMM = "    1004:\tvpaddd %zmm1,%zmm2,%zmm0\n"
# AVX-512VL on ymm0-15 with no mask: no AVX-512 operand, still an EVEX-only
# instruction (it faults on an AVX2-only CPU).
VL_ONLY = "    1008:\tvpternlogd $0x96,%ymm2,%ymm1,%ymm0\n"
SSE = "    100c:\tpaddd  %xmm1,%xmm0\n"


def test_counts():
    assert isa_counts(SSE) == (0, 0)
    assert isa_counts(AVX2) == (1, 0)
    assert isa_counts(ZMM) == (1, 3)
    assert isa_counts(VL_ONLY) == (1, 1)


def test_an_evex_only_mnemonic_on_ymm_is_avx512():
    assert isa_finding("avx2", *isa_counts(AVX2)) is None
    assert isa_finding("avx2", *isa_counts(AVX2 + VL_ONLY)) == "not AVX2 only"
    assert isa_finding("avx512", *isa_counts(AVX2 + VL_ONLY)) is None


def test_verdicts():
    assert isa_finding("baseline", *isa_counts(SSE)) is None
    assert isa_finding("baseline", *isa_counts(SSE + AVX2)) is not None
    assert isa_finding("avx2", *isa_counts(SSE)) == "not AVX2 only"        # lost its flags
    assert isa_finding("avx512", *isa_counts(AVX2)) == "no AVX-512 instruction"
    assert isa_finding(None, *isa_counts(SSE)) == "a module the audit does not know"
