"""Motor settings validated by a descriptor, with computed properties."""


class ValidationError(ValueError):
    pass


class Bounded:
    def __init__(self, low, high):
        self.low = low
        self.high = high

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return obj.__dict__[self.name]

    def __set__(self, obj, value):
        if not self.low <= value <= self.high:
            raise ValidationError("%s out of range: %d not in [%d, %d]" % (self.name, value, self.low, self.high))
        obj.__dict__[self.name] = value


class Motor:
    rpm = Bounded(0, 6000)
    torque = Bounded(0, 40)

    def __init__(self, rpm, torque):
        self.rpm = rpm
        self.torque = torque

    @property
    def power(self):
        return self.rpm * self.torque // 9549

    @property
    def label(self):
        return "%d rpm / %d Nm" % (self.rpm, self.torque)

    def gear(self, ratio):
        self.rpm = self.rpm * ratio
        self.torque = self.torque // ratio


def plan(steps):
    motor = Motor(1200, 30)
    log = [motor.label]
    for ratio in steps:
        motor.gear(ratio)
        log.append("%s -> %d kW" % (motor.label, motor.power))
    return log


if __name__ == "__main__":
    print(plan([2, 3]))
