"""Keywords written into a dict that a call spreads: the finding goes where the key is."""

import acme


def indexed(d):
    params = {}
    params["size"] = d  # expect: unexpected-keyword
    return acme.Model(1, **params)


def forwarded(d, **kw):
    kw["size"] = d  # expect: unexpected-keyword: whatever else the caller passes
    return acme.build(1, **kw)


class Mine(acme.Model):
    def __init__(self, **kwargs):
        kwargs.setdefault("size", 3)  # expect: unexpected-keyword
        super().__init__(1, **kwargs)


def displayed():
    opts = dict(size=1)  # expect: unexpected-keyword
    opts.update(depth=3)  # near-miss: depth is still a parameter
    return acme.Model(1, **opts)


def literal():
    opts = {"depth": 1, "size": 2}  # expect: unexpected-keyword
    return acme.build(1, **opts)


def in_a_branch(flag):
    opts = {"depth": 1}
    if flag:
        opts["size"] = 2  # near-miss: not certain to be there (the dict is not followed)
    return acme.Model(1, **opts)


def handed_on(d):
    opts = {}
    opts["size"] = d  # near-miss: the dict goes to other code first, which may take it out
    prepare(opts)
    return acme.build(1, **opts)


def prepare(opts):
    opts.pop("size", None)
