from typing import Any

POLY_KIND: str

def kernel_tables() -> dict[str, Any]: ...
