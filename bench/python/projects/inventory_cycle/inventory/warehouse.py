"""A warehouse: stock levels by SKU, receiving and fulfilment."""
from . import audit
from .stock import StockLevel


class Warehouse:
    def __init__(self, name):
        self.name = name
        self.levels = {}

    def receive(self, sku, n):
        level = self.levels.setdefault(sku, StockLevel(sku))
        audit.record("receive", sku, n)
        return level.put(n)

    def level(self, sku):
        return self.levels[sku].on_hand if sku in self.levels else 0

    def fulfil(self, order):
        shipped = {}
        for sku, n in sorted(order.items()):
            shipped[sku] = n
            self.levels[sku].take(n)
        return {"warehouse": self.name, "shipped": shipped, "audit": audit.snapshot(self.levels)}
