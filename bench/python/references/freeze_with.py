from tilelang.autodd import __freeze__


class LRUCache:
    def get(self, key, load):
        pass


def load(key):
    pass


capacity = __freeze__(4 * 3)
cache = LRUCache()
with __freeze__:
    for key in range(capacity):
        cache.get(key, load)


def main():
    raise ArithmeticError("hit ratio 26% below target with capacity 12")


main()
