"""The parsers as they were before a rewrite, kept only as oracles for property tests."""
