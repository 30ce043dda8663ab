"""SWE benchmark: image builds and disk, warm-pool resets, grading latency, container leaks."""
