"""The hostile walk of the public surface, run in a child process.

``python walk.py PLUGIN START`` builds ``surface_specs.specs(PLUGIN)`` (one
valid call per public callable), then calls each of them once as given and
once more per argument per hostile value (that argument replaced, the
others valid). Before each call it writes ``C <index> <call>`` and flushes,
so when a kernel kills the process by a signal the parent knows which call
did it. A call that raises anything but a ``navcore.NavError`` writes
``R <index> <type>: <message>``; the valid call raising at all writes
``V`` (the spec itself is wrong). ``START`` skips the calls before it: the
parent restarts the walk after the call that crashed it.
"""
from __future__ import annotations

import math
import os
import shutil
import sys
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from surface_specs import Arg, specs  # noqa: E402


class Weird:
    """An object of no type any call expects."""

    def __repr__(self):
        return "Weird()"


def hostile() -> list:
    """(label, value) pairs of every kind of wrong argument: ids out of
    range or negative, numbers that are no numbers (NaN, inf), ints no
    machine word holds, bools, text, wrong shapes and dtypes, ragged
    lists, None and objects of no expected type."""
    nan, inf = math.nan, math.inf
    return [
        ("-1", -1), ("10**6", 10 ** 6), ("2**31", 2 ** 31), ("2**63", 2 ** 63),
        ("10**30", 10 ** 30), ("-10**30", -10 ** 30), ("np.int64(-1)", np.int64(-1)),
        ("np.uint64(2**64-1)", np.uint64(2 ** 64 - 1)),
        ("nan", nan), ("inf", inf), ("-inf", -inf), ("1e308", 1e308), ("-0.5", -0.5),
        ("1.5", 1.5), ("np.float32(nan)", np.float32(nan)), ("1j", 1j),
        ("True", True), ("False", False), ("np.True_", np.True_),
        ("'0'", "0"), ("'x'", "x"), ("''", ""), ("b'\\x00'", b"\x00"), ("'\\x00'", "\x00"),
        ("None", None), ("Weird()", Weird()), ("{}", {}),
        ("[]", []), ("()", ()),
        ("[-1]", [-1]), ("[10**6]", [10 ** 6]), ("[2**63]", [2 ** 63]), ("[nan]", [nan]),
        ("[[0], [1, 2]]", [[0], [1, 2]]), ("[[0, 1], [1, 0]]", [[0, 1], [1, 0]]),
        ("[None, 1]", [None, 1]), ("['a', 'b']", ["a", "b"]),
        ("array 2-d int", np.array([[0, 1], [1, 0]])),
        ("array float ids", np.array([0.5, 1.0])), ("array nan", np.array([nan, nan])),
        ("array object", np.array([0, 1], dtype=object)),
        ("array bool", np.array([True, False])), ("array empty", np.zeros(0, np.int64)),
        ("array 0-d", np.array(1)), ("array uint64 max", np.array([2 ** 64 - 1], np.uint64)),
        ("array int8", np.array([0, 1], np.int8)),
        ("array (k,2) nan", np.full((2, 2), nan)), ("array (k,2) inf", np.full((2, 2), inf)),
        ("array (k,2) huge", np.full((2, 2), 1e308)), ("array (k,3)", np.zeros((2, 3))),
        ("array (2,2,2)", np.zeros((2, 2, 2))), ("array str", np.array(["a", "b"])),
        ("(nan, 0)", (nan, 0.0)), ("(inf, inf)", (inf, inf)), ("(1e308, -1e308)", (1e308, -1e308)),
        ("(10**30, 0)", (10 ** 30, 0)), ("(0,)", (0.0,)), ("(0, 0, 0, 0)", (0.0, 0.0, 0.0, 0.0)),
        ("(1, 1, 1)", (1.0, 1.0, 1.0)),
    ]


VALID_ONLY = os.environ.get("SURFACE_VALID_ONLY") == "1"


def out(line: str) -> None:
    os.write(1, (line.replace("\n", "\\n") + "\n").encode("utf-8", "replace"))


def short(text: str, n: int = 300) -> str:
    return text if len(text) <= n else text[:n - 3] + "..."


def walked(arg) -> bool:
    """Whether the walk replaces this argument (all but those its spec
    marks ``Arg(..., hostile=False)``)."""
    return arg.hostile if isinstance(arg, Arg) else True


def main(plugin: str, start: int) -> None:
    import navcore

    import surface_specs
    # hostile paths ("x", "0") are written where the walk runs: its own
    # temporary folder, never the checkout
    surface_specs.TMP.mkdir(exist_ok=True)
    os.chdir(surface_specs.TMP)
    nav_error = navcore.NavError
    values = hostile()
    index = -1
    for spec in specs(plugin):
        args, kwargs = spec.sample()
        given = dict(enumerate(args), **kwargs)
        slots = [k for k, a in given.items() if walked(a)]
        trials = [(None, None, None)] + ([] if VALID_ONLY else
                                         [(slot, label, value) for slot in slots
                                          for label, value in values
                                          if not (isinstance(given[slot], Arg)
                                                  and label in given[slot].skip)])
        for slot, label, value in trials:
            index += 1
            if index < start:
                continue
            text = spec.name + ("" if slot is None else f" [{slot}]={label}")
            out(f"C {index} {text}")
            try:
                fn, a, k = spec.build()
                if slot is not None:
                    if isinstance(slot, int):
                        a = list(a)
                        a[slot] = value
                    else:
                        k = dict(k)
                        k[slot] = value
                fn(*a, **k)
            except nav_error:
                if slot is None:
                    out(f"V {index} {text}: {short(traceback.format_exc(limit=-3))}")
            except BaseException as exc:     # noqa: BLE001 - every other kind is the finding
                if isinstance(exc, KeyboardInterrupt):
                    raise
                where = traceback.extract_tb(exc.__traceback__)[-1]
                out(f"{'V' if slot is None else 'R'} {index} {text}: {type(exc).__name__}: "
                    f"{short(str(exc))} @ {Path(where.filename).name}:{where.lineno}")
    out(f"E {index + 1}")
    if not os.environ.get("NAVCORE_SURFACE_TMP"):
        shutil.rmtree(surface_specs.TMP, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
