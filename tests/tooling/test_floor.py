"""The floor row of the bench (poly1305x._tools._floor): the C helper is
built on demand outside the package and returns len(data) + 16 bytes with no
cryptography; the floor table shows encrypt's multiple of it and the figures'
reader skips that table.  Nothing is timed here."""
import shutil
import sysconfig
from pathlib import Path

from poly1305x._tools import _bench, _floor, _plot

ROOT = Path(__file__).resolve().parents[2]


def test_the_helper_is_outside_the_package_and_its_builds():
    assert _floor.SOURCE == ROOT / "benchmarks" / "floor.c"
    assert (ROOT / "poly1305x") not in _floor.SOURCE.parents
    manifest = (ROOT / "MANIFEST.in").read_text()
    assert "benchmarks" not in manifest and "floor" not in manifest


def test_floor_builds_or_says_why():
    seal = _floor.load()
    if seal is None:        # only without a compiler
        cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
        assert shutil.which(cc) is None and _floor.why() == "no compiler"
        return
    assert _floor.why() == ""
    for data in (b"", b"x" * 64, bytearray(300), memoryview(bytes(1024))):
        out = seal(bytes(12), data, b"aad")
        assert type(out) is bytes and out == bytes(data) + bytes(16)
    assert seal(bytes(12), b"abc", None) == b"abc" + bytes(16)


def _row(lib, variant, size, seconds, backend=None):
    return {"operation": _floor.OPERATION, "library": lib, "backend": backend,
            "variant": variant, "size": size, "seconds": seconds}


def test_the_floor_table():
    rows = []
    for size in _floor.SIZES:
        rows += [_row("floor", None, size, 50e-9), _row("poly1305x", "encrypt", size, 175e-9,
                                                          "avx512"),
                 _row("poly1305x", "encrypt_many of one", size, 200e-9, "avx512"),
                 _row("cryptography", None, size, 700e-9)]
    table = _bench.format_table(rows)
    assert "One call against the floor" in table
    assert "| avx512 | 0 B | 50 | 175 | 3.5× | 200 | 700 |" in table
    # the floor is not a peer: the ratios name cryptography only
    assert "× floor" not in table.split("One call against the floor")[0]
    back, _ = _plot.rows_from_table(table)
    assert len(back) == len(rows)
    without = _bench.format_table([r for r in rows if r["library"] != "floor"])
    assert "| avx512 | 0 B | - | 175 | - |" in without
