"""The README's error table matches navcore/errors.py: every NavError
subclass is listed once, with the builtins it also derives from."""
import inspect
import re
from pathlib import Path

import pytest

import navcore.errors as errors

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.nojit
def test_readme_lists_every_error_with_its_builtin_base():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Errors\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.M)
    listed = {name: base.strip() for name, base in rows}
    classes = {name: cls for name, cls in inspect.getmembers(errors, inspect.isclass)
               if issubclass(cls, errors.NavError) and cls is not errors.NavError}
    assert len(rows) == len(listed), "an error is listed twice"
    assert set(listed) == set(classes)
    for name, cls in classes.items():
        builtins = [b.__name__ for b in cls.__mro__[1:]
                    if b.__module__ == "builtins" and b not in (Exception, BaseException,
                                                                object)]
        direct = [b for b in builtins if any(b == base.__name__ for base in cls.__bases__)]
        assert listed[name] == (", ".join(f"`{b}`" for b in direct) or "-"), name
