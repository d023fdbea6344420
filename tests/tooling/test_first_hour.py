"""A newcomer's first hour: the import in a source tree without
built modules, a bad POLY1305X_BACKEND, the two command lines' flags,
messages and feedback, the install hints, and mypy over the installed package.

The benchmark is never timed here: where it runs, it runs to check plumbing."""
import io
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tarfile
import time

import pytest

import poly1305x
from poly1305x import __main__ as main_mod
from poly1305x._core import _dispatch
from poly1305x._tools import _bench
from poly1305x._peers import install_hint
from poly1305x.openssh import __main__ as ssh_cli
from tests.support.helpers import child_env

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SSH_KEYGEN = shutil.which("ssh-keygen")


def _py(*args, cwd=None, timeout=300, **env):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=child_env(**env), stdin=subprocess.DEVNULL)


# --- a source tree without built modules -------------------------------------

@pytest.fixture(scope="module")
def bare_tree(tmp_path_factory):
    """poly1305x/ as a checkout has it: the sources, no compiled module."""
    dest = tmp_path_factory.mktemp("checkout")
    # The checkout's poly1305x/ (an installed wheel holds no .pyx/.pxi/.h)
    pkg = os.path.join(ROOT, "poly1305x")
    for d, _, files in os.walk(pkg):
        for f in files:
            if f.endswith((".py", ".pyx", ".pxi", ".pxd", ".pyi", ".h", "py.typed")):
                rel = os.path.relpath(os.path.join(d, f), os.path.dirname(pkg))
                os.makedirs(os.path.dirname(dest / rel), exist_ok=True)
                shutil.copy2(os.path.join(d, f), dest / rel)
    assert not [f for _, _, fs in os.walk(dest) for f in fs if f.endswith((".so", ".pyd"))]
    return str(dest)


@pytest.mark.parametrize("args", [["-m", "poly1305x"], ["-m", "poly1305x", "selftest"],
                                  ["-m", "poly1305x.openssh", "info", "x"]])
def test_source_tree_says_what_to_do_in_one_line(bare_tree, args):
    r = _py(*args, cwd=bare_tree)
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and "ModuleNotFoundError" not in r.stderr, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "you are importing from a source tree" in lines[0]
    assert "pip install -e ." in lines[0] and "C compiler" in lines[0]


def _one_short_traceback(stderr):
    """One traceback, from the importing line straight to the message: no chained
    exception and no frames inside the package (3.13+ add caret lines, so the
    frames are counted, not the lines)."""
    assert stderr.count("Traceback") <= 1, stderr
    assert "During handling" not in stderr and "direct cause" not in stderr, stderr
    frames = [line for line in stderr.splitlines() if line.lstrip().startswith("File ")]
    assert len(frames) <= 2, stderr


def test_source_tree_import_ends_in_the_message(bare_tree):
    r = _py("-c", "import poly1305x", cwd=bare_tree)
    assert r.returncode == 1
    assert "ModuleNotFoundError" not in r.stderr
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: poly1305x: you are importing from a source tree")
    _one_short_traceback(r.stderr)


# --- POLY1305X_BACKEND -----------------------------------------------------

def test_bad_backend_is_one_line_naming_only_usable_backends():
    r = _py("-m", "poly1305x", "selftest", POLY1305X_BACKEND="sse9000")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "POLY1305X_BACKEND=sse9000: unknown poly1305x backend 'sse9000'" in lines[0]
    listed = lines[0].split("usable here: ", 1)[1].rstrip(")").split(", ")
    assert listed == poly1305x.backends() + _dispatch.emulated_backends()
    # a name that is known but not usable here is not offered (as a whole
    # name: "avx512" is not usable on an AVX2-only CPU while "avx512-emu" is)
    for name in set(_dispatch.all_backends()) - set(listed):
        assert not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lines[0]), name


def test_bad_backend_import_is_short():
    r = _py("-c", "import poly1305x", POLY1305X_BACKEND="sse9000")
    assert r.returncode == 1
    _one_short_traceback(r.stderr)
    assert "_dispatch.pyx" not in r.stderr


# --- python -m poly1305x ----------------------------------------------------

