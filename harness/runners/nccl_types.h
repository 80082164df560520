/*
** The codes nccl_burst shares between its C host code and its CUDA kernels: which collective
** and which element type. Plain enums so that both compilers read the same header.
*/
#ifndef XP_NCCL_TYPES_H
#define XP_NCCL_TYPES_H

enum xp_nccl_coll {
  XP_COLL_ALLREDUCE,
  XP_COLL_ALLGATHER,
  XP_COLL_REDUCESCATTER,
  XP_COLL_BROADCAST,
  XP_COLL_ALLTOALL,
  XP_COLL_N
};

enum xp_nccl_dtype {
  XP_DT_BF16,
  XP_DT_FP16,
  XP_DT_FP32,
  XP_DT_FP8_E4M3,
  XP_DT_FP8_E5M2,
  XP_DT_N
};

#endif
