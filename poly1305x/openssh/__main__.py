"""The command line: ``python -m poly1305x.openssh decrypt|encrypt|info KEYFILE``.

See docs/openssh.md ("Command line") and ``--help``."""
import os
import secrets
import sys
from typing import Optional, Sequence

from poly1305x.openssh import decrypt, encrypt, key_info, public_key_line
from poly1305x.openssh._container import CHACHA, CIPHERS, DEFAULT_MAX_ROUNDS, parse_outer
from poly1305x.openssh._wire import MAX_KEY_FILE

#: The longest passphrase read from --passphrase-fd (bytes, before the newline).
MAX_PASSPHRASE: int = 8192


def _env_passphrase(name):
    """The variable's raw bytes where the platform has them (os.environb), so
    that a passphrase that is not UTF-8 reaches the kdf unchanged."""
    environb = getattr(os, "environb", None)
    value = os.environ.get(name) if environb is None else environb.get(os.fsencode(name))
    if value is None:
        raise ValueError(f"environment variable {name} is not set")
    return value


def _fd_passphrase(fd):
    """The first line on fd, read in small pieces and never more than
    MAX_PASSPHRASE bytes (``3</dev/zero`` must not fill the memory)."""
    buf = bytearray()
    try:
        while b"\n" not in buf:
            if len(buf) > MAX_PASSPHRASE:
                raise ValueError(f"the passphrase on file descriptor {fd} is longer than "
                                 f"{MAX_PASSPHRASE} bytes (no newline found)")
            chunk = os.read(fd, 1024)
            if not chunk:
                break
            buf += chunk
        line = bytes(buf.split(b"\n", 1)[0])
    finally:
        buf[:] = bytes(len(buf))
    if len(line) > MAX_PASSPHRASE:
        raise ValueError(f"the passphrase on file descriptor {fd} is longer than "
                         f"{MAX_PASSPHRASE} bytes")
    return line[:-1] if line.endswith(b"\r") else line


def _have_terminal():
    """Whether getpass can prompt without echo: a controlling terminal, or a
    terminal on standard input (Windows: the console, always)."""
    if os.name == "nt":
        return True
    try:
        os.close(os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY))
        return True
    except OSError:
        return sys.stdin is not None and sys.stdin.isatty()


