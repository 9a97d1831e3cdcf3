"""Mark engine messages for translation without importing Django.

`_` returns its argument unchanged; Django's makemessages still collects the
strings, and the web layer translates an error's template before filling in
its parameters.
"""


def _(message: str) -> str:
    """Return the message unchanged; it is only a marker for makemessages."""
    return message
