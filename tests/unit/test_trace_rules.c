/* Kernel categories (importers/torch_trace/categories.tsv, tt_rules.c): the built-in rules on
** real kernel names from LLM inference traces (shared/reference/traces.md), including those
** Holistic Trace Analysis gets wrong, and the rules file's error messages. */
#include <string.h>
#include "check.h"
#include "torch_trace/tt_rules.h"
#include "torch_trace/tt_trace.h"
#include "xp.h"

static const struct { const char *name, *category; } cases[] = {
    /* NCCL across eras; RCCL */
    {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "allreduce"},
    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", "allreduce"},
    {"ncclAllReduceRingLLKernel_sum_f32(ncclColl)", "allreduce"},
    {"ncclSymkDevKernel_AllReduce_RSxLD_AGxST_sum_bf16", "allreduce"},
    {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "allgather"},
    {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "reduce_scatter"},
    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "sendrecv"},
    {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "sendrecv"},
    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "broadcast"},
    {"ncclDevKernel_Generic_1(ncclDevKernelArgsStorage<4096ul>)", "communication"},
    {"ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "communication"},
    /* all-reduce that is not NCCL: HTA counts these as computation */
    {"void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)", "allreduce"},
    {"void sglang::cross_device_reduce_1stage<__nv_bfloat16, 2>(sglang::RankData*, sglang::RankSignals, sglang::Signal*, __nv_bfloat16*, int, int)", "allreduce"},
    {"void flashinfer::trtllm_allreduce_fusion::allreduce_fusion_kernel_oneshot_lamport<(flashinfer::trtllm_allreduce_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 2, false, true>", "allreduce"},
    {"void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>", "allreduce"},
    /* AITER's two-stage fused all-reduce + RMSNorm (ROCm/aiter custom_all_reduce.cuh): the first
    ** kernel reduces its slice and stores it into every rank's buffer, the whole all-reduce
    ** (reduce_scatter before); the second normalizes from its own buffer alone */
    {"void aiter::reduce_scatter_cross_device_store<__hip_bfloat16, 8>(aiter::RankData*, aiter::RankSignals, aiter::Signal*, int, int)", "allreduce"},
    {"void aiter::local_device_load_rmsnorm<__hip_bfloat16, 512, 2>(aiter::RankSignals, __hip_bfloat16*, __hip_bfloat16*, __hip_bfloat16*, __hip_bfloat16*, float, int, int, int)", "norm"},
    {"void aiter::local_device_load_rmsnorm_512n<__hip_bfloat16, 2>(aiter::RankSignals, __hip_bfloat16*, __hip_bfloat16*, __hip_bfloat16*, __hip_bfloat16*, float, int, int, int)", "norm"},
    /* one kernel doing both, the all-reduce and its RMSNorm (FlashInfer's and TensorRT-LLM's
    ** allreduce_fusion, MoE finalize too): the collective its time waits on, matched across ranks */
    {"void tensorrt_llm::kernels::ar_fusion::allreduce_fusion_kernel_twoshot_sync<(tensorrt_llm::kernels::ar_fusion::AllReduceFusionPattern)1, __nv_bfloat16, 8, true>(tensorrt_llm::kernels::ar_fusion::AllReduceFusionParams)", "allreduce"},
    {"void tensorrt_llm::kernels::ar_fusion::moe::moereduce_allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16, 8>(tensorrt_llm::kernels::ar_fusion::moe::MoeReductionAllReduceFusionParams)", "allreduce"},
    {"void barrier_on_stream_kernel_threadgroup<(threadgroup_t)1>(int, int)", "communication"},
    /* NVSHMEM's other on-stream collectives (nvshmemi_h_to_d_coll_defs.cuh; the team an int, as
    ** nvshmem_team_t is): other before */
    {"void rdxn_on_stream_kernel<float, (rdxn_ops)4>(int, float*, float const*, unsigned long)", "allreduce"},
    {"void fcollect_on_stream_kernel<__nv_bfloat16>(int, __nv_bfloat16*, __nv_bfloat16 const*, unsigned long)", "allgather"},
    {"void broadcast_on_stream_kernel<float>(int, float*, float const*, unsigned long, int)", "broadcast"},
    {"void sync_on_stream_kernel_threadgroup<(threadgroup_t)1>(int)", "communication"},
    {"sync_all_on_stream_kernel_block()", "communication"},
    {"barrier_all_on_stream_kernel_warp()", "communication"},
    /* a kernel of another library ending in one of those names is not NVSHMEM's */
    {"void mylib::my_sync_on_stream_kernel(int)", "other"},
    /* Userbuffers (Transformer Engine, TensorRT-LLM): other before */
    {"void userbuffers_fp16_sum_inplace_gpu_rw<8>(int, int, int, int, int, int, int, void**, int)", "allreduce"},
    {"void userbuffers_fp16_sum_inplace_gpu_mc<4>(int, int, int, int*, int*, uint4*, uint4*)", "allreduce"},
    {"void userbuffers_fp16_sum_inplace_gpu_rr_rs_oop_fp8<__nv_fp8_e4m3, 8>(int, int, int, int, int, int, int, void**, int)", "reduce_scatter"},
    {"userbuffers_fp16_sum_inplace_gpu_rw_ag", "allgather"},
    {"void kuserbuffers_pushrecv(int, int, int*, int*, int, void*, void*)", "sendrecv"},
    {"kuserbuffers_pushsend", "sendrecv"},
    {"void deep_ep::intranode::dispatch<8, 768, 8192>(int4*, float*)", "alltoall"},
    /* expert parallelism's token traffic that the moe rule took: TensorRT-LLM's NVLink all-to-all
    ** (kernels::moe_comm; FlashInfer's build of it is moe_alltoall::, which already said so) and
    ** AMD's MORI EP */
    {"void tensorrt_llm::kernels::moe_comm::moeA2ADispatchKernel<8, false, false, false>(int const*, tensorrt_llm::kernels::moe_comm::DispatchKernelPointers, int, int, int, int, int, int, int)", "alltoall"},
    {"void tensorrt_llm::kernels::moe_comm::moeA2ACombineKernel<__nv_bfloat16, 8, false>(tensorrt_llm::kernels::moe_comm::CombineKernelPointers, int, int, int, int, int, int)", "alltoall"},
    {"void tensorrt_llm::kernels::moe_alltoall::moeA2ADispatchKernel<8, false, false, false>(int const*)", "alltoall"},
    {"void mori::moe::EpDispatchIntraNodeKernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<__hip_bfloat16>)", "alltoall"},
    {"void mori::moe::EpCombineInterNodeV1Kernel<__hip_bfloat16>(mori::moe::EpDispatchCombineArgs<__hip_bfloat16>)", "alltoall"},
    /* DeepEP in the public traces of DeepSeek's (deepseek-ai/profile-data prefill.json, decode.json:
    ** its own namespace) and SGLang's (April 2025): its all-to-all, its layout (local MoE work), and
    ** a CUB scan whose wrapped namespace ends in dpsk::ep:: */
    {"void dpsk::ep::internode::dispatch<false, 4, false, 4>(int4*, float*, long*, float*, dpsk::ep::internode::SourceMeta*, int4 const*)", "alltoall"},
    {"void dpsk::ep::internode::combine<false, 4, __nv_bfloat16, 4, 4, 16, 24>(int4*, float*, bool const*, int4 const*)", "alltoall"},
    {"void dpsk::ep::internode::notify_dispatch<false, 4>(int const*, long*, int, int const*, int*)", "alltoall"},
    {"void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int)", "alltoall"},
    {"void dpsk::ep::internode::dispatch_ll<true, 3, 10, 7168>(void*, float*, int*, long*, int*, int*)", "alltoall"},
    {"void dpsk::ep::internode::combine_ll<3, 10, 7168, 9>(void*, void*, int*, void*, void const*)", "alltoall"},
    {"void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)", "moe"},
    {"void deep_ep::internode::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)", "moe"},
    {"void deep_ep::internode::cached_notify<false>(int, int, int, int, int*, int, int, int const*, int const*, int*)", "alltoall"},
    /* ... whose CUB scans (16 in prefill.json) are CUB's, as at_cuda_detail::cub:: is: other before */
    {"void at_cuda_detail::cdpsk::ep::DeviceScanKernel<int>(int const*, int*)", "elementwise"},
    {"void at_cuda_detail::cdpsk::ep::CUB_200200_900_NS::DeviceScanInitKernel<at_cuda_detail::cdpsk::ep::CUB_200200_900_NS::ScanTileState<int, true> >(at_cuda_detail::cdpsk::ep::CUB_200200_900_NS::ScanTileState<int, true>, int)", "elementwise"},
    /* DeepEP's kin (other, or moe, before): UCCL-EP (uccl-project/uccl ep/src), its layout local
    ** MoE work as DeepEP's is; NVIDIA's Hybrid-EP (DeepEP's hybrid-ep branch, as Megatron's flex
    ** dispatcher traces show it); pplx-kernels (csrc/all_to_all: no namespace for its internode
    ** kernels, an anonymous one for the intranode ones) */
    {"void uccl::internode_ll::dispatch<true, false, 7168>(void*, void*, int*, long*, int*, int*, long*, void*, int*, void*, void const*, long const*, int*, int*, int*, int*, long*, int, int, int, int, int, int, int, int, int, bool, int, unsigned long const*, int, int, int, void**, void*, void*, long*, int*)", "alltoall"},
    {"void uccl::internode_ll::clean_low_latency_buffer<256>(int*, int, int*, int)", "alltoall"},
    {"void uccl::intranode::notify_dispatch<8>(int const*, int*, int const*, int*, int, int, int, bool const*, int*, int*, int, int, void**, int**, int)", "alltoall"},
    {"void uccl::intranode::cached_notify_dispatch<8>(int const*, int, void**, int**, int)", "alltoall"},
    {"void uccl::layout::get_dispatch_layout<256, 4, 8>(long const*, int*, int*, int*, bool*, int, int, int, int)", "moe"},
    {"void hybrid_ep::device_sync_kernel<8>", "alltoall"},
    {"hybrid_ep::dispatch_kernel", "alltoall"},
    {"hybrid_ep::combine_kernel", "alltoall"},
    /* Hybrid-EP's bookkeeping (deepseek-ai/DeepEP hybrid-ep csrc/hybrid_ep): other before */
    {"void hybrid_ep::update_expected_value_kernel<2>(unsigned long*, unsigned int*)", "alltoall"},
    {"void ag_nvl_kernel<1024>(void**, void*, int, long*, unsigned long long*, unsigned long long*, int, int)", "allgather"},
    {"ag_nvl_tma_kernel(void**, void*, int, long*, unsigned long long*, unsigned long long*, int, int)", "allgather"},
    {"void hybrid_ep::scan<512, 16, 0, 4096, 128, 8, 1, 32, 8>(bool const*, hybrid_ep::tmp_state_t*, hybrid_ep::tmp_state_t*, int*, bool*, bool*, int*, bool*, int*, int*, int*, int*, int, int, int, int)", "moe"},
    {"void permute_preprocessing_kernel<256, 32>(bool*, int*, int, int*, int, int*, int, int, int*, int*, int*, int)", "moe"},
    {"void primus_turbo::v3::permute_preprocessing_kernel<256, 1>(bool*, int*, int, int, int, int*, int*, int*, long)", "moe"},
    /* not them: another library's scan, a name that merely starts so */
    {"void mylib::scan<int>(int const*, int*, int)", "other"},
    {"void flag_nvl_kernel<1024>(void**)", "other"},
    {"void dispatchKernel<10u, true, true>(int*, unsigned long, std::byte*, unsigned long, unsigned long, std::byte*, unsigned long, unsigned long, std::byte*, unsigned long, std::byte*, unsigned long, unsigned int*, unsigned long, unsigned long, unsigned long, unsigned long, unsigned int, unsigned int, unsigned int, unsigned long, unsigned long, unsigned long, unsigned int*, unsigned int, unsigned int*, unsigned int*, unsigned int*, unsigned int*, unsigned int*, unsigned long*, unsigned long*, std::byte*, std::byte*)", "alltoall"},
    {"void combineKernel<__nv_bfloat16, 8ul, false, true>(__nv_bfloat16*, unsigned long, unsigned int*, unsigned long, unsigned long, float*, unsigned long, unsigned long, __nv_bfloat16*, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned int, unsigned int, unsigned int, unsigned long, unsigned int*, unsigned int, unsigned int*, unsigned int const*, unsigned int const*, unsigned int const*, unsigned long*, unsigned long*, std::byte*, std::byte*)", "alltoall"},
    {"void (anonymous namespace)::dispatchKernel<16u, true, false>(int*, unsigned long, std::byte*, unsigned long, unsigned long, float*, unsigned long, unsigned long, unsigned long, std::byte const*, unsigned long, float const*, unsigned long, unsigned long, unsigned int const*, unsigned long, unsigned long, unsigned long, unsigned long, unsigned int, unsigned int, unsigned int, unsigned long, unsigned long, unsigned long, unsigned int*, unsigned int, std::byte**, std::byte**, unsigned int*, unsigned int*, unsigned int*, unsigned int*, unsigned int*, unsigned int*, unsigned int*, unsigned int&)", "alltoall"},
    {"void (anonymous namespace)::combineKernel<__nv_bfloat16, __half, 32ul, true, true>(__half*, unsigned long, unsigned int*, unsigned long, unsigned long, float*, unsigned long, unsigned long, __nv_bfloat16*, unsigned long, unsigned long, unsigned long, unsigned long, unsigned long, unsigned int, unsigned int, unsigned int, unsigned long, unsigned int*, unsigned int, std::byte**, std::byte**, unsigned int const*, unsigned int const*, unsigned int const*, unsigned int const*, unsigned int&)", "alltoall"},
    /* not them: a kernel of the same name elsewhere, without pplx's DO_SEND, DO_RECV tail or in a
    ** namespace of its own */
    {"void dispatchKernel<float>(float const*, float*, int)", "other"},
    {"void mylib::combineKernel<float, true, true>(float*, float const*, int)", "other"},
    /* PyTorch symmetric memory (torch/csrc/distributed/c10d/symm_mem): its barrier and signals were
    ** other; its all-reduce and all-gather kernels say so; all_to_all_vdev's split exchange */
    {"c10d::symmetric_memory::barrier_kernel(unsigned int**, int, int, int, unsigned long)", "communication"},
    {"c10d::symmetric_memory::multimem_barrier_kernel(unsigned int*, unsigned int*, int, int, int, unsigned long)", "communication"},
    {"c10d::symmetric_memory::put_signal_kernel(unsigned int**, int, int, int, int, unsigned long)", "communication"},
    {"c10d::symmetric_memory::wait_signal_kernel(unsigned int**, int, int, int, int, unsigned long)", "communication"},
    {"void (anonymous namespace)::one_shot_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16**, c10::BFloat16*, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)", "allreduce"},
    {"void (anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8>(c10::BFloat16**, unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)", "allreduce"},
    {"void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, unsigned int**, unsigned long, unsigned long)", "allreduce"},
    {"void (anonymous namespace)::multimem_all_gather_kernel<16>(char*, char*, unsigned long, unsigned int**, unsigned long, unsigned long)", "allgather"},
    {"void c10d::nvshmem_extension::exchangeSplitAndOffset_2d<false>(long*, long*, int, int, unsigned long, bool)", "alltoall"},
    /* a barrier kernel of another library stays other */
    {"void mylib::barrier_kernel(unsigned int**, int)", "other"},
    /* memory; HTA puts hipMemcpyAsync under communication */
    {"Memcpy DtoD (Device -> Device)", "memcpy"},
    {"Memcpy HtoD (Pageable -> Device)", "memcpy"},
    {"hipMemcpyAsync", "memcpy"},
    {"Memset (Device)", "memset"},
    /* MoE */
    {"fused_moe_kernel", "moe"},
    /* SGLang's Triton token scatter and gather around DeepEP (not attention, whose Triton kernels
    ** also start with _fwd_) */
    {"_fwd_kernel_ep_scatter_1", "moe"},
    {"_fwd_kernel_ep_scatter_2", "moe"},
    {"_fwd_kernel_ep_gather", "moe"},
    {"void vllm::moe::topkGating<8, 128, 4, 16, 32, int, __nv_bfloat16>(__nv_bfloat16 const*)", "moe"},
    {"void topkGatingSoftmax<__nv_bfloat16, 8, 128, 4, 16>(__nv_bfloat16 const*, bool const*)", "moe"},
    {"void vllm::moe::count_and_sort_expert_tokens_kernel<int>(int const*, int*, int*, unsigned long)", "moe"},
    {"_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalINS1_17GroupProblemShapeINS_5tupleIJiiiEEEEE", "moe"},
    {"_matmul_ogs_NNT_bf16xbf16xmxfp4_16x256x128x1_swiglu", "moe"},
    /* MoE kernels that the gemm rules took: DeepGEMM's grouped GEMMs (GemmType 1, as SGLang's
    ** DeepSeek traces list it under MoE; 0 is a dense one), TensorRT-LLM's CUTLASS fused MoE's
    ** token permutation and strides (namespace cutlass_kernels; its activation is activation,
    ** also where its function's name says only cutlass), triton_kernels' top-k sum after
    ** _matmul_ogs */
    {"void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 160u, 128u, 0u, 64u, 9u, 4u, 128u, 128u, 1u, true, (deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)", "moe"},
    {"void deep_gemm::sm90_fp8_gemm_1d2d_impl<0u, 4096u, 7168u, 1u, 128u, 128u, 128u, 1u, 1u, 8u, 128u, 2u, 2u, 1u, 1u, 16u, 24u, true, (deep_gemm::GemmType)2, deep_gemm::epilogue::transform::EpilogueIdentity>(float*, int*, unsigned int)", "moe"},
    {"void deep_gemm::sm100_fp8_fp4_gemm_1d1d_impl<(cute::UMMA::Major)0, (cute::UMMA::Major)0, 128u, 128u, 0u, 0u, 0u, 16u, 128u, 128u, 1u, 128u, 128u, 128u, 12u, 128u, 128u, 2u, true, 148u, true, (deep_gemm::GemmType)0, false, cutlass::float_e4m3_t, cutlass::float_e4m3_t, cutlass::bfloat16_t, deep_gemm::epilogue::transform::EpilogueIdentity>(int*, unsigned int, unsigned int, unsigned int, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st, CUtensorMap_st)", "gemm"},
    {"void tensorrt_llm::kernels::cutlass_kernels::expandInputRowsKernel<__nv_bfloat16, __nv_bfloat16, (tensorrt_llm::kernels::cutlass_kernels::TmaWarpSpecializedGroupedGemmInput::FpXBlockScalingType)2, false>", "moe"},
    {"void tensorrt_llm::kernels::cutlass_kernels::computeStridesTmaWarpSpecializedKernel<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16>", "moe"},
    {"void tensorrt_llm::kernels::cutlass_kernels::doActivationKernel<__nv_fp4_e2m1, __nv_bfloat16, tensorrt_llm::kernels::cutlass_kernels::GLUAdaptor<cutlass::epilogue::thread::SiLu> >", "activation"},
    {"void tensorrt_llm::kernels::cutlass_kernels::doActivationKernel<__nv_bfloat16, __nv_bfloat16, cutlass::epilogue::thread::ReLu<float> >", "activation"},
    {"_finalize_matmul_scatter_bf16", "moe"},
    /* attention: FA3 is a CUTLASS kernel, which keyword rules put under GEMM */
    {"void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2, cute::tuple<>>>>>(flash::FlashAttnFwdSm90::Params)", "attention"},
    {"void flash::prepare_varlen_num_blocks_kernel<1, true>(int, int, int, int const*)", "attention"},
    {"void flashinfer::BatchDecodeWithPagedKVCacheKernel<128u, 8u>(flashinfer::Params)", "attention"},
    {"void flashinfer::BatchMLAPagedAttentionKernel<true>(flashinfer::Params)", "attention"},
    {"void flash::flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576, 64, 64>>(Flash_fwd_mla_params)", "attention"},
    {"cudnn_generated_fort_native_sdpa_sm80_flash_fprop_wmma_f16_knob_35_16x128x128_1x4x1_cga1x1x1_kernel0_0", "attention"},
    {"void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, __nv_bfloat16, (vllm::Fp8KVCacheDataType)0>(int)", "attention"},
    /* norm and activation, including the Inductor RMSNorm keyword rules miss */
    {"void flashinfer::norm::RMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*, __nv_bfloat16*)", "norm"},
    {"void flashinfer::norm::FusedAddRMSNormKernel<8u, __nv_bfloat16>(__nv_bfloat16*)", "norm"},
    {"triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1", "norm"},
    /* per-head QK RMSNorm fused with RoPE: TensorRT-LLM's name and SGLang's sgl-kernel's (other before) */
    {"void tensorrt_llm::kernels::fusedQKNormRopeKernel<128, false>(__nv_bfloat16*, int, int, int, float)", "norm"},
    {"void (anonymous namespace)::fused_qk_norm_rope_kernel<128, false>(__nv_bfloat16*, int, int, int, float)", "norm"},
    {"void flashinfer::activation::act_and_mul_kernel<__nv_bfloat16, &silu<float>>(__nv_bfloat16*)", "activation"},
    {"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<at::native::(anonymous namespace)::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}>(at::TensorIteratorBase&)", "activation"},
    /* GEMM */
    {"nvjet_tst_64x8_64x16_4x1_v_bz_TNT", "gemm"},
    {"nvjet_sm90_tst_64x8_64x16_1x1_h_bz_splitK_TNT", "gemm"},
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, false>(cublasLt::cublasSplitKParams<float>)", "gemm"},
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4::Params)", "gemm"},
    {"volta_sgemm_128x32_nt", "gemm"},
    {"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn", "gemm"},
    {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false>(float)", "gemm"},
    {"Cijk_Alik_Bljk_SB_Bias_AS_SAV_UserArgs_MT64x16x32_MI16x16x1_SN_LDSB0", "gemm"},
    {"void marlin::Marlin<(vllm::ScalarTypeId)4, 256, 1, 8, 8, 8, false, -1>(int4 const*)", "gemm"},
    {"void wvSplitK_hf_sml_<__hip_bfloat16, 64, 2, 16, 8, 2, 1>(int, int, __hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16*, int, int)", "gemm"},
    {"Custom_Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x128x64_MI16x16x1", "gemm"},
    /* LoRA's adapter GEMMs, as vLLM's and SGLang's Triton kernels are named: other before */
    {"_lora_shrink_kernel", "gemm"},
    {"_lora_expand_kernel", "gemm"},
    {"_sgmv_expand_slice_kernel", "gemm"},
    {"_bgmv_shrink_kernel", "gemm"},
    {"_qkv_lora_b_kernel", "gemm"},
    {"_gate_up_lora_b_kernel", "gemm"},
    /* FBGEMM's kernels (namespace fbgemm_gpu, which names the library, not a GEMM) as HTA's
    ** tests/data/trace_filter/sampled_rank-0.json.gz holds them (shortened where their arguments
    ** repeat): "fbgemm" in a name is no GEMM */
    {"void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)", "other"},
    {"void fbgemm_gpu::(anonymous namespace)::_compute_FP8_quantize_cuda_kernel<float>(float const*, float const*, int, int, unsigned char*, bool)", "other"},
    {"void bounds_check_indices_kernel<long, false>(at::GenericPackedTensorAccessor<long, 1ul, at::RestrictPtrTraits, int>, int const*, long, fbgemm_gpu::FixedDivisor)", "other"},
    {"void split_embedding_codegen_forward_unweighted_kernel<c10::Half, c10::Half, float, false, long, 2ul, 32ul>(at::GenericPackedTensorAccessor<int, 1ul, at::RestrictPtrTraits, int>, fbgemm_gpu::FixedDivisor)", "elementwise"},
    {"void at::native::vectorized_elementwise_kernel<4, fbgemm_gpu::_hfp8_to_float_gpu(at::Tensor const&, long, long)::{lambda(unsigned char)#1}, at::detail::Array<char*, 2> >(int, fbgemm_gpu::_hfp8_to_float_gpu(at::Tensor const&, long, long)::{lambda(unsigned char)#1}, at::detail::Array<char*, 2>)", "elementwise"},
    {"bmm_E4m3_E4m3E4m3_Fp32_t128x8x128u2_s6_et64x8_m64x8x32_cga1x1x1_16dp256b_TN_transOut_schedS_bN_swiGlu_dynBatch", "moe"},
    {"bmm_Bfloat16_E2m1E2m1_Fp32_t128x8x256_s4_TN_transOut_dynBatch", "moe"},
    {"kernel_unified_attention_3d", "attention"},
    /* hybrid models' token mixers, in attention's place: Mamba2 (vLLM's mamba ops, as mamba_ssm
    ** writes them; the SSD's batched product was gemm) and the gated delta rule
    ** (flash-linear-attention's, Qwen3-Next); they were other */
    {"_bmm_chunk_fwd_kernel", "attention"},
    {"_chunk_scan_fwd_kernel", "attention"},
    {"_chunk_cumsum_fwd_kernel", "attention"},
    {"_chunk_state_fwd_kernel", "attention"},
    {"_state_passing_fwd_kernel", "attention"},
    {"_selective_scan_update_kernel", "attention"},
    {"_causal_conv1d_update_kernel", "attention"},
    {"chunk_gated_delta_rule_fwd_kernel_h_blockdim64", "attention"},
    {"fused_recurrent_gated_delta_rule_fwd_kernel", "attention"},
    {"chunk_scaled_dot_kkt_fwd_kernel", "attention"},
    {"recompute_w_u_fwd_kernel", "attention"},
    {"solve_tril_16x16_kernel", "attention"},
    {"chunk_fwd_kernel_o", "attention"},
    /* elementwise and the rest */
    {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int)", "elementwise"},
    {"triton_poi_fused_add_cos_sin_0", "elementwise"},
    /* Inductor's copies into and out of a c10d functional collective's buffer, named for it
    ** (pytorch/pytorch test/distributed/test_inductor_collectives.py; the second as a profile of
    ** a torch.compile'd model lists it): collectives before */
    {"triton_poi_fused_all_reduce_0", "elementwise"},
    {"triton_poi_fused_all_reduce_lift_fresh_0", "elementwise"},
    {"triton_poi_fused_all_gather_into_tensor_0", "elementwise"},
    {"triton_poi_fused_reduce_scatter_tensor_1", "elementwise"},
    {"triton_poi_fused_all_to_all_single_2", "elementwise"},
    {"triton_red_fused__to_copy_add_all_reduce_mean_mul_pow_rsqrt_3", "norm"},
    {"triton_tem_fused_all_reduce_mm_4", "gemm"},
    /* Inductor's foreach (combo) and split-scan kernels: other before */
    {"triton_for_fused_0", "elementwise"},
    {"triton_spl_fused_cumsum_exp_sub_3", "elementwise"},
    /* the sampler's ATen kernels: its random numbers are sampling; top-k and cumsum, which MoE
    ** routing and positions run too, ATen reductions */
    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, at::native::templates::cuda::uniform_and_transform<float, float, at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*)::{lambda(curandStatePhilox4_32_10*)#2}>(long, at::PhiloxCudaState)", "sampling"},
    {"void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>(at::cuda::detail::TensorInfo<float const, unsigned int>)", "elementwise"},
    {"void at::native::mbtopk::radixFindKthValues<float, unsigned int, unsigned int, 2>(at::cuda::detail::TensorInfo<float const, unsigned int>)", "elementwise"},
    {"void at::native::tensor_kernel_scan_innermost_dim<float, std::plus<float> >(float*, float const*, unsigned int, unsigned int, float, std::plus<float>)", "elementwise"},
    /* ATen's sorts, as CUB's: other before (shared/fixtures/torch's decode traces, 1 a layer) */
    {"void at::native::bitonicSortKVInPlace<2, -1, 16, 16, float, long, at::native::GTOp<float, true>, unsigned int>(at::cuda::detail::TensorInfo<float, unsigned int>, unsigned int, unsigned int, unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, at::native::GTOp<float, true>)", "elementwise"},
    /* ROCm's kernels that their CUDA counterparts' rules missed (other, or elementwise, before):
    ** as TraceLens-style breakdowns of vLLM's and SGLang's decode traces on MI355X list them (cut
    ** where those tables cut them), and one built from AITER's template (csrc/kernels/
    ** topk_softmax_kernels_group.cu) with the arguments such a table prints for it. rocPRIM is
    ** CUB's counterpart, AITER's grouped top-k and softplus gating vLLM's moe kernels', and its
    ** opus split-K reduce cuBLASLt's splitKreduce */
    {"void rocprim::ROCPRIM_400200_NS::detail::trampoline_kernel<rocprim::ROCPRIM_4", "elementwise"},
    {"void rocprim::ROCPRIM_400000_NS::detail::partition_kernel<(rocprim::ROCPRIM_400000_NS::detail::select_method)0, true, ro", "elementwise"},
    {"void aiter::grouped_topk_kernel<c10::BFloat16, float __vector(4), 1, true, true, false>(c10::BFloat16*, c10::BFloat16 const*, float*, int*, unsigned long, int, int, int, bool, float)", "moe"},
    {"void aiter::topk_softplus_kernel_opt<hip_bfloa", "moe"},
    {"void splitk_reduce_kernel<16, 64, std::bfloat16_t, false, std::bfloat16_t, true>", "gemm"},
    {"_Z20splitk_reduce_kernelILi16ELi64EDF16bLb0EDF16bLb0EEvPK21opus_splitk_ws_han", "gemm"},
    /* ATen's kernels on Intel GPUs (torch-xpu-ops), as profiler tables print them
    ** (vllm-project/vllm-xpu-kernels#48, cut there; intel/torch-xpu-ops#2199, demangled and as
    ** the typeinfo name): CUDA's elementwise_kernel and reduce_kernel in CamelCase, other before;
    ** an activation's functor still says activation */
    {"at::native::xpu::VectorizedElementwiseKernel<2, at::", "elementwise"},
    {"at::native::xpu::UnrolledElementwiseKernel<at::nativ", "elementwise"},
    {"at::native::xpu::ReduceKernel<4, at::native::xpu::ReduceOp<c10::Half, at::native::xpu::ArgMinOps<float>, unsigned int, long, 4> >", "elementwise"},
    {"_ZTSN2at6native3xpu12ReduceKernelILi4ENS1_8ReduceOpIN3c104HalfENS1_9ArgMinOpsIfEEjlLi4EEEEE", "elementwise"},
    {"at::native::xpu::VectorizedElementwiseKernel<4, at::native::xpu::SiluFunctor<float>, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, unsigned int> >", "activation"},
    /* oneCCL's SYCL kernels on Intel GPUs (XCCL, torch-xpu-ops): an all_reduce's reduce step
    ** (intel/torch-xpu-ops#5384), its helpers (oneCCL's kernel-name classes: kernel_memcpy,
    ** pre_operation, reduce_average, invoke_barrier), also as typeinfo names, and its PCIe ring
    ** broadcast, a functor of its protocol (Rt64_128_PCIE): other before */
    {"oneccl_reduce_base<float, 2, 16, 1, 1, 2>", "communication"},
    {"oneccl_kernel_memcpy_typed<sycl::_V1::detail::half_impl::half>", "communication"},
    {"oneccl_pre_operation<float, 4, 16>", "communication"},
    {"oneccl_reduce_average<c10::BFloat16, 2, 16>", "communication"},
    {"oneccl_invoke_barrier", "communication"},
    {"_ZTS18oneccl_reduce_baseIfLi2ELi16ELi1ELi1ELi2EE", "communication"},
    {"Broadcast<sycl::_V1::detail::half_impl::half, Rt64_128_PCIE, RingTransmit, true, 16>", "broadcast"},
    /* ... which say their collective where their name does */
    {"oneccl_allreduce_pcie<half, Rt64_128_PCIE, RingTransmit>", "allreduce"},
    {"oneccl_reduce_scatter_large_main<float, true, 4, 8>", "reduce_scatter"},
    {"oneccl_alltoall_write_aligned<float, 4>", "alltoall"},
    /* not oneCCL's: a name merely holding the word, a broadcast of another library */
    {"void mylib::helper_oneccl_copy(int)", "other"},
    {"void mylib::Broadcast<float>(float*, int)", "other"},
    /* vLLM's DeepSeek-V4 Triton kernels (its ROCm traces, the same breakdowns as above): sparse
    ** attention and the inverse RoPE, other before; a name holding rope only inside a word is not;
    ** SGLang's split-KV paged decode and AITER's opus GQA attention (same breakdowns), other
    ** before; GQA only as a word of its own */
    {"_sparse_attn_decode_partial_kernel", "attention"},
    {"_sparse_attn_ragged_varlen_triton_kernel", "attention"},
    {"_paged_decode_split_kernel", "attention"},
    {"void gqa_d192_v128_kernel<opus_gqa_d192_traits<32, 64, 8, true, true> >", "attention"},
    {"void mylib::mgqa_helper_kernel(int)", "other"},
    /* AITER's assembly paged attention on ROCm, by the symbol its code object exports (aiter's
    ** pa_asm configs, its asm_pa.cu; an MTP decode's in a Python caller): other before; a Triton
    ** or other kernel merely starting with pa_ is not */
    {"_ZN5aiter42pa_bf16_pertokenFp8_gqa10_1tg_4w_mtp3_msk1E", "attention"},
    {"_ZN5aiter44PA_A16W8_BLK256_1TG_4W_16mx1_64nx4_MTP_PS_PBE", "attention"},
    {"pa_a16w8_2tg_g8_i8", "attention"},
    {"aiter::pa_bf16_pertokenFp8_gqa10_1tg_4w_mtp3_msk1", "attention"},
    {"pad_sequences_kernel", "other"},
    {"void mylib::pa_helper_kernel(int)", "other"},
    {"_inverse_rope_gptj_kernel", "elementwise"},
    {"void mylib::property_update_kernel(int)", "other"},
    {"some_kernel_nobody_has_seen", "other"},
};

