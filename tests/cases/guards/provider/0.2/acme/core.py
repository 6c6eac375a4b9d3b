"""The engine."""


class Engine:
    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
