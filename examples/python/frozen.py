"""Freeze annotations in all three forms keep the marked code intact."""

# autodd: freeze-start
class _Freeze:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, value):
        return value


__freeze__ = _Freeze()
# autodd: end-freeze

setup_marker = "kept by the line annotation"  # autodd: freeze
unused = [1, 2, 3]
with __freeze__:
    kept_by_with = len(unused) + 100
shape = __freeze__(7 * 6)
extra = sum(unused)
if shape == 42:
    raise AssertionError("frozen failure " + str(shape))
