"""Warehouse inventory: items, orders, restocking and a formatted report. An order for a SKU
that was renamed during restocking fails while the report is built."""


class Item:
    def __init__(self, sku, name, price_cents, quantity):
        self.sku = sku
        self.name = name
        self.price_cents = price_cents
        self.quantity = quantity

    def value(self):
        return self.price_cents * self.quantity

    def label(self):
        return "%s (%s)" % (self.name, self.sku)


class Inventory:
    def __init__(self):
        self.items = {}
        self.history = []

    def add(self, item):
        if item.sku in self.items:
            self.items[item.sku].quantity += item.quantity
        else:
            self.items[item.sku] = item
        self.history.append(("add", item.sku, item.quantity))

    def rename(self, old_sku, new_sku):
        item = self.items.pop(old_sku)
        item.sku = new_sku
        self.items[new_sku] = item
        self.history.append(("rename", old_sku, new_sku))

    def take(self, sku, quantity):
        item = self.items[sku]
        if item.quantity < quantity:
            raise RuntimeError("not enough %s: have %d, need %d" % (sku, item.quantity, quantity))
        item.quantity -= quantity
        self.history.append(("take", sku, quantity))
        return item.price_cents * quantity


def money(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return "%s$%d.%02d" % (sign, cents // 100, cents % 100)


def build_inventory():
    inv = Inventory()
    catalog = [
        ("sku-%03d" % n, name, 150 + 37 * n, 3 + (n * 5) % 11)
        for n, name in enumerate(
            ["bolt", "nut", "washer", "bracket", "hinge", "spring", "gear", "shaft", "bearing"]
        )
    ]
    for sku, name, price, qty in catalog:
        inv.add(Item(sku, name, price, qty))
    for n in range(0, 9, 4):
        inv.add(Item("sku-%03d" % n, "restock", 0, 2 * n + 1))
    return inv


def process_orders(inv, orders):
    revenue = 0
    lines = []
    for number, (sku, quantity) in enumerate(orders, start=1):
        cost = inv.take(sku, quantity)
        revenue += cost
        lines.append("#%02d %-20s x%-3d %10s" % (number, inv.items[sku].label(), quantity, money(cost)))
    return revenue, lines


def report(inv, orders):
    revenue, lines = process_orders(inv, orders)
    stock_value = sum(item.value() for item in inv.items.values())
    out = ["ORDERS"] + lines
    out.append("revenue %s, stock %s" % (money(revenue), money(stock_value)))
    low = [i.label() for i in inv.items.values() if i.quantity < 4]
    out.append("low stock: " + (", ".join(sorted(low)) or "none"))
    return "\n".join(out)


def main():
    inv = build_inventory()
    print(report(inv, [("sku-001", 2), ("sku-004", 3), ("sku-008", 1)]))
    inv.rename("sku-006", "sku-%03d" % (6 * 7))
    orders = [("sku-002", 1), ("sku-%03d" % (2 * 21), 12), ("sku-007", 4)]
    print(report(inv, orders))
    for verb, sku, amount in inv.history[-3:]:
        print("history:", verb, sku, amount)


main()
