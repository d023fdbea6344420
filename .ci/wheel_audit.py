"""The checks .ci/wheels.sh and `nox -s wheel` make on each wheel:

    python .ci/wheel_audit.py WHEEL...

* contents: no test-only module (an "emulated" registry entry's, on
  SIMDe), no module of another target, no generated C, the
  typing files present, one extension-module suffix matching the wheel's tag;
* stripped: no symbol table (.symtab) or debug section in any module;
* the instruction-set audit (objdump -d), on x86-64 wheels, against what the
  wheel's own backend registry (poly1305x/_kernels/_registry.py) says each
  kernel module may hold: the modules imported on every CPU (the "baseline"
  kernels and the registry's ENGINE_MODULES) hold no VEX/EVEX-encoded instruction
  at all (no AVX, AVX2 or AVX-512); an "avx2" module holds AVX2 and no AVX-512
  (no zmm register, opmask register, xmm/ymm16-31, or an instruction AVX-512
  introduced); an "avx512" module holds AVX-512; no module holds an IFMA
  instruction (vpmadd52*) unless its every backend needs the avx512ifma
  feature (the avx512f backend is for CPUs without it).

AVX-512 is recognised by its operands and by the mnemonics that exist only
as EVEX encodings: an AVX-512VL instruction on ymm0-15 without a mask
(vpternlogd, vprold, ...) has no AVX-512 operand, and would still fault on
an AVX2-only CPU.  This is the one copy of the audit; noxfile.py runs it too.
``expectations(registry data)`` and ``isa_audit(module file, expectations)``
are the audit of one module, which tests/packaging/test_new_backend.py also
runs on a module built in a source tree.

Prints one line per module and exits non-zero on any finding."""
import os
import re
import runpy
import subprocess
import sys
import tempfile
import zipfile


# A VEX/EVEX instruction: objdump names all of them v... (vmovdqa, vpaddd, ...)
VEX = re.compile(r"^\s+[0-9a-f]+:\s+(v[a-z0-9]+)\s", re.M)
# AVX-512 operands, or mnemonics that exist only as EVEX encodings.
EVEX_OPERAND = re.compile(r"%zmm\d|%k[0-7]\b|%[xy]mm(1[6-9]|2\d|3[01])\b")
EVEX_MNEMONIC = re.compile(
    r"^\s+[0-9a-f]+:\s+(vp(ternlog|ro[lr]|madd52|ermt2|ermi2|compress|expand|mullq|sraq|"
    r"absq|maxsq|minsq|maxuq|minuq|movq2m|movm2)|v(extract|insert)[if](32x4|64x2|32x8|64x4)|"
    r"vshuf[if](32x4|64x2)|valign[dq]|vmovdq[au](8|16|32|64))", re.M)
IFMA = re.compile(r"^\s+[0-9a-f]+:\s+vpmadd52", re.M)


def isa_counts(asm):
    """(VEX/EVEX instructions, AVX-512 operands and EVEX-only mnemonics) in
    objdump -d output."""
    return (len(VEX.findall(asm)),
            len(EVEX_OPERAND.findall(asm)) + len(EVEX_MNEMONIC.findall(asm)))


def isa_finding(kind, n_vex, n_evex):
    """What is wrong with a module of registry isa `kind` (None: a module the
    registry does not name) holding those counts, or None."""
    if kind == "baseline" and (n_vex or n_evex):
        return "AVX instructions in a module every CPU imports"
    if kind == "avx2" and (n_evex or not n_vex):
        return "not AVX2 only"
    if kind == "avx512" and not n_evex:
        return "no AVX-512 instruction"
    if kind is None:
        return "a module the audit does not know"
    return None


