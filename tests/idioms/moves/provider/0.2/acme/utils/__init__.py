from acme.utils._testing import assert_close
