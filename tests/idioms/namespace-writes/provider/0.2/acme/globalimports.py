"""Version 0.2: the function no longer imports `gone`."""


def helper():
    return None


def __go(lcls):
    global mapped
    from acme.impl import mapped


__go(locals())
