from typing import Optional, Sequence

MAX_PASSPHRASE: int

def main(argv: Optional[Sequence[str]] = ...) -> int: ...