def expectations(data):
    """What a registry (the data of a _registry.py, run) says of each compiled
    module, by the last part of its name (_portable, ...): {"isa": {module:
    "baseline" / "avx2" / "avx512"}, "ifma": modules whose every backend needs
    IFMA, "target": {module: target}, "test_only": the emulated backends'
    modules}.  Every backend's module and the registry's ENGINE_MODULES
    (baseline): a module it does not name has no isa here."""
    backends = data.get("BACKENDS", ())
    isa = {b["module"].rsplit(".", 1)[1]: b["isa"] for b in backends}
    # modules whose every backend needs IFMA (the avx512f one must hold none)
    ifma = set(isa) - {b["module"].rsplit(".", 1)[1] for b in backends
                       if "avx512ifma" not in b["features"]}
    isa.update({m.rsplit(".", 1)[1]: "baseline" for m in data.get("ENGINE_MODULES", ())})
    return {"isa": isa, "ifma": ifma,
            "target": {b["module"].rsplit(".", 1)[1]: b["target"] for b in backends},
            "test_only": {b["module"].rsplit(".", 1)[1] for b in backends if b["emulated"]}}


def isa_audit(path, expect):
    """The instruction-set audit of one x86-64 module file against
    ``expectations(...)``: (VEX/EVEX count, AVX-512 count, [findings])."""
    mod = os.path.basename(path).split(".")[0]
    asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path],
                         capture_output=True, text=True, check=True).stdout
    n_vex, n_evex = isa_counts(asm)
    bad = []
    n_ifma = len(IFMA.findall(asm))
    if n_ifma and mod not in expect["ifma"]:
        bad.append(f"{n_ifma} IFMA instructions in a module for CPUs without IFMA")
    finding = isa_finding(expect["isa"].get(mod), n_vex, n_evex)
    if finding:
        bad.append(finding)
    return n_vex, n_evex, bad


def audit(path):
    bad = []
    names = zipfile.ZipFile(path).namelist()
    tag = os.path.basename(path)[:-4].split("-")[-1]
    exts = sorted(n for n in names if n.endswith(".so"))
    if not exts:
        bad.append("no extension module")
    for n in names:
        if n.endswith(".c"):
            bad.append("does not belong in a release wheel: " + n)
    for need in ("poly1305x/py.typed", "poly1305x/_core/_engine.pyi",
                 "poly1305x/_core/_dispatch.pyi", "poly1305x/_kernels/_registry.py"):
        if need not in names:
            bad.append("missing " + need)
    x86 = tag.endswith("x86_64")
    arch = "x86_64" if x86 else "aarch64"
    libc = "musl" if "musllinux" in tag else "gnu"
    for n in exts:
        if not n.endswith(f"-{arch}-linux-{libc}.so"):
            bad.append(f"{n}: the suffix is not {arch}-linux-{libc}")
    from elftools.elf.elffile import ELFFile   # pyelftools, an auditwheel dependency

    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(path).extractall(tmp)
        registry = os.path.join(tmp, "poly1305x", "_kernels", "_registry.py")
        expect = expectations(runpy.run_path(registry) if os.path.exists(registry) else {})
        for n in exts:
            mod = os.path.basename(n).split(".")[0]
            if mod in expect["test_only"]:
                bad.append("a test-only (emulated) backend's module in a release wheel: " + n)
            if expect["target"].get(mod) not in (None, arch):
                bad.append(f"{n}: a {expect['target'][mod]} module in an {arch} wheel")
            with open(os.path.join(tmp, n), "rb") as fh:
                sections = [sec.name for sec in ELFFile(fh).iter_sections()]
            unstripped = [x for x in sections if x == ".symtab" or x.startswith(".debug")]
            if unstripped:
                bad.append(f"{n}: not stripped ({', '.join(unstripped)})")
            if not x86:
                print(f"  {n:62} ({arch}: no x86 check)")
                continue
            n_vex, n_evex, findings = isa_audit(os.path.join(tmp, n), expect)
            print(f"  {n:62} VEX/EVEX instructions {n_vex:6}  AVX-512 {n_evex:6}")
            bad += [f"{n}: {f}" for f in findings]
    return bad


def main(paths):
    status = 0
    for path in paths:
        print("audit", os.path.basename(path))
        for b in audit(path):
            print("  FAIL", b)
            status = 1
    return status


if __name__ == "__main__":
    if not sys.argv[1:] or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if sys.argv[1:] else 2)
    sys.exit(main(sys.argv[1:]))
