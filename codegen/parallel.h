/* parallel.h -- when the host JIT runs a nest on several threads (issue 41).
 *
 * One definition for the code that decides (codegen/host.c) and the cost
 * model that predicts it (codegen/costmodel.c, HOST estimate).  A nest whose
 * outermost loop may run in parallel (SPEC §9.8) is cut into ranges over
 * the worker pool (codegen/pool.h) only when it has at least CG_PAR_MIN_WORK
 * innermost iterations (the product of its loops' extents, summed over its
 * statements); smaller nests run on the calling thread, where a wake-up of
 * the pool would cost more than the nest gains.  Measured with
 * bench/par_bench.py (`make bench-par`; 2 CPUs, load 6, the figures in the
 * commit that wrote this): with the worker pinned to the caller's CPU, so that it never
 * helps, every parallel nest on the pool costs a program at most 3% over
 * one thread from 13 us up (Average_Pooling_1D 12.9 -> 13.4 us), about
 * 0.5 us a nest (the wake-up call; Gemm_Divide_Sum_Scaling 2.5 -> 3.1 us);
 * at this threshold no program of the corpus measured more than 3% over.
 * A nest of costly operations would pay from fewer iterations (GELU's erf,
 * 3 ns an iteration, against 0.06 ns for Average_Pooling_1D's): weighing
 * the iterations by the cost model's operation weights is left for later
 * (it moves the model's pinned --tune trajectories in the tests).
 */
#ifndef LEIR_CODEGEN_PARALLEL_H
#define LEIR_CODEGEN_PARALLEL_H

/* innermost iterations below which a nest runs on the calling thread */
#define CG_PAR_MIN_WORK (1 << 15)

/* ranges of a parallel nest per thread: the pool hands them out as threads
 * come, so a thread the scheduler is late to run takes less */
#define CG_PAR_CHUNKS 4

#endif /* LEIR_CODEGEN_PARALLEL_H */
