"""A version helper of the consumer's own, as real packages write them (a module and a
version string in, a comparison out)."""


def _parts(text):
    numbers = []
    for part in text.split("."):
        if not part.isdigit():
            break
        numbers.append(int(part))
    return tuple(numbers)


def minversion(module, version, inclusive=True):
    have = getattr(module, "__version__", None)
    if have is None:
        return False
    if inclusive:
        return _parts(have) >= _parts(version)
    return _parts(have) > _parts(version)
