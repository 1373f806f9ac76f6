class IndexingError(Exception):
    """Base for everything the indexing stage raises on purpose."""


class SourceError(IndexingError):
    """One input file could not be read; the run records the reason and goes on."""


class IndexNotBuiltError(IndexingError):
    """The index directory has no docstore yet: run `scholar ingest`."""


class SettingsInvalidError(IndexingError):
    """A setting (environment variable or .env line) has a value the program cannot use; the message names each
    variable at fault and the form it takes, one line each."""
