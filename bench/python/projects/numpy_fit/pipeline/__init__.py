"""A tiny modelling pipeline on numpy."""
