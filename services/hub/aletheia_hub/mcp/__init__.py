"""MCP over Streamable HTTP: endpoint, JSON-RPC dispatch and the tool registry."""