static void test_builtin(void) {
  tt_rules r;
  CHECK_EQ_INT(tt_rules_builtin(&r), 0);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *got = tt_rules_category(&r, cases[i].name, "kernel");
    if (strcmp(got, cases[i].category) != 0) {
      fprintf(stderr, "%.90s: %s, expected %s (%s)\n", cases[i].name, got, cases[i].category,
              tt_rules_describe(&r, tt_rules_match(&r, cases[i].name)));
      CHECK(0);
    }
  }
  /* copies and fills the runtime names its own way (HIP: CopyHostToDevice, FillBuffer) are
  ** still copies and fills; a kernel of that name is not */
  CHECK_EQ_STR(tt_rules_category(&r, "CopyHostToDevice", "memcpy"), "memcpy");
  CHECK_EQ_STR(tt_rules_category(&r, "FillBufferAligned", "memset"), "memset");
  CHECK_EQ_STR(tt_rules_category(&r, "FillBufferAligned", "kernel"), "other");
  CHECK_EQ_STR(tt_rules_category(&r, "Memcpy DtoD (Device -> Device)", "kernel"), "memcpy");
  CHECK_EQ_STR(tt_rules_group(&r, "allreduce"), "communication");
  CHECK_EQ_STR(tt_rules_group(&r, "memset"), "memory");
  CHECK_EQ_STR(tt_rules_group(&r, "gemm"), "compute");
  CHECK_EQ_STR(tt_rules_group(&r, "undeclared"), "other");
  tt_rules_free(&r);
}

