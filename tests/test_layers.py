"""The layer contract (README "Project layout"): every import inside docqa_desktop points down, and no two
top-level modules/packages import each other, directly or round a loop.

Every module is parsed with `ast`: absolute and relative imports, at module level or inside functions
(lazy imports count: they run too) and under `if TYPE_CHECKING:` (a type seam is still a dependency: put a
Protocol in the lower layer instead). Nothing is skipped; a new top-level module fails the test until it is
given a layer here. (Imports by string, importlib.import_module, are not seen: the package has none.)

Layers, top to bottom. A component (top-level module or package) may import itself, anything in a lower
layer, and the same-layer components or modules listed in SIBLINGS:

    7 ui          ui/, cli/, launcher.py, __main__.py
                  (the front ends, ui/ and cli/, reach the core only through service/: FACADE_ONLY, and use its
                  four parts, never its shared resources: FRONT_ENDS)
    6 service     service/ (the facade), export.py, table_export.py
    5 methods     methods/, evaluation/ -- siblings that do not import each other, not even the method
                  registry: evaluation is handed ports by the facade (EvalPorts) and asks through them
    4 engines     retrieval/, index/, llm/, visual/ -- side by side (the one exception: SIBLINGS)
    3 vectors     vectors/: the text and page embedders, codes, MaxSim kernels
    2 store       store/, pdf/ (opening, reading and rendering PDFs), documents.py (the file kinds read: one
                  table of openers, PDF's from pdf/)
    1 domain      domain.py, answers.py, presentation.py (how an answer reads, in every front end and export),
                  progress.py, settings.py, files.py, offline.py, logs.py, errors.py,
                  host.py (the operating system: file lock, memory limit, cores, RAM, GPU driver),
                  components/ (the optional components: their table, installer and sys.path), __init__.py

Inside methods/, a method folder (methods/<name>/: every folder but the shared toolkit/, extractive/ and proof/)
sees the library only through its context: it imports the method base, the shared parts of methods/ and the plain
types and helpers of the domain level and llm (METHOD_FOLDER_MAY_IMPORT), its own modules, and never another method.
The shared parts (every module of methods/ outside a method folder) never import a method folder: every method
uses them, so one that leaned on a method would make that method everyone's. Nor do they import store/, retrieval/
or pdf/ (the registry aside, which imports the methods): they reach the library through the ports the service
builds and hands in (the Protocols of methods/ports.py), so no method is one attribute away from the database.
The one exception, SHARED_PART_MAY_IMPORT, is a pure function named with its reason.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "docqa_desktop"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

LAYERS: dict[str, tuple[int, str]] = {}
for _level, _name, _components in (
        (7, "ui", ("ui", "cli", "launcher", "__main__")),
        (6, "service", ("service", "export", "table_export")),
        (5, "methods", ("methods", "evaluation")),
        (4, "engines", ("retrieval", "index", "llm", "visual")),
        (3, "vectors", ("vectors",)),
        (2, "store", ("store", "pdf", "documents")),
        (1, "domain", ("domain", "answers", "numbers", "presentation", "progress", "settings", "files", "offline",
                       "logs", "errors", "host", "third_party", "components", "__init__")),
):
    for _component in _components:
        LAYERS[_component] = (_level, _name)

# Imports allowed between components of the same layer: (importer component, imported component or module).
# Everything else sideways is forbidden; the list stays free of cycles (checked below with every other edge).
SIBLINGS: set[tuple[str, str]] = {
    # ui layer: the entry point starts the CLI, the CLI opens the app; the app's window icon is the launcher's
    ("__main__", "cli"), ("cli", "launcher"), ("cli", "ui"), ("ui", "launcher"),
    # service layer: the facade exports answers and tables; tables in Markdown are escaped as answers are
    ("service", "export"), ("service", "table_export"), ("table_export", "export"),
    # engines: the page embedder is an installed model, found by the model manager
    ("visual", "llm.manager"),
    # store level: the table of document openers names the PDF opener
    ("documents", "pdf"),
    # domain level: plain helpers under the data types
    ("settings", "files"), ("settings", "errors"), ("logs", "settings"), ("__init__", "offline"), ("answers", "domain"),
    ("components", "host"),  # which torch build: the platform and its GPU driver are the host's to say
    ("presentation", "answers"), ("presentation", "numbers"),  # how an answer reads: its numbers marked as quoted
}

# Components that reach the layers between theirs and the domain level only through the listed ones: the Qt
# app and the command line talk to the core through the Service facade (plain data types come from the domain
# level).
FACADE_ONLY: dict[str, set[str]] = {"ui": {"service"}, "cli": {"service"}}
# The front ends use the facade's parts (library, pages, answers, models), never the resources they share: an
# attribute of these names in their code is the back door (Service.resources is for tests and benchmarks).
FRONT_ENDS = ("ui", "cli")
RESOURCE_ATTRIBUTES = ("resources", "_resources")


# What a module in a method folder may import besides its own folder: these modules and the modules inside them ...
METHOD_FOLDER_MAY_IMPORT = ("methods.base", "methods.toolkit", "methods.citations", "methods.conversation",
                            "methods.proof", "methods.extractive", "answers", "domain", "errors", "progress", "settings")
# ... and these llm modules alone: its types and helpers, and llm.runtime for the Runtime protocol a method calls
# (not the model manager, the backends or the hardware probe: the service builds the runtimes for the context)
METHOD_FOLDER_MAY_IMPORT_FROM_LLM = ("llm", "llm.types", "llm.runtime", "llm.budget", "llm.jsonout",
                                     "llm.partial_json", "llm.images")
SHARED_METHOD_FOLDERS = {"toolkit", "proof", "extractive"}  # folders of methods/ that every method uses, not methods
# A method that is another one and a step after it, with why: the (folder, the method folder it builds on) pairs
METHOD_BUILDS_ON = {
    # the default answer is the quoted answer, then a text model reading its passages (methods/cascade)
    ("cascade", "quoted"),
}
# What the shared parts of methods/ reach the library through: the ports, never these components ...
BEHIND_THE_PORTS = ("store", "retrieval", "pdf")
# ... but for these (importer, imported module) pairs: a pure function of text, no database or file behind it
SHARED_PART_MAY_IMPORT: set[tuple[str, str]] = {
    # BM25 over a page's passages (toolkit/passages.py), the same scoring passage retrieval uses
    ("methods.toolkit.passages", "retrieval.chunks"),
}


def method_folder(path: str) -> str | None:
    """'docqa_desktop/methods/mmrag/tree.py' -> 'mmrag'; None for a module outside a method folder."""
    parts = Path(path).parts
    if len(parts) > 3 and parts[1] == "methods" and parts[2] not in SHARED_METHOD_FOLDERS:
        return parts[2]
    return None


def method_folder_breach(folder: str, imported: str, folders: set[str]) -> str | None:
    """Why a module of the method folder `folder` may not import `imported` (None: it may); `folders`: every
    method folder."""
    def within(name: str) -> bool:
        return imported == f"{PACKAGE}.{name}" or imported.startswith(f"{PACKAGE}.{name}.")

    if within(f"methods.{folder}") or any(within(name) for name in METHOD_FOLDER_MAY_IMPORT) or \
            any(within(f"methods.{base}") for built, base in METHOD_BUILDS_ON if built == folder) or \
            imported in {f"{PACKAGE}.{name}" for name in METHOD_FOLDER_MAY_IMPORT_FROM_LLM}:
        return None
    other = next((name for name in folders if within(f"methods.{name}")), None)
    if other:
        return f"method {folder} may not import method {other}"
    return f"method {folder} sees the library only through its context: not in METHOD_FOLDER_MAY_IMPORT"


def shared_part_breach(importer: str, imported: str, folders: set[str]) -> str | None:
    """Why the shared part `importer` of methods/ may not import `imported` (None: it may): never a method
    folder, and nothing behind the ports (BEHIND_THE_PORTS) outside SHARED_PART_MAY_IMPORT. The registry, which
    lists the methods, is the one module of methods/ that imports them all."""
    other = next((name for name in folders if imported == f"{PACKAGE}.methods.{name}" or
                  imported.startswith(f"{PACKAGE}.methods.{name}.")), None)
    if other:
        return f"a shared part of methods/ may not import method {other}"
    if component(imported) in BEHIND_THE_PORTS and \
            (importer.removeprefix(f"{PACKAGE}."), imported.removeprefix(f"{PACKAGE}.")) not in SHARED_PART_MAY_IMPORT:
        return "a shared part of methods/ reaches the library through the ports (methods/ports.py)"
    return None


def allowed_sideways(importer: str, imported: str) -> bool:
    return any(a == importer and (imported == f"{PACKAGE}.{b}" or imported.startswith(f"{PACKAGE}.{b}."))
               for a, b in SIBLINGS)


def component(module: str) -> str:
    """docqa_desktop.index.indexer -> 'index'; docqa_desktop.cli -> 'cli'; docqa_desktop -> '__init__'."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: str) -> str:
    """'docqa_desktop/index/indexer.py' -> 'docqa_desktop.index.indexer'; packages drop '__init__'."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: str, source: str, known: set[str]) -> list[tuple[int, str]]:
    """(line, docqa_desktop module) for every import in one module, lazy and TYPE_CHECKING ones included."""
    name = module_name(path)
    is_package = Path(path).name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []

    def resolve(target: str, line: int) -> None:
        # the longest known module that `target` names (a.b.func -> a.b)
        while target and target not in known:
            target = target.rpartition(".")[0]
        if target:
            found.append((line, target))

    for node in ast.walk(ast.parse(source, filename=path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PACKAGE or alias.name.startswith(PACKAGE + "."):
                    resolve(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                if node.level > 1:
                    base = base[:-(node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            if origin != PACKAGE and not origin.startswith(PACKAGE + "."):
                continue
            for alias in node.names:
                # `from . import asking` names a module; `from .cli import main` names something in one
                sub = f"{origin}.{alias.name}"
                resolve(sub if sub in known else origin, node.lineno)
    return found


def check(sources: dict[str, str]) -> list[str]:
    """Every broken rule in a package given as {relative path: source}, as readable lines."""
    known = {module_name(p) for p in sources}
    folders = {folder for folder in map(method_folder, sources) if folder}
    problems: list[str] = []
    edges: dict[tuple[str, str], tuple[str, int, str]] = {}
    for path, source in sorted(sources.items()):
        importer = module_name(path)
        own = component(importer)
        if own not in LAYERS:
            problems.append(f"{importer}: top-level module {own!r} has no layer in tests/test_layers.py")
            continue
        folder = method_folder(path)
        shared = own == "methods" and folder is None and importer != f"{PACKAGE}.methods.registry"
        for line, imported in imports_of(path, source, known):
            why = method_folder_breach(folder, imported, folders) if folder else \
                shared_part_breach(importer, imported, folders) if shared else None
            if why and f"{importer}:{line} -> {imported} ({why})" not in problems:
                problems.append(f"{importer}:{line} -> {imported} ({why})")
            other = component(imported)
            if other == own:
                continue
            edges.setdefault((own, other), (importer, line, imported))
            if other not in LAYERS:
                continue  # reported above, as the imported module's own problem
            (mine, my_layer), (theirs, their_layer) = LAYERS[own], LAYERS[other]
            if theirs > mine:
                why = f"layer {my_layer} may not import layer {their_layer}"
            elif theirs == mine and not allowed_sideways(own, imported):
                why = f"{own} may not import its sibling {other}: not in SIBLINGS"
            elif own in FACADE_ONLY and 1 < theirs < mine and other not in FACADE_ONLY[own]:
                why = f"{own} reaches layer {their_layer} only through {', '.join(sorted(FACADE_ONLY[own]))}"
            else:
                continue
            problem = f"{importer}:{line} -> {imported} ({why})"
            if problem not in problems:  # `from .x import a, b` names one module twice
                problems.append(problem)
        if own in FRONT_ENDS:
            for node in ast.walk(ast.parse(source, filename=path)):
                if isinstance(node, ast.Attribute) and node.attr in RESOURCE_ATTRIBUTES:
                    problems.append(f"{importer}:{node.lineno} uses .{node.attr} (a front end uses the facade's "
                                    "parts, not its shared resources)")
    for loop in _cycles({a for a, _ in edges} | {b for _, b in edges}, set(edges)):
        steps = [edges[(a, b)] for a, b in zip(loop, loop[1:] + loop[:1])]
        problems.append("import cycle " + " -> ".join(loop + loop[:1]) + ": "
                        + "; ".join(f"{m}:{n} -> {t}" for m, n, t in steps))
    return problems


def _cycles(nodes: set[str], edges: set[tuple[str, str]]) -> list[list[str]]:
    """One loop through each strongly connected group of more than one component (Tarjan)."""
    graph = {n: sorted(b for a, b in edges if a == n) for n in sorted(nodes)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(group)

    for n in graph:
        if n not in index:
            visit(n)
    loops = []
    for group in groups:  # the shortest walk inside the group from its first member back to it (breadth first)
        start = min(group)
        came_from: dict[str, str] = {}
        frontier, end = [start], None
        while frontier and end is None:
            following = []
            for node in frontier:
                for nxt in graph[node]:
                    if nxt == start:
                        end = node
                        break
                    if nxt in group and nxt not in came_from:
                        came_from[nxt] = node
                        following.append(nxt)
                if end is not None:
                    break
            frontier = following
        path = [end]
        while path[-1] != start:
            path.append(came_from[path[-1]])
        loops.append(path[::-1])
    return loops


def package_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT.parent)): p.read_text(encoding="utf-8") for p in sorted(ROOT.rglob("*.py"))}


def test_the_package_keeps_its_layers():
    sources = package_sources()
    assert len(sources) > 50, "the checker found too few modules: the path to the package is wrong"
    problems = check(sources)
    assert not problems, "layer contract broken:\n" + "\n".join(problems)


def test_every_same_layer_import_allowed_is_between_components_of_one_layer():
    known = {module_name(p) for p in package_sources()}
    for a, b in SIBLINGS:
        assert LAYERS[a][0] == LAYERS[component(f"{PACKAGE}.{b}")][0], (a, b)
        assert f"{PACKAGE}.{b}" in known, f"SIBLINGS names {b}, which does not exist"


def test_a_wrong_import_is_reported():
    sources = package_sources()
    sources["docqa_desktop/store/x.py"] = "from ..ui import app\n"
    problems = check(sources)
    assert "docqa_desktop.store.x:1 -> docqa_desktop.ui.app (layer store may not import layer ui)" in problems
    assert any(p.startswith("import cycle ") and "store" in p and "ui" in p for p in problems), problems


@pytest.mark.parametrize("source, expected", [
    # a lazy import inside a function, absolute
    ("def f():\n    import docqa_desktop.service\n",
     "docqa_desktop.domain:2 -> docqa_desktop.service (layer domain may not import layer service)"),
    # under TYPE_CHECKING, naming a module through `from package import module`
    ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from docqa_desktop import cli\n",
     "docqa_desktop.domain:3 -> docqa_desktop.cli (layer domain may not import layer ui)"),
    # relative, naming something inside a module of a package
    ("from .index.indexer import Indexer\n",
     "docqa_desktop.domain:1 -> docqa_desktop.index.indexer (layer domain may not import layer engines)"),
])
def test_every_kind_of_import_is_seen(source, expected):
    sources = package_sources()
    sources["docqa_desktop/domain.py"] = source
    assert expected in check(sources)


def test_a_sideways_import_outside_the_list_is_reported():
    sources = package_sources()
    sources["docqa_desktop/llm/x.py"] = "from ..retrieval import bm25\n"
    assert ("docqa_desktop.llm.x:1 -> docqa_desktop.retrieval.bm25 (llm may not import its sibling retrieval: "
            "not in SIBLINGS)") in check(sources)


def test_a_front_end_below_the_facade_is_reported():
    sources = package_sources()
    sources["docqa_desktop/cli/x.py"] = "from ..store import catalog\n\ndef f(service):\n    return service.resources.db\n"
    problems = check(sources)
    assert ("docqa_desktop.cli.x:1 -> docqa_desktop.store.catalog (cli reaches layer store only through service)"
            in problems)
    assert ("docqa_desktop.cli.x:4 uses .resources (a front end uses the facade's parts, not its shared resources)"
            in problems)


def test_a_method_folder_reaching_past_its_context_or_into_another_method_is_reported():
    sources = package_sources()
    sources["docqa_desktop/methods/simpledoc/x.py"] = ("from ...store import artifacts\n"
                                                      "from ..mmrag.tree import TreeBuilder\n"
                                                      "from ...llm.manager import ModelManager\n"
                                                      "from ..toolkit.page_summaries import Summarizer\n"
                                                      "from ..base import MethodContext\n"
                                                      "from ...llm import Message\n"
                                                      "from .prompts import PAGE_RETRIEVAL\n")
    problems = [p for p in check(sources) if p.startswith("docqa_desktop.methods.simpledoc.x:")]
    assert problems == [
        "docqa_desktop.methods.simpledoc.x:1 -> docqa_desktop.store.artifacts (method simpledoc sees the library "
        "only through its context: not in METHOD_FOLDER_MAY_IMPORT)",
        "docqa_desktop.methods.simpledoc.x:2 -> docqa_desktop.methods.mmrag.tree (method simpledoc may not import "
        "method mmrag)",
        "docqa_desktop.methods.simpledoc.x:3 -> docqa_desktop.llm.manager (method simpledoc sees the library only "
        "through its context: not in METHOD_FOLDER_MAY_IMPORT)"]


def test_a_shared_part_of_methods_importing_a_method_is_reported():
    sources = package_sources()
    sources["docqa_desktop/methods/proof/x.py"] = ("from ..quoted.method import run\n"
                                                  "from ..extractive.reader import read\n")
    sources["docqa_desktop/methods/base_extra.py"] = "from .mmrag import tree\n"
    problems = [p for p in check(sources) if "x:" in p or "base_extra:" in p]
    assert problems == [
        "docqa_desktop.methods.base_extra:1 -> docqa_desktop.methods.mmrag.tree (a shared part of methods/ may not "
        "import method mmrag)",
        "docqa_desktop.methods.proof.x:1 -> docqa_desktop.methods.quoted.method (a shared part of methods/ may not "
        "import method quoted)"]


def test_a_shared_part_of_methods_past_the_ports_is_reported():
    sources = package_sources()
    sources["docqa_desktop/methods/toolkit/x.py"] = ("from ...store.artifacts import ArtifactStore\n"
                                                    "from ...retrieval.page_source import PageSource\n"
                                                    "from ...pdf.render import render_region\n"
                                                    "from ...retrieval.chunks import lexical_scores\n"
                                                    "from ..ports import Pages\n"
                                                    "from ...errors import PageGone\n")
    sources["docqa_desktop/methods/base_extra.py"] = "from ..store import mentions\n"
    problems = [p for p in check(sources) if "toolkit.x:" in p or "base_extra:" in p]
    why = "(a shared part of methods/ reaches the library through the ports (methods/ports.py))"
    assert problems == [f"docqa_desktop.methods.base_extra:1 -> docqa_desktop.store.mentions {why}",
                        f"docqa_desktop.methods.toolkit.x:1 -> docqa_desktop.store.artifacts {why}",
                        f"docqa_desktop.methods.toolkit.x:2 -> docqa_desktop.retrieval.page_source {why}",
                        f"docqa_desktop.methods.toolkit.x:3 -> docqa_desktop.pdf.render {why}",
                        f"docqa_desktop.methods.toolkit.x:4 -> docqa_desktop.retrieval.chunks {why}"]


def test_every_exception_for_the_shared_parts_names_modules_that_exist():
    known = {module_name(p) for p in package_sources()}
    for importer, imported in SHARED_PART_MAY_IMPORT:
        assert f"{PACKAGE}.{importer}" in known and f"{PACKAGE}.{imported}" in known, (importer, imported)
        assert component(f"{PACKAGE}.{imported}") in BEHIND_THE_PORTS, imported


def test_the_shared_parts_of_methods_are_not_method_folders():
    assert method_folder("docqa_desktop/methods/extractive/reader.py") is None
    assert method_folder("docqa_desktop/methods/toolkit/page_content.py") is None
    assert method_folder("docqa_desktop/methods/base.py") is None
    assert method_folder("docqa_desktop/methods/proof/verify.py") is None
    assert method_folder("docqa_desktop/methods/mmrag/__init__.py") == "mmrag"


def test_a_module_without_a_layer_is_reported():
    sources = package_sources()
    sources["docqa_desktop/newthing.py"] = "x = 1\n"
    assert any("'newthing' has no layer" in p for p in check(sources))


# The one module that sets an answer's verdict (issue 53, architecture review 2026-11-28): a method records a draft
# (ctx.conclude, ctx.decide) and methods/verdict.py renders it
STATUS_WRITERS = {"docqa_desktop/methods/verdict.py"}


def status_writes(source: str) -> list[int]:
    """The lines of `source` that assign an attribute named `status` (alone or among several targets)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        flat = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        if any(isinstance(t, ast.Attribute) and t.attr == "status" for t in flat):
            lines.append(node.lineno)
    return lines


