"""Building blocks the answering methods share: page content, picture descriptions, and more to come."""
