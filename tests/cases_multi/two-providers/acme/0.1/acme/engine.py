from __future__ import annotations


class Engine:
    def __init__(self, model: str, retries: int = 3) -> None:
        self.model = model
        self.retries = retries


def start(engine: Engine, *, warm: bool = False) -> None:
    return None
