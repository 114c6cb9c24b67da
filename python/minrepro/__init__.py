"""minrepro: turns a failing input into the smallest standalone reproducer that still fails.

The tool itself is the ``minrepro`` executable this package installs (run it, or
``python -m minrepro``). This module only offers ``__freeze__``, the marker AutoDD users know:

    from minrepro import __freeze__

    with __freeze__:
        setup_that_must_stay()
    shape = __freeze__(compute_required_shape())

``minrepro python`` never rewrites code inside ``with __freeze__:`` or a ``__freeze__(...)``
call, nor the import itself. At run time ``__freeze__`` does nothing: the block runs as written
and ``__freeze__(value)`` returns ``value``.
"""

__all__ = ["__freeze__"]


class _Freeze:
    """A context manager that does nothing and a call that returns its argument unchanged."""

    __slots__ = ()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        # Never swallows an exception raised in the frozen block.
        return False

    def __call__(self, value):
        return value

    def __repr__(self):
        return "minrepro.__freeze__"


__freeze__ = _Freeze()
