"""Names imported as module globals by a function the top level calls (SQLAlchemy 2.0's
`orm.collections.__go(locals())`)."""


def helper():
    return None


def __go(lcls):
    global mapped, gone
    from acme.impl import gone, mapped


__go(locals())
