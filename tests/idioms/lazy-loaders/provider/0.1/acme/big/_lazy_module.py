import importlib
import types


class _LazyModule(types.ModuleType):
    def __init__(self, name, module_file, import_structure, extra_objects=None):
        super().__init__(name)
        self.__file__ = module_file
        self.__path__ = [module_file.rsplit("/", 1)[0]]
        self._modules = set(import_structure)
        self._class_to_module = {v: k for k, vs in import_structure.items() for v in vs}
        for key, value in (extra_objects or {}).items():
            setattr(self, key, value)

    def __getattr__(self, name):
        if name in self._modules:
            return importlib.import_module("." + name, self.__name__)
        if name in self._class_to_module:
            module = importlib.import_module("." + self._class_to_module[name], self.__name__)
            return getattr(module, name)
        raise AttributeError(f"module {self.__name__} has no attribute {name}")
