"""Readers that turn road data files into ``Segments``."""
