"""Line items and carts."""
from dataclasses import dataclass

from .util import round_money


@dataclass
class LineItem:
    sku: str
    quantity: int
    unit_price: float

    def total(self):
        return round_money(self.quantity * self.unit_price)


class Cart:
    def __init__(self, cart_id):
        self.cart_id = cart_id
        self.items = []

    def add(self, item):
        if item.quantity <= 0:
            raise ValueError("quantity must be positive: %r" % (item,))
        self.items.append(item)
        return self

    def subtotal(self):
        return round_money(sum(item.total() for item in self.items))
