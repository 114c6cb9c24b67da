class LimitError(Exception):
    pass


class Quota:
    def check(self):
        raise LimitError('quota exceeded for bob: 62 > 50')


Quota().check()
