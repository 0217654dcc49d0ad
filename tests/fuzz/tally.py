"""Tally of a fuzz survey (NAVCORE_FUZZ_SURVEY): distinct bugs by where they
were raised, with one reproducer each. ``python tests/fuzz/tally.py FILE``;
exits 1 when the survey holds any raw exception, hang or disagreement (a
wrong answer) that is not a known bug."""
import collections
import json
import sys


def main(path):
    groups = collections.defaultdict(list)
    try:
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        rows = []
    for r in rows:
        groups[(r["kind"], r["type"], r["where"])].append(r)
    known = sum(1 for r in rows if r["kind"] == "known")
    print(f"{len(rows) - known} raw exceptions, hangs or disagreements, "
          f"{sum(1 for g in groups if g[0] != 'known')} distinct (type, place); "
          f"{known} more on known bugs left to world.py/the scheduler (fuzzkit.KNOWN)")
    for (kind, typ, where), rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"{len(rs):5d}  {kind} {typ} at {where} [{rs[0]['api']}]: {rs[0]['message'][:120]}")
        print(f"       {rs[0]['call'][:300]}")
    return 1 if len(rows) > known else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
