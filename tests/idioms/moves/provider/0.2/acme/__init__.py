"""0.2: config.load moved into acme.io.readers (which acme.io imports something else from);
utils.testing became utils._testing, which acme.utils re-exports; util is gone, its g in net
(which nothing imports), a k in left and another in right."""

from acme import io
