/* parallel.h -- when the host JIT runs a nest on several threads (issue 41).
 *
 * One definition for the code that decides (codegen/host.c) and the cost
 * model that predicts it (codegen/costmodel.c, HOST estimate: both call
 * host_par there, host.c through cost_model_host_par).  A nest whose
 * outermost loop may run in parallel (SPEC §9.8) is cut into ranges over
 * the worker pool (codegen/pool.h) only when a second core would save it
 * CG_PAR_MIN_S or more by the cost model: its HOST time on one core less
 * its time on two (compute, L2 and L3 halve, memory gains up to the
 * machine's bandwidth).  So the iterations are weighed by what they cost
 * (GELU's erf, 135 operations, against HardTanh's min and max), and a nest
 * that moves much data for little work gains only what its traffic does.
 *
 * Why: the old rule (CG_PAR_MIN_WORK innermost iterations) put nests of a
 * few tens of microseconds on the pool.  On a quiet 2-CPU KVM guest (AMD
 * EPYC, the bench machine) the all-CPU/one-thread ratios were then 2.04
 * (Average_Pooling_1D, 13 us on one thread, its three nests on the pool),
 * 1.98 and 1.25 (Max_Pooling_1D, ~40 us, two nests), 1.31 and 1.22
 * (Max_reduction_over_a_dimension, 45 us, one), 1.22 (HardTanh, 25 us) and
 * 1.13 and 1.27 (LeakyReLU, 25 us): 4 to 20 us more a nest, against the
 * 0.5 us of the wake-up call alone measured by bench/par_bench.py with the
 * worker pinned to the caller's CPU.  What costs, we believe (the guest has
 * no PMU to count it), is the worker taking part: an idle virtual CPU is
 * woken by an interrupt through the hypervisor, the caller then sleeps
 * until the worker's last range is done and is woken the same way, and the
 * ranges handed out as threads come move the nest's data (1 to 4 MiB, warm
 * in the caller's caches from the run before) between the cores' L2s.  A
 * nest of that size gains less than that from a second core.  By the
 * model these nests save 14 to 44 us on two cores (it counts their time 2
 * to 3 times over: 88 us for Max_reduction's 45); the nests seen to gain
 * up to 1.9x with --threads 2 (tvm_bench, best of 20-300, load 6-11:
 * GELU 765 -> 416 us, Tanh 1.34 -> 0.76 ms, CosineSimilarityLoss 1.31 ->
 * 0.77 ms) save 180 us or more, and memory-bound Max_Pooling_2D (13 ->
 * 7 ms) saves milliseconds.
 * CG_PAR_MIN_S = 50 us lies between.  HOST_PAR_S, what the estimate adds
 * for a nest on the pool, is 10 us (the 4 to 20 us above).
 *
 * CgOptions.par_min_work > 0 (tests, bench/par_bench.py) still decides by
 * innermost iterations (the product of the loops' extents, summed over the
 * statements): 1 puts every parallel-safe nest on the pool.
 */
#ifndef LEIR_CODEGEN_PARALLEL_H
#define LEIR_CODEGEN_PARALLEL_H

/* innermost iterations below which a nest runs on the calling thread when
 * the cost model cannot be asked (CgOptions.par_min_work's unit) */
#define CG_PAR_MIN_WORK (1 << 15)

/* the cost model's time a second core saves a nest (HOST estimate), below
 * which a parallel-safe nest runs on the calling thread */
#define CG_PAR_MIN_S 50e-6

/* ranges of a parallel nest per thread: the pool hands them out as threads
 * come, so a thread the scheduler is late to run takes less */
#define CG_PAR_CHUNKS 4

#endif /* LEIR_CODEGEN_PARALLEL_H */
