"""Renders a deployment plan for several services from TOML fragments and loads it back.

A real library on the failing path: `toml` (pure Python). A service's tier is rendered bare
(the plan's shorthand), which is no TOML value, so `toml.loads` rejects the assembled document
inside the library's own decoder.
"""

import toml

DEFAULTS = {
    "replicas": 2,
    "memory_mb": 512,
    "region": "eu-west",
    "healthcheck": "/healthz",
}

TIERS = ("edge", "core", "data")

SERVICES = [
    {"name": "gateway", "replicas": 3, "port": 8080, "tier": "edge"},
    {"name": "orders", "port": 9000, "tier": "core", "memory_mb": 1024},
    {"name": "billing", "port": 9100, "tier": "core"},
    {"name": "search", "port": 9200, "tier": "data", "replicas": 4},
]


class Fragment:
    """One `[service.NAME]` table of the plan."""

    def __init__(self, name):
        self.name = name
        self.lines = []

    def set(self, key, value):
        self.lines.append("%s = %s" % (key, render_value(value)))

    def text(self):
        return "[service.%s]\n%s\n" % (self.name, "\n".join(self.lines))


def render_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if value in TIERS:
        # The plan's own shorthand writes tiers bare, which TOML does not allow.
        return value
    return '"%s"' % value.replace('"', '\\"')


def merged(service):
    settings = dict(DEFAULTS)
    settings.update(service)
    return settings


def fragment_for(service):
    settings = merged(service)
    fragment = Fragment(settings.pop("name"))
    for key in sorted(settings):
        fragment.set(key, settings[key])
    return fragment


def header(environment, version):
    return "[plan]\nenvironment = \"%s\"\nversion = %d\n" % (environment, version)


def assemble(environment, version, services):
    parts = [header(environment, version)]
    for service in services:
        parts.append(fragment_for(service).text())
    return "\n".join(parts)


def capacity(plan):
    total = 0
    for name, service in plan["service"].items():
        total += service["replicas"] * service["memory_mb"]
    return total


def summary(plan):
    rows = []
    for name, service in sorted(plan["service"].items()):
        rows.append("%-8s x%d %5d MB  %s" % (name, service["replicas"], service["memory_mb"], service["tier"]))
    return "\n".join(rows)


def load_plan(text):
    return toml.loads(text)


def main():
    document = assemble("staging", 7, SERVICES)
    plan = load_plan(document)
    print(summary(plan))
    print("capacity:", capacity(plan), "MB")


main()
