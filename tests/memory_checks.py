"""Measuring what a piece of work allocates, for the tests that hold an estimate against its peak."""

import tracemalloc


def traced_peak(fn) -> int:
    """The peak of the memory ``fn()`` allocates (numpy's arrays included), from tracemalloc."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
