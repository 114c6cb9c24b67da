class DimensionError(TypeError):
    pass


def energy_budget():
    raise DimensionError("stage 'losses': cannot add kg*m^2*s^-3 to kg*m^2*s^-2")


energy_budget()
