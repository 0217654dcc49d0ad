"""Which version of which graph the cluster holds, seen from the client.

``ship(client, graph)`` returns the future of the graph's snapshot on the
cluster, scattering it to every worker (``broadcast=True``) only when the
cluster does not hold this version yet: the graph's ``version`` (bumped by
every applied batch of updates) and the views it holds (a hierarchy built
since the last call is part of what the workers need). A new version
first releases the old one, then is scattered; tiles depend on the new
future, so none of them can run on the old graph. The plugin's
``navcore_graph_updated`` and ``navcore_graph_removed`` hooks release a
graph's snapshots at once (``release``), so the cluster holds no stale
copy between jobs; a graph dropped without either (its world let go of
whole) releases them when it is collected (``weakref.finalize``), not
whenever the futures happen to be.
"""
from __future__ import annotations

import threading
import uuid
import weakref

from navcore import validate
from navcore.views import DerivedView

from .snapshot import Snapshot, dumps

_lock = threading.RLock()
#: graph -> _Shipments; weak, so a graph the game drops is not kept alive
_shipped: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class _Shipments:
    """One graph's snapshots, one per client that asked for it."""

    def __init__(self):
        self.uid = uuid.uuid4().hex[:12]
        self.by_client: dict = {}      # client id -> (key, future)
        self.scattered = 0              # snapshots scattered so far (all clients)


def state_key(graph) -> tuple:
    """What decides whether the workers' copy is still the graph: its
    version and the views it holds (each by identity and the version it
    answers for)."""
    views = [(k, id(v), v.version) for k, v in graph.views().items()
             if isinstance(v, DerivedView)]
    return graph.version, tuple(sorted(views, key=repr))


def ship(client, graph):
    """The future of ``graph``'s current snapshot on ``client``'s cluster."""
    with _lock:
        entry = _shipped.get(graph)
        if entry is None:
            entry = _shipped[graph] = _Shipments()
            # (the finalizer holds the entry, never the graph)
            weakref.finalize(graph, _release_entry, entry).atexit = False
        key = state_key(graph)
        held = entry.by_client.get(client.id)
        if held is not None and held[0] == key and held[1].status != "lost":
            return held[1]
        if held is not None:
            entry.by_client.pop(client.id)
            held[1].release()           # the old version goes before the new one comes
        token = f"{entry.uid}-v{graph.version}-{entry.scattered}"
        future = client.scatter(Snapshot(token, dumps(graph)), broadcast=True, hash=False)
        entry.scattered += 1
        entry.by_client[client.id] = (key, future)
        return future


def scattered(graph) -> int:
    """How many snapshots of ``graph`` were scattered so far."""
    graph = validate.graph(graph)
    with _lock:
        entry = _shipped.get(graph)
        return 0 if entry is None else entry.scattered


def release(graph) -> None:
    """Drop ``graph``'s snapshots on every cluster (an update made them stale,
    or the graph left its world)."""
    if not _shipped:        # nothing shipped (every tick of a game without Dask):
        return              # no lock, no weak reference made for the look-up
    with _lock:
        entry = _shipped.get(graph)
        if entry is None:
            return
        held, entry.by_client = entry.by_client, {}
    _release_futures(held)


def _release_entry(entry: _Shipments) -> None:
    """The finalizer of a collected graph. It takes no lock: it may run in
    any thread the garbage collector happens to run in, the client's event
    loop too, while ``ship`` holds ``_lock`` waiting on that loop to
    scatter (a deadlock). Nothing else can touch the entry any more: a
    ``ship`` of the graph would hold it alive."""
    held, entry.by_client = entry.by_client, {}
    _release_futures(held)


def _release_futures(held: dict) -> None:
    # Future.release only posts a callback to the client's loop: it never waits
    for _, future in held.values():
        try:
            future.release()
        except Exception:      # a client already closed has released it anyway
            pass
