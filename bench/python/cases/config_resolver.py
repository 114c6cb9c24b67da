"""Layered service configuration: profiles inherit from each other, settings are addressed by
dotted keys built from the service, the region and the setting name, and a renamed region
alias makes one lookup miss with a key computed through several functions."""

BASE = {
    "storage.default.retention_days": 30,
    "storage.default.replicas": 2,
    "cache.default.ttl_seconds": 300,
    "cache.default.max_entries": 10000,
    "queue.default.max_inflight": 64,
}

PROFILES = {
    "base": {"parent": None, "settings": BASE},
    "staging": {"parent": "base", "settings": {"cache.default.ttl_seconds": 60}},
    "prod": {
        "parent": "staging",
        "settings": {
            "storage.eu-west.retention_days": 90,
            "storage.eu-west.replicas": 3,
            "storage.us-east.replicas": 3,
            "cache.eu-west.ttl_seconds": 600,
            "queue.us-east.max_inflight": 256,
        },
    },
}

REGION_ALIASES = {"eu": "eu-west", "us": "us-east", "ap": "ap-south"}

SERVICES = [
    ("archive", "storage", ["retention_days", "replicas"]),
    ("sessions", "cache", ["ttl_seconds", "max_entries"]),
    ("ingest", "queue", ["max_inflight"]),
]


def flatten(profile_name):
    chain = []
    name = profile_name
    while name is not None:
        chain.append(name)
        name = PROFILES[name]["parent"]
    merged = {}
    for name in reversed(chain):
        merged.update(PROFILES[name]["settings"])
    return merged


def region_of(zone):
    prefix = zone.split("-", 1)[0]
    return REGION_ALIASES.get(prefix, prefix)


def key_for(kind, region, setting):
    return "%s.%s.%s" % (kind, region, setting)


class Resolver:
    def __init__(self, profile):
        self.settings = flatten(profile)
        self.lookups = 0
        self.fallbacks = 0

    def get(self, kind, region, setting):
        self.lookups += 1
        key = key_for(kind, region, setting)
        if key in self.settings:
            return self.settings[key]
        self.fallbacks += 1
        fallback = key_for(kind, "default", setting)
        if region in ("eu-west", "us-east"):
            return self.settings[fallback]
        return self.settings[key]


def plan_service(resolver, service, kind, settings, zones):
    plan = {}
    for zone in zones:
        region = region_of(zone)
        plan[zone] = {setting: resolver.get(kind, region, setting) for setting in settings}
    return plan


def describe(service, plan):
    lines = []
    for zone in sorted(plan):
        values = ", ".join("%s=%s" % item for item in sorted(plan[zone].items()))
        lines.append("  %s/%s: %s" % (service, zone, values))
    return lines


def main():
    resolver = Resolver("prod")
    zones = ["eu-1a", "us-2b", "eu-3c"]
    report = []
    for service, kind, settings in SERVICES:
        report.extend(describe(service, plan_service(resolver, service, kind, settings, zones)))
    print("\n".join(report))
    print("lookups", resolver.lookups, "fallbacks", resolver.fallbacks)
    zones.append("ap-1a")
    for service, kind, settings in SERVICES:
        plan_service(resolver, service, kind, settings, zones[-1:])


main()
