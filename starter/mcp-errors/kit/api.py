"""kit.api: the names lesson files import for their type hints."""

Json = dict
