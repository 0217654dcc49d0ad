"""Cold start to the first answer, per graph type: a fresh process with an
empty ``NUMBA_CACHE_DIR`` imports navcore, adds a small graph of the type
(``add_graph`` warms its kernels up, compiling them all) and answers one
``find_path``; the seconds from start to that answer. Then the same with
the cache that run filled (a player's later launches).

    flock /tmp/navcore-cpu.lock python bench/coldstart_types.py [TYPE ...]

Run it with another tree first on ``PYTHONPATH`` to measure that tree.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

GRAPHS = {
    "csr": ('add_graph("g", type="csr", src=[0, 1, 2], dst=[1, 2, 3], cost=[1.0, 1.0, 1.0])',
            "0, 3"),
    "grid": ('add_graph("g", type="grid", rows=["....", ".##.", "...."])', "(0, 0), (3, 2)"),
    "navmesh": ('add_graph("g", type="navmesh", bounds=(0, 0, 20, 10), '
                'obstacles=[[(5, 2), (8, 2), (8, 6), (5, 6)]])', "(1, 1), (18, 8)"),
    "roads": ('add_graph("g", type="roads", src=[0, 1, 2], dst=[1, 2, 3], cost=[1.0] * 3, '
              'positions=[[7.42, 43.73], [7.421, 43.73], [7.422, 43.73], [7.423, 43.73]], '
              'keep="all", compress=False)',
              "0, 3"),
}

SCRIPT = """
import time, sys
t0 = time.perf_counter()
import navcore
w = navcore.World()
w.{add}
r = w.find_path("g", {ends})
print(r.status.value, time.perf_counter() - t0)
w.scheduler.close()
"""


def main():
    types = sys.argv[1:] or list(GRAPHS)
    out = {}
    for t in types:
        add, ends = GRAPHS[t]
        with tempfile.TemporaryDirectory() as cache:
            env = dict(os.environ, NUMBA_CACHE_DIR=cache)
            row = {}
            for label in ("cold", "warm"):
                t0 = time.perf_counter()
                got = subprocess.run([sys.executable, "-c", SCRIPT.format(add=add, ends=ends)],
                                     env=env, capture_output=True, text=True)
                wall = time.perf_counter() - t0
                if got.returncode:
                    raise SystemExit(got.stderr[-2000:])
                status, secs = got.stdout.split()[-2:]
                row[label] = {"status": status, "to_answer_s": round(float(secs), 2),
                              "process_s": round(wall, 2)}
            out[t] = row
            print(t, json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
