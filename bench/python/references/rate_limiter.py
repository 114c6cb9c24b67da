class RateLimitError(RuntimeError):
    pass


def check_limits():
    raise RateLimitError("client alpha made 23 weighted requests in window 7 (420-479 s), limit 22")


check_limits()
