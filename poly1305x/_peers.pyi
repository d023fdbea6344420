from types import ModuleType
from typing import Optional, Tuple

__all__ = ["PYCRYPTODOME_FAMILIES", "install_hint", "pycryptodome"]

PYCRYPTODOME_FAMILIES: Tuple[str, ...]

def pycryptodome(*submodules: str) -> Optional[Tuple[ModuleType, ...]]: ...
def install_hint(*extras: str) -> str: ...
