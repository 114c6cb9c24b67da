"""Quantities with physical dimensions: exponent vectors are combined by multiplication,
division and powers through a small energy model, and one stage adds a power to an energy;
the message names both dimensions, computed through every step."""


class DimensionError(TypeError):
    pass


BASE_UNITS = ("kg", "m", "s", "A")


class Quantity:
    def __init__(self, value, dims):
        self.value = value
        self.dims = tuple(dims)

    def __mul__(self, other):
        if not isinstance(other, Quantity):
            return Quantity(self.value * other, self.dims)
        return Quantity(self.value * other.value, [a + b for a, b in zip(self.dims, other.dims)])

    __rmul__ = __mul__

    def __truediv__(self, other):
        if not isinstance(other, Quantity):
            return Quantity(self.value / other, self.dims)
        return Quantity(self.value / other.value, [a - b for a, b in zip(self.dims, other.dims)])

    def __pow__(self, exponent):
        return Quantity(self.value ** exponent, [a * exponent for a in self.dims])

    def __add__(self, other):
        if self.dims != other.dims:
            raise DimensionError("cannot add %s to %s" % (unit_name(other.dims), unit_name(self.dims)))
        return Quantity(self.value + other.value, self.dims)

    def __repr__(self):
        return "%.4g %s" % (self.value, unit_name(self.dims))


def unit_name(dims):
    parts = []
    for unit, power in zip(BASE_UNITS, dims):
        if power == 1:
            parts.append(unit)
        elif power:
            parts.append("%s^%d" % (unit, power))
    return "*".join(parts) or "1"


def unit(name):
    dims = [0] * len(BASE_UNITS)
    dims[BASE_UNITS.index(name)] = 1
    return Quantity(1.0, dims)


KG, M, S = unit("kg"), unit("m"), unit("s")
NEWTON = KG * M / S ** 2
JOULE = NEWTON * M
WATT = JOULE / S


def kinetic(mass, speed):
    return 0.5 * mass * speed ** 2


def potential(mass, height):
    return mass * (9.81 * M / S ** 2) * height


def drag_power(speed, area, coefficient):
    density = 1.2 * KG / M ** 3
    return 0.5 * density * coefficient * area * speed ** 3


STAGES = [
    ("accelerate", lambda car: kinetic(car["mass"], car["speed"])),
    ("climb", lambda car: potential(car["mass"], car["climb"])),
    ("losses", lambda car: drag_power(car["speed"], car["area"], car["cd"])),
]


def energy_budget(car):
    total = 0 * JOULE
    log = []
    for name, stage in STAGES:
        amount = stage(car)
        log.append("%-10s %s" % (name, amount))
        try:
            total = total + amount
        except DimensionError as error:
            raise DimensionError("stage %r: %s" % (name, error)) from None
    return total, log


def main():
    car = {"mass": 1200 * KG, "speed": 25 * M / S, "climb": 40 * M, "area": 2.2 * M ** 2, "cd": 0.3}
    print("units:", NEWTON, JOULE, WATT)
    total, log = energy_budget(car)
    print("\n".join(log))
    print("total", total)


main()
