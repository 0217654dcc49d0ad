"""What the workers hold, asked from the client (tests, diagnostics)."""
from __future__ import annotations

from .cluster import check_client


def _counts(dask_worker=None) -> dict:
    from . import snapshot
    held = [] if dask_worker is None else sorted(
        v.token for v in list(dask_worker.data.values()) if isinstance(v, snapshot.Snapshot))
    return {"arrived": dict(snapshot.ARRIVED), "loaded": dict(snapshot.LOADED),
            "freed": dict(snapshot.FREED), "held": held}


def worker_counts(client) -> dict:
    """``{worker address: {"arrived": {token: n}, "loaded": {token: n},
    "freed": {token: n}, "held": [token, ...]}}``: how many times each
    graph snapshot (``token``: graph and version) arrived at each worker
    process, how many times the worker unpickled the graph from it (once
    per version, on its first tile) and freed that graph again (the
    snapshot released), and the snapshots it holds now."""
    return check_client(client).run(_counts)
