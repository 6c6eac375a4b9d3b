"""Consumer subclasses of a provider class: the call of the subclass is the provider's."""

import acme.clients


class PlainClient(acme.clients.Client):
    pass


class ForwardingClient(acme.clients.Client):
    def __init__(self, **kwargs):
        kwargs.setdefault("timeout", 10)
        super().__init__(**kwargs)


class LeafClient(ForwardingClient):
    pass


class OwnClient(acme.clients.Client):
    def __init__(self, proxies=None, **kwargs):  # takes proxies itself
        self.proxies = proxies
        super().__init__(**kwargs)


class RenamingClient(acme.clients.Client):
    def __init__(self, **kwargs):
        kwargs.pop("proxies", None)  # takes it out before handing the rest on
        super().__init__(**kwargs)


def probe_subclass_without_init_binds_the_provider_constructor():
    return PlainClient(proxies=1)


def probe_forwarding_subclass_hands_the_keyword_on():
    return ForwardingClient(proxies=1)


def probe_leaf_of_a_forwarding_subclass():
    return LeafClient(base="b", proxies=1)


def probe_subclass_that_takes_the_keyword_itself():
    return OwnClient(proxies=1)


def probe_subclass_that_pops_the_keyword_first():
    return RenamingClient(proxies=1)


def probe_subclass_call_that_still_fits():
    return LeafClient(base="b", timeout=3)
