"""Analyzers: what a given mechanism guarantees. numpy/scipy only (never cvxpy)."""