def _stdin_line(prompt):
    """A line of standard input when there is no terminal (nothing echoes, so
    no getpass warning); EOFError when it is at its end."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    line = sys.stdin.buffer.readline(MAX_PASSPHRASE + 2) if sys.stdin is not None else b""
    print("", file=sys.stderr)
    if not line:
        raise EOFError
    if len(line.rstrip(b"\r\n")) > MAX_PASSPHRASE:
        raise ValueError(f"the passphrase on standard input is longer than {MAX_PASSPHRASE} bytes")
    return line[:-1] if line.endswith(b"\n") else line


def _read_passphrase(args, prompt, confirm=False):
    if args.passphrase_env:
        return _env_passphrase(args.passphrase_env)
    if args.passphrase_fd is not None:
        return _fd_passphrase(args.passphrase_fd)
    import getpass
    terminal = _have_terminal()
    ask = getpass.getpass if terminal else _stdin_line
    try:
        first = ask(prompt)
        if confirm and ask("Enter same passphrase again: ") != first:
            raise ValueError("the passphrases do not match")
    except EOFError:
        print("", file=sys.stderr)    # end the prompt's line before the message
        if terminal:
            raise ValueError("no passphrase: the prompt got end of input (Ctrl-D)") from None
        raise ValueError("no passphrase: there is no terminal to ask on and standard input "
                         "is at its end; use --passphrase-env VAR or --passphrase-fd N") \
            from None
    return first


def _kdf_note(rounds):
    """On a terminal, say that bcrypt_pbkdf is running (a few seconds per
    hundred rounds): stderr, so that `-o -` output stays clean."""
    if rounds and sys.stderr.isatty():
        print(f"bcrypt_pbkdf: {rounds} rounds (ssh-keygen's default is 16), running...",
              file=sys.stderr, flush=True)


def _check_rounds(data, max_rounds):
    """The kdf rounds, refused here when above --max-rounds (the library's
    message names its keyword argument)."""
    rounds = key_info(data)["rounds"] or 0
    if rounds > max_rounds:
        raise ValueError(f"refusing a key with {rounds} bcrypt rounds (more than --max-rounds "
                         f"{max_rounds}); pass --max-rounds {rounds} to decrypt it")
    return rounds


def _write_private(path, pem, force):
    if path == "-":
        sys.stdout.buffer.write(pem)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not force:
        # O_EXCL: never replace an existing file (or follow a planted symlink).
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise ValueError(f"{path} exists; pass --force to overwrite it") from None
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        return
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line on argv (default sys.argv[1:]); returns the exit status."""
    import argparse

    from poly1305x import __version__

    p = argparse.ArgumentParser(
        prog="python -m poly1305x.openssh",
        description="Decrypt, encrypt or inspect OpenSSH private key files.  The "
                    "passphrase is read from a no-echo prompt, or from --passphrase-env / "
                    "--passphrase-fd for scripts; never from the command line.")
    p.add_argument("--version", action="version", version=f"poly1305x {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp, output=True, max_rounds_help=None):
        sp.add_argument("keyfile", help="the private key file")
        g = sp.add_mutually_exclusive_group()
        g.add_argument("--passphrase-env", metavar="VAR",
                       help="read the passphrase from environment variable VAR")
        g.add_argument("--passphrase-fd", metavar="FD", type=int,
                       help="read the passphrase from file descriptor FD (up to the "
                            "first newline)")
        if output:
            sp.add_argument("-o", "--output", metavar="FILE",
                            help="where to write the key (mode 0600; '-' for standard "
                                 "output); default: replace KEYFILE, which needs --force")
            sp.add_argument("-f", "--force", action="store_true",
                            help="overwrite an existing output file")
        sp.add_argument("--max-rounds", type=int, default=DEFAULT_MAX_ROUNDS,
                        help=max_rounds_help or f"refuse key files that ask for more bcrypt "
                             f"kdf rounds (default {DEFAULT_MAX_ROUNDS})")

    common(sub.add_parser("decrypt", help="write the key without a passphrase"))
    e = sub.add_parser("encrypt", help="protect an unencrypted key with a passphrase")
    common(e, max_rounds_help=f"the most rounds -a/--rounds may ask for (default "
                              f"{DEFAULT_MAX_ROUNDS})")
    e.add_argument("-Z", "--cipher", default="chacha20-poly1305@openssh.com",
                   choices=[c for c in CIPHERS if c != "none"], metavar="CIPHER",
                   help="the cipher of the private section (default "
                        "chacha20-poly1305@openssh.com; also "
                        + ", ".join(c for c in CIPHERS if c not in ("none", CHACHA)) + ")")
    e.add_argument("-a", "--rounds", type=int, default=16,
                   help="bcrypt_pbkdf rounds of the new key file (default 16, as ssh-keygen; "
                        "at most --max-rounds)")
    i = sub.add_parser("info", help="show the key's type, fingerprint and encryption "
                                    "(no passphrase needed)")
    common(i, output=False)
    i.add_argument("--check", action="store_true",
                   help="also decrypt (asking for the passphrase) and check the whole key")
    args = p.parse_args(argv)

    try:
        with open(args.keyfile, "rb") as fh:
            data = fh.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        if args.command == "info":
            info = key_info(data)
            if args.check:
                pw = None
                if info["encrypted"]:
                    _check_rounds(data, args.max_rounds)
                    pw = _read_passphrase(args, f"Enter passphrase for {args.keyfile}: ")
                    _kdf_note(info["rounds"])
                parts = public_key_line(data, pw, max_rounds=args.max_rounds).split(" ", 2)
                info["comment"] = parts[2] if len(parts) > 2 else ""
                info["check"] = "ok"
            for k in ("type", "bits", "fingerprint", "cipher", "kdf", "rounds", "comment",
                      "check", "public_key"):
                if k == "rounds" and not info.get("rounds"):
                    continue    # an unencrypted key has no kdf rounds
                if k in info:
                    v = info[k]
                    if k == "comment" and v is None:
                        v = "(encrypted)"
                    print(f"{k + ':':13}{'' if v is None else v}")
            return 0
        output = args.output or args.keyfile
        if output == args.keyfile and not args.force:
            raise ValueError(f"{output} exists; pass --force to overwrite it, or -o FILE")
        if output != "-" and not args.force and os.path.lexists(output):
            raise ValueError(f"{output} exists; pass --force to overwrite it")
        if args.command == "decrypt":
            _check_rounds(data, args.max_rounds)
            f = parse_outer(data, args.max_rounds)
            pw = None
            if f.cipher != "none":
                pw = _read_passphrase(args, f"Enter passphrase for {args.keyfile}: ")
                _kdf_note(f.rounds)
            pem = decrypt(data, pw, max_rounds=args.max_rounds)
        else:
            f = parse_outer(data, args.max_rounds)
            if f.cipher != "none":
                raise ValueError(f"{args.keyfile} is already encrypted ({f.cipher}); "
                                 "decrypt it first")
            if not 0 < args.rounds <= args.max_rounds:
                raise ValueError(f"-a/--rounds must be in 1..{args.max_rounds} "
                                 f"(--max-rounds), not {args.rounds}")
            pw = _read_passphrase(args, "Enter new passphrase: ", confirm=True)
            if not pw:
                raise ValueError("an empty passphrase: give one (the key stays unencrypted "
                                 "as it is; encrypt has nothing to do without one)")
            _kdf_note(args.rounds)
            pem = encrypt(data, pw, cipher=args.cipher, rounds=args.rounds)
        _write_private(output, pem, args.force)
        if output != "-":
            print(f"wrote {output}", file=sys.stderr)
        return 0
    except (ValueError, ImportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
