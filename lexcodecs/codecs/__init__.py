"""The format codecs, one module per format (added by the codec issues)."""
