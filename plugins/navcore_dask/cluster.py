"""Reaching a Dask cluster: ``connect`` and the checks every job makes on
the client it is given. Dask is imported only here and only when used, so
navcore and this plugin load without the ``dask`` extra."""
from __future__ import annotations

import sys

from navcore.errors import NavError

INSTALL_HINT = "install the dask extra: pip install 'navcore[dask]'"
#: a LocalCluster's worker processes import the calling script again, and
#: one that connects at its top level starts a cluster in each of them
MAIN_GUARD = ("each worker process imports the script again, so put the code that "
              "calls navcore_dask.connect() under 'if __name__ == \"__main__\":'")


class ClusterError(NavError, ConnectionError):
    """A Dask cluster that cannot be reached or used: the ``dask`` extra
    is not installed, an address that does not answer, a closed client,
    workers that kept dying under a job."""


def distributed():
    """The ``dask.distributed`` module, or ``ClusterError`` saying how to
    install it."""
    try:
        import dask.distributed as dd
    except ImportError as exc:
        raise ClusterError(f"navcore_dask needs dask.distributed ({exc}); "
                           f"{INSTALL_HINT}") from None
    return dd


def connect(address=None, *, n_workers=None, threads_per_worker: int = 1,
            timeout: float = 30.0, **cluster_options):
    """A ``dask.distributed.Client``: to the scheduler at ``address``
    (``"tcp://host:8786"``), or without one to a new ``LocalCluster`` of
    worker processes on this machine (one per core by default, each with
    ``threads_per_worker`` threads) that closes with the client.

    Close it with ``client.close()`` (or use it in a ``with`` block).
    ``ClusterError`` when the extra is not installed or the scheduler does
    not answer within ``timeout`` seconds.
    """
    dd = distributed()
    if address is not None and not isinstance(address, str):
        raise ClusterError(f"address must be a scheduler address such as "
                           f"'tcp://host:8786' or None (a LocalCluster), got {address!r}")
    if address is not None and not address.strip():
        raise ClusterError("address is empty; give a scheduler address such as "
                           "'tcp://host:8786', or None for a LocalCluster")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ClusterError(f"timeout must be a number of seconds > 0, got {timeout!r}")
    if address is None:
        if _starting_a_process():
            raise ClusterError(f"connect() ran while a worker process was starting: {MAIN_GUARD}")
        for name, value in (("n_workers", n_workers), ("threads_per_worker", threads_per_worker)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ClusterError(f"{name} must be an integer >= 1, got {value!r}")
        options = {"processes": True, "dashboard_address": None, **cluster_options}
        try:
            return dd.Client(n_workers=n_workers, threads_per_worker=threads_per_worker,
                             timeout=timeout, **options)
        except Exception as exc:      # dask raises many kinds here, all "no cluster"
            _drop_half_made_client()
            hint = f"; if this runs from a script: {MAIN_GUARD}" if _run_as_script() else ""
            raise ClusterError(f"could not start a LocalCluster: {str(exc).rstrip('.')}{hint}") from None
    try:
        return dd.Client(address, timeout=timeout)
    except Exception as exc:          # refused, timed out, a bad scheme, a closed comm ...
        _drop_half_made_client()
        raise ClusterError(f"no Dask scheduler answered at {address!r} within {timeout:g} s: "
                           f"{exc}") from None


def _starting_a_process() -> bool:
    """Whether this is a new worker process importing the parent's script
    (multiprocessing's spawn sets ``_inheriting`` while it does, and checks
    it the same way before it starts a process)."""
    import multiprocessing
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def _run_as_script() -> bool:
    main = sys.modules.get("__main__")
    return getattr(main, "__file__", None) is not None


def _drop_half_made_client():
    """A ``Client`` whose ``__init__`` failed still has a running loop and
    closes it in ``__del__``. Left to the garbage collector, that close can
    run inside the next cluster's start-up (a ``__del__`` fired by an
    allocation there) and deadlock on the loop runner's lock: collect it
    now, while nothing else is starting."""
    import gc
    gc.collect()


def check_client(client):
    """``client`` if it is a running ``dask.distributed.Client``, else
    ``ClusterError``."""
    dd = distributed()
    if not isinstance(client, dd.Client):
        raise ClusterError(f"client must be a dask.distributed.Client (navcore_dask.connect() "
                           f"makes one), got {client!r}")
    if client.status != "running":
        raise ClusterError(f"the Dask client is {client.status}, not running; connect again")
    return client


def total_threads(client) -> int:
    """Threads of all workers now (1 when none has joined yet)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except Exception:            # a scheduler that went away: the job will say so
        return 1
