"""``@exercises("navcore_...")`` tags a test as one that runs a hook
through a plugin; ``kernel/test_hooks.py`` checks every hook is tagged."""

EXERCISED = set()


def exercises(*hooks):
    def mark(fn):
        EXERCISED.update(hooks)
        return fn
    return mark
