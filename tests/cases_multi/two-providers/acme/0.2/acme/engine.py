from __future__ import annotations


class Engine:
    def __init__(self, model: str, block_size: int, retries: int = 3) -> None:
        self.model = model
        self.block_size = block_size
        self.retries = retries


def start(engine: Engine) -> None:
    return None
