"""The engine's cores hold no face's message: a check they make on a face's
behalf comes back as a FAIL_ code (_core/_buffers.pxi), and each face file
(_core/_face_*.pxi, openssh/_ssh.pyx) words it.  The cores raise only the
shared buffer and life-cycle errors of _buffers.pxi and InvalidTag."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORE = ROOT / "poly1305x" / "_core"

# _buffers.pxi's shared messages: the same for every face (both peers agree).
SHARED = {
    "_buffers.pxi": (
        "expected a bytes-like object, not str (encode it first)",
        "expected a C-contiguous bytes-like object: ",
        "expected a C-contiguous, ",
        "nonce must be bytes-like, not ",
        "this {name} object is not initialised: its __init__ was not ",
        "this {name} object is being initialised by another thread",
        "this {name} object is being used by another thread ",
        "this {type(obj).__name__} object is already initialised: ",
    ),
}
# The argument check of a test aid (called by the tests only, never by a
# face): the nonce table's seed.
TEST_AIDS = (
    "seed must be 32 bytes",
)

STRING = r"""[rbfuRBFU]{0,2}("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
# A string literal as the first argument of an exception: Name(...Error,
# Exception, Warning, InvalidTag, ...)("...") or any raise ...("...").
RAISED = re.compile(
    r"(?:\b(?:\w*(?:Error|Exception|Warning)|InvalidTag|InvalidSignature|AlreadyFinalized)"
    r"|\braise\b[^\n#]*?)\(\s*" + STRING)


def core_files():
    """The engine's includes that are not a face's (_engine.pyx's order)."""
    engine = (CORE / "_engine.pyx").read_text(encoding="utf-8")
    names = re.findall(r'^include\s+"(\w+\.pxi)"', engine, re.M)
    assert "_aead.pxi" in names and "_face_aead.pxi" in names
    return [n for n in names if not n.startswith("_face_")]


def strip(src):
    src = re.sub(r'("""|\'\'\')(?:.|\n)*?\1', '""', src)      # docstrings
    return "\n".join(line.split("#")[0] if line.lstrip().startswith("#") or " #" in line
                     else line for line in src.splitlines())


def messages(src):
    return [m.group(1)[1:-1] for m in RAISED.finditer(strip(src))]


def test_the_cores_are_the_engine_files_before_the_faces():
    core = core_files()
    for name in ("_buffers.pxi", "_mac.pxi", "_stream.pxi", "_aead.pxi", "_short.pxi",
                 "_batch.pxi", "_batch_nonces.pxi"):
        assert name in core, name


def test_no_core_file_holds_a_message():
    found = {}
    for name in core_files():
        allowed = SHARED.get(name, ()) + TEST_AIDS
        bad = [m for m in messages((CORE / name).read_text(encoding="utf-8"))
               if m and not m.startswith(allowed)]
        if bad:
            found[name] = bad
    assert found == {}, found


def test_the_scan_finds_messages():
    # the check itself: the shapes of raise that a message takes here
    src = '''
raise ValueError("Nonce must be %d bytes" % n)
raise finished("Context was already finalized.")
exc = InvalidTag(f"the tags of {n} messages failed")
raise type(exc)(f"{what}[{i}]: {exc}") from None
raise InvalidTag()
fail.code = FAIL_NONCE_LEN   # raise ValueError("in a comment")
'''
    assert messages(src) == ["Nonce must be %d bytes", "Context was already finalized.",
                             "the tags of {n} messages failed", "{what}[{i}]: {exc}"]
