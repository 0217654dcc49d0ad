"""What the fuzzing of saved files and of threads found (test_fuzz_saved.py,
test_fuzz_threads.py), one reproducer each: a road hierarchy file whose
arrays do not form a hierarchy is refused naming the file; a path request
that races ``World.close`` finishes ``cancelled``; an update queued from
another thread while ``tick`` runs is applied, never lost."""
import dataclasses
import threading

import numpy as np
import pytest

import navcore
import navcore_roads
from navcore.files import npz_bytes

ROADS = dict(src=[0, 1, 2, 3, 4, 5, 1, 2, 4, 5, 0], dst=[1, 2, 3, 4, 5, 0, 4, 5, 1, 2, 3],
             cost=[10.0, 20.0, 10.0, 30.0, 10.0, 20.0, 60.0, 10.0, 50.0, 40.0, 70.0],
             positions=[[7.42 + 0.001 * (i % 3), 43.73 + 0.001 * (i // 3)] for i in range(6)],
             keep="all")


def _resaved(path, name, change):
    """The hierarchy at ``path`` with array ``name`` changed, saved again
    with a checksum that fits (so only the structural checks can tell)."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files if k != "checksum"}
    arrays[name] = change(arrays[name])
    path.write_bytes(npz_bytes(**arrays))


@pytest.mark.nojit
@pytest.mark.parametrize("customizable, name, change, says", [
    # DirectedHierarchy.from_arrays: a GraphError without the file's name
    (False, "bwd_w", lambda a: a[::-1].copy(), "arc"),
    (False, "rank", lambda a: np.zeros_like(a), "rank"),
    # CCHTopology.build: the same for a node order that is not a permutation
    (True, "order", lambda a: np.where(a == a[0], -1 - a, a), "permutation"),
])
def test_a_road_hierarchy_file_that_is_no_hierarchy_names_the_file(
        tmp_path, customizable, name, change, says):
    world = navcore.World()
    g = world.add_graph("r", type="roads", **ROADS)
    path = tmp_path / "h.npz"
    navcore_roads.contract(g, customizable=customizable, progress=False).save(path)
    _resaved(path, name, change)
    fresh = navcore.World().add_graph("r", type="roads", **ROADS)
    with pytest.raises(navcore.GraphError, match=says) as info:
        navcore_roads.load_hierarchy(fresh, path)
    assert str(path) in str(info.value)


@pytest.mark.nojit
def test_a_request_that_races_world_close_finishes_cancelled():
    """``request_path`` on one thread passed the world's closed check, then
    ``close()`` on another cancelled every queued request, then the request
    was queued: the handle never finished and ``waiting`` stayed 1. The
    scheduler's own ``request_path`` after ``close`` is that interleaving."""
    world = navcore.World(workers=2)
    world.add_graph("g", type="grid", rows=["....", "...."])
    world.close()
    h = world.scheduler.request_path("g", (0, 0), (3, 1))
    assert h.done and h.result().status == navcore.PathStatus.CANCELLED
    assert world.scheduler.requests.waiting == 0


@dataclasses.dataclass(frozen=True)
class _TickWhileQueued(navcore.Update):
    """An update whose queued copy, as ``World.update`` makes it, lets
    another thread run a whole ``tick`` first: the moment between
    ``update`` taking the graph's queue and appending to it."""

    def __post_init__(self):
        if self.seq:                    # the copy World.update queues
            world = self.params.pop("_world")
            th = threading.Thread(target=world.tick)
            th.start()
            th.join(0.5)                # with the queue locked the tick waits for it
            _TickWhileQueued.ticker = th


class _RacingPlugin:
    @navcore.hookimpl(tryfirst=True)
    def navcore_make_update(self, world, graph, params):
        from navcore_grid.updates import make_update
        u = make_update(graph, params)
        return _TickWhileQueued(u.graph_id, u.kind, {**u.params, "_world": world})


def test_an_update_queued_while_another_thread_ticks_is_applied():
    """``update`` took the graph's list from the queue, another thread's
    ``tick`` swapped the queue out and applied it, then ``update`` appended
    to the list that tick had done with: the update was neither applied nor
    queued."""
    world = navcore.World(plugins=[_RacingPlugin()])
    world.add_graph("g", type="grid", rows=["....", "...."])
    world.update("g", cells=[(1, 0)], walkable=False)
    _TickWhileQueued.ticker.join()
    world.tick()
    assert world.pending_updates("g") == 0
    assert not world.graph("g").walkable[1]


def _csr_lattice():
    """A 5 x 5 lattice with uneven costs: its hierarchy has shortcuts."""
    src, dst, cost = [], [], []
    for y in range(5):
        for x in range(5):
            for dx, dy in ((1, 0), (0, 1)):
                if x + dx < 5 and y + dy < 5:
                    src.append(5 * y + x)
                    dst.append(5 * (y + dy) + x + dx)
                    cost.append(float(1 + (3 * (5 * y + x) + 5 * dx + 7 * dy) % 5))
    return dict(src=src, dst=dst, cost=cost, directed=False)


@pytest.mark.nojit
@pytest.mark.parametrize("name, change", [
    # the heads of the upward arcs shuffled: every check of the arrays'
    # shape passed and (0, 1) cost 5.0 instead of 1.0
    ("fwd_head", lambda a: np.random.default_rng(270).permutation(a)),
    ("rank", lambda a: a[::-1].copy()),
    ("fwd_w", lambda a: np.where(np.arange(a.size) == 0, a + 1, a)),
])
def test_a_csr_hierarchy_file_changed_to_answer_wrong_is_refused(tmp_path, name, change):
    import navcore_csr
    g = navcore.World().add_graph("g", type="csr", **_csr_lattice())
    path = tmp_path / "ch.npz"
    navcore_csr.contract(g).save(path)
    _resaved(path, name, change)
    fresh = navcore.World().add_graph("g", type="csr", **_csr_lattice())
    with pytest.raises(navcore.GraphError, match="do not fit graph") as info:
        navcore_csr.load_contracted(fresh, path)
    assert str(path) in str(info.value)
    assert fresh.view(navcore_csr.contraction.VIEW_KEY) is None


@pytest.mark.nojit
def test_a_road_hierarchy_file_with_its_ranks_shuffled_is_refused(tmp_path):
    """``rank`` shuffled passed every check and answered 0 -> 4 at 60.0,
    cheaper than any path (70.0)."""
    g = navcore.World().add_graph("r", type="roads", **ROADS)
    path = tmp_path / "h.npz"
    navcore_roads.contract(g, progress=False).save(path)
    _resaved(path, "rank", lambda a: np.random.default_rng(0).permutation(a))
    fresh = navcore.World().add_graph("r", type="roads", **ROADS)
    with pytest.raises(navcore.GraphError, match="ranks name") as info:
        navcore_roads.load_hierarchy(fresh, path)
    assert str(path) in str(info.value)


@pytest.mark.nojit
def test_a_baked_mesh_with_a_vertex_near_the_float_limit_names_the_file(tmp_path):
    """A vertex at 1.7e308 passed the finite check; the polygons' centres
    overflowed to NaN and the graph refused them without naming the file."""
    import navcore_navmesh
    g = navcore.World().add_graph("m", type="navmesh", bounds=(0, 0, 10, 10))
    path = tmp_path / "m.npz"
    navcore_navmesh.save_mesh(path, g)
    _resaved(path, "vertices", lambda a: np.where(np.arange(a.size).reshape(a.shape) == 0,
                                                  np.finfo(np.float64).max, a))
    with pytest.raises(navcore.MeshFormatError, match="vertex 0") as info:
        navcore.World().add_graph("m", type="navmesh", mesh=str(path))
    assert info.value.path == str(path)


def test_closing_while_another_thread_serves_the_queue_reads_a_copy():
    """``close()`` on one thread walked the scheduler's queue of requests
    while a tick on another popped and pushed it: "deque mutated during
    iteration". A handle whose ``graph_id`` pushes a request as it is read
    is that interleaving: the walk must read a copy of the queue."""
    world = navcore.World(workers=2)
    world.add_graph("g", type="grid", rows=["....", "...."])
    queue = world.scheduler.requests
    h = world.request_path("g", (0, 0), (3, 1))
    other = world.request_path("g", (1, 0), (3, 1))
    pushed = []

    class Pushing:
        seq = -1

        @property
        def graph_id(self):
            if not pushed:                     # the other thread's tick, mid-walk
                pushed.append(queue._pending.popleft())
                queue._pending.append(pushed[0])
            return "g"

        def cancel(self):
            pass
    fake = Pushing()
    queue._pending.appendleft(fake)
    world.close()
    assert h.done and other.done
    assert h.result().status == other.result().status == navcore.PathStatus.CANCELLED
    queue._pending.remove(fake)
    assert queue.waiting == 0


def test_a_tick_reads_a_copy_of_the_search_times_close_may_drop(monkeypatch):
    """A tick on one thread walked the scheduler's search times per graph
    while ``close()`` on another dropped a graph's entry: "dictionary
    changed size during iteration". An estimate that drops another graph's
    times as it is read is that interleaving."""
    import navcore_scheduler.requests as requests
    world = navcore.World(workers=2)
    for gid in ("g", "h"):
        world.add_graph(gid, type="grid", rows=["....", "...."])
    queue = world.scheduler.requests
    for gid in ("g", "h"):
        world.request_path(gid, (0, 0), (3, 1))
    world.tick(budget_ms=50.0)
    assert set(queue._durations) == {"g", "h"}
    estimate = requests._estimate

    def dropping(d):
        queue._durations.pop("h", None)        # close() on the other thread
        return estimate(d)
    monkeypatch.setattr(requests, "_estimate", dropping)
    handles = [world.request_path(gid, (0, 0), (3, 1)) for gid in ("g", "h")]
    world.tick(budget_ms=50.0)
    assert all(h.done for h in handles)
    world.close()
