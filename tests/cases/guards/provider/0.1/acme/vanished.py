"""A module 0.2 removed."""


class Thing:
    pass