@pytest.mark.parametrize("module", ["poly1305x", "poly1305x.openssh"])
def test_version_flag(module):
    r = _py("-m", module, "--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"poly1305x {poly1305x.__version__}"


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_repeats_must_be_positive(value):
    r = _py("-m", "poly1305x", "bench", "--quick", "--repeats", value)
    assert r.returncode == 2
    assert "--repeats" in r.stderr and ("at least 1" in r.stderr or "whole number" in r.stderr)
    assert "poly1305x 0" not in r.stdout          # refused before the header and the run


@pytest.mark.parametrize("flag", ["--json", "--plot"])
def test_unwritable_output_is_refused_before_the_run(flag, tmp_path):
    t0 = time.monotonic()
    r = _py("-m", "poly1305x", "bench", flag, str(tmp_path / "no" / "such" / "x.out"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "does not exist" in r.stderr and flag in r.stderr
    assert r.stdout == "" and time.monotonic() - t0 < 60


def test_plot_without_matplotlib_is_refused_before_the_run(monkeypatch, tmp_path, capsys):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "matplotlib" else real(name, *a))

    def never(*a, **k):
        raise AssertionError("the benchmark ran")

    monkeypatch.setattr(_bench, "run_bench", never)
    with pytest.raises(SystemExit) as exc:
        main_mod.main(["bench", "--plot", str(tmp_path / "p.png")])
    assert exc.value.code == 2
    assert "--plot needs matplotlib" in capsys.readouterr().err


def _sigint_default():
    # A CI harness that started us in the background hands down SIGINT ignored,
    # and Python then installs no KeyboardInterrupt handler: a terminal's child
    # gets the default disposition.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_bench_exits_130_without_traceback():
    proc = subprocess.Popen([sys.executable, "-m", "poly1305x", "bench"], env=child_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_sigint_default)
    try:
        # the third progress line: the run is in its timing loops, past start-up
        # and the peers' imports
        for _ in range(3):
            line = proc.stderr.readline()
            assert line.startswith("["), line
        assert line.startswith("[3/"), line
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err


def test_ctrl_c_in_main_job_returns_130(monkeypatch, capsys):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(main_mod, "_run_selftest", interrupted)
    try:
        rc = main_mod.main([])
    except KeyboardInterrupt:
        pytest.fail("KeyboardInterrupt escaped main()")
    assert rc == 130


def test_progress_line_per_step():
    """Off a terminal: a line per case while calibrating, then one per round."""
    out = io.StringIO()
    case = _bench.cases(["poly1305"])[0]
    prog = main_mod._Progress(3, stream=out)
    for i in range(1, 13):
        prog(i, 12, case, "portable", 64)
    lines = out.getvalue().splitlines()
    assert [l.split("]", 1)[0] for l in lines] == ["[1/12", "[2/12", "[3/12", "[4/12", "[7/12",
                                                   "[10/12"]
    assert "calibrating" in lines[0] and "round 2/4" in lines[3] and "round 4/4" in lines[5]


def _row(lib, rounds):
    return {"operation": "aead", "library": lib, "backend": "portable" if lib == "poly1305x"
            else None, "variant": None, "size": 1024, "seconds": min(rounds), "rounds": rounds}


def test_ratios_whose_rounds_cross_one_are_marked():
    mine = _row("poly1305x", [1.0, 1.0, 1.0])
    steady = _row("cryptography", [2.0, 2.1, 1.9])
    noisy = _row("pycryptodome", [0.8, 1.5, 1.2])
    assert main_mod._noise_mark(mine, steady) == ""
    mark = main_mod._noise_mark(mine, noisy)
    assert main_mod.NOISY in mark and "0.80–1.50×" in mark
    table = _bench.format_table([mine, steady, noisy], mark=main_mod._noise_mark)
    line = [l for l in table.splitlines() if "poly1305x [portable]" in l][0]
    assert "1.9× cryptography," in line and f"pycryptodome {main_mod.NOISY}" in line


def test_bench_rows_keep_every_round():
    todo = _bench.plan(["poly1305"], sizes=(64,), backends=[poly1305x.backend()])[:1]
    (row,) = _bench.run_bench(todo, repeats=3, min_time=0.0005)
    assert len(row["rounds"]) == 3 and row["seconds"] == min(row["rounds"])


def test_main_job_names_its_rounds_and_the_missing_peers(monkeypatch, capsys):
    monkeypatch.setattr(_bench, "QUICK_OPERATIONS", ("poly1305",))
    real_plan = _bench.plan
    monkeypatch.setattr(_bench, "plan", lambda ops, **k: real_plan(ops, sizes=(64,), **k))
    real_version = _bench.library_version
    monkeypatch.setattr(_bench, "library_version",
                        lambda lib: None if lib == "pynacl" else real_version(lib))
    assert main_mod.main([]) == 0
    out = capsys.readouterr().out
    assert "Best of 5 rounds" in out
    assert "peer pynacl: not importable, skipped" in out
    assert "pip install -e '.[peers]'" in out


# --- install hints -----------------------------------------------------------

def test_install_hints_are_quoted_and_work_from_a_checkout():
    hint = install_hint("openssh")
    assert "pip install -e '.[openssh]'" in hint
    assert "'bcrypt>=4'" in hint and "'pycryptodome>=3.20'" in hint
    assert "poly1305x[" not in hint.replace("'.[", "")       # no unquoted extra
    assert "'cryptography>=42'" in install_hint("peers")


# --- mypy over the installed package -----------------------------------------

def test_mypy_strict_finds_the_package(tmp_path):
    """From another folder, as a user's project would: the install (editable
    or not) must be visible to mypy, stubs and py.typed included."""
    src = tmp_path / "use.py"
    src.write_text("import poly1305x\nfrom poly1305x.aead import ChaCha20Poly1305\n"
                   "key: bytes = ChaCha20Poly1305.generate_key()\n"
                   "name: str = poly1305x.backend()\n")
    r = _py("-m", "mypy", "--strict", "--no-incremental", str(src), cwd=str(tmp_path),
            timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Success" in r.stdout


# --- python -m poly1305x.openssh ----------------------------------------------

@pytest.fixture(scope="module")
def cli_keys(tmp_path_factory):
    if SSH_KEYGEN is None:
        pytest.fail("ssh-keygen is not installed (Debian: openssh-client)")
    d = tmp_path_factory.mktemp("keys")
    for name, pw, rounds in (("plain", "", None), ("enc", "pw", 20)):
        cmd = [SSH_KEYGEN, "-q", "-t", "ed25519", "-N", pw, "-C", "me", "-f", str(d / name)]
        if rounds:
            cmd += ["-a", str(rounds)]
        subprocess.run(cmd, check=True, capture_output=True, stdin=subprocess.DEVNULL)
    return d


def _cli(*args, **env):
    return _py("-m", "poly1305x.openssh", *map(str, args), **env)


def test_cli_max_rounds_advice_names_the_flag(cli_keys, tmp_path):
    r = _cli("decrypt", cli_keys / "enc", "-o", tmp_path / "out", "--max-rounds", 10,
             "--passphrase-env", "PW", PW="pw")
    assert r.returncode == 1
    assert "--max-rounds 20" in r.stderr and "max_rounds=" not in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_cli_empty_passphrase_advice_is_for_the_cli(cli_keys, tmp_path):
    r = _cli("encrypt", cli_keys / "plain", "-o", tmp_path / "out", "--passphrase-env", "PW", PW="")
    assert r.returncode == 1
    assert "empty passphrase" in r.stderr and "cipher=" not in r.stderr, r.stderr


def test_cli_cipher_flag_has_help():
    r = _cli("encrypt", "--help")
    # argparse 3.13+ prints "-Z, --cipher CIPHER", earlier ones "-Z CIPHER, --cipher CIPHER"
    assert re.search(r"-Z( CIPHER)?, --cipher CIPHER", r.stdout), r.stdout
    assert "aes256-ctr" in r.stdout.split("--cipher CIPHER", 1)[1]


def test_cli_info_of_an_unencrypted_key_has_no_rounds_line(cli_keys):
    r = _cli("info", cli_keys / "plain")
    assert r.returncode == 0, r.stderr
    assert "cipher:      none" in r.stdout
    assert "rounds:" not in r.stdout
    assert "rounds:      20" in _cli("info", cli_keys / "enc").stdout


def test_cli_without_a_terminal_no_getpass_warning(cli_keys, tmp_path):
    """stdin at /dev/null and no controlling terminal (a new session)."""
    r = subprocess.run([sys.executable, "-m", "poly1305x.openssh", "decrypt",
                        str(cli_keys / "enc"), "-o", str(tmp_path / "out")],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       start_new_session=True, env=child_env(), timeout=120)
    assert r.returncode == 1
    assert "Warning" not in r.stderr and "may be echoed" not in r.stderr, r.stderr
    assert "there is no terminal to ask on" in r.stderr


def test_cli_passphrase_from_piped_stdin(cli_keys, tmp_path):
    r = subprocess.run([sys.executable, "-m", "poly1305x.openssh", "decrypt",
                        str(cli_keys / "enc"), "-o", str(tmp_path / "out")], input=b"pw\n",
                       capture_output=True, start_new_session=True, env=child_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert b"Warning" not in r.stderr
    assert (tmp_path / "out").read_bytes().startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----")


def _on_a_pty(args, answers=(), timeout=120):
    """Run the CLI with a pseudo-terminal as its controlling terminal and
    standard streams; answer each prompt with the next of ``answers``."""
    pid, fd = pty.fork()
    if pid == 0:     # the child
        try:
            os.execvpe(sys.executable, [sys.executable, "-m", "poly1305x.openssh", *args],
                       child_env())
        finally:
            os._exit(127)
    out, answers, deadline = b"", list(answers), time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:      # EIO: the child has closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
                if answers and out.rstrip().endswith(b":"):
                    time.sleep(0.2)        # getpass has turned echo off
                    os.write(fd, answers.pop(0))
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def test_ctrl_d_at_a_terminal_prompt(cli_keys, tmp_path):
    rc, out = _on_a_pty(["decrypt", str(cli_keys / "enc"), "-o", str(tmp_path / "out")],
                        answers=[b"\x04"])
    assert rc == 1, out
    assert "Enter passphrase for" in out
    assert "end of input (Ctrl-D)" in out and "no terminal" not in out, out


def test_bcrypt_progress_on_a_terminal(cli_keys, tmp_path):
    rc, out = _on_a_pty(["decrypt", str(cli_keys / "enc"), "-o", str(tmp_path / "out")],
                        answers=[b"pw\n"])
    assert rc == 0, out
    assert "bcrypt_pbkdf: 20 rounds" in out
    # not on a pipe: scripts get no chatter
    r = _cli("decrypt", cli_keys / "enc", "-o", tmp_path / "out2", "--passphrase-env", "PW",
             PW="pw")
    assert r.returncode == 0 and "bcrypt_pbkdf" not in r.stderr, r.stderr
