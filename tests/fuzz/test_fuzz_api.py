"""Property fuzz of the public API: every call returns or raises a
NavError naming the mistake, and a NavError leaves the world unchanged
(fuzzkit.check_call). ``make test`` runs a few derandomised examples of
each; ``make fuzz`` many more, with fresh seeds."""
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import navcore

import fuzzkit as kit
import fuzzspecs as spec

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module", autouse=True)
def kernels_loaded():
    # the first build of each type loads (or compiles) its kernels: outside
    # the per-call time limit
    spec.warm_kernels()


@pytest.mark.parametrize("kind", sorted(spec.VALID))
@settings(kit.FUZZ)
@given(data=st.data())
def test_add_graph(kind, data):
    params = data.draw(kit.mutate(spec.VALID[kind], spec.KEYS[kind]), label="params")
    world = navcore.World()
    world.add_graph("keep", type="grid", rows=["..", ".."])
    status, out = kit.check_call(world, "world.add_graph", world.add_graph, "new",
                                 type=kind, **params)
    event(status if status != "error" else f"{type(out).__name__}: {str(out)[:50]}")
    if status == "ok":
        assert isinstance(out, navcore.NavGraph) and world.graphs["new"] is out
        assert out.walkable.shape == (out.num_nodes,)


@settings(kit.FUZZ)
@given(graph_id=kit.junk(3), kind=st.one_of(st.sampled_from(["grid", "csr", "Grid"]),
                                            kit.junk(2)))
def test_add_graph_ids_and_types(graph_id, kind):
    world = navcore.World()
    world.add_graph("keep", type="grid", rows=[".."])
    kit.check_call(world, "world.add_graph", world.add_graph, graph_id, type=kind,
                   rows=[".."], src=[0], dst=[1])


@settings(kit.FUZZ)
@given(kwargs=spec.world_kwargs())
def test_world_init(kwargs):
    status, out = kit.check_call(None, "World", navcore.World, **kwargs)
    if status == "ok" and out.scheduler is not None:
        out.scheduler.close()


@settings(kit.FUZZ)
@given(data=st.data())
def test_calls(data):
    world = spec.base_world()
    handles = []
    for _ in range(data.draw(st.integers(1, 5), label="calls")):
        name, args, kwargs = data.draw(spec.api_calls(world), label="call")
        status, out = kit.check_call(world, f"world.{name}", getattr(world, name), *args,
                                     **kwargs)
        event(f"{name}: {status}" if status != "error" else f"{name}: {type(out).__name__}")
        if name == "request_path" and status == "ok":
            handles.append(out)
    kit.check_call(world, "world.tick", world.tick)
    for h in handles:
        if h.done:
            # a request that was malformed fails at the tick that serves it;
            # its result() must still be a NavError, not a raw one
            kit.check_call(world, "handle.result", h.result)
