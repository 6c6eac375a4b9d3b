import acme


def probe_method_of_a_module_level_instance():
    return acme.api.create("x", private=True)


def probe_module_name_bound_to_a_method_of_an_instance():
    return acme.create("x", private=True)


def probe_call_that_still_fits_a_module_level_instance():
    return acme.api.create("x")


def probe_result_of_a_method_that_returns_another_method_s():
    return acme.Api().make("n").push(branch="b")


def probe_result_of_a_function_that_calls_a_module_level_instance():
    return acme.make_repo("x").push(branch="b")


def probe_result_that_still_fits():
    return acme.make_repo("x").push()


def probe_module_instance_a_function_rebinds():
    return acme.hub.client.create("x", private=True)  # oracle: unknown


def probe_attribute_stored_by_a_method_of_what_returns_self():
    return acme.Plain().fit([1]).helper_.transform(1, scale=2)


def probe_attribute_stored_by_a_method_exists():
    plain = acme.Plain()
    plain.fit([1])
    return plain.n_


def probe_attribute_stored_by_a_method_that_stays():
    plain = acme.Plain()
    plain.fit([1])
    return plain.helper_


def probe_attribute_stored_by_object_setattr():
    return acme.Plain().fit([1]).fitted_


def probe_attribute_a_setattr_may_set():
    return acme.Estimator().fit([1]).coef_  # oracle: unknown


def probe_type_a_setattr_may_change():
    return acme.Estimator().fit([1]).helper_.transform(1, scale=2)  # oracle: unknown


def probe_class_attribute_given_an_instance():
    return acme.Model.objects.filter(b=1)


def probe_class_attribute_of_a_class_a_metaclass_makes():
    return acme.Registered.objects.filter(b=1)  # oracle: unknown


def probe_attribute_init_stores_without_annotation():
    return acme.Request().headers.get_list("k", split=False)


def probe_method_a_subclass_adds_beside_a_setattr():
    class Mine(acme.Settable):
        def fit(self, data):
            return data

    return Mine().fit(1)


def probe_method_typed_to_return_its_receiver():
    return acme.frames.Table().copy().width(strict=True)


def probe_item_of_what_getitem_returns():
    return acme.frames.Table()["a"].total(skipna=False)


def probe_element_of_what_iter_returns():
    for column in acme.frames.Table():
        return column.total(skipna=False)


def probe_item_that_still_fits():
    return acme.frames.Table()["a"].total()


def probe_class_attribute_that_is_a_descriptor():
    return acme.frames.Indexed().index.labels(sort=True)  # oracle: unknown


def probe_method_only_the_provider_s_classes_had():
    # oracle: differential (what open_any returns is not known: only the change is)
    return acme.open_any(True).spread()


def probe_method_a_class_still_has():
    return acme.open_any(True).total()  # oracle: unknown


def probe_parameter_of_an_override_has_the_type_the_provider_declares():
    class Mine(acme.hooks.Callback):
        def on_end(self, trainer, logs=None):
            return trainer.fit(1, epochs=2)

    return acme.hooks.run(Mine())


def probe_parameter_of_a_method_the_provider_does_not_have():
    class Mine(acme.hooks.Callback):
        def mine(self, trainer):
            return trainer.fit(1, epochs=2)

    return Mine().mine(acme.hooks.Trainer())  # oracle: unknown


def probe_method_gone_on_a_parameter():
    # oracle: differential (the parameter's type is not known: only the change is)
    def spread_of(sheet):
        return sheet.spread()

    return spread_of(acme.open_any(True))


def probe_method_a_class_still_has_on_a_parameter():
    def total_of(sheet):
        return sheet.total()  # oracle: unknown

    return total_of(acme.open_any(True))
