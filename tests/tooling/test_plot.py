"""poly1305x._tools._plot without drawing (matplotlib is the bench extra's, not the
test extra's): reading a table back, placing the end labels, naming the files,
and the error without matplotlib."""
import subprocess
import sys
from pathlib import Path

import pytest

from poly1305x._tools import _bench, _plot

TABLE = Path(__file__).resolve().parents[2] / "docs" / "_static" / "benchmark-table.md"


def test_parse_cells():
    assert _plot.parse_size("64B") == 64
    assert _plot.parse_size("32KiB") == 32 * 1024
    assert _plot.parse_size("1MiB") == 1 << 20
    assert _plot.parse_time("84 ns") == pytest.approx(84e-9)
    assert _plot.parse_time("2.41 µs") == pytest.approx(2.41e-6)
    assert _plot.parse_time("1.016 ms") == pytest.approx(1.016e-3)
    assert _plot.parse_library("cryptography") == ("cryptography", None, None)
    assert _plot.parse_library("poly1305x [avx512] cipher=cryptography AES") == (
        "poly1305x", "avx512", "cipher=cryptography AES")
    for bad in ("64", "1 GiB", "x"):
        with pytest.raises(ValueError):
            _plot.parse_size(bad)
    with pytest.raises(ValueError):
        _plot.parse_time("3 minutes")


def test_rows_from_a_table_written_by_format_table():
    rows = [                                # in the table's order
        {"operation": "poly1305-aes", "library": "poly1305x", "backend": "avx512",
         "variant": "cipher=Crypto.Cipher.AES", "size": 1 << 20, "seconds": 6.9e-5},
        {"operation": "aead", "library": "poly1305x", "backend": "avx2", "variant": None,
         "size": 64, "seconds": 2.5e-7},
        {"operation": "aead", "library": "cryptography", "backend": None, "variant": None,
         "size": 64, "seconds": 7.5e-7},
    ]
    back, env = _plot.rows_from_table("machine line\n\n" + _bench.format_table(rows))
    assert env["summary"] == "machine line"
    assert [(r["operation"], r["library"], r["backend"], r["variant"], r["size"]) for r in back] == [
        (r["operation"], r["library"], r["backend"], r["variant"], r["size"]) for r in rows]
    for got, want in zip(back, rows):
        assert got["seconds"] == pytest.approx(want["seconds"], rel=5e-3)
    assert back[1]["ratios"] == {"cryptography": 3.0}
    with pytest.raises(ValueError):
        _plot.rows_from_table("no table here")


def test_the_committed_table_reads_back_whole():
    rows, env = _plot.rows_from_table(TABLE.read_text(encoding="utf-8"))
    assert "commit" in env["summary"]
    ops = _plot.operations(rows)
    assert ops == [op for op in _bench.OPERATIONS if op in ops]
    assert set(ops) == set(_bench.OPERATIONS)
    for op in ops:
        labels = {_bench.series_label(r) for r in rows if r["operation"] == op}
        assert any(lb.startswith("poly1305x") for lb in labels) and len(labels) >= 2, op


def test_spread_keeps_order_and_separates():
    ys = [100.0, 101.0, 300.0, 99.5, 102.0]
    out = _plot.spread(ys, [10.0] * len(ys))
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [out[i] for i in order]
    assert all(b - a >= 10.0 - 1e-6 for a, b in zip(placed, placed[1:]))
    assert out[2] == 300.0                              # far from the others: left alone
    assert sum(out) == pytest.approx(sum(ys))           # the cluster keeps its centre
    # labels two lines high need twice the room
    two = _plot.spread([0.0, 1.0], [10.0, 20.0])
    assert two[1] - two[0] == pytest.approx(15.0)


def test_end_labels_and_file_names():
    assert _plot.end_label("pycryptodome") == "pycryptodome"
    assert _plot.end_label("poly1305x [avx2]") == "poly1305x [avx2]"
    assert _plot.end_label("poly1305x [avx512] cipher=Crypto.Cipher.AES") == (
        "poly1305x [avx512]\n  cipher=Crypto.Cipher.AES")
    assert _plot.figure_path("docs/_static/benchmark.png", "aead") == (
        "docs/_static/benchmark-aead.png")
    assert _plot.figure_path("out", "chacha20") == "out-chacha20.png"


def test_without_matplotlib_a_clear_error(tmp_path):
    code = ("import sys; sys.modules['matplotlib'] = None\n"
            "from poly1305x._tools import _plot\n"
            f"sys.exit(_plot.main([{str(TABLE)!r}, {str(tmp_path / 'b.png')!r}]))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == "--plot needs matplotlib (pip install matplotlib)"
    assert not list(tmp_path.iterdir())
