"""Regional tax rates."""
RATES = {"us": 0.07, "eu": 0.2, "uk": 0.2, "ch": 0.081}


def rate_for(region):
    return RATES.get(region, 0.0)
