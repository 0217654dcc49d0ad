"""A graph and its derived views as one picklable snapshot for Dask workers.

A ``NavGraph`` is numpy arrays plus the things a running process keeps
beside them: locks, per-thread scratch (``threading.local``), a weak
reference to its world. None of those can cross a process boundary, and
none of them is part of the graph: a worker needs fresh locks, scratch of
its own threads, and no world of the client. ``dumps`` pickles the graph
with every view it holds (CSR, contraction hierarchies, areas) and
replaces exactly those objects by fresh ones on the worker.

``Snapshot`` is what is scattered: the pickled bytes under a token naming
the graph and its version. A worker unpickles the graph once, on the first
tile that needs it, and keeps it with the scattered object, so releasing
the object on the cluster frees the graph on every worker.
"""
from __future__ import annotations

import _thread
import collections
import io
import pickle
import threading
import types
import weakref

from navcore.errors import QueryError

#: per process: how many snapshots arrived (were unpickled from the wire),
#: how many graphs were unpickled from them and how many of those graphs
#: were freed again (the snapshot released), by token (tests and
#: ``navcore_dask.worker_counts`` read these on the workers)
ARRIVED: collections.Counter = collections.Counter()
LOADED: collections.Counter = collections.Counter()
FREED: collections.Counter = collections.Counter()
_load_lock = threading.Lock()


class _Dead:
    pass


def _dead_ref():
    # a weak reference is no claim on its referent; on the worker the
    # referent (the client's world) is not there, as if it had been freed
    return weakref.ref(_Dead())


def _read_only(mapping: dict):
    # (types.MappingProxyType itself cannot be pickled by name)
    return types.MappingProxyType(mapping)


class _GraphPickler(pickle.Pickler):
    """Pickles a graph, replacing process-bound objects by fresh ones."""

    def reducer_override(self, obj):
        kind = type(obj)
        if kind is _thread.RLock:
            return threading.RLock, ()
        if kind is _thread.LockType:
            return threading.Lock, ()
        if kind is threading.local or kind is _thread._local:
            return threading.local, ()
        if kind is weakref.ReferenceType:
            return _dead_ref, ()
        if kind is types.MappingProxyType:
            return _read_only, (dict(obj),)
        return NotImplemented


def dumps(graph) -> bytes:
    """The graph and its views as bytes, read through the graph's sequence
    lock (``read_consistent``): a batch of updates applied meanwhile makes
    it pickle again, so no batch is half in it."""
    def read():
        buf = io.BytesIO()
        _GraphPickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(graph)
        return buf.getvalue()
    try:
        return graph.read_consistent(read)
    except (TypeError, pickle.PicklingError, AttributeError) as exc:
        raise QueryError(f"{graph.kind} graph {graph.graph_id!r} cannot be sent to Dask "
                         f"workers: {exc}") from None


class Snapshot:
    """One version of a graph, as scattered to the workers.

    ``token`` names the graph and version (``<uuid>-v<version>``). On the
    client it holds the pickled bytes until they are sent; on a worker,
    ``graph()`` unpickles them once and drops the bytes (sending it on to
    another worker pickles the graph again)."""

    def __init__(self, token: str, payload: bytes):
        self.token = token
        self._payload = payload
        self._graph = None
        self.nbytes = len(payload)

    def graph(self):
        """The graph, unpickled on first use in this process."""
        if self._graph is None:
            with _load_lock:
                if self._graph is None:
                    self._graph = pickle.loads(self._payload)
                    self._payload = None
                    LOADED[self.token] += 1
        return self._graph

    def __reduce__(self):
        payload = self._payload if self._payload is not None else dumps(self._graph)
        return _arrive, (self.token, payload)

    def __sizeof__(self) -> int:
        # what Dask's memory accounting and transfer estimates see
        return self.nbytes

    def __dask_tokenize__(self):
        return self.token

    def __repr__(self) -> str:
        return f"<navcore_dask.Snapshot {self.token}>"


def _arrive(token: str, payload: bytes) -> Snapshot:
    ARRIVED[token] += 1
    return Snapshot(token, payload)