static void expect_bad(const char *text, const char *what) {
  tt_rules r;
  xp_error_quiet(1);
  int rc = tt_rules_parse(text, strlen(text), "rules.tsv", &r);
  xp_error_quiet(0);
  CHECK_EQ_INT(rc, XP_EXIT_USAGE);
  if (!strstr(xp_last_error(), what)) {
    fprintf(stderr, "error \"%s\" lacks \"%s\"\n", xp_last_error(), what);
    CHECK(0);
  }
}

static void test_errors(void) {
  const char *ok = "category\tother\tother\ncategory\tgemm\tcompute\n# comment\n\nrule\tgemm\tregex\t^nvjet\n";
  tt_rules r;
  CHECK_EQ_INT(tt_rules_parse(ok, strlen(ok), "rules.tsv", &r), 0);
  CHECK_EQ_STR(tt_rules_category(&r, "nvjet_x", "kernel"), "gemm");
  CHECK_EQ_STR(tt_rules_category(&r, "x_nvjet", "kernel"), "other");
  /* a copy no rule names is a copy only where the rules declare the category */
  CHECK_EQ_STR(tt_rules_category(&r, "CopyDeviceToDevice", "memcpy"), "other");
  tt_rules_free(&r);
  expect_bad("category\tother\tother\ncategory\tgemm\tcomputer\n", "rules.tsv:2: group \"computer\"");
  expect_bad("category\tother\tother\nrule\tgemm\tprefix\tnvjet\n", "rules.tsv:2: rule for undeclared category");
  expect_bad("category\tother\tother\nrule\tother\tglob\t*\n", "match \"glob\" is not one of");
  expect_bad("category\tother\tother\nrule\tother\tregex\t(\n", "bad regex");
  expect_bad("category\tgemm\tcompute\n", "no \"other\" category");
  expect_bad("category\tother\tother\nrules\tother\n", "not category or rule");
  expect_bad("category\tother\tother\ncategory\tother\tother\n", "declared twice");
}

