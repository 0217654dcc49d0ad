"""What it costs to hand a numba kernel its arrays, by the form they take:
the per-call price every query pays before its kernel does any work.

    .venv/bin/python bench/kernel_args.py            # about 20 seconds
    .venv/bin/python bench/kernel_args.py --quick    # a smoke run

A kernel of navcore reads many arrays (a contraction hierarchy's query
reads 26: two graphs, the searches' scratch, the shortcut table). Forms:

* ``separate``: every array a positional argument (what the query kernels
  of the csr hierarchy, Polyanya and the road searches take);
* ``tuple``: the arrays in three plain tuples of eight (a grid's search inputs);
* ``namedtuple``: the same in ``typing.NamedTuple``s;
* ``structref``: three groups, each one ``numba.experimental.structref`` object per group,
  made once by a cached ``@njit`` constructor (a structref made from
  Python compiles its constructor in every process);
* ``structref, one``: all the arrays in one structref;
* ``scalars``: no arrays at all, the floor of a numba call.

Each form is timed on the same trivial kernel (it reads one element of the
first and last array), ``calls`` calls per sample, rotating the order
every round. Reported: the median microseconds per call and the ratio to
``separate``. Results: ``bench/results/kernel_args.json``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.experimental import structref

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import interleaved, log, machine, median, print_table, write_json  # noqa: E402

ARRAYS = 24
FULL = dict(calls=100_000, rounds=9)
QUICK = dict(calls=5_000, rounds=3)


@structref.register
class _GroupType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class Group(structref.StructRefProxy):
    """Eight float64 arrays as one object a kernel reads by field."""


@structref.register
class _AllType(types.StructRef):
    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(t)) for name, t in fields)


class AllArrays(structref.StructRefProxy):
    """All 24 arrays as one object."""


structref.define_proxy(Group, _GroupType, [f"a{i}" for i in range(8)])
structref.define_proxy(AllArrays, _AllType, [f"a{i}" for i in range(24)])


class NamedGroup(NamedTuple):
    a0: np.ndarray
    a1: np.ndarray
    a2: np.ndarray
    a3: np.ndarray
    a4: np.ndarray
    a5: np.ndarray
    a6: np.ndarray
    a7: np.ndarray


@njit(cache=True, nogil=True)
def make_group(a0, a1, a2, a3, a4, a5, a6, a7):
    return Group(a0, a1, a2, a3, a4, a5, a6, a7)


@njit(cache=True, nogil=True)
def make_all(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,
             a17, a18, a19, a20, a21, a22, a23):
    return AllArrays(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15,
                     a16, a17, a18, a19, a20, a21, a22, a23)


@njit(cache=True, nogil=True)
def separate(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16,
             a17, a18, a19, a20, a21, a22, a23, s, t):
    return a0[s] + a23[t]


@njit(cache=True, nogil=True)
def grouped(g0, g1, g2, s, t):
    return g0[0][s] + g2[7][t]


@njit(cache=True, nogil=True)
def by_field(g0, g1, g2, s, t):
    return g0.a0[s] + g2.a7[t]


@njit(cache=True, nogil=True)
def one_object(g, s, t):
    return g.a0[s] + g.a23[t]


@njit(cache=True, nogil=True)
def scalars(s, t):
    return s + t


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    opts = QUICK if parser.parse_args(argv).quick else FULL
    calls = opts["calls"]
    arrays = [np.zeros(16) for _ in range(ARRAYS)]
    thirds = [arrays[k:k + 8] for k in (0, 8, 16)]
    forms = {
        "separate": (separate, (*arrays, 1, 2)),
        "tuple": (grouped, (*(tuple(g) for g in thirds), 1, 2)),
        "namedtuple": (grouped, (*(NamedGroup(*g) for g in thirds), 1, 2)),
        "structref": (by_field, (*(make_group(*g) for g in thirds), 1, 2)),
        "structref, one": (one_object, (make_all(*arrays), 1, 2)),
        "scalars": (scalars, (1, 2)),
    }
    expected = arrays[0][1] + arrays[23][2]
    for name, (fn, args) in forms.items():      # compile or load, and check
        got = fn(*args)
        assert name == "scalars" or got == expected, (name, got)

    def sample(fn, args):
        def run():
            for _ in range(calls):
                fn(*args)
        return run

    log(f"{len(forms)} forms, {calls} calls a sample, {opts['rounds']} rounds")
    times = interleaved({name: sample(*f) for name, f in forms.items()}, opts["rounds"])
    us = {name: median(t) / calls * 1e6 for name, t in times.items()}
    base = us["separate"]
    rows = [[name, f"{v:.2f}", f"{v / base:.2f}x"] for name, v in us.items()]
    print_table(f"{ARRAYS} float64 arrays handed to a kernel: microseconds per call",
                ["form", "us/call", "vs separate"], rows)
    write_json("kernel_args", {"machine": machine(), "arrays": ARRAYS, "opts": opts,
                               "us_per_call": us})
    return 0


if __name__ == "__main__":
    sys.exit(main())
