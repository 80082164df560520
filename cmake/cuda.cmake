# CUDA is optional: -DXP_CUDA=AUTO (default) builds the GPU runners wherever nvcc is found,
# ON insists, OFF leaves them out (the runners then answer "built without CUDA", exit 4).
set(XP_HAVE_CUDA OFF)
if(NOT XP_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(XP_HAVE_CUDA ON)
  elseif(XP_CUDA STREQUAL "ON")
    message(FATAL_ERROR "XP_CUDA=ON but no CUDA compiler was found")
  endif()
endif()

if(XP_HAVE_CUDA)
  # One fat binary: Hopper (H100/H200), Blackwell datacenter, and RTX PRO 6000 Blackwell (sm_120).
  set(XP_CUDA_ARCHS "90;100;120" CACHE STRING "CUDA architectures for xp's kernels")
  set(CMAKE_CUDA_ARCHITECTURES ${XP_CUDA_ARCHS})
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  # NCCL ships with the toolkit here (/usr/local/cuda/lib) and in the system path on GPU hosts;
  # XP_NCCL_ROOT points at another copy (PyTorch's nvidia.nccl has headers and the library).
  set(XP_NCCL_ROOT "" CACHE PATH "Where NCCL's include/ and lib/ are, if not with CUDA")
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${XP_NCCL_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
  find_library(NCCL_LIBRARY NAMES nccl libnccl.so.2
               HINTS ${XP_NCCL_ROOT}/lib ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib REQUIRED)
  message(STATUS "xp: CUDA ${CUDAToolkit_VERSION}, archs ${XP_CUDA_ARCHS}, NCCL ${NCCL_LIBRARY}")

  file(GLOB_RECURSE XP_KERNELS_CU CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/kernels/*.cu)
  add_library(xpgpu STATIC ${XP_KERNELS_CU})
  set_target_properties(xpgpu PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  target_include_directories(xpgpu PUBLIC ${CMAKE_SOURCE_DIR}/kernels ${CMAKE_SOURCE_DIR}/harness
                             ${NCCL_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS})
  target_compile_options(xpgpu PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-lineinfo --expt-relaxed-constexpr>)
  target_compile_definitions(xpgpu PUBLIC XP_HAVE_CUDA=1)
  target_link_libraries(xpgpu PUBLIC CUDA::cudart CUDA::cublasLt ${NCCL_LIBRARY})
endif()
