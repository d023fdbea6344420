from typing import Any

HAVE_INT128: bool
HAVE_VEC: bool
VEC_KIND: str
HAVE_NEON_POLY: bool
POLY_KIND: str

def kernel_tables() -> dict[str, Any]: ...
