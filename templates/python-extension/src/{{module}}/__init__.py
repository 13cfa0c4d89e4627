"""{{name}}: add(a, b) in C, and total(values) in Python on top of it."""
from ._core import add


def total(values):
    """The sum of values, added in C one at a time."""
    result = 0
    for value in values:
        result = add(result, value)
    return result


__all__ = ["add", "total"]
