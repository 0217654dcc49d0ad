"""Fuzzing kit: junk values, a hang guard per call, world
snapshots and the one property every public call must keep.

The property (``check_call``): a call returns, or raises a ``NavError``
with a message and leaves the world as it was (graph ids, each graph's
version, node count and walkable mask, queued updates, waiting path
requests, the frame). A raw exception or a call that runs past
``CALL_SECONDS`` fails the example with the call written out, ready to
paste into a regression test.

Bugs whose fix belongs to code this harness may not change (``world.py``,
the scheduler, the hierarchy) are listed in ``KNOWN``: a raw exception
that matches one is counted, not failed, and each has an explicit
``xfail`` reproducer in ``test_fuzz_known.py``.
"""
from __future__ import annotations

import contextlib
import fractions
import hashlib
import os
import signal
import threading

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst

import navcore

#: seconds one call may take before it counts as a hang (warm-up excluded)
CALL_SECONDS = float(os.environ.get("NAVCORE_FUZZ_CALL_SECONDS", "10"))


class Hang(BaseException):
    """Raised by the alarm in the middle of a call that ran too long. A
    BaseException: library code that catches ``Exception`` must not be
    able to turn it into a NavError."""


@contextlib.contextmanager
def time_limit(seconds: float = CALL_SECONDS, what: str = "call"):
    """Raise ``Hang`` in the main thread after ``seconds`` (SIGALRM). The
    signal is handled when Python runs again: a numba kernel that takes a
    minute is reported when it returns; one that never returns hangs the
    run: ``make fuzz`` sets pytest's ``faulthandler_timeout``, which prints
    every thread's stack when one test runs far longer than its examples
    should (``FUZZ_TEST_SECONDS``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise Hang(f"{what} ran longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# -- the world before and after ----------------------------------------------

def _digest(arr) -> str:
    if arr is None:
        return "-"
    return hashlib.blake2b(np.ascontiguousarray(arr).tobytes(), digest_size=8).hexdigest()


def snapshot(world) -> tuple:
    """What a failed call must leave as it found: per graph its id, class,
    version, node count, walkable mask and (when built) edge costs; the
    queued updates per graph, the waiting path requests and the frame."""
    graphs = []
    for gid, g in world.graphs.items():
        csr = getattr(g, "_csr", None)
        graphs.append((repr(gid), type(g).__name__, g.version, g.num_nodes,
                       _digest(g.walkable), _digest(None if csr is None else csr.cost)))
    pending = [(repr(gid), len(v)) for gid, v in world._pending.items() if v]
    sched = world.scheduler
    waiting = None if sched is None else sched.requests.waiting
    return tuple(graphs), tuple(pending), waiting, world.frame


def show_call(name, args, kwargs) -> str:
    """``name(arg, ..., key=value)`` with reprs cut short."""
    def r(v):
        s = repr(v)
        return s if len(s) <= 1000 else s[:1000] + "...>"
    parts = [r(a) for a in args] + [f"{k}={r(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


#: raw exceptions met on a known bug whose fix is not this harness's to make,
#: counted by KNOWN key (tests may print or assert on them)
KNOWN_HITS: dict = {}


def _known(name, args, kwargs, exc):
    """The ``KNOWN`` entry a raw exception matches, or None."""
    for key, (_, matches) in KNOWN.items():
        try:
            if matches(name, args, kwargs, exc):
                return key
        except Exception:               # a predicate that cannot tell: no match
            continue
    return None


def check_call(world, name, fn, *args, seconds: float = CALL_SECONDS, **kwargs):
    """Run ``fn(*args, **kwargs)`` under the property; returns ``("ok",
    result)``, ``("error", NavError)`` or ``("known", key)``."""
    before = snapshot(world) if world is not None else None
    call = show_call(name, args, kwargs)
    try:
        with time_limit(seconds, call):
            out = fn(*args, **kwargs)
    except navcore.NavError as exc:
        assert str(exc).strip(), f"{call} raised {type(exc).__name__} without a message"
        if world is not None:
            after = snapshot(world)
            assert after == before, (f"{call} raised {exc!r} but changed the world:\n"
                                     f"before {before}\nafter  {after}")
        return "error", exc
    except Hang as exc:
        if SURVEY is not None:
            return _record("hang", name, call, exc)
        raise AssertionError(f"hang: {exc}") from None
    except Exception as exc:
        key = _known(name, args, kwargs, exc)
        if key is not None:
            KNOWN_HITS[key] = KNOWN_HITS.get(key, 0) + 1
            if SURVEY is not None:
                _record("known", name, call, exc)
            return "known", key
        if SURVEY is not None:
            return _record("raw", name, call, exc)
        raise AssertionError(f"raw {type(exc).__name__} from {call}: {exc}") from exc
    return "ok", out


#: NAVCORE_FUZZ_SURVEY=FILE: raw exceptions and hangs are recorded there (one
#: JSON line each: group, kind, where, call) instead of failing, so one long
#: run counts every distinct bug (``make fuzz`` prints the tally)
SURVEY = os.environ.get("NAVCORE_FUZZ_SURVEY")


def disagree(name, call, message):
    """A wrong answer (a query that returned where it should have agreed
    with the reference): recorded as kind ``disagreement`` under the
    survey, which ``tally.py`` fails on; otherwise the example fails."""
    if SURVEY is None:
        raise AssertionError(f"disagreement in {name}: {message}\nreproducer:\n{call}")
    import json
    with open(SURVEY, "a") as f:
        f.write(json.dumps({"kind": "disagreement", "api": name, "type": "Disagreement",
                            "where": name, "message": str(message)[:200],
                            "call": call[:4000]}) + "\n")


def _record(kind, name, call, exc):
    import json
    import traceback
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if "/tests/" not in f.filename and "hypothesis" not in f.filename]
    where = f"{frames[-1].filename.rsplit('/', 2)[-2:]}:{frames[-1].lineno}" if frames else "?"
    with open(SURVEY, "a") as f:
        f.write(json.dumps({"kind": kind, "api": name, "type": type(exc).__name__,
                            "where": where, "message": str(exc)[:200],
                            "call": call[:2000]}) + "\n")
    return kind, exc


# -- known bugs that belong to files this harness may not change -------------
# (name, args, kwargs, exc) -> bool; each has an xfail test in test_fuzz_known.py

def _raised_in(exc, path_end: str, function: str) -> bool:
    """Whether the innermost frame of ``exc`` is ``function`` of a file
    whose path ends with ``path_end``."""
    import traceback
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and frames[-1].filename.endswith(path_end) \
        and frames[-1].name == function


KNOWN: dict = {
    # key: ("a reproducer", predicate(name, args, kwargs, exc) -> bool), for a
    # raw exception whose fix belongs to code being reworked elsewhere; empty
    # since the world.py and scheduler findings were fixed
}


# -- junk ------------------------------------------------------------------------

INTERESTING_INTS = [0, 1, -1, 2, 2 ** 31 - 1, 2 ** 31, -2 ** 31 - 1, 2 ** 32, 2 ** 53 + 1,
                    2 ** 63 - 1, 2 ** 63, -2 ** 63, 2 ** 64, 10 ** 30, 10 ** 400]
INTERESTING_FLOATS = [0.0, -0.0, 0.5, -0.5, 1e-300, 1e300, -1e300, 1.7976931348623157e308,
                      float("inf"), float("-inf"), float("nan"), 2.0 ** 31, 2.0 ** 63]


class Weird:
    """An object no API expects, whose comparisons and hash still work."""

    def __repr__(self):
        return "Weird()"


class Unhashable:
    __hash__ = None

    def __repr__(self):
        return "Unhashable()"


def numpy_scalars():
    return st.sampled_from([
        np.int8(-1), np.int32(3), np.int64(2 ** 63 - 1), np.uint8(255), np.uint64(2 ** 64 - 1),
        np.float16("nan"), np.float32("inf"), np.float64(1.5), np.complex128(1j),
        np.bool_(True), np.bool_(False), np.datetime64("2020-01-01"), np.str_("a"),
        np.timedelta64(3, "s"), np.longdouble(1e4000) if np.finfo(np.longdouble).max > 1e308
        else np.longdouble(1.0)])


def scalars():
    return st.one_of(
        st.none(), st.booleans(), st.integers(-10, 10), st.sampled_from(INTERESTING_INTS),
        st.integers(), st.floats(), st.sampled_from(INTERESTING_FLOATS),
        st.text(max_size=6), st.binary(max_size=6), st.complex_numbers(max_magnitude=10),
        numpy_scalars(), st.just(fractions.Fraction(1, 3)), st.just(Ellipsis),
        st.builds(Weird), st.builds(Unhashable), st.just(range(3)))


def odd_arrays(max_side=4, max_dims=3):
    """numpy arrays of any scalar dtype (bool, ints, floats with NaN/inf,
    complex, datetime, bytes, str) and 0..3 dimensions."""
    dtypes = st.one_of(npst.scalar_dtypes(), npst.byte_string_dtypes(max_len=3),
                       npst.unicode_string_dtypes(max_len=3))
    shapes = npst.array_shapes(min_dims=0, max_dims=max_dims, min_side=0,
                               max_side=max_side)
    return npst.arrays(dtypes, shapes)


def junk(max_leaves=8):
    """Any value: scalars, odd arrays, and lists, tuples and dicts of them,
    ragged and nested."""
    return st.recursive(
        st.one_of(scalars(), odd_arrays()),
        lambda kids: st.one_of(st.lists(kids, max_size=4), st.tuples(kids, kids),
                               st.dictionaries(st.text(max_size=3), kids, max_size=3),
                               st.frozensets(st.integers(-2, 5), max_size=3)),
        max_leaves=max_leaves)


def small_floats(lo=-2.0, hi=12.0):
    return st.floats(lo, hi, allow_nan=False)


def points(dims=(2,), lo=-2.0, hi=12.0):
    """Points as tuples, lists and arrays, in range and not (NaN, inf,
    huge, 1 or 3 coordinates, bools)."""
    coord = st.one_of(small_floats(lo, hi), st.integers(int(lo), int(hi)),
                      st.sampled_from(INTERESTING_FLOATS), st.sampled_from(INTERESTING_INTS))
    n = st.sampled_from(list(dims) + [1, 3, 0])
    seq = n.flatmap(lambda k: st.lists(coord, min_size=k, max_size=k))
    return st.one_of(seq.map(tuple), seq, seq.map(lambda v: np.array(v, dtype=object)
                                                  if any(abs(x) > 2 ** 62 for x in v
                                                         if isinstance(x, int)) else
                                                  np.array(v)),
                     st.tuples(st.booleans(), st.booleans()))


def node_like(n, dims=(2,), lo=-2.0, hi=12.0):
    """A node id (in range or not) or a point, or junk."""
    return st.one_of(st.integers(-2, n + 2), st.integers(0, max(n - 1, 0)),
                     st.sampled_from(INTERESTING_INTS), points(dims, lo, hi),
                     numpy_scalars(), junk(4))


def node_lists(n, dims=(2,), lo=-2.0, hi=12.0, max_size=5):
    """Sequences of node ids or points: lists mixing both, int arrays of odd
    dtypes, 2-d float arrays, ragged lists, junk."""
    ids = st.integers(-1, n + 1)
    return st.one_of(
        st.lists(st.integers(0, max(n - 1, 0)), max_size=max_size),
        st.lists(node_like(n, dims, lo, hi), max_size=max_size),
        st.tuples(st.lists(ids, max_size=max_size),
                  st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32,
                                   np.uint64, np.float64, np.bool_])).map(
            lambda t: np.array(t[0], dtype=np.int64).astype(t[1])),
        st.lists(st.tuples(small_floats(lo, hi), small_floats(lo, hi)),
                 max_size=max_size).map(lambda v: np.array(v).reshape(-1, 2)),
        st.lists(st.lists(small_floats(lo, hi), max_size=3), max_size=max_size),
        ragged(-1, n + 1), junk(6))


def mutate(valid: dict, keys_junk: dict):
    """``valid`` with some keys replaced by plausible or junk values, some
    dropped and maybe an unknown one added."""
    @st.composite
    def strategy(draw):
        params = dict(draw(st.sampled_from(valid)) if isinstance(valid, list) else valid)
        for key in draw(st.lists(st.sampled_from(sorted(keys_junk)), max_size=3,
                                 unique=True)):
            params[key] = draw(keys_junk[key])
        if draw(st.integers(0, 4)) == 4:
            params.pop(draw(st.sampled_from(sorted(params) or ["x"])), None)
        if draw(st.integers(0, 9)) == 9:      # (hypothesis leans to 0: 9 is rare)
            params[draw(st.sampled_from(["bogus", "nodes", "Rows", "_x"]))] = draw(junk(3))
        return params
    return strategy()


def finite_or_not(lo=-5.0, hi=5.0):
    """A number in range, at a float's limits (NaN, inf, 1e300), an int no
    float can hold (10**400) or a complex one."""
    return st.one_of(small_floats(lo, hi), st.sampled_from(INTERESTING_FLOATS),
                     st.integers(-3, 3), st.sampled_from([10 ** 400, -10 ** 400, 1 + 1j]))


def ragged(lo=-1, hi=5):
    """Lists of rows of unequal length, ``[[0, 1], [2]]``: numpy refuses
    them with a bare ValueError."""
    return st.lists(st.lists(st.integers(lo, hi), min_size=1, max_size=3), min_size=2,
                    max_size=4).filter(lambda rows: len({len(r) for r in rows}) > 1)


# -- hypothesis settings -----------------------------------------------------------

#: NAVCORE_FUZZ=1 (``make fuzz``): many examples, fresh random seeds;
#: otherwise (``make test``) a few, derandomised, so CI is reproducible
LONG = os.environ.get("NAVCORE_FUZZ") == "1"
#: NAVCORE_FUZZ_SEED=N (``make fuzz FUZZ_SEED=N``, which also passes
#: ``--hypothesis-seed``): no example database either, so that run repeats
SEEDED = bool(os.environ.get("NAVCORE_FUZZ_SEED", "").strip())
FUZZ = settings(
    max_examples=int(os.environ.get("NAVCORE_FUZZ_EXAMPLES", "2000" if LONG else "25")),
    derandomize=not LONG, deadline=None,
    database=settings().database if LONG and not SEEDED else None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                           HealthCheck.data_too_large, HealthCheck.large_base_example,
                           HealthCheck.function_scoped_fixture])
