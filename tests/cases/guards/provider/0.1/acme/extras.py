"""Optional extras."""


def turbo() -> str:
    return "turbo"


def warp() -> str:
    return "warp"
