"""Kernels and signatures each graph type compiles: in a fresh process per
type, ``navcore.warm_up(type)`` (a sample graph with its views), then every
numba dispatcher's ``signatures``; kernels with more than one signature are
listed (each signature is a compile of its own on a first run).

    python bench/kernel_signatures.py [TYPE ...]
"""
import json
import subprocess
import sys

PROBE = """
import gc, json, sys
from numba.core.dispatcher import Dispatcher
import navcore
navcore.warm_up(sys.argv[1])
out = {}
for d in gc.get_objects():
    if isinstance(d, Dispatcher) and d.signatures:
        out[f"{d.py_func.__module__}.{d.py_func.__qualname__}"] = [str(s) for s in d.signatures]
print(json.dumps(out))
"""


def main():
    import navcore
    types = sys.argv[1:] or sorted(navcore.World(warm_up=False).graph_types())
    for t in types:
        got = subprocess.run([sys.executable, "-c", PROBE, t], capture_output=True, text=True)
        sigs = json.loads(got.stdout.strip().splitlines()[-1])
        total = sum(map(len, sigs.values()))
        print(f"{t}: {len(sigs)} kernels, {total} signatures")
        for name, s in sorted(sigs.items()):
            if len(s) > 1:
                print(f"    {name}: {len(s)}")
                for one in s:
                    print(f"        {one[:160]}")


if __name__ == "__main__":
    main()
