# Maintainers: the consumer scan stage, static and stdlib-only (ast, tokenize).
#
# Owns: reading the consumer's source and finding every reference into the provider.
# Takes: a sources.SourceTree, the consumer's and the provider's import names, exclude globs.
# Gives: model.ConsumerScan (Definitions, Edges, Sites, Unparsable, lines, suppressions) to the
# graph and bind stages.
#
# Modules, in the order data flows through them:
#   source.py   paths, module names, lines, parsing, `# drift-audit: ignore` comments
#   walker.py   the one AST pass per file -> facts.py records (scopes.py, guards.py)
#   imports.py  relative imports, IMPORT sites, try/except alternatives
#   resolve.py  name lookup, consumer re-exports across modules, the class hierarchy
#   calls.py    CALL / ATTRIBUTE sites and consumer edges from the recorded uses
#   values.py   what a local, `self.x`, an annotation or a consumer function's result holds
#   instances.py CALL / ATTRIBUTE sites through objects: `()` targets (`vllm.x.S().m`)
#   classes.py  SUBCLASS / OVERRIDE / SUPER_CALL sites
#   crossfile.py the cross-file stage: each file's results, assembling ConsumerScan
#   consumer.py scan_consumer(): the order of work
#   cached.py   scan_cached(): a scan kept in the cache and read back
#   store.py    where a scan is kept, keyed by every file's text, and its JSON form
"""Consumer scan: consumer source in, provider references (Sites) and a call graph's edges out."""

from __future__ import annotations

from auditor.scan.cached import scan_cached
from auditor.scan.consumer import scan_consumer
from auditor.scan.store import ScanStore

__all__ = ["ScanStore", "scan_cached", "scan_consumer"]
