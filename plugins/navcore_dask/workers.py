"""What the workers hold, asked from the client (tests, diagnostics)."""
from __future__ import annotations

from .cluster import check_client


def _counts() -> dict:
    from . import snapshot
    return {"arrived": dict(snapshot.ARRIVED), "loaded": dict(snapshot.LOADED)}


def worker_counts(client) -> dict:
    """``{worker address: {"arrived": {token: n}, "loaded": {token: n}}}``:
    how many times each graph snapshot (``token``: graph and version)
    arrived at each worker process, and how many times the worker
    unpickled the graph from it (once per version, on its first tile)."""
    return check_client(client).run(_counts)
