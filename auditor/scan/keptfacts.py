# Maintainers: one file's walk kept between runs, so that an edited consumer walks again only
# the files that changed.
#
# Owns: the key of a file's facts (a hash of the scan code, the provider's import names, the
# file's path and its text: what a walk of it depends on, nothing else), where they are kept
# (`scan/<version>/facts/<consumer>/<key>.json`, one record per file; the records a scan did
# not use are removed after it), and their JSON form: a file's scopes as a list (a record
# names a scope by its index; a scope's parent comes before it), every other fact as a list of
# its fields, model types by store.py's codec.
# Takes: a file's FileFacts (or why it did not parse) to keep; a path, its text and lines to
# look up. Gives: the FileFacts or Unparsable back, or None.
#
# The cache is untrusted: a record is read back field by field, every value's type checked,
# and anything that does not fit (a damaged, foreign or hostile record) is only a miss: the
# file is walked again. Nothing in a record can run code (no pickle), name a file outside
# the cache, or reach past the file it is for (its scopes and functions are its own).
from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from typing import TYPE_CHECKING, Any

from auditor.files import confined
from auditor.jsontext import loads
from auditor.model import (
    CallShape,
    Definition,
    Edge,
    FlagDef,
    FlagGate,
    FlagHelper,
    Handled,
    ParamKind,
    Site,
    Unparsable,
    VersionGate,
)
from auditor.provider.forwards import Forward
from auditor.scan.facts import (
    AttrStore,
    CallFacts,
    ClassFacts,
    Expr,
    FileFacts,
    FunctionFacts,
    Method,
    NameStore,
    Parameter,
    Positions,
    SuperUse,
    Use,
    UseKind,
)
from auditor.scan.scopes import Scope, Source, SourceKind
from auditor.scan.source import is_package, module_name
from auditor.scan.store import (
    Mismatch,
    decode_list,
    decoder,
    encode_list,
    encoder,
    scan_version,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

    from auditor.scan.facts import Reference, Span

logger = logging.getLogger("drift_audit")
FORMAT = 2  # 2: the body kept as one JSON string (BODY)
MAX_BYTES = 64 << 20  # one file's facts (transformers' largest: ~2 MB)
_USE_KINDS = tuple(UseKind)
_SOURCE_KINDS = tuple(SourceKind)
_PARAM_KINDS = tuple(ParamKind)
_SCOPE_KINDS = ("module", "class", "function", "lambda", "comprehension")


def facts_key(path: str, digest: str, providers: Iterable[str]) -> str:
    """The key of one file's facts: what walking it depends on (its path, which gives its
    module, whether it is a package and a stub; its text, by `digest`, its
    model.text_digest(); the provider's import names)."""
    key = hashlib.sha256()
    for part in (scan_version(), ",".join(sorted(providers)), path, digest):
        key.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return key.hexdigest()[:40]


class FactsStore:
    """The kept facts of one consumer's files (`consumer`: the scan key's first part)."""

    def __init__(self, cache_root: Path, consumer: str) -> None:
        self.root = cache_root
        self.folder = f"scan/{scan_version()}/facts/{consumer}"
        self.used: set[str] = set()
        self.interfaces: dict[str, str] = {}  # key -> the interface digest of its facts

    def load(
        self, key: str, path: str, lines: tuple[str, ...], *, body: bool = True
    ) -> FileFacts | Unparsable | None:
        """A file's kept facts; without `body`, only its interface (what other files'
        results read of it: INTERFACE) and what is cheap, its uses and the like left out."""
        fs, rel = confined(self.root / self.folder / f"{key}.json", self.root)
        data = fs.read_json(rel, limit=MAX_BYTES)
        if data.get("format") != FORMAT or data.get("path") != path:
            return None
        try:
            found = decode_facts(_joined(data, body=body), path, lines, body=body)
        except (Mismatch, KeyError, IndexError, TypeError, ValueError, RecursionError):
            logger.debug("scan: kept facts of %s do not fit; walked again", path)
            return None
        interface = data.get("interface")
        if type(interface) is str and len(interface) == 64:
            self.interfaces[key] = interface
        self.used.add(key)
        return found

    def save(self, key: str, path: str, facts: FileFacts | Unparsable) -> None:
        fs, rel = confined(self.root / self.folder / f"{key}.json", self.root)
        encoded, interface = encode_record(facts)
        if interface is not None:
            self.interfaces[key] = interface
        record = {"format": FORMAT, "path": path, "interface": interface, **_split(encoded)}
        try:
            fs.write(rel, json.dumps(record, separators=(",", ":")).encode())
        except (OSError, ValueError) as error:
            logger.debug("scan: could not keep the facts of %s: %s", path, error)
            return
        self.used.add(key)

    def interface(self, key: str, facts: FileFacts | Unparsable) -> str | None:
        """The interface digest of these facts (kept under `key`); None if unparsable."""
        if isinstance(facts, Unparsable):
            return None
        if key not in self.interfaces:  # walked by another process: not read nor kept here
            interface = encode_record(facts)[1]
            assert interface is not None  # facts of a file that parsed
            self.interfaces[key] = interface
        return self.interfaces[key]

    def forget_unused(self) -> None:
        """Remove the records this scan did not use (older texts of its files)."""
        fs, _ = confined(self.root / self.folder / "x", self.root)
        for name in fs.listdir(self.folder):
            if name.removesuffix(".json") not in self.used:
                with contextlib.suppress(OSError):  # only a memo
                    fs.remove(f"{self.folder}/{name}")


# A record keeps a file's body (the parts only its own results read, BODY) as one JSON
# string: reading back only the interface (FactsStore.load body=False) then parses a string,
# not the ~half of the record its uses are (langchain-community: 0.18 s -> 0.11 s of JSON).
BODY = (1, 2, 5, 6, 7, 11, 12, 15)


def _split(encoded: list[Any]) -> dict[str, Any]:
    if encoded[0] != "facts":
        return {"facts": encoded}
    body = json.dumps([encoded[i] for i in BODY], separators=(",", ":"))
    return {"facts": [None if i in BODY else part for i, part in enumerate(encoded)], "body": body}


def _joined(record: dict[str, Any], *, body: bool) -> Any:
    """A record's facts as encode_facts() gave them (without `body`: its body left empty)."""
    facts = record.get("facts")
    if type(facts) is not list or not facts or facts[0] != "facts":
        return facts
    if len(facts) != 17 or type(record.get("body")) is not str:
        raise Mismatch("expected the facts and their body")
    parts = loads(record["body"]) if body else [[]] * len(BODY)
    if type(parts) is not list or len(parts) != len(BODY):
        raise Mismatch("expected the parts of a body")
    joined = list(facts)
    for i, part in zip(BODY, parts, strict=True):
        joined[i] = part
    return joined


# --------------------------------------------------------------------------- encoding


def encode_facts(facts: FileFacts | Unparsable) -> list[Any]:
    return encode_record(facts)[0]


def encode_record(facts: FileFacts | Unparsable) -> tuple[list[Any], str | None]:
    """A file's facts as plain data, and the digest of its interface (None when it did not
    parse): what another file's results can read of it (INTERFACE)."""
    if isinstance(facts, Unparsable):
        return ["unparsable", facts.reason, facts.line, facts.column], None
    scopes = _Scopes(facts.module_scope)
    s = scopes.index
    # The interface's records are numbered first, so the scopes they reach come first and
    # are numbered the same whatever the body of the file holds.
    functions = [_function(f, s) for f in facts.functions]
    classes = [_class(c, s, facts.functions) for c in facts.classes]
    names = [[s(n.scope), n.name, _source(n.source, s)] for n in facts.name_stores]
    attrs = [[s(a.scope), a.root, a.attr, _source(a.source, s)] for a in facts.attr_stores]
    reached = len(scopes.order)
    encoded = [
        "facts",
        [_use(u, s) for u in facts.uses],
        [
            [
                s(u.scope),
                u.klass,
                u.explicit,
                u.method,
                list(u.span),
                _encode_shape(u.call),
                u.guarded,
            ]
            for u in facts.supers
        ],
        classes,
        encode_list(facts.definitions, Definition),
        encode_list(facts.containment, Edge),
        encode_list(facts.import_sites, Site),
        [[owner, target] for owner, target in facts.module_refs],
        names,
        attrs,
        functions,
        encode_list(facts.handled, Handled),
        encode_list(facts.gates, VersionGate),
        encode_list(facts.flag_defs, FlagDef),
        encode_list(facts.flag_helpers, FlagHelper),
        encode_list(facts.flag_gates, FlagGate),
        scopes.encoded(),  # last: every scope the records above name is known by now
    ]
    return encoded, _interface(encoded, reached)


# What other files' results read of a file (resolve.py, values.py, flags.py): its scopes
# (the module's bindings, and every scope a store or a signature is read in), classes,
# definitions (their names), functions, name and attribute stores, flags and flag helpers.
# Its uses, `super()` calls, imports, handlers and gates only ever make its own sites and
# edges; and a position is read only for a site in the file itself, so none is part of it:
# an edit that moves lines, or changes what the file calls, changes no interface.
INTERFACE = (3, 4, 8, 9, 10, 13, 14)


def _interface(encoded: list[Any], reached: int) -> str:
    classes = [
        [path, qualname, scope, [b[:2] for b in bases], [[m[0], *m[2:]] for m in methods], *rest]
        for path, qualname, scope, bases, methods, *rest in encoded[3]
    ]
    parts = [classes, [d[:2] for d in encoded[4]], *(encoded[i] for i in INTERFACE[2:])]
    parts.append(encoded[16][:reached])
    text = json.dumps(parts, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class _Scopes:
    """Numbers a file's scopes as they are met, each after its parent."""

    def __init__(self, module: Scope) -> None:
        self.order: list[Scope] = []
        self.numbers: dict[int, int] = {}
        self.index(module)

    def index(self, scope: Scope) -> int:
        number = self.numbers.get(id(scope))
        if number is None:
            if scope.parent is not None:
                self.index(scope.parent)
            number = self.numbers[id(scope)] = len(self.order)
            self.order.append(scope)
        return number

    def encoded(self) -> list[Any]:
        return [
            [
                sc.kind,
                sc.owner,
                self.numbers[id(sc.parent)] if sc.parent is not None else -1,
                sc.imports,
                {name: [path, fallback] for name, (path, fallback) in sc.defs.items()},
                sorted(sc.stores),
                True if sc.hard_stores == sc.stores else sorted(sc.hard_stores),
                sorted(sc.global_names),
                sorted(sc.nonlocal_names),
                sc.star_modules,
                sc.self_name,
                sc.method_of,
                sorted(sc.star_overwrites),
            ]
            for sc in self.order
        ]


def _use(use: Use, s: Any) -> list[Any]:
    call = use.call
    encoded_call = None
    if call is not None:
        first = [call.first[0], list(call.first[1])] if call.first is not None else None
        encoded_call = [
            _encode_shape(call.shape),
            list(call.result_use),
            call.positional_first,
            first,
        ]
    span = list(use.span) if use.span is not None else None
    kind = _USE_KINDS.index(use.kind)
    return [s(use.scope), use.root, list(use.attrs), kind, span, use.guarded, encoded_call]


def _source(source: Source | None, s: Any) -> list[Any] | None:
    if source is None:
        return None
    reference = source.reference
    return [
        _SOURCE_KINDS.index(source.kind),
        source.annotation.text if source.annotation is not None else None,
        s(source.scope),
        source.guarded,
        [reference[0], list(reference[1])] if reference is not None else None,
        source.none,
    ]


def _class(cls: ClassFacts, s: Any, functions: list[FunctionFacts]) -> list[Any]:
    numbers = {id(f): i for i, f in enumerate(functions)} if cls.methods else {}
    return [
        cls.path,
        cls.qualname,
        s(cls.scope),
        [[root, list(attrs), list(span)] for root, attrs, span in cls.bases],
        [
            [
                m.name,
                list(m.span),
                m.guarded,
                numbers[id(m.function)] if m.function is not None else -1,
            ]
            for m in cls.methods
        ],
        cls.guarded,
        s(cls.body) if cls.body is not None else -1,
        cls.made,
    ]


def _function(function: FunctionFacts, s: Any) -> list[Any]:
    forward = function.forward
    return [
        function.path,
        s(function.scope),
        [
            [
                p.name,
                _PARAM_KINDS.index(p.kind),
                p.default.text if p.default is not None else None,
                p.annotation.text if p.annotation is not None else None,
            ]
            for p in function.params
        ],
        function.returns.text if function.returns is not None else None,
        [d.text for d in function.decorators],
        function.is_async,
        (
            [forward.callee, forward.unless, list(forward.taken), list(forward.added)]
            if forward is not None
            else None
        ),
    ]


# --------------------------------------------------------------------------- decoding


def decode_facts(
    data: Any, path: str, lines: tuple[str, ...], *, body: bool = True
) -> FileFacts | Unparsable:
    """A record's facts back; Mismatch (or an IndexError, KeyError, TypeError, ValueError)
    when anything in it does not have the shape encode_facts() gives. Without `body`: the
    interface only (FactsStore.load), the other parts left empty, unread."""
    if type(data) is not list or not data:
        raise Mismatch("expected a list")
    if data[0] == "unparsable":
        _, reason, line, column = data
        return Unparsable(path, _str(reason), _int(line), _int(column))
    if data[0] != "facts" or len(data) != 17:
        raise Mismatch("expected the 14 parts of a file's facts")
    module = module_name(path)
    scopes = _decode_scopes(data[16], module)
    if scopes[0].kind != "module" or scopes[0].owner != module:
        raise Mismatch("the first scope is not the module's")
    facts = FileFacts(path, module, is_package(path), Positions(path, lines), scopes[0])
    chains: dict[tuple[str, ...], tuple[str, ...]] = {}  # one tuple per chain, as walked
    facts.functions = [_decode_function(f, scopes) for f in _list(data[10])]
    facts.classes = [_decode_class(c, scopes, facts.functions) for c in _list(data[3])]
    facts.definitions = decode_list(data[4], Definition)
    facts.name_stores = [
        NameStore(_scope(sc, scopes), _str(name), _decode_source(source, scopes))
        for sc, name, source in _list(data[8])
    ]
    facts.attr_stores = [
        AttrStore(_scope(sc, scopes), _str(root), _str(attr), _decode_source(source, scopes))
        for sc, root, attr, source in _list(data[9])
    ]
    facts.flag_defs = decode_list(data[13], FlagDef)
    facts.flag_helpers = decode_list(data[14], FlagHelper)
    if body:
        facts.uses = [_decode_use(u, scopes, chains) for u in _list(data[1])]
        facts.supers = [_decode_super(u, scopes) for u in _list(data[2])]
        facts.containment = decode_list(data[5], Edge)
        facts.import_sites = decode_list(data[6], Site)
        facts.module_refs = [(_str(o), _str(t)) for o, t in _list(data[7])]
        facts.handled = decode_list(data[11], Handled)
        facts.gates = decode_list(data[12], VersionGate)
        facts.flag_gates = decode_list(data[15], FlagGate)
    return facts


def _decode_scopes(data: Any, module: str) -> list[Scope]:
    scopes: list[Scope] = []
    for i, row in enumerate(_list(data)):
        kind, owner, parent, imports, defs, stores, hard, glob, nonlocal_, star = row[:10]
        self_name, method_of, overwrites = row[10:]
        if kind not in _SCOPE_KINDS or type(parent) is not int or not -1 <= parent < i:
            raise Mismatch("a scope's kind or parent")
        scope = Scope(kind, _str(owner), module, scopes[parent] if parent >= 0 else None)
        if type(imports) is not dict or type(defs) is not dict:
            raise Mismatch("a scope's imports or definitions")
        scope.imports = {_str(k): [_str(t) for t in _list(v)] for k, v in imports.items()}
        scope.defs = {_str(k): (_str(p), _bool(f)) for k, (p, f) in defs.items()}
        scope.stores = set(_strs(stores))
        scope.hard_stores = set(scope.stores) if hard is True else set(_strs(hard))
        scope.global_names = set(_strs(glob))
        scope.nonlocal_names = set(_strs(nonlocal_))
        scope.star_modules = list(_strs(star))
        scope.self_name = _optional_str(self_name)
        scope.method_of = _optional_str(method_of)
        scope.star_overwrites = set(_strs(overwrites))
        scopes.append(scope)
    if not scopes:
        raise Mismatch("no scopes")
    return scopes


def _decode_use(
    data: Any, scopes: list[Scope], chains: dict[tuple[str, ...], tuple[str, ...]]
) -> Use:
    """The most frequent record (~130 a file), so checked inline."""
    scope, root, attrs, kind, span, guarded, call = data
    if (
        type(scope) is not int
        or scope < 0
        or type(root) is not str
        or type(kind) is not int
        or not 0 <= kind < len(_USE_KINDS)
        or type(guarded) is not bool
    ):
        raise Mismatch("a use")
    decoded_call = None
    if call is not None:
        shape, result_use, positional_first, first = call
        decoded_call = CallFacts(
            _decode_shape(shape), _strs(result_use), _bool(positional_first), _reference(first)
        )
    steps = _strs(attrs)
    return Use(
        scopes[scope],
        root,
        chains.setdefault(steps, steps),
        _USE_KINDS[kind],
        _span(span) if span is not None else None,
        guarded,
        decoded_call,
    )


def _decode_super(data: Any, scopes: list[Scope]) -> SuperUse:
    scope, klass, explicit, method, span, shape, guarded = data
    return SuperUse(
        _scope(scope, scopes),
        _optional_str(klass),
        _optional_str(explicit),
        _str(method),
        _span(span),
        _decode_shape(shape),
        _bool(guarded),
    )


def _decode_source(data: Any, scopes: list[Scope]) -> Source | None:
    if data is None:
        return None
    kind, annotation, scope, guarded, reference, none = data
    if type(kind) is not int or not 0 <= kind < len(_SOURCE_KINDS):
        raise Mismatch("a source's kind")
    return Source(
        _SOURCE_KINDS[kind],
        _expr(annotation),
        _scope(scope, scopes),
        _bool(guarded),
        _reference(reference),
        _bool(none),
    )


def _decode_class(data: Any, scopes: list[Scope], functions: list[FunctionFacts]) -> ClassFacts:
    path, qualname, scope, bases, methods, guarded, body, made = data
    cls = ClassFacts(_str(path), _str(qualname), _scope(scope, scopes), guarded=_bool(guarded))
    cls.bases = [(_str(root), _strs(attrs), _span(span)) for root, attrs, span in _list(bases)]
    for name, span, method_guarded, function in _list(methods):
        if type(function) is not int or not -1 <= function < len(functions):
            raise Mismatch("a method's function")
        cls.methods.append(
            Method(
                _str(name),
                _span(span),
                _bool(method_guarded),
                functions[function] if function >= 0 else None,
            )
        )
    cls.body = _scope(body, scopes) if body != -1 else None
    cls.made = _bool(made)
    return cls


def _decode_function(data: Any, scopes: list[Scope]) -> FunctionFacts:
    path, scope, params, returns, decorators, is_async, forward = data
    decoded: list[Parameter] = []
    for name, kind, default, annotation in _list(params):
        if type(kind) is not int or not 0 <= kind < len(_PARAM_KINDS):
            raise Mismatch("a parameter's kind")
        decoded.append(Parameter(_str(name), _PARAM_KINDS[kind], _expr(default), _expr(annotation)))
    onward = None
    if forward is not None:
        callee, unless, taken, added = forward
        onward = Forward(_str(callee), _optional_str(unless), _strs(taken), _strs(added))
    return FunctionFacts(
        _str(path),
        _scope(scope, scopes),
        tuple(decoded),
        _expr(returns),
        tuple(Expr(_str(d)) for d in _list(decorators)),
        _bool(is_async),
        onward,
    )


# --------------------------------------------------------------------------- checks

_encode_shape = encoder(CallShape)
_decode_shape = decoder(CallShape)
_str = decoder(str)
_optional_str = decoder(str | None)
_int = decoder(int)
_bool = decoder(bool)


def _scope(data: Any, scopes: list[Scope]) -> Scope:
    if type(data) is not int or not 0 <= data < len(scopes):
        raise Mismatch("a scope's index")
    return scopes[data]


def _list(data: Any) -> list[Any]:
    if type(data) is not list:
        raise Mismatch("expected a list")
    return data


def _strs(data: Any) -> tuple[str, ...]:
    if type(data) is not list:
        raise Mismatch("expected a list of strings")
    "".join(data)  # TypeError unless every item is a string
    return tuple(data)


def _span(data: Any) -> Span:
    if type(data) is not list or len(data) != 4:
        raise Mismatch("expected a span")
    line, col, end_line, end_col = map(int.__index__, data)  # TypeError unless integers
    return (line, col, end_line, end_col)


def _reference(data: Any) -> Reference | None:
    if data is None:
        return None
    root, steps = data
    return (_str(root), _strs(steps))


def _expr(data: Any) -> Expr | None:
    return Expr(_str(data)) if data is not None else None
