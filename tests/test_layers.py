"""The shape of the package, read from its source: every import of every module (``ast``, lazy and
type-only imports included, ``from autobyteus_like import x`` and ``from .. import x`` resolved
to the module they name, imports by a name given at run time declared with what they load),
grouped by package. No cycle between packages, no arrow back up the layers below, no module
over 400 lines, private modules named for what they are in their package, the turn's context
kept inside the turn machine. The layers are those of docs/architecture.md."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import autobyteus_like
from tests.import_graph import (
    import_targets,
    module_imports,
    modules,
    package_of,
    strongly_connected,
)

ROOT = Path(autobyteus_like.__file__).parent
MAX_LINES = 400
ROOT_API = "autobyteus_like"
"""The package's own ``__init__`` as an importer's target: the public API."""
_RUN_TIME_LOADERS = {"import_module", "__import__", "spec_from_file_location"}

LAYERS: list[set[str]] = [
    {"errors", "_error_codes", "_extras", "_config_problems", "_frozen_values"},
    {"tools"},
    {"llm", "mcp"},
    {"formatters", "parsers"},
    {"formats"},
    {"events"},
    {"history", "output"},  # typed conversations and answers
    {"store"},  # sessions: its own records only, nothing of the turn machine
    {"hooks"},  # AgentHooks, TurnView/CallView, compose; the session writer (over the store)
    {"usage", "tracing"},  # hooks: they see TurnView/CallView, never the turn machine
    {"handlers"},  # the turn machine
    {"agent"},
    {"mail"},
    {"runtime"},
    {"team"},
    {"testing"},
    # the faces, and the public API that re-exports everything
    {"serving", "web", "a2a", "cli", "evals", "proxy", ROOT_API},
]
"""Bottom first. A package may import its own layer's packages and any below; a top-level
module (``errors.py``, ``cli/_main.py``) counts as a package of its own, and so does
``autobyteus_like/__init__.py`` (``from autobyteus_like import X`` loads the whole API)."""

RUN_TIME_IMPORTS: dict[str, set[str]] = {
    "formats/_registry.py": {"formatters", "parsers"},  # each format's pair, by name
    "runtime/_ray_mcp_guard.py": {"mcp"},  # mcp/_process_sweep.py, by path, in a bare process
    "agent/_config_values.py": set(),  # the module of a type named in a config (the user's)
    "cli/_tools.py": set(),  # the user's --tools module or file
    "evals/_suite.py": {"evals"},  # an eval suite's tools: the built-in ones, or the user's
    "llm/_provider_setup.py": set(),  # a provider's SDK
    "llm/_gemini.py": set(),  # httpx or httpx2
}
"""Modules that import a module named at run time (``importlib``), with the packages of ours
each may load that way: their arrows count like any other; a new such import must be added."""

def _modules() -> list[tuple[Path, str]]:
    return modules(ROOT)


def _targets(node: ast.AST, here: str) -> list[str]:
    return import_targets(ROOT, node, here)


def _run_time_loads(tree: ast.AST) -> int:
    """How many calls import a module named at run time (``importlib.import_module`` ...)."""
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Attribute) and node.func.attr in _RUN_TIME_LOADERS)
        or (isinstance(node.func, ast.Name) and node.func.id in _RUN_TIME_LOADERS)))


IMPORTS = module_imports(ROOT)


def _all_imports() -> dict[str, set[tuple[str, str]]]:
    """Each package's imports of other packages: (imported package, importing module)."""
    arrows: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for module, (path, tree, targets) in IMPORTS.items():
        own = package_of(module)
        if not own:  # autobyteus_like/__init__.py re-exports the public API from everywhere
            continue
        for target in targets:
            if target == ROOT_API:
                arrows[own].add((ROOT_API, module))
            elif package_of(target) != own:
                arrows[own].add((package_of(target), module))
        relative = path.relative_to(ROOT).as_posix()
        for package in RUN_TIME_IMPORTS.get(relative, ()) if _run_time_loads(tree) else ():
            arrows[own].add((package, module))
    return arrows


ALL_ARROWS = _all_imports()
LEVEL = {package: level for level, group in enumerate(LAYERS) for package in group}


