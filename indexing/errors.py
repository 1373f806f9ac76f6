class IndexingError(Exception):
    """Base for everything the indexing stage raises on purpose."""


class SourceError(IndexingError):
    """One input file could not be read; the run records the reason and goes on."""


class IndexNotBuiltError(IndexingError):
    """The index directory has no docstore yet: run `scholar ingest`."""
