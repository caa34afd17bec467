"""Shipped knowledge-base data files (see docs/knowledge-base.md)."""
