"""TOML quoting shared by the knowledge-base importers: a basic string and a list of them."""


def q(s):
    """`s` as a TOML basic string."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def qlist(items):
    """`items` as a one-line TOML array of basic strings."""
    return "[" + ", ".join(q(x) for x in items) + "]"
