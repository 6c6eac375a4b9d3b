import acme


def probe_a_function_moved_to_a_module_a_package_imports():
    from acme.config import load

    return load("p")


def probe_a_function_that_stayed():
    from acme.config import dump

    return dump(1)


def probe_a_module_renamed_private():
    from acme.utils.testing import assert_close

    return assert_close(1, 1)


def probe_the_new_home():
    from acme.utils import assert_close

    return assert_close(1, 1)


def probe_a_module_gone_whose_function_moved_beside_it():
    # acme.util is gone; `def g` is in acme.net now, which nothing imports
    from acme.util import g

    return g(1)


def probe_a_module_gone_whose_function_two_modules_beside_it_define():
    # `def k` is in acme.left and in acme.right: which one is meant is a guess
    from acme.util import k

    return k(1)
