import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, settings

from tests.leftover_processes import left_running, mark_this_run
from tests.ray_local_cluster import LocalRayCluster

# Property tests judge what a parser or a guard returns, never how fast: on a loaded 2-core
# machine one example can take seconds of wall time, which Hypothesis's default deadline
# (200 ms) and its too_slow health check would report as failures. Tests that set their own
# settings keep them; these are the defaults they build on.
settings.register_profile("loaded_machine", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("loaded_machine")

RUN_MARK = mark_this_run()  # before any test starts a process

# The tests start hundreds of Python processes (the CLI, served teams, MCP servers, examples).
# Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE), each of them
# compiled every module of the package it imported, again: 0.2 s of CPU a start. They write
# it instead to a folder of this run's own, shared by all of them, removed at the end; the
# source tree stays as clean as the setting asked.
CHILD_BYTECODE: str | None = None
if os.environ.get("PYTHONDONTWRITEBYTECODE"):
    CHILD_BYTECODE = tempfile.mkdtemp(prefix="autobyteus-pyc-")
    os.environ["PYTHONPYCACHEPREFIX"] = CHILD_BYTECODE
    del os.environ["PYTHONDONTWRITEBYTECODE"]


_LEFT = pytest.StashKey[list[tuple[str, int, str]]]()
"""The processes the workers of a distributed run (pytest-xdist) found left running."""


def _distributing(config: pytest.Config) -> bool:
    """Whether this process hands the tests out to workers (xdist's controller)."""
    return config.pluginmanager.has_plugin("dsession")


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Nothing the run started is left running (servers, browsers, Ray, what they started).
    Each xdist worker looks for what it started (its own mark: it marks its children with its
    pid) and hands what it found to the controller, which reports them all (below)."""
    config = session.config
    if _distributing(config):  # starts no test process of its own
        left = config.stash.get(_LEFT, [])
    else:
        left = [("", pid, command) for pid, command in left_running(RUN_MARK)]
        if hasattr(config, "workerinput"):
            config.workeroutput["left_running"] = left  # type: ignore[attr-defined]
            return
    if left:
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            if _distributing(config):  # xdist's progress line is still open
                reporter.line("")
            reporter.write_line(f"processes left running by the tests: {len(left)}", red=True)
            for worker, pid, command in left:
                reporter.write_line(f"  {worker}{' ' if worker else ''}{pid} {command}",
                                    red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # type: ignore[no-untyped-def]
    """A worker ended: what it found left running, kept for the controller's report."""
    output = getattr(node, "workeroutput", None) or {}
    name = node.gateway.id
    node.config.stash.setdefault(_LEFT, []).extend(
        (name, pid, command) for _, pid, command in output.get("left_running", ()))


def pytest_unconfigure() -> None:
    if CHILD_BYTECODE is not None:
        shutil.rmtree(CHILD_BYTECODE, ignore_errors=True)


# What makes a test slow (seconds, not milliseconds): a Ray cluster, a real model, a fresh
# virtual environment, the reference MCP servers from npm. Such tests are marked ``slow`` here,
# by what they use, so the fast loop (pytest -m "not slow") leaves them out wherever they are
# written; CI runs everything.
SLOW_FIXTURES = frozenset({"ray_cluster", "head_node", "llama_server", "fresh_python",
                           "first_hour", "npm_servers"})


def _needs_ray(item: pytest.Item) -> bool:
    """Whether the test uses the suite's Ray cluster: asks for it, or runs on a Ray backend (a
    parameter ``runtime``/``backend`` starting with "ray"; those ask for it when they run)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return ("ray_cluster" in getattr(item, "fixturenames", ())
            or any(str(params.get(key, "")).startswith("ray") for key in ("runtime", "backend")))


RAY_OF_THEIR_OWN = frozenset({"tests/runtime/test_auto_cluster.py"})
"""Modules that start a Ray cluster of their own without a fixture that says so (another
cluster running beside it would be joined: this one runs before the suite's)."""


def _starts_ray(item: pytest.Item) -> bool:
    """Whether the test runs Ray: on the suite's cluster, a head node or a cluster of its own."""
    return (_needs_ray(item) or "head_node" in getattr(item, "fixturenames", ())
            or _relative(item) in RAY_OF_THEIR_OWN)


def _relative(item: pytest.Item) -> str:
    return item.path.relative_to(item.config.rootpath).as_posix()


def _xdist_group(item: pytest.Item) -> str | None:
    """The group of workers' tests (tests/xdist_groups.py) the test's module goes into."""
    if _starts_ray(item):
        return "ray"
    if "llama_server" in getattr(item, "fixturenames", ()):
        return "llama"
    return None


@pytest.hookimpl(tryfirst=True)  # before -m and -k deselect (the groups are whole modules)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _needs_ray(item) or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    if hasattr(config, "workerinput"):  # one of xdist's workers (every worker collects all)
        from tests.xdist_groups import share_out

        root = config.rootpath
        share_out(config, items, _xdist_group,
                  first=frozenset(root / path for path in RAY_OF_THEIR_OWN))
    else:
        _ray_modules_together(items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):  # type: ignore[no-untyped-def]
    """``--dist loadgroup`` (pyproject's addopts) with a whole module as the unit of an
    unmarked test, so that a module's fixtures are set up once (tests/xdist_groups.py)."""
    if config.getoption("dist") != "loadgroup":
        return None
    from tests.xdist_groups import ModuleOrGroupScheduling

    return ModuleOrGroupScheduling(config, log)


def _ray_modules_together(items: list[pytest.Item]) -> None:
    """The modules with a test on the suite's Ray cluster run one after another, from where
    the first of them sorts (whole modules: their module fixtures are set up once). The
    cluster stops after the last of them (below): its idle processes, a tenth of a core, no
    longer run beside the modules that sort between (serving, store, tools, web: minutes)."""
    ray_files = {item.path for item in items if _needs_ray(item)}
    if not ray_files:
        return
    first = next(index for index, item in enumerate(items) if item.path in ray_files)
    together = [item for item in items if item.path in ray_files]
    rest = [item for item in items if item.path not in ray_files]
    items[:] = rest[:first] + together + rest[first:]


_RAY = pytest.StashKey[LocalRayCluster]()
_LAST_RAY_TEST = pytest.StashKey[pytest.Item | None]()


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected theirs
def pytest_collection_finish(session: pytest.Session) -> None:
    session.config.stash[_RAY] = LocalRayCluster()
    session.config.stash[_LAST_RAY_TEST] = next(
        (item for item in reversed(session.items) if _needs_ray(item)), None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    """The Ray cluster stops as soon as the last test that needs it is done: its idle
    processes would slow every later test."""
    try:
        return (yield)
    finally:
        if item is item.config.stash.get(_LAST_RAY_TEST, None):
            item.config.stash[_RAY].stop()


@pytest.fixture(scope="session")
def _ray_cluster_once(pytestconfig: pytest.Config) -> Iterator[LocalRayCluster]:
    """Starts the cluster for the first test that needs it, before that test's thread check
    looks; stops it at the end of the run if it still runs."""
    cluster = pytestconfig.stash[_RAY]
    if not cluster.running:
        cluster.start()
    yield cluster
    cluster.stop()


@pytest.fixture
def ray_cluster(_ray_cluster_once: LocalRayCluster) -> ModuleType:
    """A real local Ray cluster, this process joined to it: the ``ray`` module. One for the
    run (its start costs seconds); a test asking after it stopped gets it started again."""
    return _ray_cluster_once.start() if not _ray_cluster_once.running else sys.modules["ray"]


@pytest.fixture(autouse=True)
def own_model_formats_cache(tmp_path_factory: pytest.TempPathFactory,
                            monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test keeps what ``tool_format: auto`` learns (the model_formats cache file) in a
    folder of its own, never in the user's ~/.cache: nothing learned in one test starts
    another. Child processes the test starts inherit it."""
    folder = tmp_path_factory.mktemp("model-formats")
    monkeypatch.setenv("AUTOBYTEUS_LIKE_CACHE", str(folder))
    return folder


@pytest.fixture(autouse=True)
def no_thread_left_behind():
    """Every test must leave no thread or actor running."""
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        # anyio.run tells its worker threads to stop when its loop ends, and does not wait for
        # them: on a busy machine one is still on its way out here. Ours are never let off.
        if thread.name == "AnyIO worker thread":
            thread.join(timeout=10)
    left = [t for t in set(threading.enumerate()) - before if t.is_alive()]
    assert not left, f"threads left running: {[t.name for t in left]}"


@pytest.fixture(scope="session")
def postgres_server():
    """A real PostgreSQL server for the whole test run (skips where none is installed)."""
    from tests.postgres_server import PostgresServer

    server = PostgresServer().start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def llama_server():
    """A real LLM (SmolLM2-135M on llama.cpp's server) for the whole test run (skips, saying
    why, where it is not set up)."""
    from tests.llama_server import LlamaServer

    server = LlamaServer().start()
    yield server
    server.stop()


@pytest.fixture
def software_team(tmp_path, monkeypatch):
    """The software example team in a folder of its own, the current folder (a session store
    lands beside it); the CLI arguments that name it and its tools."""
    examples = Path(__file__).resolve().parents[1] / "examples"
    for name in ("software_team.yaml", "example_tools.py"):
        (tmp_path / name).write_text((examples / name).read_text())
    monkeypatch.chdir(tmp_path)
    return ["software_team.yaml", "--tools", "example_tools.py:make_tools"]