def test_every_import_by_a_name_given_at_run_time_is_declared():
    """An import the ``import`` statements do not show is declared with what it loads, so the
    arrows above see it too; a declaration with no such import left goes."""
    loading = {path.relative_to(ROOT).as_posix() for path, _ in _modules()
               if _run_time_loads(ast.parse(path.read_text(encoding="utf-8")))}
    assert loading == set(RUN_TIME_IMPORTS), (
        f"undeclared: {sorted(loading - set(RUN_TIME_IMPORTS))}; "
        f"declared but gone: {sorted(set(RUN_TIME_IMPORTS) - loading)}")


def test_the_reader_sees_imports_from_the_package_root_and_relative_ones():
    """The import reader itself: the forms that name a package without a dot after it."""
    absolute = ast.parse("from autobyteus_like import team, AgentConfig").body[0]
    relative = ast.parse("from ... import runtime").body[0]  # in tools/builtin/: the root
    assert _targets(absolute, "autobyteus_like.tools") == ["autobyteus_like",
                                                           "autobyteus_like.team"]
    assert _targets(relative, "autobyteus_like.tools.builtin") == ["autobyteus_like",
                                                                  "autobyteus_like.runtime"]


def test_every_package_has_a_layer():
    packages = {path.stem if path.is_file() else path.name
                for path in ROOT.iterdir()
                if (path.suffix == ".py" and path.stem != "__init__")
                or (path.is_dir() and (path / "__init__.py").exists())}
    unplaced = sorted(packages - set(LEVEL))
    assert not unplaced, f"give these a layer in tests/test_layers.py LAYERS: {unplaced}"


def test_no_arrow_points_up_the_layers():
    upward = sorted(f"{module} imports {target} ({source} is below {target})"
                    for source, arrows in ALL_ARROWS.items()
                    for target, module in arrows
                    if LEVEL.get(target, -1) > LEVEL.get(source, len(LAYERS)))
    assert not upward, "\n".join(upward)


def _cycles() -> list[list[str]]:
    """The packages of each cycle."""
    return strongly_connected({source: {target for target, _ in arrows}
                               for source, arrows in ALL_ARROWS.items()})


