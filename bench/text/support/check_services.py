"""Checks a services document (JSON): every service's effective timeout must be at least the
minimum of its tier. Used by the bench's json_config case; raises on the first violation."""

import json
import sys


def effective(service, defaults):
    limits = dict(defaults.get("limits", {}))
    for layer in service.get("overrides", []):
        limits.update(layer.get("limits", {}))
    limits.update(service.get("limits", {}))
    return limits


def main(path):
    with open(path) as f:
        doc = json.load(f)
    defaults = doc["defaults"]
    tiers = {t["name"]: t for t in doc["tiers"]}
    for name, service in doc["services"].items():
        tier = tiers[service.get("tier", defaults["tier"])]
        limits = effective(service, defaults)
        timeout = limits["timeout_ms"] * limits.get("retries", 1)
        if timeout < tier["min_timeout_ms"]:
            raise ValueError(
                f"service {name}: timeout {timeout} ms below tier {tier['name']} minimum"
            )
    print("ok")


if __name__ == "__main__":
    main(sys.argv[1])
