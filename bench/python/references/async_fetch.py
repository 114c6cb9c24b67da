import asyncio


class FetchError(Exception):
    pass


async def quote():
    raise FetchError('not enough belt: 5 > 2 (unit 22)')


asyncio.run(quote())
