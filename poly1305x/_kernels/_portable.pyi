from typing import Any

HAVE_INT128: bool
HAVE_VEC: bool
VEC_KIND: str
HAVE_NEON_POLY: bool
POLY_KIND: str
POLY_LANES_KIND: str

def vec_step_blocks() -> int: ...
def _set_vec_step_blocks(n: int) -> None: ...
def kernel_tables() -> dict[str, Any]: ...
