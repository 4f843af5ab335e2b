"""Spatial flexible links and trees of bodies (docs/spatial-link.md)."""
