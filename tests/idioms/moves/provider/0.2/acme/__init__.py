"""0.2: config.load moved into acme.io.readers (which acme.io imports something else from);
utils.testing became utils._testing, which acme.utils re-exports."""

from acme import io
