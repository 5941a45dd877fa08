"""The MCP protocol core, free of any transport: JSON-RPC dispatch, batches, tools, texts."""
