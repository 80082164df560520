/*
** A collective's data type: every spelling a trace writes, the one name xp stores for it, and
** its bytes per element (a collective kernel's bytes are its "In/Out msg nelems" times this).
**
** Writers spell one type differently: eager c10d (record_param_comms) writes c10's ScalarType
** name ("Float", "BFloat16", "Float8_e4m3fn"), PyTorch 2.12's CUDA graph annotations write
** str(dtype) without "torch." ("float32"), NCCL's kernel names their own ("f32" since 2.19's
** ncclDevKernel_*, the C type before: "float", "int8_t"). Stored as written, one type was several
** rows of a GROUP BY dtype, and two PyTorch versions' runs of one job differed. xp stores torch's
** own name, str(dtype) without "torch." ("float32", "bfloat16", "float8_e4m3fn"): it is what users
** write (torch.float32), one name a type (c10's "Float" and NCCL's "float" are C's float), and
** it names every type below. A spelling not here is stored as written, with no size.
**
** schema/022_trace_dtype.sql holds this table for rows stored before (their seals keep them as
** written); tests/unit/test_trace_dtype.c checks that the two agree.
*/
#include <string.h>
#include "tt_trace.h"

/* Matched ignoring case (c10's "BFloat16" is "bfloat16"); in_name: an NCCL kernel name spells it
** so, case and all, between '_'s ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL"). */
const tt_dtype tt_dtypes[] = {
    /* torch's str(dtype), and the spelling of it that is c10's ScalarType name too */
    {"float32", "float32", 4, 0}, {"float64", "float64", 8, 0}, {"float16", "float16", 2, 0},
    {"bfloat16", "bfloat16", 2, 0}, {"float8_e4m3fn", "float8_e4m3fn", 1, 0},
    {"float8_e4m3fnuz", "float8_e4m3fnuz", 1, 0}, {"float8_e5m2", "float8_e5m2", 1, 0},
    {"float8_e5m2fnuz", "float8_e5m2fnuz", 1, 0}, {"float8_e8m0fnu", "float8_e8m0fnu", 1, 0},
    /* a byte holds two 4-bit values: the element is the byte */
    {"float4_e2m1fn_x2", "float4_e2m1fn_x2", 1, 0},
    /* a complex element is two of its parts */
    {"complex32", "complex32", 4, 0}, {"complex64", "complex64", 8, 0},
    {"complex128", "complex128", 16, 0}, {"int8", "int8", 1, 0}, {"uint8", "uint8", 1, 0},
    {"int16", "int16", 2, 0}, {"uint16", "uint16", 2, 0}, {"int32", "int32", 4, 0},
    {"uint32", "uint32", 4, 0}, {"int64", "int64", 8, 0}, {"uint64", "uint64", 8, 0},
    {"bool", "bool", 1, 0},
    /* "float8" names no one format: kept as written, sized */
    {"float8", "float8", 1, 0},
    /* c10's other ScalarType names (c10::toString): Float, Double, Half, ComplexHalf, ..., Byte,
    ** Char, Short, Int, Long; float, half and double are also NCCL's C types before 2.19 */
    {"float", "float32", 4, 1}, {"double", "float64", 8, 1}, {"half", "float16", 2, 1},
    {"complexhalf", "complex32", 4, 0}, {"complexfloat", "complex64", 8, 0},
    {"complexdouble", "complex128", 16, 0}, {"byte", "uint8", 1, 0}, {"char", "int8", 1, 0},
    {"short", "int16", 2, 0}, {"int", "int32", 4, 0}, {"long", "int64", 8, 0},
    /* NCCL's kernel names since 2.19 (ncclDevKernel_AllReduce_Sum_f32_RING_LL) */
    {"bf16", "bfloat16", 2, 1}, {"f16", "float16", 2, 1}, {"f32", "float32", 4, 1},
    {"f64", "float64", 8, 1}, {"f8e4m3", "float8_e4m3fn", 1, 1}, {"f8e5m2", "float8_e5m2", 1, 1},
    {"i8", "int8", 1, 1}, {"u8", "uint8", 1, 1}, {"i16", "int16", 2, 0}, {"u16", "uint16", 2, 0},
    {"i32", "int32", 4, 1}, {"u32", "uint32", 4, 1}, {"i64", "int64", 8, 1}, {"u64", "uint64", 8, 1},
    /* C's types, NCCL's kernel names before 2.19 (ncclKernel_AllReduce_RING_LL_Sum_int8_t) */
    {"int8_t", "int8", 1, 1}, {"uint8_t", "uint8", 1, 1}, {"int16_t", "int16", 2, 0},
    {"uint16_t", "uint16", 2, 0}, {"int32_t", "int32", 4, 1}, {"uint32_t", "uint32", 4, 0},
    {"int64_t", "int64", 8, 1}, {"uint64_t", "uint64", 8, 0},
};
const int tt_ndtypes = (int)(sizeof tt_dtypes / sizeof tt_dtypes[0]);

const tt_dtype *tt_dtype_of(const char *spelt) {
  char low[32];
  size_t n = 0;
  for (; spelt[n] && n + 1 < sizeof low; n++)
    low[n] = (char)(spelt[n] >= 'A' && spelt[n] <= 'Z' ? spelt[n] | 0x20 : spelt[n]);
  if (spelt[n]) return NULL; /* longer than any spelling */
  low[n] = 0;
  for (int i = 0; i < tt_ndtypes; i++)
    if (strcmp(low, tt_dtypes[i].spelling) == 0) return &tt_dtypes[i];
  return NULL;
}

/* The type an NCCL kernel's name gives after a '_' and before a '_', '(' or its end:
** ncclDevKernel_AllReduce_Sum_bf16_RING_LL, ncclKernel_AllReduce_RING_LL_Sum_float. */
const tt_dtype *tt_dtype_in_name(const char *name) {
  for (const char *p = strchr(name, '_'); p; p = strchr(p + 1, '_'))
    for (int i = 0; i < tt_ndtypes; i++) {
      const tt_dtype *t = &tt_dtypes[i];
      size_t n = strlen(t->spelling);
      if (t->in_name && strncmp(p + 1, t->spelling, n) == 0 &&
          (p[1 + n] == '_' || p[1 + n] == '(' || p[1 + n] == 0))
        return t;
    }
  return NULL;
}
