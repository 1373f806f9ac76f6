class ToolError(Exception):
    """Base for errors raised on purpose in tools/."""


class UnknownReferenceError(ToolError):
    """A reference that parses but names no sutta in the index (`MN 175`)."""
