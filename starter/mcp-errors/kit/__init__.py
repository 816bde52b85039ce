"""The workshop's kit, for running server.py outside the workshop (python3 server.py). In the
workshop's own runs the same modules are put in place for you; this copy of kit/mcp.py is kept
equal to the one they use (src/bridge/kit_mcp.py) by a test."""
