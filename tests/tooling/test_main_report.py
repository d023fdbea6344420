"""What the main job prints for a person: columns that fit the terminal (folded
under its width), a legend of every operation shown, a closing verdict, the
Markdown and JSON forms on request, and a quiet end when the reader of a pipe
goes away.  Rows are made up here: nothing is timed."""
import json
import subprocess
import sys

import pytest

from poly1305x._tools import _cases, _report
from tests.support.helpers import child_env

KiB, MiB = 1024, 1 << 20


def _row(op, size, lib, seconds, rounds=None, backend="avx512", variant=None):
    return {"operation": op, "size": size, "library": lib, "seconds": seconds,
            "rounds": rounds or [seconds], "variant": variant,
            "backend": backend if lib == "poly1305x" else None}


ROWS = [
    _row("poly1305", 64, "poly1305x", 250e-9),
    _row("poly1305", 64, "pycryptodome", 20e-6),
    _row("poly1305", 64, "cryptography", 7e-6),
    _row("poly1305", MiB, "poly1305x", 190e-6),
    _row("poly1305", MiB, "cryptography", 285e-6),
    _row("aead", 16 * KiB, "poly1305x", 10e-6, rounds=[10e-6, 20e-6]),
    _row("aead", 16 * KiB, "cryptography", 15e-6, rounds=[15e-6, 15e-6]),
    _row("aead", 16 * KiB, "pynacl", 40e-6),
    _row("aead-new", KiB, "poly1305x", 4e-6),
    _row("aead-new", KiB, "pycryptodome", 80e-6),
]


@pytest.mark.parametrize("width", [80, 100, 60, 44])
def test_no_line_wider_than_the_terminal(width):
    text = _report.format_terminal(ROWS, width)
    assert all(len(line) <= width for line in text.splitlines()), text
    for line in _report.verdict(ROWS, 5, 5, width).splitlines()[2:]:
        assert len(line) <= max(width, 62), line


def test_wide_form_has_a_column_per_peer_in_a_fixed_order():
    head = _report.format_terminal(ROWS, 80).splitlines()[0]
    assert head.index("vs cryptography") < head.index("vs pycryptodome") < head.index("vs pynacl")


def test_narrow_form_folds_each_result_onto_two_lines():
    lines = _report.format_terminal(ROWS, 44).splitlines()
    at = [i for i, l in enumerate(lines) if l.startswith("poly1305 ") and "64 B" in l][0]
    assert lines[at + 1].strip() == "28.0× cryptography, 80.0× pycryptodome"


def test_ratios_and_the_noisy_mark():
    text = _report.format_terminal(ROWS, 100)
    line = [l for l in text.splitlines() if l.startswith("aead ")][0]
    # 15 / 10 = 1.5x, but one round had poly1305x at 20 us: the rounds disagree
    assert f"1.5×{_report.NOISY}" in line and "4.0×" in line


def test_verdict_gives_the_range_per_operation_and_peer():
    text = _report.verdict(ROWS, 4, 5, 100)
    assert text.splitlines()[0] == "Verdict: 4 of 5 backends passed the self-test."
    line = [l for l in text.splitlines() if l.strip().startswith("poly1305 ")][0]
    assert "1.5–28.0× cryptography" in line and "80.0× pycryptodome" in line
    assert line.index("cryptography") < line.index("pycryptodome")


def test_every_operation_has_a_legend_line():
    ops = list(_cases.OPERATIONS) + list(_cases.BATCH_OPERATIONS)
    missing = [op for op in _cases.OPERATIONS if op not in _report.SHORT_NAMES]
    assert not missing, f"operations without a one-line legend in _report.SHORT_NAMES: {missing}"
    rows = [_row(op, 64, "poly1305x", 1e-6) for op in ops]
    legend = _report.legend(rows, 80).splitlines()
    assert len(legend) == len(ops)
    assert all(len(l) <= 80 and l.split()[0] in ops and len(l.split()) > 2 for l in legend)
    assert not any(l.endswith("…") for l in _report.legend(rows, 100).splitlines())


def test_sizes_are_written_one_way():
    assert [_report.size_text(s) for s in (0, 64, KiB, 16 * KiB, MiB)] == [
        "0 B", "64 B", "1 KiB", "16 KiB", "1 MiB"]


@pytest.mark.parametrize("args", [["selftest"], []])
def test_a_closed_pipe_ends_quietly(args):
    """``python -m poly1305x | head -2``: no traceback, exit status 0."""
    proc = subprocess.Popen([sys.executable, "-m", "poly1305x", *args], env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdout.readline()
        proc.stdout.close()                  # the reader goes away
        err = proc.stderr.read().decode()
        rc = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rc == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_file_forms_on_request(fmt):
    r = subprocess.run([sys.executable, "-m", "poly1305x", "bench", "--quick", "--operation",
                        "poly1305", "--repeats", "1", "--format", fmt], env=child_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    if fmt == "markdown":
        assert "| operation | size | library |" in r.stdout and "Verdict" not in r.stdout
    else:
        doc = json.loads(r.stdout[r.stdout.index("\n{") + 1:])
        assert {row["library"] for row in doc["results"]} >= {"poly1305x", "cryptography"}


def test_terminal_form_ends_with_the_verdict():
    r = subprocess.run([sys.executable, "-m", "poly1305x", "bench", "--quick", "--operation",
                        "poly1305", "--repeats", "1"], env=child_env(COLUMNS="80"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.rstrip().splitlines()
    assert all(len(l) <= 80 for l in lines), [l for l in lines if len(l) > 80]
    assert lines[-1].lstrip().startswith("poly1305 ") and "× cryptography" in lines[-1]
