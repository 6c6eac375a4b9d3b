from acme.frame import DataFrame, NDFrame, Plain, Proxy, Series
