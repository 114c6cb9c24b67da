"""Warehouses, stock levels and an audit trail."""
