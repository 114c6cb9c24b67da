"""Encoders looked up by the module that defines a type: each module registers its own table."""
HOOKS = {}


def register(module_name, type_name):
    def wrap(encoder):
        HOOKS.setdefault(module_name, {})[type_name] = encoder
        return encoder
    return wrap


def encode(obj):
    if isinstance(obj, (list, tuple)):
        return [encode(item) for item in obj]
    kind = type(obj)
    table = HOOKS.get(kind.__module__)
    if table is None:
        raise LookupError("no codec table for module %s (type %s)" % (kind.__module__, kind.__qualname__))
    return table[kind.__qualname__](obj)
