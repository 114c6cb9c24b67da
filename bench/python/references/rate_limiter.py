class RateLimitError(RuntimeError):
    pass


raise RateLimitError("client alpha made 23 weighted requests in window 7 (420-479 s), limit 22")
