"""A LocalCluster of 2 worker processes for the Dask tests, closed (with
its processes) whatever the tests did."""
import contextlib

import pytest

dd = pytest.importorskip("dask.distributed")


@contextlib.contextmanager
def local_cluster(n_workers=2):
    cluster = dd.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                              dashboard_address=None, silence_logs=40)
    try:
        client = dd.Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def navcore_keys(client) -> list:
    """Keys of navcore jobs the scheduler still knows."""
    def keys(dask_scheduler):
        return [str(k) for k in dask_scheduler.tasks]
    return [k for k in client.run_on_scheduler(keys) if "navcore" in k or "Snapshot" in k]
