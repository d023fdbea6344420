"""Read memcheck's XML report of ct_valgrind.py and decide.

A report counts when its stack passes through poly1305x's compiled code.
Each one is located in the .pyx/.pxi source (Cython's C carries
``/* "poly1305x/x.pyx":N`` markers, ``.pxd`` for the inline helpers) and is accepted only where the code
branches on the *result* of a tag comparison (the ``ok`` flag, ``_equal``),
which is public by design; anything else -- a kernel, tags_equal, the MAC or
stream code -- is a secret-dependent branch or index: failure.  The positive
control (ct_mark.c's deliberately leaky comparison) must be reported, or the
check itself is broken.

Usage: check_report.py REPORT.xml BUILD_DIR
"""
import collections
import os
import re
import runpy
import sys
import xml.etree.ElementTree as ET

ALLOWED = re.compile(r"\bok\b|self\._equal\(|return tags_equal\(|if not tag_matches\(|"
                     r"keys_equal\(x\.key")
MARKER = re.compile(r'^\s*/\* "([^"]+\.(?:pyx|pxd|pxi))":(\d+)')


def our_modules(build):
    """The names of poly1305x's compiled modules (the first part of each file
    name, "_engine", ...), from the build's backend registry (plain data, run
    without importing the package): every backend's module and the modules
    above the kernels."""
    data = runpy.run_path(os.path.join(build, "poly1305x", "_kernels", "_registry.py"))
    return {m.rsplit(".", 1)[1]
            for m in [b["module"] for b in data["BACKENDS"]] + list(data["ENGINE_MODULES"])}


class Locator:
    """C file line -> (pyx path, line, source text)."""

    def __init__(self, build):
        self.build = build
        self.cache = {}

    def _c_files(self):
        """{basename: path} of the generated C files anywhere in the package
        (poly1305x/_core, poly1305x/_kernels, poly1305x/openssh, ...)."""
        if not hasattr(self, "_c"):
            self._c = {}
            for top, _dirs, files in os.walk(os.path.join(self.build, "poly1305x")):
                for f in files:
                    if f.endswith(".c"):
                        self._c.setdefault(f, os.path.join(top, f))
        return self._c

    def _index(self, cfile):
        if cfile not in self.cache:
            where = []
            name = os.path.basename(cfile or "")
            path = self._c_files().get(name, "")
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    last = None
                    for line in fh:
                        m = MARKER.match(line)
                        if m:
                            last = (m.group(1), int(m.group(2)))
                        where.append(last)
            except OSError:
                pass
            self.cache[cfile] = where
        return self.cache[cfile]

    def pyx(self, cfile, cline):
        where = self._index(cfile)
        if not cfile or not cline or int(cline) > len(where) or where[int(cline) - 1] is None:
            return None
        pyx, n = where[int(cline) - 1]
        try:
            with open(os.path.join(self.build, pyx), encoding="utf-8") as fh:
                text = fh.read().splitlines()[n - 1].strip()
        except (OSError, IndexError):
            text = "?"
        return pyx, n, text


def main(report, build):
    root = ET.parse(report).getroot()
    loc = Locator(build)
    ours_names = our_modules(build)
    accepted, failures, elsewhere = collections.Counter(), [], 0
    control = 0
    for err in root.iter("error"):
        kind = err.findtext("kind") or ""
        if not kind.startswith("Uninit"):
            continue                               # leaks etc.: not this check's business
        frames = [(f.findtext("fn") or "?", os.path.basename(f.findtext("obj") or "?"),
                   f.findtext("file"), f.findtext("line"))
                  for f in err.find("stack").iter("frame")]
        count = int(err.findtext("unique") and 1)
        if any(fn == "ct_canary_leaky_compare" for fn, *_ in frames):
            control += 1
            continue
        ours = next((fr for fr in frames if fr[1].startswith("_") and "poly1305x" not in fr[1]
                     and fr[1].split(".")[0] in ours_names), None)
        if ours is None:
            elsewhere += count
            continue
        fn, obj, cfile, cline = ours
        where = loc.pyx(cfile, cline)
        desc = f"{kind} in {fn} ({obj} {cfile}:{cline})"
        if where:
            desc += f" = {where[0]}:{where[1]}: {where[2]}"
        if obj.startswith("_engine") and where and ALLOWED.search(where[2]):
            accepted[desc] += 1
        else:
            failures.append(desc + "\n      " + "\n      ".join(
                f"{f[0]} ({f[1]} {f[2]}:{f[3]})" for f in frames[:8]))
    print("constant-time check (valgrind memcheck, secrets undefined):")
    print(f"  positive control (a deliberately leaky compare) reported: {control} time(s)")
    for desc, n in sorted(accepted.items()):
        print(f"  accepted (branch on a tag comparison's public result): {desc}")
    print(f"  reports outside poly1305x (Python runtime, harness): {elsewhere}")
    for f in failures:
        print(f"  SECRET-DEPENDENT: {f}")
    if control == 0:
        print("FAILED: the positive control was not reported: the check is not working")
        return 1
    if failures:
        print(f"FAILED: {len(failures)} secret-dependent branch(es) / index(es) in poly1305x")
        return 1
    print("  clean: no secret-dependent branch or memory index in the kernels, "
          "tags_equal or the engine")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
