class ValidationError(ValueError):
    pass


class Bounded:
    def __set__(self, obj, value):
        raise ValidationError('rpm out of range: 7200 not in [0, 6000]')


class Motor:
    rpm = Bounded()


Motor().rpm = 0
