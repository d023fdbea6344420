from typing import Any

HAVE_INT128: bool

def kernel_tables() -> dict[str, Any]: ...
