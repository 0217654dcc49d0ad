"""Coverage-guided fuzzing of one file loader with atheris: where
the hypothesis mutations of test_fuzz_loaders.py stop finding new paths,
libFuzzer's coverage feedback keeps going. Not a test module: run it as

    make fuzz-atheris LOADER=map SECONDS=60
    .venv/bin/python tests/fuzz/atheris_loaders.py map -max_total_time=60

with LOADER one of test_fuzz_loaders.LOADERS (map, scen, mesh, dimacs-gr,
dimacs-co, geojson, osm). The seed is the same corpus file; a raw
exception or a NavError from a file that does not name the file crashes
the run with the input saved by libFuzzer (crash-*). Only the pure-Python
parsers are instrumented: numba compiles the kernels from their bytecode,
which instrumentation would change.
"""
import sys
import tempfile
from pathlib import Path

#: modules whose coverage guides the fuzzer (parsers, not kernels)
INSTRUMENTED = ("navcore.validate", "navcore.edges", "navcore_grid.mapfile",
                "navcore_roads.io.dimacs", "navcore_roads.io.geojson", "navcore_roads.io.osm",
                "navcore_roads.io._ways", "navcore_roads.io.arrays",
                "navcore_navmesh.polyanya_format", "navcore_navmesh.meshcheck",
                "navcore_navmesh.meshfile", "navcore_navmesh.fileio", "navcore_navmesh.bake")


def instrument(atheris):
    """Swap each plain function of INSTRUMENTED for an instrumented copy.
    Callers look functions up in their module's globals, so they call the
    copy; numba's dispatchers are not plain functions and stay as they are
    (``instrument_imports`` would rewrite the bytecode numba compiles)."""
    import importlib
    import inspect
    for name in INSTRUMENTED:
        module = importlib.import_module(name)
        for attr, value in list(vars(module).items()):
            if inspect.isfunction(value) and value.__module__ == name:
                setattr(module, attr, atheris.instrument_func(value))


def main(argv):
    import atheris          # only this script needs it (make fuzz-atheris installs it)

    import navcore
    instrument(atheris)

    sys.path.insert(0, str(Path(__file__).parent))
    import test_fuzz_loaders as loaders

    if len(argv) < 2 or argv[1] not in loaders.LOADERS:
        sys.exit(f"usage: {argv[0]} {{{','.join(loaders.LOADERS)}}} [libFuzzer options]")
    name, suffix, load = loaders.LOADERS[argv[1]]
    tmp = Path(tempfile.mkdtemp(prefix="navcore-atheris-"))
    (tmp / "corpus").mkdir()
    corpus = loaders.make_corpus(tmp / "corpus")
    seeds = tmp / "seeds"
    seeds.mkdir()
    (seeds / name).write_bytes((corpus / name).read_bytes())
    path = tmp / f"input{suffix}"

    def one(data: bytes) -> None:
        path.write_bytes(data)
        world = navcore.World(warm_up=False)
        try:
            load(world, path, corpus)
        except navcore.NavError as exc:
            if isinstance(exc, loaders.FILE_ERRORS) and exc.path is None:
                raise AssertionError(f"{exc!r} does not name the file") from exc

    atheris.Setup([argv[0], *argv[2:], str(seeds)], one)
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
