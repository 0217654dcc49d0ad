"""A graph sent to Dask workers is one version of it: pickling waits for
an update batch being applied on another thread, so no batch is half in
the bytes (no cluster needed: the snapshot is taken in this process)."""
import pickle
import threading
import time

import numpy as np

import navcore
from navcore_dask import snapshot


def test_snapshot_taken_during_a_batch_holds_the_whole_batch():
    with navcore.World(autoload=True) as world:
        g = world.add_graph("ring", type="csr", src=[0, 1, 2], dst=[1, 2, 0],
                            cost=[1.0, 1.0, 1.0])
        g.begin_write()                        # a batch begins on this thread ...
        g.csr.cost[0] = 5.0                    # ... half applied
        taken = []
        reader = threading.Thread(target=lambda: taken.append(snapshot.dumps(g)))
        reader.start()
        time.sleep(0.3)                        # longer than the reader's patience
        assert not taken, "the snapshot was pickled in the middle of a batch"
        g.csr.cost[1] = 7.0                    # the rest of the batch
        g.end_write()
        reader.join(timeout=30)
        assert taken, "no snapshot after the batch ended"
    copy = pickle.loads(taken[0])
    np.testing.assert_array_equal(copy.csr.cost, [5.0, 7.0, 1.0])
