"""The public conformance harness for lexcodecs codecs (see lexcodecs.testing.conformance)."""
