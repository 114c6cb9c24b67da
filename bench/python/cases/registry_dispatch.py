"""Storage events dispatched through registries filled by decorators."""

HANDLERS = {}
VALIDATORS = {}
FORMATTERS = {}


def register(name):
    def wrap(fn):
        HANDLERS[name] = fn
        return fn
    return wrap


def validator(cls):
    VALIDATORS[cls.__name__.lower()] = cls
    return cls


def formatter(kind):
    def wrap(fn):
        FORMATTERS[kind] = fn
        return fn
    return wrap


class LimitError(Exception):
    pass


@validator
class Quota:
    def __init__(self, limit):
        self.limit = limit

    def check(self, used, what):
        if used > self.limit:
            raise LimitError("quota exceeded for %s: %d > %d" % (what, used, self.limit))
        return self.limit - used


@validator
class Names:
    def __init__(self, limit):
        self.limit = limit

    def check(self, used, what):
        return len(what) <= self.limit


@formatter("bytes")
def show_bytes(n):
    return "%d B" % n


@formatter("count")
def show_count(n):
    return "#%d" % n


@register("upload")
def handle_upload(event, state):
    size = event["size"] * state["replicas"]
    state["bytes"] += size
    VALIDATORS["quota"](state["limit"]).check(state["bytes"], event["user"])
    return FORMATTERS["bytes"](size)


@register("delete")
def handle_delete(event, state):
    state["bytes"] -= event["size"]
    return FORMATTERS["bytes"](-event["size"])


@register("rename")
def handle_rename(event, state):
    state["renames"] += 1
    VALIDATORS["names"](12).check(0, event["user"])
    return FORMATTERS["count"](state["renames"])


EVENTS = [
    {"kind": "upload", "user": "ana", "size": 10},
    {"kind": "rename", "user": "ana", "size": 0},
    {"kind": "delete", "user": "bob", "size": 4},
    {"kind": "upload", "user": "bob", "size": 12},
    {"kind": "upload", "user": "cy", "size": 9},
]


def process(events, limit):
    state = {"bytes": 0, "limit": limit, "renames": 0, "replicas": 3}
    log = []
    for event in events:
        log.append(HANDLERS[event["kind"]](event, state))
    return log


if __name__ == "__main__":
    print(process(EVENTS, 50))
