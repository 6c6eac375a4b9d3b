"""A tiny stand-in for the lazy_loader package (written for this catalogue): attach() and
attach_stub() give a module __getattr__ that imports submodules and their names on demand."""

import ast
import importlib
import os


def attach(package_name, submodules=None, submod_attrs=None):
    submodules = set(submodules or ())
    attr_to_module = {a: m for m, attrs in (submod_attrs or {}).items() for a in attrs}

    def __getattr__(name):
        if name in submodules:
            return importlib.import_module(f"{package_name}.{name}")
        if name in attr_to_module:
            module = importlib.import_module(f"{package_name}.{attr_to_module[name]}")
            return getattr(module, name)
        raise AttributeError(f"no attribute {name}")

    def __dir__():
        return sorted(submodules | set(attr_to_module))

    return __getattr__, __dir__, sorted(submodules | set(attr_to_module))


def attach_stub(package_name, filename):
    stub = os.path.splitext(filename)[0] + ".pyi"
    with open(stub) as fh:
        tree = ast.parse(fh.read())
    submodules, attrs = set(), {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names = [a.asname or a.name for a in node.names]
            if node.module is None:
                submodules.update(names)
            else:
                attrs.setdefault(node.module, []).extend(names)
    return attach(package_name, submodules, attrs)
