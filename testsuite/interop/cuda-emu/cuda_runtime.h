/* cuda_runtime.h -- a host stand-in for running leirc's --emit=cuda output
 * on the CPU (testsuite/interop/cuda_emu_check.py): the blocks of a launch
 * run one after another; the threads of a block run one after another when
 * the kernel has no barrier, else as real threads with a std::barrier for
 * __syncthreads().  The _rn intrinsics are the IEEE operations (compile with
 * -ffp-contract=off).  Not CUDA: no memory model, no warps; enough to check
 * that the emitted C computes what leirc's interpreter computes. */
#ifndef LEIR_CUDA_EMU_H
#define LEIR_CUDA_EMU_H
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __constant__
#define __forceinline__ inline
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))

struct uint3 { unsigned x, y, z; };
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
inline thread_local uint3 threadIdx, blockIdx;
inline thread_local std::barrier<> *leir_emu_barrier = nullptr;

static inline void __syncthreads() { if (leir_emu_barrier) leir_emu_barrier->arrive_and_wait(); }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return std::fma(a, b, c); }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline float __fsqrt_rn(float a) { return std::sqrt(a); }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
using std::signbit;

typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
static inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = std::calloc(n ? n : 1, 1);
  return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
static inline cudaError_t cudaFree(void *p) { std::free(p); return cudaSuccess; }
static inline cudaError_t cudaGetLastError() { return cudaSuccess; }

/* kernel<<<grid, block>>>(args) is rewritten as leir_launch(grid, block, coop, [&] { kernel(args); }) */
static inline void leir_launch(dim3 g, dim3 b, bool coop, const std::function<void()> &k) {
  for (unsigned bz = 0; bz < g.z; bz++)
    for (unsigned by = 0; by < g.y; by++)
      for (unsigned bx = 0; bx < g.x; bx++) {
        uint3 blk = {bx, by, bz};
        if (!coop) {
          blockIdx = blk;
          for (unsigned tz = 0; tz < b.z; tz++)
            for (unsigned ty = 0; ty < b.y; ty++)
              for (unsigned tx = 0; tx < b.x; tx++) {
                threadIdx = {tx, ty, tz};
                k();
              }
          continue;
        }
        std::barrier<> bar((std::ptrdiff_t)(b.x * b.y * b.z));
        std::vector<std::thread> ts;
        for (unsigned tz = 0; tz < b.z; tz++)
          for (unsigned ty = 0; ty < b.y; ty++)
            for (unsigned tx = 0; tx < b.x; tx++)
              ts.emplace_back([&bar, &k, blk, tx, ty, tz] {
                blockIdx = blk;
                threadIdx = {tx, ty, tz};
                leir_emu_barrier = &bar;
                k();
                bar.arrive_and_drop(); /* a thread that returned stops counting */
              });
        for (auto &t : ts) t.join();
      }
}
#endif