static void test_collective_names(void) {
  CHECK_EQ_INT(tt_coll_from_text("allreduce"), TT_COLL_ALLREDUCE);
  CHECK_EQ_INT(tt_coll_from_text("allreduce_coalesced"), TT_COLL_ALLREDUCE);
  CHECK_EQ_INT(tt_coll_from_text("_allgather_base"), TT_COLL_ALLGATHER);
  CHECK_EQ_INT(tt_coll_from_text("allgather_into_tensor_coalesced"), TT_COLL_ALLGATHER);
  CHECK_EQ_INT(tt_coll_from_text("reduce_scatter_tensor_coalesced"), TT_COLL_REDUCE_SCATTER);
  CHECK_EQ_INT(tt_coll_from_text("_reduce_scatter_base"), TT_COLL_REDUCE_SCATTER);
  CHECK_EQ_INT(tt_coll_from_text("all_to_all"), TT_COLL_ALLTOALL);
  CHECK_EQ_INT(tt_coll_from_text("alltoall_base"), TT_COLL_ALLTOALL);
  CHECK_EQ_INT(tt_coll_from_text("send"), TT_COLL_SENDRECV);
  CHECK_EQ_INT(tt_coll_from_text("recv"), TT_COLL_SENDRECV);
  CHECK_EQ_INT(tt_coll_from_text("broadcast"), TT_COLL_BROADCAST);
  CHECK_EQ_INT(tt_coll_from_text("barrier"), TT_COLL_OTHER);
  CHECK_EQ_INT(tt_coll_from_text("reduce"), TT_COLL_OTHER);
}

int main(void) {
  test_builtin();
  test_errors();
  test_collective_names();
  CHECK_DONE();
}
