"""The checks .ci/wheels.sh makes on each repaired wheel:

    python .ci/wheel_audit.py WHEEL...

* contents: no SIMDe test module (_x86_avx512_emu), no generated C, the
  typing files present, one extension-module suffix matching the wheel's tag;
* stripped: no symbol table (.symtab) or debug section in any module;
* the instruction-set audit (objdump -d), on x86-64 wheels, against what the
  wheel's own backend registry (poly1305x/_kernels/_registry.py) says each
  kernel module may hold: the modules imported on every CPU (the "baseline"
  kernels and _dispatch, _engine, _ssh) hold no VEX/EVEX-encoded instruction
  at all (no AVX, AVX2 or AVX-512); an "avx2" module holds AVX2 and no AVX-512
  (no zmm register, opmask register, xmm/ymm16-31, or an instruction AVX-512
  introduced); an "avx512" module holds AVX-512; no module holds an IFMA
  instruction (vpmadd52*) unless its backend needs the avx512ifma feature
  (the avx512f backend is for CPUs without it); on aarch64 wheels, no x86
  module at all.

Prints one line per module and exits non-zero on any finding."""
import os
import re
import runpy
import subprocess
import sys
import tempfile
import zipfile

from elftools.elf.elffile import ELFFile   # pyelftools, an auditwheel dependency

# The compiled modules above the kernels: imported on every CPU.
CORE = {"_dispatch", "_engine", "_ssh"}
# A VEX/EVEX instruction: objdump names all of them v... (vmovdqa, vpaddd, ...)
VEX = re.compile(r"^\s+[0-9a-f]+:\s+(v[a-z0-9]+)\s", re.M)
# AVX-512 operands, or mnemonics that exist only as EVEX encodings.
EVEX_OPERAND = re.compile(r"%zmm\d|%k[0-7]\b|%[xy]mm(1[6-9]|2\d|3[01])\b")
EVEX_MNEMONIC = re.compile(
    r"^\s+[0-9a-f]+:\s+(vp(ternlog|ro[lr]|madd52|ermt2|ermi2|compress|expand|mullq|sraq|"
    r"absq|maxsq|minsq|maxuq|minuq|movq2m|movm2)|v(extract|insert)[if](32x4|64x2|32x8|64x4)|"
    r"vshuf[if](32x4|64x2)|valign[dq]|vmovdq[au](8|16|32|64))", re.M)
IFMA = re.compile(r"^\s+[0-9a-f]+:\s+vpmadd52", re.M)


def audit(path):
    bad = []
    names = zipfile.ZipFile(path).namelist()
    tag = os.path.basename(path)[:-4].split("-")[-1]
    exts = sorted(n for n in names if n.endswith(".so"))
    if not exts:
        bad.append("no extension module")
    for n in names:
        if n.endswith(".c") or ("_emu." in n and n.endswith(".so")):
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
    with tempfile.TemporaryDirectory() as tmp:
        zipfile.ZipFile(path).extractall(tmp)
        registry = os.path.join(tmp, "poly1305x", "_kernels", "_registry.py")
        backends = runpy.run_path(registry)["BACKENDS"] if os.path.exists(registry) else ()
        isa = {b["module"].rsplit(".", 1)[1]: b["isa"] for b in backends}
        # modules whose every backend needs IFMA (the avx512f one must hold none)
        ifma = set(isa) - {b["module"].rsplit(".", 1)[1] for b in backends
                           if "avx512ifma" not in b["features"]}
        isa.update({m: "baseline" for m in CORE})
        for n in exts:
            mod = os.path.basename(n).split(".")[0]
            with open(os.path.join(tmp, n), "rb") as fh:
                sections = [sec.name for sec in ELFFile(fh).iter_sections()]
            unstripped = [x for x in sections if x == ".symtab" or x.startswith(".debug")]
            if unstripped:
                bad.append(f"{n}: not stripped ({', '.join(unstripped)})")
            if not x86:
                if mod.startswith("_x86"):
                    bad.append(f"{n}: an x86 module in an {arch} wheel")
                print(f"  {n:62} ({arch}: no x86 check)")
                continue
            asm = subprocess.run(["objdump", "-d", "--no-show-raw-insn", os.path.join(tmp, n)],
                                 capture_output=True, text=True, check=True).stdout
            n_vex = len(VEX.findall(asm))
            n_evex = len(EVEX_OPERAND.findall(asm)) + len(EVEX_MNEMONIC.findall(asm))
            print(f"  {n:62} VEX/EVEX instructions {n_vex:6}  AVX-512 {n_evex:6}")
            kind = isa.get(mod)
            n_ifma = len(IFMA.findall(asm))
            if n_ifma and mod not in ifma:
                bad.append(f"{n}: {n_ifma} IFMA instructions in a module for CPUs without IFMA")
            if kind == "baseline" and (n_vex or n_evex):
                bad.append(f"{n}: AVX instructions in a module every CPU imports")
            elif kind == "avx2" and (n_evex or not n_vex):
                bad.append(f"{n}: not AVX2 only")
            elif kind == "avx512" and not n_evex:
                bad.append(f"{n}: no AVX-512 instruction")
            elif kind is None:
                bad.append(f"{n}: a module the audit does not know")
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
    sys.exit(main(sys.argv[1:]))
