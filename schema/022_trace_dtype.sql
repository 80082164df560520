-- xp schema 22: one data type, one name. A collective's dtype was stored as its trace wrote it:
-- c10's ScalarType name from eager c10d ("Float", "BFloat16"), str(dtype) from PyTorch 2.12's CUDA
-- graph annotations ("float32"), NCCL's from a kernel's name ("f32", "int8_t"); so a GROUP BY dtype
-- split one type into several rows, and runs of two PyTorch versions differed where nothing did.
-- The importer now stores torch's name, str(dtype) without "torch." (importers/torch_trace/
-- tt_dtype.c, whose table this is, says why). Rows stored before are history and are not
-- rewritten: a finished run's rows are sealed (schema 6) and their triggers refuse any UPDATE.
-- As gpu_spelling does for GPU names (schema 18), they are read through this spelling instead.
--
-- trace_dtype_spelling: each spelling the importer knows, lower case (the importer ignores case:
-- c10's "BFloat16" is "bfloat16"), and the name it stores for it. A spelling not here is kept as
-- written. tests/unit/test_trace_dtype.c checks that this list is the importer's.
DROP VIEW IF EXISTS trace_dtype_spelling;
CREATE VIEW trace_dtype_spelling (spelling, dtype) AS VALUES
  ('float32', 'float32'), ('float64', 'float64'), ('float16', 'float16'), ('bfloat16', 'bfloat16'),
  ('float8_e4m3fn', 'float8_e4m3fn'), ('float8_e4m3fnuz', 'float8_e4m3fnuz'),
  ('float8_e5m2', 'float8_e5m2'), ('float8_e5m2fnuz', 'float8_e5m2fnuz'),
  ('float8_e8m0fnu', 'float8_e8m0fnu'), ('float4_e2m1fn_x2', 'float4_e2m1fn_x2'),
  ('complex32', 'complex32'), ('complex64', 'complex64'), ('complex128', 'complex128'),
  ('int8', 'int8'), ('uint8', 'uint8'), ('int16', 'int16'), ('uint16', 'uint16'),
  ('int32', 'int32'), ('uint32', 'uint32'), ('int64', 'int64'), ('uint64', 'uint64'),
  ('bool', 'bool'), ('float8', 'float8'), ('float', 'float32'), ('double', 'float64'),
  ('half', 'float16'), ('complexhalf', 'complex32'), ('complexfloat', 'complex64'),
  ('complexdouble', 'complex128'), ('byte', 'uint8'), ('char', 'int8'), ('short', 'int16'),
  ('int', 'int32'), ('long', 'int64'), ('bf16', 'bfloat16'), ('f16', 'float16'),
  ('f32', 'float32'), ('f64', 'float64'), ('f8e4m3', 'float8_e4m3fn'), ('f8e5m2', 'float8_e5m2'),
  ('i8', 'int8'), ('u8', 'uint8'), ('i16', 'int16'), ('u16', 'uint16'), ('i32', 'int32'),
  ('u32', 'uint32'), ('i64', 'int64'), ('u64', 'uint64'), ('int8_t', 'int8'), ('uint8_t', 'uint8'),
  ('int16_t', 'int16'), ('uint16_t', 'uint16'), ('int32_t', 'int32'), ('uint32_t', 'uint32'),
  ('int64_t', 'int64'), ('uint64_t', 'uint64');

-- trace_collective_kernels as in schema 13, its dtype as trace_dtype_spelling names it.
DROP VIEW IF EXISTS trace_collective_kernels;
CREATE VIEW trace_collective_kernels AS
SELECT c.run_id, c.rank, c.seq, c.name_id, s.category AS collective, c.source,
       coalesce((SELECT d.dtype FROM trace_dtype_spelling d WHERE d.spelling = lower(c.dtype)), c.dtype) AS dtype,
       c.in_nelems, c.out_nelems, c.in_bytes, c.out_bytes, c.group_size, c.pg_name, c.pg_desc,
       c.pg_ranks, c.seq_arg, c.stream, c.device, c.step, c.start_ns, c.dur_ns, c.match_group,
       c.wait_ns, c.transfer_ns
FROM trace_collectives c
JOIN trace_kernel_stats s ON s.run_id = c.run_id AND s.rank = c.rank AND s.name_id = c.name_id
 AND s.coll = CASE c.source WHEN 'args' THEN c.collective ELSE '' END
JOIN trace_categories g ON g.category = s.category AND g.grp = 'communication';
