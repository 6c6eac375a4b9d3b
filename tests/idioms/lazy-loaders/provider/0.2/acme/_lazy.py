"""A lazy module whose names are read from the files beside it when it is imported (the
shape of transformers' define_import_structure), with a TYPE_CHECKING block as its mirror."""
import ast
import importlib
import os
import types


def scan_structure(init_file):
    folder = os.path.dirname(init_file)
    structure = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py") and name != "__init__.py":
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            structure[name[:-3]] = [
                node.name
                for node in tree.body
                if isinstance(node, (ast.FunctionDef, ast.ClassDef))
                and not node.name.startswith("_")
            ]
    return structure


class LazyModule(types.ModuleType):
    def __init__(self, name, init_file, structure):
        super().__init__(name)
        self.__file__ = init_file
        self.__path__ = [os.path.dirname(init_file)]
        self._where = {n: sub for sub, names in structure.items() for n in names}

    def __getattr__(self, name):
        if name in self._where:
            module = importlib.import_module(f"{self.__name__}.{self._where[name]}")
            return getattr(module, name)
        if name.endswith("Fast") and name[:-4] in self._where:
            return self.__getattr__(name[:-4])  # a rule of the class's own, as transformers 5
        raise AttributeError(name)
