"""How big the kernel is: raw lines and code lines of each ``navcore/``
module, and their totals without ``navcore/testing.py`` (the conformance
kit, which no game runs).

    python bench/kernel_size.py            # navcore/*.py of this tree
    python bench/kernel_size.py FILE...    # these files

Code lines are the lines holding a Python token other than a comment:
blank lines, comment lines and docstrings (a module's, class's or
function's first statement when it is a string) are left out, so the
figure measures what a reader must follow, not the written contract
(``navcore/hookspecs.py`` is mostly the documentation of every hook).
"""
from __future__ import annotations

import ast
import io
import sys
import tokenize
from pathlib import Path

_SKIPPED = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENDMARKER)
_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def code_lines(source: str) -> int:
    """Lines of ``source`` with code on them (no docstring, comment or blank)."""
    docs = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, _DOCUMENTED) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                docs.update(range(first.lineno, first.end_lineno + 1))
    code = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _SKIPPED:
            code.update(range(tok.start[0], tok.end[0] + 1))
    return len(code - docs)


def main(argv) -> int:
    root = Path(__file__).resolve().parent.parent
    paths = [Path(p) for p in argv] or sorted((root / "navcore").glob("*.py"))
    raw_total = code_total = 0
    print(f"{'module':<28}{'raw':>7}{'code':>7}")
    for path in paths:
        text = path.read_text()
        raw, code = len(text.splitlines()), code_lines(text)
        kit = path.name == "testing.py"
        if not kit:
            raw_total += raw
            code_total += code
        print(f"{path.name + (' (not counted)' if kit else ''):<28}{raw:>7}{code:>7}")
    print(f"{'total (without testing.py)':<28}{raw_total:>7}{code_total:>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
