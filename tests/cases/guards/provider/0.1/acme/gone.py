"""Types for annotations only."""


class Token:
    pass
