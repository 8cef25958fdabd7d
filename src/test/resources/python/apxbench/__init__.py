"""Apps and in-process floors for apx's benchmarks."""
