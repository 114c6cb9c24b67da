"""Prices fetched by asyncio tasks gathered from a batch."""
import asyncio


class FetchError(Exception):
    pass


CATALOG = {"bolt": 3, "nut": 1, "gear": 17, "belt": 11}
STOCK = {"bolt": 40, "nut": 90, "gear": 6, "belt": 2}


async def quote(name, quantity, markup):
    await asyncio.sleep(0)
    unit = CATALOG[name] * markup
    if quantity > STOCK[name]:
        raise FetchError("not enough %s: %d > %d (unit %d)" % (name, quantity, STOCK[name], unit))
    return unit * quantity


async def batch(order, markup):
    total = 0
    for name, quantity in order:
        total += await quote(name, quantity, markup)
    return total


async def main(orders):
    results = await asyncio.gather(batch(orders[0], 2))
    extra = await asyncio.gather(*(batch(o, 3) for o in orders[1:]))
    return sum(results) + sum(extra)


ORDERS = [
    [("bolt", 10), ("nut", 20), ("belt", 5)],
    [("gear", 1)],
]

if __name__ == "__main__":
    print(asyncio.run(main(ORDERS)))
