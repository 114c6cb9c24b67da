class DimensionError(TypeError):
    pass


raise DimensionError("stage 'losses': cannot add kg*m^2*s^-3 to kg*m^2*s^-2")
