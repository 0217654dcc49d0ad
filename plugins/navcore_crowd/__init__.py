"""Crowds: many agents that follow paths and avoid each other (ORCA)."""
