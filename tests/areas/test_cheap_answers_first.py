"""Start and goal in different areas: the areas plugin's pre-check
(``navcore.precheck``) answers ``unreachable`` before any backend
searches, on every graph type and whatever order the plugins were
registered in, for ``find_path`` and for the scheduler's batches."""
import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import navcore
from navcore.types import PathStatus

from conftest import NOJIT

pytestmark = pytest.mark.skipif(NOJIT, reason="counts calls of numba kernels")

ROOT = Path(__file__).resolve().parents[2]


def _hexgrid():
    name = "navcore_hexgrid"
    if name not in sys.modules:
        path = ROOT / "examples" / name / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name]


def _grid(w):
    w.add_graph("g", type="grid", rows=["..#..", "..#..", "..#.."])
    return (0, 0), (4, 2), (0, 0), (1, 2)        # apart; together


def _csr(w):
    w.add_graph("g", type="csr", src=[0, 1, 3, 4], dst=[1, 2, 4, 5], directed=False)
    return 0, 5, 0, 2


def _navmesh(w):
    w.add_graph("g", type="navmesh", walkable=[[[0, 0], [4, 0], [4, 4], [0, 4]],
                                               [[6, 0], [10, 0], [10, 4], [6, 4]]])
    return (1.0, 1.0), (8.0, 3.0), (1.0, 1.0), (3.0, 3.0)


def _roads(w):
    pos = np.array([[0, 0], [0.01, 0], [0.02, 0], [1, 1], [1.01, 1], [1.02, 1]])
    w.add_graph("g", type="roads", src=[0, 1, 3, 4], dst=[1, 2, 4, 5],
                length=[1000.0] * 4, speed=[50.0] * 4, positions=pos, oneway=False,
                keep="all")
    return 0, 5, 0, 2


def _hex(w):
    w.add_graph("g", type="hexgrid", width=5, height=3,
                blocked=[(2, 0), (2, 1), (1, 2)])
    return (0, 0), (4, 2), (0, 0), (0, 2)


#: graph type -> (plugin name, make, modules whose numba kernels its searches call)
CASES = {
    "grid": ("grid", _grid, ["navcore_grid._jps", "navcore_grid._kernels",
                             "navcore_grid.parallel"]),
    "csr": ("csr", _csr, ["navcore_csr._search"]),
    "navmesh": ("navmesh", _navmesh, ["navcore_navmesh._polyanya",
                                      "navcore_navmesh._polygon_search"]),
    "roads": ("roads", _roads, ["navcore_roads._search", "navcore_csr._ch"]),
    "hexgrid": ("navcore_hexgrid", _hex, ["navcore_csr._search"]),
}


class Counter:
    """Every numba kernel of some modules, wrapped to count its calls from
    Python (the searches call them through their module attributes)."""

    def __init__(self, monkeypatch, modules):
        self.calls = 0
        for name in modules:
            try:
                mod = importlib.import_module(name)
            except ImportError:
                continue
            for attr, fn in list(vars(mod).items()):
                if type(fn).__name__ == "CPUDispatcher":
                    monkeypatch.setattr(mod, attr, self._wrap(fn))

    def _wrap(self, fn):
        def counted(*args, **kwargs):
            self.calls += 1
            return fn(*args, **kwargs)
        return counted

    def take(self) -> int:
        n, self.calls = self.calls, 0
        return n


class LateSearcher:
    """A third-party ``tryfirst`` searcher registered after every other
    plugin: asked only when the pre-checks passed."""

    def __init__(self):
        self.asked = 0

    @navcore.hookimpl(tryfirst=True)
    def navcore_find_path(self, graph, request):
        self.asked += 1

    @navcore.hookimpl(tryfirst=True)
    def navcore_find_paths(self, graph, batch):
        self.asked += len(batch.todo())       # (not firstresult: asked every time)


def _world(kind, order):
    plugin, make, _ = CASES[kind]
    w = navcore.World(workers=0, warm_up=False)
    if kind == "hexgrid":
        w.plugins.register(_hexgrid(), plugin)
    if order == "areas_last":
        areas = w.plugins.get("areas")
        w.plugins.unregister("areas")
        w.plugins.register(areas, "areas")
    elif order == "backend_last":
        mine = w.plugins.get(plugin)
        w.plugins.unregister(plugin)
        w.plugins.register(mine, plugin)
    late = LateSearcher()
    w.plugins.register(late)
    a, b, c, d = ends = make(w)
    assert w.graph("g").view("navcore_areas") is not None      # the areas are current
    # the kernels of both paths compiled (or loaded) before Counter wraps
    # them: a kernel compiled later would find a wrapper among its globals
    w.find_path("g", c, d)
    w.request_path("g", c, d)
    w.request_path("g", c, d)
    w.tick(budget_ms=1e6)
    late.asked = 0
    return w, late, ends


@pytest.mark.parametrize("order", ["default", "areas_last", "backend_last"])
@pytest.mark.parametrize("kind", list(CASES))
def test_find_path_between_areas_runs_no_search(kind, order, monkeypatch):
    w, late, (a, b, c, d) = _world(kind, order)
    count = Counter(monkeypatch, CASES[kind][2])
    r = w.find_path("g", a, b)
    assert (r.status, r.expanded, r.algorithm) == (PathStatus.UNREACHABLE, 0, "hierarchy")
    assert count.take() == 0 and late.asked == 0
    # the same area: the search runs (what the counter would have seen)
    r = w.find_path("g", c, d)
    assert r.status is PathStatus.FOUND
    assert count.take() > 0 and late.asked == 1


