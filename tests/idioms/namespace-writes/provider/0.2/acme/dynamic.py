"""Names written from something that is not statically known: undecidable."""

import os

for _key in sorted(os.environ)[:0]:
    globals()[_key] = 1


def helper():
    return 1
