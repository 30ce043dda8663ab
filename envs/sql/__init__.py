"""Text-to-SQL environments over generated databases (SQLite and PostgreSQL)."""
