class _Freeze:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


__freeze__ = _Freeze()


class Encoder:
    def __init__(self, indent, sort_keys):
        pass

    def encode(self):
        raise EncodeError("cannot encode Point at $.shapes[3].center")


class EncodeError(TypeError):
    pass


with __freeze__:
    encoder = Encoder(indent=2, sort_keys=True)
encoder.encode()