def test_only_the_verdict_sets_a_status():
    writers = {path: status_writes(source) for path, source in package_sources().items()}
    assert {path for path, lines in writers.items() if lines} == STATUS_WRITERS, \
        {path: lines for path, lines in writers.items() if lines and path not in STATUS_WRITERS}


def test_a_status_set_outside_the_verdict_is_seen():
    assert status_writes("answer.status = 1\n") == [1]
    assert status_writes("x = 1\nanswer.status, answer.text = 1, 'a'\n") == [2]
    assert status_writes("answer.state = 1\nstatus = 2\n") == []


# -- the file-type seam: documents are opened through documents.py (its table of openers), the PDF opener called
# only there and in pdf/ itself; a new kind of file is one row of DOCUMENT_OPENERS, not a hunt through the index
DOCUMENT_OPENERS_AT = ("docqa_desktop/documents.py", "docqa_desktop/pdf/")


def pdf_opener_uses(source: str) -> list[int]:
    """The lines of `source` that name `open_pdf` (an import or a call)."""
    tree = ast.parse(source)
    named = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id == "open_pdf"]
    imported = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and any(alias.name == "open_pdf" for alias in node.names)]
    return sorted(set(named + imported))


def test_documents_are_opened_through_the_file_type_seam():
    outside = {path: lines for path, source in package_sources().items()
               if not path.startswith(DOCUMENT_OPENERS_AT) and (lines := pdf_opener_uses(source))}
    assert not outside, f"open_pdf outside documents.py and pdf/ (use documents.open_document): {outside}"


def test_an_opener_used_past_the_seam_is_seen():
    assert pdf_opener_uses("from ..pdf.document import open_pdf\n") == [1]
    assert pdf_opener_uses("import x\n\ndoc = document.open_pdf(p)\nopen_pdf(q)\n") == [4]
    assert pdf_opener_uses("from ..documents import open_document\nopen_document(p)\n") == []
