"""aletheia-mcp: the stdio MCP server a host starts; it forwards every line to the hub."""
