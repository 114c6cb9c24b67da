"""Stock levels of one SKU."""


class StockError(RuntimeError):
    pass


class StockLevel:
    def __init__(self, sku, on_hand=0):
        self.sku = sku
        self.on_hand = on_hand

    def put(self, n):
        self.on_hand += n
        return self.on_hand

    def take(self, n):
        # audit imports this module: imported here, when needed, to avoid a circular import
        from . import audit
        if n > self.on_hand:
            audit.record("shortage", self.sku, n - self.on_hand)
            raise StockError("not enough %s: have %d, need %d" % (self.sku, self.on_hand, n))
        self.on_hand -= n
        audit.record("take", self.sku, n)
        return self.on_hand
