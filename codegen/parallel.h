/* parallel.h -- when the host JIT runs a nest on several threads (issue 41).
 *
 * One definition for the code that decides (codegen/host.c) and the cost
 * model that predicts it (codegen/costmodel.c, HOST estimate).  A nest whose
 * outermost loop may run in parallel (SPEC §9.8) is cut into ranges over
 * the worker pool (codegen/pool.h) only when it has at least CG_PAR_MIN_WORK
 * innermost iterations (the product of its loops' extents, summed over its
 * statements); smaller nests run on the calling thread, where a wake-up of
 * the pool would cost more than the nest gains.
 */
#ifndef LEIR_CODEGEN_PARALLEL_H
#define LEIR_CODEGEN_PARALLEL_H

/* innermost iterations below which a nest runs on the calling thread */
#define CG_PAR_MIN_WORK (1 << 15)

/* ranges of a parallel nest per thread: the pool hands them out as threads
 * come, so a thread the scheduler is late to run takes less */
#define CG_PAR_CHUNKS 4

#endif /* LEIR_CODEGEN_PARALLEL_H */
