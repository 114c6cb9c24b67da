"""Request-log analysis: log lines are parsed into events, grouped per client into fixed time
windows, and a sliding limit is checked; one client exceeds it with counts that come from the
parser, the window arithmetic and a retry-merging step."""


class RateLimitError(RuntimeError):
    pass


CLIENTS = ["alpha", "bravo", "charlie", "delta"]
ENDPOINTS = ["/login", "/search", "/cart", "/checkout", "/health"]
WEIGHTS = {"/login": 2, "/search": 1, "/cart": 1, "/checkout": 3, "/health": 0}


def lcg(seed):
    state = seed
    while True:
        state = (state * 1103515245 + 12345) % 2147483648
        yield state >> 16


def make_log(count, seed):
    numbers = lcg(seed)
    lines = []
    clock = 0
    for index in range(count):
        clock += next(numbers) % 4
        client = CLIENTS[next(numbers) % len(CLIENTS)]
        endpoint = ENDPOINTS[next(numbers) % len(ENDPOINTS)]
        status = 503 if next(numbers) % 9 == 0 else 200
        lines.append("%06d %s %s %d req-%d" % (clock, client, endpoint, status, index))
    return lines


def parse(line):
    clock, client, endpoint, status, request = line.split()
    return {"t": int(clock), "client": client, "endpoint": endpoint,
            "status": int(status), "id": request}


def merge_retries(events):
    merged = []
    last_failed = {}
    for event in events:
        key = (event["client"], event["endpoint"])
        previous = last_failed.pop(key, None)
        if previous is not None and event["t"] - previous["t"] <= 3:
            event = dict(event, retry_of=previous["id"])
        if event["status"] == 503:
            last_failed[key] = event
        merged.append(event)
    return merged


def window_of(event, width):
    return event["t"] // width


def cost(event):
    if "retry_of" in event:
        return 0
    return WEIGHTS[event["endpoint"]]


class Counter:
    def __init__(self):
        self.counts = {}

    def add(self, key, amount):
        self.counts[key] = self.counts.get(key, 0) + amount

    def items(self):
        return sorted(self.counts.items())


def count_windows(events, width):
    counter = Counter()
    for event in events:
        counter.add((event["client"], window_of(event, width)), cost(event))
    return counter


def check_limits(counter, limit, width):
    worst = {}
    for (client, window), total in counter.items():
        if total > worst.get(client, (0, -1))[0]:
            worst[client] = (total, window)
    for client in CLIENTS:
        total, window = worst.get(client, (0, -1))
        print("%-8s peak %3d in window %d" % (client, total, window))
        if total > limit:
            raise RateLimitError("client %s made %d weighted requests in window %d (%d-%d s), limit %d"
                                 % (client, total, window, window * width, (window + 1) * width - 1, limit))


def main():
    events = merge_retries([parse(line) for line in make_log(400, 7)])
    retries = sum(1 for event in events if "retry_of" in event)
    print("events", len(events), "retries", retries)
    check_limits(count_windows(events, 60), 22, 60)


main()
