"""pycryptodome's three modules that poly1305x stands in for, and ours beside
them: shared by test_install.py and test_api_mirror.py."""
import importlib

import poly1305x
from poly1305x import _install

SUBS = ("Hash.Poly1305", "Cipher.ChaCha20", "Cipher.ChaCha20_Poly1305")
OURS = {"Hash.Poly1305": poly1305x.Poly1305, "Cipher.ChaCha20": poly1305x.ChaCha20,
        "Cipher.ChaCha20_Poly1305": poly1305x.ChaCha20_Poly1305}
CLASSES = {"Hash.Poly1305": "Poly1305_MAC", "Cipher.ChaCha20": "ChaCha20Cipher",
           "Cipher.ChaCha20_Poly1305": "ChaCha20Poly1305Cipher"}


def families():
    out = []
    for fam in ("Crypto", "Cryptodome"):
        try:
            importlib.import_module(fam + ".Cipher.ChaCha20_Poly1305")
            out.append(fam)
        except ImportError:
            pass
    return out


FAMILIES = families()


def originals():
    """pycryptodome's own module objects (install() must not be active)."""
    assert not _install.installed()
    mods = {}
    for fam in FAMILIES:
        for sub in SUBS:
            mod = importlib.import_module(f"{fam}.{sub}")
            assert mod.__name__ == f"{fam}.{sub}"
            mods[fam, sub] = mod
    return mods
