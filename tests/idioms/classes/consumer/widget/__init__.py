import acme


def probe_new_only_positional():
    return acme.Point(1, 2)


def probe_new_only_keyword():
    return acme.Point(1, y=2)


def probe_new_and_init():
    return acme.Both(1, b=2)


def probe_new_and_init_plain():
    return acme.Both(1)


def probe_metaclass_attribute():
    return acme.Plugin.REGISTRY


def probe_metaclass_property():
    return acme.Plugin.label


def probe_class_attribute():
    return acme.Plugin.TIMEOUT


def probe_class_attribute_kept():
    return acme.Plugin.NAME


def probe_instance_attribute_from_init():
    return acme.Plugin("h").port


def probe_instance_attribute_kept():
    return acme.Plugin("h").host


def probe_instance_attribute_from_a_method():
    plugin = acme.Plugin("h").connect()
    return plugin.session  # oracle: unknown


def probe_returned_instance_method():
    return acme.make_plugin("h").connect(retries=2)


def probe_iterated_container_annotation():
    for param in acme.Sig().params:
        return param.describe(verbose=True)


def probe_subscripted_container_annotation():
    return acme.Sig().by_name["a"].describe(verbose=True)


def probe_typed_parameter_of_a_consumer_function():
    def use(plugin: acme.Plugin) -> object:
        return plugin.connect(retries=3)

    return use(acme.Plugin("h"))


def probe_typed_parameter_attribute():
    def fetch_port(plugin: acme.Plugin) -> object:
        return plugin.port

    return fetch_port(acme.Plugin("h"))


def probe_first_gone_link_in_a_chain():
    return acme.Plugin("h").port.bit_length()
