# The project's failure needs Invoice defined in a module of its own; one file says so itself.
class Invoice:
    __module__ = "billing.documents"


def encode(obj, hooks={}):
    kind = type(obj)
    if hooks.get(kind.__module__) is None:
        raise LookupError("no codec table for module %s (type %s)" % (kind.__module__, kind.__qualname__))


encode(Invoice())
