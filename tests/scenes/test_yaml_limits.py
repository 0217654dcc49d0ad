"""Scene YAML that would make the loader or whatever walks the scene blow
up is a SceneError at its position: alias bombs, deep nesting,
numbers too long for Python's int()."""
import pytest

import navcore
from navcore_scenes.yamlmarks import MAX_DEPTH, MAX_EXPANDED_NODES, MAX_INT_DIGITS, loads

pytestmark = pytest.mark.nojit


def _laughs(levels):
    names = [chr(97 + i) for i in range(levels + 1)]
    text = f"{names[0]}: &{names[0]} [x, x, x, x, x, x, x, x, x]\n"
    for prev, cur in zip(names, names[1:]):
        text += f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
    return text


def test_billion_laughs_is_refused_while_composing():
    with pytest.raises(navcore.SceneError, match="expands to more than") as err:
        loads(_laughs(9), "bomb.yaml")
    assert str(err.value).startswith("bomb.yaml:")
    # the same shape, small enough, is an ordinary scene: aliases are legal
    data = loads(_laughs(3), "ok.yaml")
    assert len(data["d"]) == 9 and data["d"][0] is data["c"]


def test_expansion_limit_counts_every_use_of_an_alias():
    # 9^6 * 10 ~ 5.3 M expanded values > the limit, while 9^5 * 10 is not
    assert 9 ** 6 * 10 > MAX_EXPANDED_NODES > 9 ** 5 * 11
    loads(_laughs(5), "five.yaml")
    with pytest.raises(navcore.SceneError, match="expands"):
        loads(_laughs(6), "six.yaml")


def test_deep_nesting_is_a_scene_error_not_a_recursion_error():
    for depth in (MAX_DEPTH + 1, 900, 5000):
        with pytest.raises(navcore.SceneError, match=f"nests deeper than {MAX_DEPTH}"):
            loads("a: " + "[" * depth + "]" * depth, "deep.yaml")
        with pytest.raises(navcore.SceneError, match="nests deeper"):
            loads("a:" + "".join(f"\n{' ' * (2 * i + 2)}k{i}:" for i in range(depth)) + " 1",
                  "deep.yaml")
    ok = MAX_DEPTH - 2
    assert loads("a: " + "[" * ok + "]" * ok, "ok.yaml")["a"] is not None


def test_overlong_integers_are_refused_with_their_position():
    with pytest.raises(navcore.SceneError, match=r"long\.yaml:2:8: a number of 5000 digits"):
        loads("a: 1\nfoo:   " + "7" * 5000 + "\n", "long.yaml")
    assert loads(f"a: {'9' * MAX_INT_DIGITS}\nb: 0x1F\nc: -1_000\n", "ok.yaml") == \
        {"a": int("9" * MAX_INT_DIGITS), "b": 31, "c": -1000}


def test_a_bomb_in_a_scene_file_leaves_the_world_unchanged(tmp_path):
    from navcore_scenes import Simulation
    path = tmp_path / "bomb.yaml"
    path.write_text("graphs: [{id: g, type: grid, rows: ['....']}]\nx:\n" +
                    "".join("  " + line + "\n" for line in _laughs(9).splitlines()))
    world = navcore.World()
    with pytest.raises(navcore.SceneError, match="expands"):
        Simulation.from_file(path, world=world)
    assert world.graphs == {}