@pytest.mark.parametrize("order", ["default", "areas_last"])
@pytest.mark.parametrize("kind", list(CASES))
def test_sliced_searches_between_areas_run_no_search(kind, order, monkeypatch):
    w, late, (a, b, c, d) = _world(kind, order)
    count = Counter(monkeypatch, CASES[kind][2])
    search = w.begin_search("g", a, b)
    assert search.step(1)
    r = search.result()
    assert (r.status, r.expanded, r.algorithm) == (PathStatus.UNREACHABLE, 0, "hierarchy")
    assert count.take() == 0
    search = w.begin_search("g", c, d)
    while not search.step(1000):
        pass
    assert search.result().status is PathStatus.FOUND and count.take() > 0


@pytest.mark.parametrize("order", ["default", "areas_last", "backend_last"])
@pytest.mark.parametrize("kind", list(CASES))
def test_requests_between_areas_run_no_search(kind, order, monkeypatch):
    w, late, (a, b, c, d) = _world(kind, order)
    count = Counter(monkeypatch, CASES[kind][2])
    apart = [w.request_path("g", a, b) for _ in range(3)]
    w.tick(budget_ms=1e6)
    for h in apart:
        r = h.result()
        assert (r.status, r.expanded) == (PathStatus.UNREACHABLE, 0)
    assert count.take() == 0 and late.asked == 0
    together = [w.request_path("g", c, d) for _ in range(2)]
    w.tick(budget_ms=1e6)
    assert all(h.result().status is PathStatus.FOUND for h in together)
    assert count.take() > 0 and late.asked > 0


def test_prechecks_stay_first_in_pluggys_own_list():
    """``plugins.hook.navcore_find_path(...)`` (pluggy's call, not the
    registry's) runs the pre-check first too, and registering a
    ``tryfirst`` implementation later does not move it."""
    w = navcore.World(warm_up=False)
    late = LateSearcher()
    w.plugins.register(late)
    impls = w.plugins.hook.navcore_find_path.get_hookimpls()
    assert impls[-1].plugin_name == "areas"             # pluggy calls from the end
    assert impls[-2].plugin is late
    _grid(w)
    r = w.plugins.hook.navcore_find_path(
        world=w, graph=w.graph("g"), request=w.prepare_path("g", (0, 0), (4, 2))[1])
    assert r.status is PathStatus.UNREACHABLE and late.asked == 0


def test_precheck_marks_plain_implementations_only():
    def gen():
        yield

    with pytest.raises(navcore.PluginError, match="plain hook implementation"):
        navcore.precheck(gen)
    with pytest.raises(navcore.PluginError, match="plain hook implementation"):
        navcore.precheck(3)


def test_a_precheck_under_for_graphs_is_first_for_its_graphs_only():
    from navcore_grid import GridGraph

    asked = []

    class Mine:
        @navcore.hookimpl
        @navcore.for_graphs(GridGraph)
        @navcore.precheck
        def navcore_find_path(self, graph, request):
            asked.append(request.goal_node)

    w = navcore.World(warm_up=False)
    w.plugins.register(Mine())
    late = LateSearcher()
    w.plugins.register(late)
    _grid(w)
    w.add_graph("c", type="csr", src=[0], dst=[1])
    assert w.find_path("g", (0, 0), (1, 0)).found
    assert asked == [1] and late.asked == 1
    assert w.find_path("c", 0, 1).found
    assert asked == [1] and late.asked == 2


def _spec_module():
    class Spec:
        @navcore.hookspec(firstresult=True)
        def navcore_try_me(self, x):
            """a hook of the test's own"""
    return Spec


@pytest.mark.parametrize("seed", range(6))
def test_other_implementations_keep_pluggys_order(seed):
    """Whatever the registration order and the marks, the implementations
    that are not pre-checks run in the order pluggy gives them without any
    pre-check (ranks, then the last registered first), and the pre-checks
    run before all of them."""
    import pluggy
    rng = np.random.default_rng(seed)
    marks = [dict(tryfirst=True), dict(trylast=True), {}]
    plugins = []
    for k in range(7):
        opts = marks[int(rng.integers(3))]
        pre = bool(rng.integers(3) == 0)

        def impl(x, _k=k):
            calls.append(_k)
        impl = navcore.precheck(impl) if pre else impl
        plugins.append((f"p{k}", opts, pre, impl))
    calls = []

    def holder(fn, opts):
        return type("P", (), {"navcore_try_me": staticmethod(navcore.hookimpl(**opts)(fn))})

    registry = navcore.PluginRegistry(autoload=False)
    registry.add_hookspecs(_spec_module())
    plain = pluggy.PluginManager("navcore")
    plain.add_hookspecs(_spec_module())
    for name, opts, pre, fn in plugins:
        registry.register(holder(fn, opts), name)
        if not pre:
            plain.register(holder(fn, opts), name)
    calls.clear()
    registry.hook.navcore_try_me(x=0)
    via_pluggy = list(calls)
    calls.clear()
    registry.caller("navcore_try_me")(0)
    assert calls == via_pluggy
    calls.clear()
    plain.hook.navcore_try_me(x=0)
    others = list(calls)
    pres = [k for k, (_, _, pre, _) in enumerate(plugins) if pre]
    assert sorted(via_pluggy[:len(pres)]) == pres
    assert via_pluggy[len(pres):] == others
