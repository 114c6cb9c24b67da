"""Billing documents and their encoders."""
