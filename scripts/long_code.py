"""Lists modules over 500 lines and functions over 60 lines (the style guide's limits) in a package.

    python scripts/long_code.py [dashboard]
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MODULE_LINES, FUNCTION_LINES = 500, 60


def long_code(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.count("\n")
        if lines > MODULE_LINES:
            found.append(f"module   {lines:5d}  {path}")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION_LINES:
                    found.append(f"function {length:5d}  {path}:{node.lineno} {node.name}")
    return found


if __name__ == "__main__":
    print("\n".join(long_code(Path(sys.argv[1] if len(sys.argv) > 1 else "dashboard"))) or "none")
