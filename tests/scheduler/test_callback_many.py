"""Callbacks with a ``many`` attribute: one call a frame with the handles
that share it, in request order, after the per-request callbacks, seeing
every result of the frame; one that raises loses no result and no other
callback, is logged and raised again at the end of the tick."""
import pytest

import navcore

ROOM = ["..........", "..........", "....#.....", "....#.....", ".........."]


def _world():
    world = navcore.World(frame_budget_ms=1e7)
    world.add_graph("d", type="grid", rows=ROOM)
    return world


class _Unit:
    """A unit's callback; ``many`` shared by a whole army."""

    def __init__(self, army, i):
        self.army, self.i = army, i
        self.many = army.note_many

    def __call__(self, handle):
        self.army.log.append(("one", self.i, handle.seq))


class _Army:
    def __init__(self, fail=False):
        self.log, self.fail = [], fail

    def note_many(self, handles):
        self.log.append(("many", [h.callback.i for h in handles]))
        assert all(h.done for h in handles)
        if self.fail:
            raise RuntimeError("the army's bug")


ENDS = [((0, 0), (9, 4)), ((1, 0), (9, 0)), ((0, 4), (9, 3)), ((2, 2), (7, 2)),
        ((0, 1), (8, 4))]


@pytest.mark.nojit
def test_many_is_called_once_a_frame_in_request_order_after_the_others():
    world = _world()
    army, seen = _Army(), []
    plain = lambda h: seen.append((h.seq, [x.done for x in handles]))     # noqa: E731
    handles = []
    for k, (a, b) in enumerate(ENDS):
        cb = plain if k == 2 else _Unit(army, k)
        handles.append(world.request_path("d", a, b, callback=cb))
    world.tick()
    assert army.log == [("many", [0, 1, 3, 4])]
    assert seen == [(handles[2].seq, [True] * 5)]       # every result was out already
    truth = [world.find_path("d", a, b) for a, b in ENDS]
    assert [h.result().nodes.tolist() for h in handles] == [t.nodes.tolist() for t in truth]
    world.tick()
    assert army.log == [("many", [0, 1, 3, 4])]          # nothing more to say


@pytest.mark.nojit
def test_a_raising_many_loses_no_result_and_no_other_callback(caplog):
    world = _world()
    army, seen = _Army(fail=True), []
    handles = [world.request_path("d", a, b, callback=_Unit(army, k) if k % 2 else
                                  (lambda h: seen.append(h.seq)))
               for k, (a, b) in enumerate(ENDS)]
    with pytest.raises(RuntimeError, match="the army's bug") as err:
        world.tick()
    notes = "".join(getattr(err.value, "__notes__", []))
    assert f"path request {handles[1].seq}" in notes
    assert all(h.done and h.result().found for h in handles)
    assert seen == [handles[0].seq, handles[2].seq, handles[4].seq]
    assert army.log == [("many", [1, 3])]
    assert any("many()" in r.message for r in caplog.records)
    world.tick()                                          # raised once


@pytest.mark.nojit
def test_an_unhashable_many_falls_back_to_per_request_calls():
    world = _world()
    army = _Army()

    class Unhashable:
        __hash__ = None

        def __call__(self, handles):
            army.log.append(("never", handles))

    units = [_Unit(army, k) for k in range(2)]
    for u in units:
        u.many = Unhashable()
    hs = [world.request_path("d", a, b, callback=u) for u, (a, b) in zip(units, ENDS)]
    world.tick()
    assert army.log == [("one", 0, hs[0].seq), ("one", 1, hs[1].seq)]
