"""An LRU cache simulation under a synthetic access trace. The warm-up runs under
`with __freeze__:` and the capacity is wrapped in `__freeze__(...)`, imported from the
(stand-in) `tilelang.autodd` module: both must survive reduction."""

from tilelang.autodd import __freeze__


class Node:
    __slots__ = ("key", "value", "prev", "next")

    def __init__(self, key, value):
        self.key = key
        self.value = value
        self.prev = None
        self.next = None


class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.map = {}
        self.head = Node(None, None)
        self.tail = Node(None, None)
        self.head.next = self.tail
        self.tail.prev = self.head
        self.hits = 0
        self.misses = 0

    def _unlink(self, node):
        node.prev.next = node.next
        node.next.prev = node.prev

    def _push_front(self, node):
        node.next = self.head.next
        node.prev = self.head
        self.head.next.prev = node
        self.head.next = node

    def get(self, key, loader):
        node = self.map.get(key)
        if node is not None:
            self.hits += 1
            self._unlink(node)
            self._push_front(node)
            return node.value
        self.misses += 1
        node = Node(key, loader(key))
        self.map[key] = node
        self._push_front(node)
        if len(self.map) > self.capacity:
            victim = self.tail.prev
            self._unlink(victim)
            del self.map[victim.key]
        return node.value


def trace(length, modulus):
    key = 7
    for _ in range(length):
        key = (key * 31 + 11) % modulus
        yield key % (modulus // 3 + 1)


def load(key):
    return key * key


def hit_ratio_percent(cache):
    total = cache.hits + cache.misses
    return 100 * cache.hits // total


def main():
    capacity = __freeze__(4 * 3)
    cache = LRUCache(capacity)
    with __freeze__:
        for key in range(capacity):
            cache.get(key, load)
    checksum = 0
    for key in trace(400, 97):
        checksum += cache.get(key, load)
    ratio = hit_ratio_percent(cache)
    print("hits", cache.hits, "misses", cache.misses, "checksum", checksum)
    if ratio < 50:
        raise ArithmeticError("hit ratio %d%% below target with capacity %d" % (ratio, capacity))


main()
