"""The batch rows in the default ``python -m poly1305x bench``:
messages per second of encrypt_many for N = 1, 16, 64 and 256 at 64 B,
256 B and 1 KiB against a loop of our encrypt and a loop of cryptography's,
in the same run; and a table with those rows still reads back for the
figures.  Nothing is timed here: run_bench is replaced by a recorder."""
import importlib

import pytest

from poly1305x._tools import _bench, _bench_batch, _bench_clients, _plot

main_mod = importlib.import_module("poly1305x.__main__")


def planned(monkeypatch, argv):
    """The (operation, library, variant, backend, size) the bench command plans."""
    seen = []

    def record(todo, **kw):
        seen.extend((c.operation, c.library, c.variant, b, s) for c, b, s in todo)
        return []

    monkeypatch.setattr(_bench, "run_bench", record)
    monkeypatch.setattr(main_mod, "_run_selftest", lambda: True)
    main_mod.main(argv)
    return seen


@pytest.mark.parametrize("argv", [["bench"], ["bench", "--quick"]])
def test_default_bench_has_every_batch_row(monkeypatch, capsys, argv):
    seen = planned(monkeypatch, argv)
    capsys.readouterr()
    for n in (1, 16, 64, 256):
        op = f"aead-batch-N{n}"
        for size in (64, 256, 1024):
            got = {(lib, var) for o, lib, var, b, s in seen if o == op and s == size}
            assert got == {("poly1305x", "encrypt_many"), ("poly1305x", "loop of encrypt"),
                           ("cryptography", "loop of encrypt")}, (op, size)
    # and the one-call operations are all still there
    assert set(_bench.OPERATIONS) <= {o for o, *_ in seen}


def test_selected_operations_stay_selected(monkeypatch, capsys):
    seen = planned(monkeypatch, ["bench", "--quick", "--operation", "aead"])
    capsys.readouterr()
    assert {o for o, *_ in seen} == {"aead"}


def _row(op, lib, variant, size, seconds, backend=None):
    return {"operation": op, "library": lib, "backend": backend, "variant": variant,
            "size": size, "seconds": seconds}


def test_a_table_with_batch_rows_reads_back():
    """The default run's table now ends with the batch summary (``| backend
    | size | N | ...``); the figures' reader takes the rows of the main table
    and skips the summary."""
    rows = [
        _row("aead", "poly1305x", None, 64, 2.5e-7, "avx512"),
        _row("aead", "cryptography", None, 64, 7.5e-7),
        _row("aead-batch-N64", "poly1305x", "encrypt_many", 64, 5.5e-8, "avx512"),
        _row("aead-batch-N64", "poly1305x", "loop of encrypt", 64, 2.4e-7, "avx512"),
        _row("aead-batch-N64", "cryptography", "loop of encrypt", 64, 6.5e-7),
    ]
    table = _bench.format_table(rows)
    assert "Batch rows" in table and "| avx512 | 64 B | 64 |" in table
    back, _ = _plot.rows_from_table(table)
    assert sorted((r["operation"], r["library"], r["variant"] or "") for r in back) == sorted(
        (r["operation"], r["library"], r["variant"] or "") for r in rows)


def test_bench_operations_constant():
    assert _bench.BENCH_OPERATIONS[:len(_bench.OPERATIONS)] == tuple(_bench.OPERATIONS)
    assert set(_bench.BENCH_OPERATIONS) == (set(_bench.OPERATIONS) | set(_bench.FLOOR_OPERATIONS)
                                            | set(_bench_batch.OPERATIONS)
                                            | set(_bench_clients.OPERATIONS))
