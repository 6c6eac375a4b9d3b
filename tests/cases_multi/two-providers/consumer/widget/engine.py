from __future__ import annotations

from acme import Engine, start


def boot(model: str) -> None:
    engine = Engine(model)  # expect: missing-argument
    start(engine, warm=True)  # expect: unexpected-keyword
    Engine(model, block_size=16)  # near-miss
