"""SQL benchmark: database creation, tool round trips direct and through MCP, scoring."""
