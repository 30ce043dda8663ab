"""Policy backends: Hugging Face transformers, vLLM, OpenAI-compatible HTTP servers."""
