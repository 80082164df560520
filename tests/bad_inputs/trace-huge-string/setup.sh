# A kernel name of 24 MiB, longer than any real trace event (the importer refuses units over
# 16 MiB rather than buffering without bound). Made here, not committed.
{
  printf '{"schemaVersion": 1, "traceEvents": [{"ph": "X", "cat": "kernel", "name": "'
  head -c 25165824 /dev/zero | tr '\0' k
  printf '", "ts": 1, "dur": 1, "pid": 0, "tid": 7, "args": {}}]}'
} > huge.trace.json
