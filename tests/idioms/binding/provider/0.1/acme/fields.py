"""A constructor chain through super(): the next class with an __init__ is not the first base."""


class CacheMixin:
    def cache_name(self):
        return "cache"


class Field:
    def __init__(self, verbose_name=None, blank=False, rel=None):
        self.verbose_name = verbose_name
        self.blank = blank
        self.rel = rel


class RelatedField(CacheMixin, Field):
    def __init__(self, related_name=None, **kwargs):
        self.related_name = related_name
        super().__init__(**kwargs)


class ManyField(RelatedField):
    def __init__(self, to, related_name=None, **kwargs):
        kwargs["rel"] = to
        super().__init__(related_name=related_name, **kwargs)