def test_the_cycle_finder_sees_loops_and_not_chains():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert strongly_connected(graph) == [["d", "e"], ["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "f": {"a"}}) == []


def test_no_cycle_between_packages():
    described = []
    for cycle in _cycles():
        arrows = sorted(f"{module} -> {target}" for source in cycle
                        for target, module in ALL_ARROWS[source] if target in cycle)
        described.append(f"{' / '.join(cycle)}: {', '.join(arrows)}")
    assert not described, "package cycles: " + "; ".join(described)


def test_no_import_loop_inside_a_package():
    """Within a package too, modules import one way: a loop (even a lazy or type-only one)
    means a shared piece belongs in a module of its own below both. A package's
    ``__init__`` is left out: it imports its modules to re-export them."""
    inits = {module for module, (path, _, _) in IMPORTS.items() if path.name == "__init__.py"}
    graph = {module: {target for target in targets if target in IMPORTS
                      and target not in inits and package_of(target) == package_of(module)}
             for module, (_, _, targets) in IMPORTS.items() if module not in inits}
    loops = strongly_connected(graph)
    assert not loops, f"import loops inside a package: {loops}"


def _length(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_is_over_the_limit():
    over = sorted(f"{path.relative_to(ROOT)} ({_length(path)} lines)"
                  for path in ROOT.rglob("*.py")
                  if _length(path) > MAX_LINES)
    assert not over, f"modules over {MAX_LINES} lines: {', '.join(over)}"


def _shared_file_names(folder: Path, aside: tuple[str, ...]) -> dict[str, list[str]]:
    """The file names (but those ``aside``) of more than one module below ``folder``."""
    names: dict[str, list[str]] = defaultdict(list)
    for path in folder.rglob("*.py"):
        if path.name not in aside:
            names[path.name].append(path.relative_to(folder).as_posix())
    return {name: paths for name, paths in names.items() if len(paths) > 1}


PUBLIC_MODULES = {"errors.py", "events.py", "testing/pytest_plugin.py"}
"""The modules whose own names are public (besides the packages' ``__init__.py``): the two a
user imports by name, and the pytest plugin's entry point."""


def test_modules_are_private_and_say_what_they_are_in_their_package():
    """The public API is what the packages' ``__init__.py`` export: every other module's name
    starts with ``_``; and a name reads well in its package (``team/_config.py``, never
    ``team/_team_config.py``: a file name need only be unique within its package)."""
    public, stutter = [], []
    for path in ROOT.rglob("*.py"):
        relative = path.relative_to(ROOT).as_posix()
        if path.name in ("__init__.py", "__main__.py") or relative in PUBLIC_MODULES:
            continue
        if not path.name.startswith("_"):
            public.append(relative)
        package = path.parent.name.rstrip("s")
        stem = path.stem.lstrip("_")
        if path.parent != ROOT and stem != package and (
                stem.startswith(package + "_") or stem.endswith("_" + package)):
            stutter.append(relative)
    assert not public, f"modules that should be private (_name.py): {sorted(public)}"
    assert not stutter, f"names that repeat their package: {sorted(stutter)}"


def test_no_two_test_modules_share_a_file_name():
    """The same for the tests and their helpers (pytest's ``conftest.py`` aside)."""
    shared = _shared_file_names(Path(__file__).parent, ("__init__.py", "conftest.py"))
    assert not shared, f"test modules sharing a name: {shared}"


TURN_MACHINE_IN_AGENT = {"agent/_actor.py", "agent/_turn_services.py"}
"""The modules of agent/ that drive the turn machine: the actor and the services it hands work
to (the LLM worker, the tool runner)."""


def _mentions_the_context(tree: ast.AST) -> bool:
    """Whether a module names ``AgentContext`` (imported, used, or in a string annotation) or
    imports the module that holds it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.alias) and (node.name == "AgentContext"
                                            or node.name.endswith("handlers._context")):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("handlers") and any(
                alias.name == "_context" for alias in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("handlers._context"):
            return True
        if isinstance(node, ast.Name) and node.id == "AgentContext":
            return True
        if isinstance(node, ast.Attribute) and node.attr == "AgentContext":
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                "AgentContext" in node.value and len(node.value) < 80):  # an annotation
            return True
    return False


def test_the_turn_context_is_imported_only_inside_the_turn_machine():
    """``AgentContext`` (the turn's mutable state) stays in handlers/ and the agent's actor
    and its services: the facade, the hooks and everything else see values."""
    outside = sorted(
        path.relative_to(ROOT).as_posix() for path, _ in _modules()
        if not path.relative_to(ROOT).as_posix().startswith("handlers/")
        and path.relative_to(ROOT).as_posix() not in TURN_MACHINE_IN_AGENT
        and _mentions_the_context(ast.parse(path.read_text(encoding="utf-8"))))
    assert not outside, f"AgentContext named outside the turn machine: {outside}"


@pytest.mark.parametrize("source", [
    "from autobyteus_like.handlers._context import AgentContext",
    "from autobyteus_like.handlers import AgentContext",
    "from autobyteus_like.handlers import _context",
    "import autobyteus_like.handlers._context as turn",
    "def f(ctx: 'AgentContext') -> None: ...",
])
def test_the_context_check_sees_every_way_of_reaching_it(source):
    assert _mentions_the_context(ast.parse(source))


def test_only_the_agent_drives_the_turn_machine():
    """handlers/ is imported by agent/ alone (the actor and its services): the team, the
    runtimes, the hooks and the faces reach a turn through the agent and its hooks."""
    importers = sorted(module for source, arrows in ALL_ARROWS.items() if source != "agent"
                       for target, module in arrows if target == "handlers")
    assert not importers, f"modules outside agent/ importing the turn machine: {importers}"
    in_agent = sorted(module.removeprefix("autobyteus_like.").replace(".", "/") + ".py"
                      for target, module in ALL_ARROWS["agent"] if target == "handlers")
    builders = {"agent/_assembly.py",  # gives each actor the default handlers
                "agent/_turn_checks.py"}  # picks an agent's turn checks from its config
    assert set(in_agent) <= TURN_MACHINE_IN_AGENT | builders, in_agent


def test_the_team_the_mail_room_and_the_runtimes_ask_their_session_not_its_store():
    """Above the turn machine a session is one value (``Session``): nothing there reaches
    through it into the store's tables (``session.store``)."""
    reaching = sorted(
        f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
        for path, _ in _modules()
        if path.relative_to(ROOT).parts[0] in ("team", "mail", "runtime")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "store"
        and ast.unparse(node.value).endswith("session"))
    assert not reaching, f"reaching through a session into its store: {reaching}"


def test_no_two_classes_share_a_name():
    """One name, one idea: a public class name is used once in the package."""
    places: dict[str, list[str]] = defaultdict(list)
    for path, _ in _modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                places[node.name].append(path.relative_to(ROOT).as_posix())
    shared = {name: found for name, found in places.items() if len(found) > 1}
    assert not shared, f"classes sharing a name: {shared}"
