// Benchmark entry point: see bench/README.md.
export {};
