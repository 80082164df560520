mkfifo rank0.trace.json
