from typing import Any


def kernel_tables() -> dict[str, Any]: ...
