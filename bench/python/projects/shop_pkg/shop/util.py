"""Money helpers shared by the shop's modules."""


def round_money(value):
    return round(value + 1e-9, 2)


def money(value, currency="EUR"):
    return "%s %.2f" % (currency, round_money(value))
