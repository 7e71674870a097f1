/* main.c -- the leirc command line. */
#include "config.h"
#include "driver/driver.h"
#include "driver/serve.h"
#include "codegen/emit.h"
#include "codegen/codegen.h"
#include "interp/compare.h"
#include "ir/memlimit.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
  "Usage: leirc [OPTION]... FILE.leir\n"
  "Compile a LEIR (Loop-Equation IR) tensor program.\n"
  "\n"
  "Without -o or --emit, leirc checks FILE (syntax, declarations, shapes) and\n"
  "prints only diagnostics.  FILE may be '-' for standard input.\n"
  "\n"
  "Output:\n"
  "  -o FILE               write the output to FILE; the suffix selects the\n"
  "                        kind unless --emit is given (.leir, .ptx, .ll, .s, .py,\n"
  "                        .cu)\n"
  "      --emit=KIND       what to write: leir (the canonical program), ptx\n"
  "                        (the launch plan and PTX for --gpu-arch), llvm\n"
  "                        (LLVM IR of the NVPTX module, or of the host\n"
  "                        module with --target=host), asm (host assembly),\n"
  "                        tir (TVM TensorIR as TVMScript; with --target=host\n"
  "                        B loops are serial, for TVM's llvm target),\n"
  "                        tirx (the same in the dialect of PyPI's TVM 0.27:\n"
  "                        tirx, s_tir=True, T.sblock), cuda (CUDA C:\n"
  "                        __global__ kernels and a host launch function)\n"
  "      --print-decls     with --emit=leir, also print the declaration header\n"
  "                        (given or inferred) before the program\n"
  "\n"
  "Declarations:\n"
  "      --decls=FILE.json declarations in the reference's sidecar format\n"
  "                        (known_names, known_shapes, known_dtype,\n"
  "                        input_known_names); they override the %-header\n"
  "\n"
  "Code generation (LLVM):\n"
  "      --gpu-arch=sm_NN  the GPU architecture (default sm_90; sm_70 and\n"
  "                        newer); the PTX ISA is the lowest it needs\n"
  "      --target=T        host: --run JIT-compiles the program for this\n"
  "                        machine instead of interpreting it, --emit=llvm\n"
  "                        shows the host module (LEIRC_HOST_CPU=NAME: for\n"
  "                        that x86-64 CPU, e.g. znver3); cuda: the GPU\n"
  "      --cost=C          how run time is judged: measure (run it; the\n"
  "                        default, but for --tune --target=cuda), model\n"
  "                        (the analytic cost model of leirc(1), COST\n"
  "                        MODEL: no run, no GPU needed) or learned (the\n"
  "                        learned model of the host's run time, XGBoost\n"
  "                        over the program's features; host only;\n"
  "                        LEIRC_COST_MODEL names another model file)\n"
  "      --print-cost      print the cost model's estimate for --target (host,\n"
  "                        else cuda for --gpu-arch) of the program after -O:\n"
  "                        seconds, flops, bytes, parallelism, coalescing,\n"
  "                        occupancy, one 'key: value' a line (--json: one\n"
  "                        object); with --cost=measure --target=host also\n"
  "                        the measured median run time (on --input's\n"
  "                        data, random data of --seed for the rest, as\n"
  "                        --run), with --cost=learned the learned\n"
  "                        model's estimate\n"
  "\n"
  "Running (the reference interpreter):\n"
  "      --run             run FILE and write each output to DIR/NAME.npy;\n"
  "                        inputs not given by --input are random\n"
  "      --compare         leirc --compare A.leir B.leir: run both on the same\n"
  "                        inputs and print 'equal' (bit-identical), 'close'\n"
  "                        (within --tolerance) or 'differ' with the first\n"
  "                        differing output, index, values and ulp distance;\n"
  "                        exit status 0 equal/close, 1 differ, 2 error\n"
  "      --input NAME=FILE.npy  the data of input or parameter NAME (--run,\n"
  "                        --compare, --tune, --print-cost --cost=measure\n"
  "                        --target=host, -O with --verify, also under\n"
  "                        --emit-steps; a usage error elsewhere)\n"
  "      --seed N          random inputs from seed N (default 0)\n"
  "                        (and, with -O, a seeded choice among the\n"
  "                        candidates of a filter or a bare NAME; a usage\n"
  "                        error where nothing is random or seeded)\n"
  "      --seeds K         --compare, -O with --verify: K input sets, seeds\n"
  "                        N..N+K-1 (default 1; a usage error elsewhere)\n"
  "      --tolerance=T     --compare: exact, default (STRATEGIES.md 0.4) or\n"
  "                        reference (the paper's acceptance rule)\n"
  "      --json            --compare: print one JSON object\n"
  "      --output-dir DIR  --run: where to write outputs (default .)\n"
  "      --print-outputs   --run: print the outputs as text (%.9g, f64\n"
  "                        %.17g); no .npy is written unless --output-dir\n"
  "      --poison          fill outputs and intermediates with a NaN pattern\n"
  "                        (integers 0xAA bytes) before running, to expose\n"
  "                        reads of never-written elements\n"
  "      --max-steps N     stop after N statement executions (default\n"
  "                        100000000000; 0 = no limit)\n"
  "      --max-memory SIZE refuse a program whose tensors need more than SIZE\n"
  "                        bytes (suffix K, M, G, T: binary units; 0 = no\n"
  "                        limit), checked before anything is allocated\n"
  "                        (--run, --compare, --verify, --tune); default a\n"
  "                        quarter of the physical memory, at most 64G\n"
  "\n"
  "Optimisation (the strategies of STRATEGIES.md; see leirc --list-passes):\n"
  "  -O STEPS              apply the steps in order; STEPS is a comma-separated\n"
  "                        list of NAME or NAME(key=value,...) (commas inside\n"
  "                        parentheses do not split); -O may be repeated.\n"
  "                        A full spelling applies exactly that candidate;\n"
  "                        omitted keys select the first legal candidate\n"
  "                        that matches; a bare NAME, the one the cost\n"
  "                        model rates best for the output's target (cuda\n"
  "                        for .ptx/.cu/.ll output or --target=cuda, else\n"
  "                        host; ties: the pass's default, else the first);\n"
  "                        bare NAMEs in a row (-O tile,reorder), the\n"
  "                        combination the model rates best, or the input\n"
  "                        kept when it rates every one slower (a note\n"
  "                        says which); with --seed N, a seeded choice\n"
  "      --list-passes     list the 43 strategies: name, level, class (E,\n"
  "                        E\u2020, T), implemented or not, alias; then\n"
  "                        leirc's own (scan_rewrite, reduction_rfactor),\n"
  "                        marked as such\n"
  "      --list-applicable print the spelling of every legal candidate of\n"
  "                        every implemented pass, one a line, on the program\n"
  "                        after -O (with --json: JSON lines with strategy,\n"
  "                        level, class, spelling and site {nest, line, col});\n"
  "                        not with --tune or --print-cost\n"
  "      --dump-before=PASS  print the program before each step of PASS (a\n"
  "                        name, an alias or 'all'), after a line\n"
  "                        '# before step N: SPELLING', to stderr\n"
  "      --dump-after=PASS   the same after each step ('# step N: SPELLING')\n"
  "      --dump-dir=DIR    write the dumps to DIR/BASE.NNN.PASS.leir (after)\n"
  "                        and DIR/BASE.NNN.PASS.before.leir instead\n"
  "      --verify-each     run the IR verifier after every step (always on\n"
  "                        in --enable-checking builds, the default)\n"
  "      --verify          run every step's input and output in the\n"
  "                        interpreter on the same inputs (--input, else\n"
  "                        random: --seed, --seeds) and stop with an error\n"
  "                        unless class E steps are bit-identical and class\n"
  "                        T steps agree within the tolerance of\n"
  "                        STRATEGIES.md 0.4 (--tolerance=reference: the\n"
  "                        reference's acceptance rule for class T)\n"
  "      --unsafe-math     let the math strategies assume values nonzero,\n"
  "                        finite and of moderate size (multiplicative_split,\n"
  "                        exponential_split, additive_split, and the\n"
  "                        online softmax family on inputs that may be -inf)\n"
  "      --fp-contract=on|off  on: a float a*b+c, a*b-c, c+a*b, c-a*b (f32,\n"
  "                        f64; also X = X + A*B) is one fused multiply-add,\n"
  "                        rounded once, identically in the interpreter, on\n"
  "                        the host and in PTX (fma.rn); default off (SPEC\n"
  "                        13.3). Results of the two modes are class T\n"
  "                        against each other, never bit-equal (a class E\n"
  "                        step that changes only what fuses is checked as\n"
  "                        class T); with --compare, =A,B (e.g. on,off)\n"
  "                        runs A.leir in mode A and B.leir in mode B\n"
  "\n"
  "Tuning (search the candidates of --list-applicable; see man leirc, TUNING):\n"
  "      --tune[=S]        search for the fastest program reachable by legal\n"
  "                        steps from FILE (after -O) and write it like the\n"
  "                        program (-o, --emit); S: auto (default), sketch,\n"
  "                        greedy, beam, bfs, dfs, mcts (UCT, choices seeded\n"
  "                        by --seed) or policy (needs --policy).\n"
  "                        sketch: schedule sketches, rules that turn a\n"
  "                        matmul-like nest into a register-tiled one over a\n"
  "                        packed copy of its operand, each an ordinary\n"
  "                        sequence of steps, with sampled factors (seeded\n"
  "                        by --seed); no rule matching, beam instead (a\n"
  "                        note). auto: with --cost=measure on the host,\n"
  "                        the sketches on half of --time-limit (and of\n"
  "                        --budget if given), then beam from the best\n"
  "                        program; else beam.\n"
  "                        Cost: --cost=measure (the median run time on\n"
  "                        the host, the default) or model (the default\n"
  "                        with --target=cuda: the GPU cost model).\n"
  "                        Same --seed, same result program given the same\n"
  "                        measurements (byte-identical with --cost=model\n"
  "                        when the search ends before --time-limit)\n"
  "                        Every kept program is verified against FILE on\n"
  "                        the same inputs, and timed on them (--input,\n"
  "                        else random of --seed) (class E bit-equal, class\n"
  "                        T within STRATEGIES.md 0.4); with --cost=model\n"
  "                        only those kept (the beam, the path taken, the\n"
  "                        result) are run, one that fails is dropped\n"
  "      --verify-all      with --cost=model, verify every program costed\n"
  "                        (when all verify, the same search, slower)\n"
  "      --budget=N        at most N programs costed (default: no cap,\n"
  "                        --time-limit governs)\n"
  "      --beam-width=W    programs kept per depth by beam (default 4)\n"
  "      --max-depth=D     at most D steps (default 8)\n"
  "      --expand=K        with --cost=measure: measure only the K children\n"
  "                        of a program the cost model ranks best (default 8;\n"
  "                        0 = all)\n"
  "      --lookahead=N     rank each candidate by the cost model's best\n"
  "                        estimate within N loop_reorder steps after it,\n"
  "                        and take those steps too when they promise 5%\n"
  "                        or more (default 2, at most 3; 0 = off)\n"
  "      --rank-cost=M     with --cost=measure, the model that ranks the\n"
  "                        candidates before they are measured: model (the\n"
  "                        analytic one, the default) or learned (the\n"
  "                        learned model, refitted during the search to\n"
  "                        every program it measures, which also skips\n"
  "                        sketch instances it rates over twice the best,\n"
  "                        or with --sketch-search=evolve ranks them; host\n"
  "                        only)\n"
  "      --sketch-search=S with --cost=measure, how the sketches' instances\n"
  "                        are chosen: sample (drawn and measured one at a\n"
  "                        time, the default) or evolve (generations of 32\n"
  "                        bred from the best measured, ranked by the\n"
  "                        --rank-cost model, the best 4 measured)\n"
  "      --cost-model-save=FILE  with --rank-cost=learned or --cost=learned,\n"
  "                        write the learned model as the search left it\n"
  "                        (XGBoost JSON; LEIRC_COST_MODEL=FILE reads it)\n"
  "      --time-limit=SECONDS  stop the search after this wall time\n"
  "                        (default 60)\n"
  "      --vector-bytes=N  the vector registers the sketches fit their\n"
  "                        register tiles to: 16, 32 or 64 bytes (default:\n"
  "                        the host JIT's, 64 with AVX-512, 32 with AVX)\n"
  "      --policy=CMD      an external policy (started once with /bin/sh -c\n"
  "                        CMD; JSON lines, see man leirc, POLICY PROTOCOL)\n"
  "                        chooses and orders the steps tried from each\n"
  "                        program: with --tune=policy it alone steers (its\n"
  "                        first choice that verifies, and that step's\n"
  "                        --lookahead path, then again), with the other\n"
  "                        searches it is their expander\n"
  "      --policy-timeout=SECONDS  wait at most this long for an answer\n"
  "                        (default 10); a policy that crashes, hangs or\n"
  "                        answers nonsense is refused (counted in --trace)\n"
  "      --trace=FILE.jsonl  write the best trajectory (step, spelling,\n"
  "                        strategy, class, cost_s, speedup, verified) and a\n"
  "                        summary line (evaluations, failed verifications,\n"
  "                        why the search stopped, wall time)\n"
  "\n"
  "Step records (Step-TP training data; leirc --emit-steps=F.jsonl FILE...):\n"
  "      --emit-steps=FILE.jsonl  for every input (several allowed; after -O;\n"
  "                        FILE.decls.json beside FILE.leir is used when\n"
  "                        present), apply every legal candidate, check it\n"
  "                        against the program before it in the interpreter\n"
  "                        (random inputs of --seed; class E bit-equal,\n"
  "                        class T --tolerance) and write one JSON line per\n"
  "                        step (see man leirc, STEP RECORDS); steps that\n"
  "                        fail the check are dropped with a warning; runs\n"
  "                        over --max-steps (here default 10000000)\n"
  "                        statement executions are made with the host JIT\n"
  "                        (bit-identical to the interpreter; the record's\n"
  "                        text ends '(host JIT)'), those over\n"
  "                        --jit-max-steps too are not made and the record\n"
  "                        says verified:false and why\n"
  "      --jit-max-steps=N  --emit-steps, --eval, --check-step: the host\n"
  "                        JIT's budget of statement executions a run over\n"
  "                        --max-steps (default 10000000000; 0 = no JIT)\n"
  "      --keep-unverified write failed steps too, with verified:false\n"
  "      --no-verify       make no check (verified:false; for throughput)\n"
  "      --steps-cache=DIR --emit-steps: keep the outputs of each program\n"
  "                        before the steps in DIR (an existing directory)\n"
  "                        and take them from there in later runs, shards\n"
  "                        and workers instead of running it again (the\n"
  "                        records are the same bytes); also the machine\n"
  "                        code of the nests of those run on the host JIT\n"
  "                        (DIR/jit)\n"
  "      --no-incremental  --emit-steps, --eval: run every program after a\n"
  "                        step in full (by default its leading nests that\n"
  "                        equal the program before's are not run again:\n"
  "                        their values are taken from the before's run;\n"
  "                        nor its trailing ones whose inputs hold the\n"
  "                        before's bits; the records are the same bytes)\n"
  "      --sample=K        at most K records per program (seeded choice)\n"
  "      --balance         keep a candidate of a strategy with n candidates\n"
  "                        in the run with probability min(1, m/n), m the\n"
  "                        median n over the strategies present\n"
  "      --shard=I/N       write only records with id mod N = I (every\n"
  "                        shard must get the same files in the same order)\n"
  "      --format=F        steps (the records above, default), steptp (one\n"
  "                        record per program: original_IR and a label of\n"
  "                        {applied_strategy, transformed_IR, CoT} per\n"
  "                        verified step) or chat (one record per verified\n"
  "                        step: messages system/user/assistant, the\n"
  "                        assistant turn being the CoT, the strategy and the\n"
  "                        program); schemas in PKGDATADIR/schemas\n"
  "\n"
  "Checking steps (Step-TP: is a written program one legal step?):\n"
  "      --check-step[=S]  leirc --check-step[=S] BEFORE.leir AFTER.leir: is\n"
  "                        AFTER what one legal candidate of strategy S (any\n"
  "                        strategy without S) makes of BEFORE, up to fresh\n"
  "                        tensor and loop-index names and spelling?  Prints\n"
  "                        'legal: SPELLING (class E|T)', 'equivalent, not a\n"
  "                        S step: ...', 'not equivalent: ...', 'does not\n"
  "                        parse: ...', 'invalid: ...', 'unchanged' or 'not\n"
  "                        run: REASON; ...' (not known to differ: over\n"
  "                        --max-steps, where the pair runs on the host JIT,\n"
  "                        and over --jit-max-steps too) (--json: one\n"
  "                        object); exit status 0 legal, 3 not run, 1\n"
  "                        otherwise. With --unsafe-math a step legal only\n"
  "                        by its assumptions is legal ('... under\n"
  "                        --unsafe-math', and what running showed); without\n"
  "                        it the verdict says when it would accept the step.\n"
  "                        Declarations: BEFORE's header or --decls; AFTER\n"
  "                        takes BEFORE's arguments unless it has a header.\n"
  "                        Runs use --seed, --tolerance and --max-steps\n"
  "                        (default 10000000)\n"
  "\n"
  "      --eval=FILE.jsonl score Step-TP predictions: one JSON object a line\n"
  "                        with before, strategy, after, optional id and\n"
  "                        decls (a sidecar object); for each: different,\n"
  "                        build, execute (within --max-steps, default\n"
  "                        10000000, and --time-limit seconds, default 60;\n"
  "                        with --target=host a pair over --max-steps runs\n"
  "                        on the host JIT instead, within --jit-max-steps),\n"
  "                        equal (class E bit-equal, class T within\n"
  "                        --tolerance, here by default reference: the\n"
  "                        paper's acceptance rule; --tolerance=default is\n"
  "                        the strict rule), legal (a step of\n"
  "                        the claimed strategy), legal_strategy (of another\n"
  "                        one), speedup (--cost=measure: host JIT; model,\n"
  "                        or --target=cuda: the cost model) and error.\n"
  "                        Prints a summary table (overall, per level, per\n"
  "                        strategy; --json: one object); -o FILE.jsonl\n"
  "                        (--output) writes one result line per record in\n"
  "                        input order; --shard=I/N takes records with\n"
  "                        number mod N = I. Also reads the Step-TP\n"
  "                        authors' records (prompt, info, num_IRs, answer;\n"
  "                        see man leirc, EVALUATION) and then prints the\n"
  "                        paper's single and multiple tables too\n"
  "  -j, --jobs=N          --eval, --emit-steps: N worker processes (default\n"
  "                        1); the output does not depend on N\n"
  "      --eval-summary    leirc --eval-summary RESULTS.jsonl...: the summary\n"
  "                        of --eval result files (shards merged)\n"
  "\n"
  "Server (JSON-RPC 2.0 over stdin/stdout, MCP conventions; see man leirc,\n"
  "SERVER):\n"
  "      --serve           answer requests, one JSON object a line, until end of\n"
  "                        input: initialize, ping, tools/list, tools/call with\n"
  "                        the tools load_program, show_program,\n"
  "                        list_candidates, apply_step, check_step,\n"
  "                        compare_programs, run_program, emit_ptx,\n"
  "                        estimate_cost, measure and history; no FILE.\n"
  "                        --max-memory and --max-steps (here default\n"
  "                        1000000000) bound each request; --seed and\n"
  "                        --seeds are the defaults of requests that give\n"
  "                        none\n"
  "      --max-programs=N  keep at most N programs, the least recently used\n"
  "                        evicted first (default 1000)\n"
  "      --max-request=SIZE  refuse request lines longer than SIZE bytes\n"
  "                        (suffix K, M, G; default 16M)\n"
  "\n"
  "Diagnostics:\n"
  "  -w                    suppress warnings\n"
  "      --no-caret        do not show the source line and caret under\n"
  "                        diagnostics\n"
  "      --Werror          treat warnings as errors\n"
  "\n"
  "  -h, --help            show this help and exit\n"
  "  -V, --version         show the version and exit\n"
  "\n"
  "Exit status: 0 on success, 1 on an error in the input, 2 on a usage or\n"
  "system error, 77 when --run --target=cuda (or --tune --target=cuda\n"
  "--cost=measure) finds no CUDA driver.\n";

enum { OPT_EMIT = 256, OPT_PRINT_DECLS, OPT_DECLS, OPT_WERROR, OPT_NO_CARET,
       OPT_RUN, OPT_COMPARE, OPT_INPUT, OPT_SEED, OPT_SEEDS, OPT_TOLERANCE, OPT_JSON,
       OPT_OUTPUT_DIR, OPT_PRINT_OUTPUTS, OPT_POISON, OPT_MAX_STEPS,
       OPT_MAX_MEMORY };
/* code generation */
enum { OPT_GPU_ARCH = 768, OPT_TARGET };
/* --emit-steps (driver/steps.c) */
enum { OPT_EMIT_STEPS = 1280, OPT_SAMPLE, OPT_BALANCE, OPT_SHARD, OPT_NO_VERIFY, OPT_KEEP_UNVERIFIED, OPT_STEPS_CACHE, OPT_NO_INCREMENTAL,
       OPT_JIT_MAX_STEPS };
/* --cost, --print-cost (driver/cost_cli.c) */
enum { OPT_COST = 1536, OPT_PRINT_COST };
/* --serve (driver/serve.c) */
enum { OPT_SERVE = 1792, OPT_MAX_PROGRAMS, OPT_MAX_REQUEST };
/* --policy (driver/policy.c) */
enum { OPT_POLICY = 2048, OPT_POLICY_TIMEOUT, OPT_VERIFY_ALL };
/* --check-step (driver/checkstep_cli.c), --eval (driver/eval.c) */
enum { OPT_CHECK_STEP = 2304, OPT_EVAL, OPT_EVAL_SUMMARY, OPT_FORMAT };
/* --tune (driver/tune.c) */
enum { OPT_TUNE = 1024, OPT_BUDGET, OPT_BEAM_WIDTH, OPT_MAX_DEPTH, OPT_TRACE, OPT_TIME_LIMIT, OPT_EXPAND, OPT_LOOKAHEAD,
       OPT_VECTOR_BYTES, OPT_RANK_COST, OPT_COST_MODEL_SAVE, OPT_SKETCH_SEARCH };
/* the pass options (driver/passes_cli.c) */
enum { OPT_LIST_PASSES = 512, OPT_LIST_APPLICABLE, OPT_DUMP_BEFORE, OPT_DUMP_AFTER, OPT_DUMP_DIR,
       OPT_VERIFY_EACH, OPT_VERIFY, OPT_UNSAFE_MATH, OPT_FP_CONTRACT };

static const struct option long_opts[] = {
  {"help", no_argument, NULL, 'h'},
  {"version", no_argument, NULL, 'V'},
  {"output", required_argument, NULL, 'o'},
  {"emit", required_argument, NULL, OPT_EMIT},
  {"print-decls", no_argument, NULL, OPT_PRINT_DECLS},
  {"decls", required_argument, NULL, OPT_DECLS},
  {"Werror", no_argument, NULL, OPT_WERROR},
  {"no-caret", no_argument, NULL, OPT_NO_CARET},
  {"run", no_argument, NULL, OPT_RUN},
  {"compare", no_argument, NULL, OPT_COMPARE},
  {"input", required_argument, NULL, OPT_INPUT},
  {"seed", required_argument, NULL, OPT_SEED},
  {"seeds", required_argument, NULL, OPT_SEEDS},
  {"tolerance", required_argument, NULL, OPT_TOLERANCE},
  {"json", no_argument, NULL, OPT_JSON},
  {"output-dir", required_argument, NULL, OPT_OUTPUT_DIR},
  {"print-outputs", no_argument, NULL, OPT_PRINT_OUTPUTS},
  {"poison", no_argument, NULL, OPT_POISON},
  {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
  {"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
  {"emit-steps", required_argument, NULL, OPT_EMIT_STEPS},
  {"sample", required_argument, NULL, OPT_SAMPLE},
  {"balance", no_argument, NULL, OPT_BALANCE},
  {"shard", required_argument, NULL, OPT_SHARD},
  {"no-verify", no_argument, NULL, OPT_NO_VERIFY},
  {"keep-unverified", no_argument, NULL, OPT_KEEP_UNVERIFIED},
  {"steps-cache", required_argument, NULL, OPT_STEPS_CACHE},
  {"no-incremental", no_argument, NULL, OPT_NO_INCREMENTAL},
  {"jit-max-steps", required_argument, NULL, OPT_JIT_MAX_STEPS},
  {"list-passes", no_argument, NULL, OPT_LIST_PASSES},
  {"list-applicable", no_argument, NULL, OPT_LIST_APPLICABLE},
  {"dump-before", required_argument, NULL, OPT_DUMP_BEFORE},
  {"dump-after", required_argument, NULL, OPT_DUMP_AFTER},
  {"dump-dir", required_argument, NULL, OPT_DUMP_DIR},
  {"verify-each", no_argument, NULL, OPT_VERIFY_EACH},
  {"verify", no_argument, NULL, OPT_VERIFY},
  {"unsafe-math", no_argument, NULL, OPT_UNSAFE_MATH},
  {"fp-contract", required_argument, NULL, OPT_FP_CONTRACT},
  {"gpu-arch", required_argument, NULL, OPT_GPU_ARCH},
  {"target", required_argument, NULL, OPT_TARGET},
  {"cost", required_argument, NULL, OPT_COST},
  {"print-cost", no_argument, NULL, OPT_PRINT_COST},
  {"check-step", optional_argument, NULL, OPT_CHECK_STEP},
  {"eval", required_argument, NULL, OPT_EVAL},
  {"eval-summary", no_argument, NULL, OPT_EVAL_SUMMARY},
  {"format", required_argument, NULL, OPT_FORMAT},
  {"jobs", required_argument, NULL, 'j'},
  {"tune", optional_argument, NULL, OPT_TUNE},
  {"budget", required_argument, NULL, OPT_BUDGET},
  {"beam-width", required_argument, NULL, OPT_BEAM_WIDTH},
  {"max-depth", required_argument, NULL, OPT_MAX_DEPTH},
  {"trace", required_argument, NULL, OPT_TRACE},
  {"time-limit", required_argument, NULL, OPT_TIME_LIMIT},
  {"expand", required_argument, NULL, OPT_EXPAND},
  {"lookahead", required_argument, NULL, OPT_LOOKAHEAD},
  {"rank-cost", required_argument, NULL, OPT_RANK_COST},
  {"sketch-search", required_argument, NULL, OPT_SKETCH_SEARCH},
  {"cost-model-save", required_argument, NULL, OPT_COST_MODEL_SAVE},
  {"vector-bytes", required_argument, NULL, OPT_VECTOR_BYTES},
  {"serve", no_argument, NULL, OPT_SERVE},
  {"policy", required_argument, NULL, OPT_POLICY},
  {"policy-timeout", required_argument, NULL, OPT_POLICY_TIMEOUT},
  {"verify-all", no_argument, NULL, OPT_VERIFY_ALL},
  {"max-programs", required_argument, NULL, OPT_MAX_PROGRAMS},
  {"max-request", required_argument, NULL, OPT_MAX_REQUEST},
  {NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "leirc: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'leirc --help' for more information.\n");
  return 2;
}

/* The mode that the options select, named as a usage error names it; the
 * order is main's dispatch order. */
static const char *mode_name(const DrvOptions *o, bool serve) {
  if (serve) return "--serve";
  if (o->eval.summary) return "--eval-summary";
  if (o->eval.path) return "--eval";
  if (o->check_step_given) return "--check-step";
  if (o->mode == MODE_COMPARE) return "--compare";
  if (o->passes.list_passes) return "--list-passes";
  if (o->steps.path) return "--emit-steps";
  if (o->mode == MODE_RUN) return "--run";
  if (o->passes.list_applicable) return "--list-applicable";
  if (o->tune.enabled) return "--tune";
  if (o->print_cost)
    return o->cost == COST_MEASURE && o->target == TARGET_HOST ? "--print-cost --cost=measure --target=host"
                                                               : "--print-cost without --cost=measure --target=host";
  return "a compile (-o, --emit or a check)";
}

/* --input, --seed and --seeds where the mode would ignore them: the usage
 * error's text (in buf), else NULL.  --input is read by --run, --compare,
 * --tune (its checks and timings), --print-cost's measurement and -O's
 * --verify; --seed also seeds -O's choices and the random inputs of
 * --emit-steps, --check-step, --eval and --serve's requests; --seeds is
 * the number of input sets of --compare and --verify (and --serve's
 * compare_programs). */
static const char *data_option_misuse(const DrvOptions *o, bool serve, bool seed_given, bool seeds_given, char *buf,
                                      size_t n) {
  bool compile_path = !serve && !o->eval.path && !o->eval.summary && !o->check_step_given && o->mode != MODE_COMPARE &&
                      !o->passes.list_passes && !o->steps.path;
  bool verify = o->passes.pipeline && o->passes.verify;
  bool measure = o->print_cost && o->cost == COST_MEASURE && o->target == TARGET_HOST;
  /* -O's --verify runs wherever -O does: a compile, --run, --tune and
     --emit-steps (on each input file, drv_pass_run) */
  bool o_verify = verify && !serve && !o->eval.path && !o->eval.summary && !o->check_step_given &&
                  !o->passes.list_passes;
  bool input = o->mode == MODE_COMPARE || o_verify ||
               (compile_path && (o->mode == MODE_RUN || o->tune.enabled || measure));
  bool seed = input || serve || o->steps.path || o->check_step_given || o->eval.path ||
              (compile_path && o->passes.pipeline);
  bool seeds = serve || o->mode == MODE_COMPARE || o_verify;
  const char *mode = mode_name(o, serve);
  if (o->run.ninputs && !input)
    snprintf(buf, n, "--input is used only by --run, --compare, --tune, --print-cost --cost=measure "
             "--target=host and -O with --verify; not by %s", mode);
  else if (seed_given && !seed)
    snprintf(buf, n, "--seed is used only where inputs are random or -O chooses (--run, --compare, --tune, "
             "--emit-steps, --check-step, --eval, --serve, --print-cost --cost=measure --target=host, -O); "
             "not by %s", mode);
  else if (seeds_given && !seeds)
    snprintf(buf, n, "--seeds is used only by --compare, -O with --verify and --serve; not by %s", mode);
  else
    return NULL;
  return buf;
}

/* The n characters at s: 1 for "on", 0 for "off", else -1. */
static int on_off(const char *s, size_t n) {
  if (n == 2 && !strncmp(s, "on", 2)) return 1;
  if (n == 3 && !strncmp(s, "off", 3)) return 0;
  return -1;
}

/* --fp-contract=on|off, or A,B (with --compare: A's mode, then B's); *b is
 * -1 for a single mode. */
static bool parse_fp_contract(const char *s, bool *a, int *b) {
  const char *comma = strchr(s, ',');
  int first = on_off(s, comma ? (size_t)(comma - s) : strlen(s));
  int second = comma ? on_off(comma + 1, strlen(comma + 1)) : -1;
  if (first < 0 || (comma && second < 0)) return false;
  *a = first;
  *b = second;
  return true;
}

static bool parse_emit(const char *s, DrvEmit *e) {
  static const struct { const char *name; DrvEmit e; } kinds[] = {
    {"leir", EMIT_LEIR}, {"llvm", EMIT_LLVM}, {"asm", EMIT_ASM}, {"ptx", EMIT_PTX}, {"tir", EMIT_TIR},
    {"tirx", EMIT_TIRX}, {"cuda", EMIT_CUDA},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (!strcmp(s, kinds[i].name)) {
      *e = kinds[i].e;
      return true;
    }
  return false;
}

static DrvEmit emit_from_suffix(const char *path) {
  const char *dot = strrchr(path, '.');
  if (dot && !strcmp(dot, ".leir")) return EMIT_LEIR;
  if (dot && !strcmp(dot, ".ptx")) return EMIT_PTX;
  if (dot && !strcmp(dot, ".py")) return EMIT_TIR;
  if (dot && !strcmp(dot, ".cu")) return EMIT_CUDA;
  if (dot && !strcmp(dot, ".ll")) return EMIT_LLVM;
  if (dot && !strcmp(dot, ".s")) return EMIT_ASM;
  return EMIT_NONE;
}

static int emit_leir(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  FILE *f = drv_open_output(ctx, o->output);
  if (!f) return 1;
  SBuf b = {0};
  ir_print_program(&b, p, o->print_decls);
  fwrite(b.s, 1, b.len, f);
  sbuf_free(&b);
  return drv_close_output(ctx, f, o->output) ? 0 : 1;
}

/* --emit=ptx|llvm|asm: the LLVM back ends (codegen/). */
static int emit_code(LeirCtx *ctx, const DrvOptions *o, const IrProgram *p) {
  static const char *const kind[] = {[EMIT_LLVM] = "llvm", [EMIT_ASM] = "asm", [EMIT_PTX] = "ptx",
                                     [EMIT_TIR] = "tir", [EMIT_TIRX] = "tirx", [EMIT_CUDA] = "cuda"};
  SBuf b = {0};
  bool ok = cg_emit_text(ctx, p, kind[o->emit], o->target == TARGET_HOST, o->gpu_sm, &b);
  FILE *f = ok ? drv_open_output(ctx, o->output) : NULL;
  if (f) {
    fwrite(b.s, 1, b.len, f);
    ok = drv_close_output(ctx, f, o->output);
  }
  sbuf_free(&b);
  return f && ok ? 0 : 1;
}

int main(int argc, char **argv) {
  DrvOptions o = {0};
  const char *input_names[argc > 0 ? argc : 1], *input_paths[argc > 0 ? argc : 1];
  o.run.input_names = input_names;
  o.run.input_paths = input_paths;
  drv_run_defaults(&o);
  drv_tune_defaults(&o);
  o.gpu_sm = 90;
  char archerr[256];
  uint64_t n;
  int c;
  bool unsafe_math = false, serve = false, format_given = false, cost_given = false, rank_given = false,
       sketch_search_given = false, seeds_given = false;
  int max_programs = SRV_DEFAULT_MAX_PROGRAMS;
  uint64_t max_request = SRV_DEFAULT_MAX_REQUEST;
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":hj:o:O:Vw", long_opts, NULL)) != -1) {
    switch (c) {
    case 'h': fputs(usage_text, stdout); return 0;
    case 'V':
      printf("leirc %s (LLVM %d)\n", PACKAGE_VERSION, LEIR_LLVM_MAJOR);
      return 0;
    case 'o': o.output = optarg; break;
    case 'w': o.no_warnings = true; break;
    case OPT_EMIT:
      if (!parse_emit(optarg, &o.emit)) return usage_error("unknown --emit kind '%s'", optarg);
      o.emit_given = true;
      break;
    case OPT_PRINT_DECLS: o.print_decls = true; break;
    case OPT_DECLS: o.decls = optarg; break;
    case OPT_WERROR: o.werror = true; break;
    case OPT_NO_CARET: o.no_caret = true; break;
    case OPT_RUN:
    case OPT_COMPARE:
      if (o.mode != MODE_COMPILE) return usage_error("%s", "--run and --compare exclude each other");
      o.mode = c == OPT_RUN ? MODE_RUN : MODE_COMPARE;
      break;
    case OPT_INPUT:
      if (!drv_add_input(&o, optarg)) return usage_error("--input needs NAME=FILE, not '%s'", optarg);
      break;
    case OPT_SEED:
      if (!leir_parse_u64(optarg, &o.run.seed)) return usage_error("bad --seed '%s'", optarg);
      o.passes.seed_given = true;
      break;
    case OPT_SEEDS:
      if (!leir_parse_u64(optarg, &n) || n < 1 || n > 1000000) return usage_error("bad --seeds '%s'", optarg);
      o.run.seeds = (int)n;
      seeds_given = true;
      break;
    case OPT_TOLERANCE:
      if (!cmp_tolerance_from_name(optarg, &o.run.tolerance))
        return usage_error("--tolerance must be exact, default or reference, not '%s'", optarg);
      o.run.tolerance_given = true;
      break;
    case OPT_JSON: o.run.json = true; break;
    case OPT_OUTPUT_DIR: o.run.output_dir = optarg; break;
    case OPT_PRINT_OUTPUTS: o.run.print_outputs = true; break;
    case OPT_POISON: o.run.poison = true; break;
    case OPT_MAX_MEMORY:
      if (!leir_parse_size(optarg, &o.run.max_memory)) return usage_error("bad --max-memory '%s'", optarg);
      break;
    case OPT_MAX_STEPS:
      if (!leir_parse_u64(optarg, &o.run.max_steps)) return usage_error("bad --max-steps '%s'", optarg);
      o.steps.max_steps_given = true;
      break;
    case OPT_EMIT_STEPS: o.steps.path = optarg; break;
    case OPT_SAMPLE:
      if (!leir_parse_u64(optarg, &n) || n < 1 || n > 1000000000)
        return usage_error("--sample must be a whole number from 1 to 1000000000, not '%s'", optarg);
      o.steps.sample = (int)n;
      break;
    case OPT_BALANCE: o.steps.balance = true; break;
    case OPT_SHARD:
      if (!drv_parse_shard(optarg, &o.steps.shard_i, &o.steps.shard_n))
        return usage_error("--shard must be I/N with 0 <= I < N, not '%s'", optarg);
      break;
    case OPT_NO_VERIFY: o.steps.no_verify = true; break;
    case OPT_KEEP_UNVERIFIED: o.steps.keep_unverified = true; break;
    case OPT_STEPS_CACHE: o.steps.cache_dir = optarg; break;
    case OPT_NO_INCREMENTAL: o.steps.no_incremental = true; break;
    case OPT_JIT_MAX_STEPS:
      if (!leir_parse_u64(optarg, &o.steps.jit_max_steps)) return usage_error("bad --jit-max-steps '%s'", optarg);
      o.steps.jit_max_steps_given = true;
      break;
    case 'O':
      if (!drv_pass_add_O(&o, optarg)) return usage_error("%s", "out of memory");
      break;
    case OPT_LIST_PASSES: o.passes.list_passes = true; break;
    case OPT_LIST_APPLICABLE: o.passes.list_applicable = true; break;
    case OPT_DUMP_BEFORE:
    case OPT_DUMP_AFTER:
      if (!drv_pass_check_dump_name(optarg))
        return usage_error("--dump-before/--dump-after: unknown pass '%s' (a name, an alias or 'all')", optarg);
      *(c == OPT_DUMP_BEFORE ? &o.passes.dump_before : &o.passes.dump_after) = optarg;
      break;
    case OPT_DUMP_DIR: o.passes.dump_dir = optarg; break;
    case OPT_VERIFY_EACH: o.passes.verify_each = true; break;
    case OPT_VERIFY: o.passes.verify = true; break;
    case OPT_UNSAFE_MATH: unsafe_math = true; break;
    case OPT_FP_CONTRACT:
      if (!parse_fp_contract(optarg, &o.fp_contract, &o.fp_contract_b))
        return usage_error("--fp-contract must be on or off (with --compare, also A,B such as on,off), not '%s'",
                           optarg);
      break;
    case OPT_GPU_ARCH:
      if (!cg_parse_gpu_arch(optarg, &o.gpu_sm, archerr, sizeof archerr)) return usage_error("%s", archerr);
      break;
    case OPT_TUNE:
      o.tune.enabled = true;
      if (optarg && !drv_tune_parse_strategy(optarg, &o.tune.strategy))
        return usage_error("--tune must be auto, sketch, greedy, beam, bfs, dfs, mcts or policy, not '%s'", optarg);
      break;
    case OPT_BUDGET: case OPT_BEAM_WIDTH: case OPT_MAX_DEPTH: {
      uint64_t n;
      const char *name = c == OPT_BUDGET ? "--budget" : c == OPT_BEAM_WIDTH ? "--beam-width" : "--max-depth";
      if (!leir_parse_u64(optarg, &n) || n < 1 || n > 1000000) {
        fprintf(stderr, "leirc: %s must be a whole number from 1 to 1000000, not '%s'\n"
                "Try 'leirc --help' for more information.\n", name, optarg);
        return 2;
      }
      *(c == OPT_BUDGET ? &o.tune.budget : c == OPT_BEAM_WIDTH ? &o.tune.beam_width : &o.tune.max_depth) = (int)n;
      break;
    }
    case OPT_TRACE: o.tune.trace = optarg; break;
    case OPT_RANK_COST:
      if (!strcmp(optarg, "model")) o.tune.rank_learned = false;
      else if (!strcmp(optarg, "learned")) o.tune.rank_learned = true;
      else return usage_error("--rank-cost must be model or learned, not '%s'", optarg);
      rank_given = true;
      break;
    case OPT_SKETCH_SEARCH:
      if (!strcmp(optarg, "evolve")) o.tune.sketch_sample = false;
      else if (!strcmp(optarg, "sample")) o.tune.sketch_sample = true;
      else return usage_error("--sketch-search must be evolve or sample, not '%s'", optarg);
      sketch_search_given = true;
      break;
    case OPT_COST_MODEL_SAVE:
      if (!*optarg) return usage_error("%s", "--cost-model-save needs a file name");
      o.tune.model_save = optarg;
      break;
    case OPT_VECTOR_BYTES:
      if (strcmp(optarg, "16") && strcmp(optarg, "32") && strcmp(optarg, "64"))
        return usage_error("--vector-bytes must be 16, 32 or 64, not '%s'", optarg);
      o.tune.vector_bytes = atoi(optarg);
      break;
    case OPT_EXPAND: {
      uint64_t n;
      if (!leir_parse_u64(optarg, &n) || n > 1000000) {
        fprintf(stderr, "leirc: --expand must be a whole number from 0 to 1000000, not '%s'\n"
                "Try 'leirc --help' for more information.\n", optarg);
        return 2;
      }
      o.tune.expand = (int)n;
      break;
    }
    case OPT_LOOKAHEAD: {
      uint64_t n;
      if (!leir_parse_u64(optarg, &n) || n > TUNE_MAX_LOOKAHEAD) {
        fprintf(stderr, "leirc: --lookahead must be a whole number from 0 to %d, not '%s'\n"
                "Try 'leirc --help' for more information.\n", TUNE_MAX_LOOKAHEAD, optarg);
        return 2;
      }
      o.tune.lookahead = (int)n;
      break;
    }
    case OPT_TIME_LIMIT: {
      char *end;
      double x = strtod(optarg, &end);
      if (!*optarg || *end || !(x > 0) || x > 1e9)
        return usage_error("--time-limit must be a positive number of seconds, not '%s'", optarg);
      o.tune.time_limit = x;
      break;
    }
    case OPT_TARGET:
      if (!strcmp(optarg, "host")) o.target = TARGET_HOST;
      else if (!strcmp(optarg, "cuda")) o.target = TARGET_CUDA;
      else return usage_error("--target must be host or cuda, not '%s'", optarg);
      break;
    case OPT_COST:
      if (!strcmp(optarg, "measure")) o.cost = COST_MEASURE;
      else if (!strcmp(optarg, "model")) o.cost = COST_MODEL;
      else if (!strcmp(optarg, "learned")) o.cost = COST_MODEL;
      else return usage_error("--cost must be measure, model or learned, not '%s'", optarg);
      o.learned = !strcmp(optarg, "learned");
      cost_given = true;
      break;
    case OPT_PRINT_COST: o.print_cost = true; break;
    case OPT_SERVE: serve = true; break;
    case OPT_POLICY:
      if (!*optarg) return usage_error("%s", "--policy needs a command");
      o.tune.policy = optarg;
      break;
    case OPT_VERIFY_ALL: o.tune.verify_all = true; break;
    case OPT_POLICY_TIMEOUT: {
      char *end;
      double x = strtod(optarg, &end);
      if (!*optarg || *end || !(x > 0) || x > 1e6)
        return usage_error("--policy-timeout must be a positive number of seconds, not '%s'", optarg);
      o.tune.policy_timeout = x;
      break;
    }
    case OPT_MAX_PROGRAMS:
      if (!leir_parse_u64(optarg, &n) || n < 1 || n > 1000000)
        return usage_error("--max-programs must be a whole number from 1 to 1000000, not '%s'", optarg);
      max_programs = (int)n;
      break;
    case OPT_MAX_REQUEST:
      if (!leir_parse_size(optarg, &max_request) || max_request < 1024 || max_request > ((uint64_t)1 << 32))
        return usage_error("--max-request must be a size from 1K to 4G, not '%s'", optarg);
      break;
    case OPT_EVAL: o.eval.path = optarg; break;
    case OPT_FORMAT:
      if (!strcmp(optarg, "steps")) o.steps.format = STEPS_RECORDS;
      else if (!strcmp(optarg, "steptp")) o.steps.format = STEPS_STEPTP;
      else if (!strcmp(optarg, "chat")) o.steps.format = STEPS_CHAT;
      else return usage_error("--format must be steps, steptp or chat, not '%s'", optarg);
      format_given = true;
      break;
    case OPT_EVAL_SUMMARY: o.eval.summary = true; break;
    case 'j':
      if (!leir_parse_u64(optarg, &n) || n < 1 || n > 1024)
        return usage_error("-j must be a whole number from 1 to 1024, not '%s'", optarg);
      o.eval.jobs = (int)n;
      break;
    case OPT_CHECK_STEP:
      o.check_step_given = true;
      o.check_step = optarg;
      break;
    case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
    default: return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  /* --tune --target=cuda searches with the GPU cost model unless told to
     measure */
  if (o.tune.enabled && o.target == TARGET_CUDA && !cost_given) o.cost = COST_MODEL;
  /* options that do not go together (the -O pipeline is freed first) */
  const char *clash = NULL;
  if (o.fp_contract_b >= 0 && o.mode != MODE_COMPARE)
    clash = "--fp-contract=A,B (a mode for each program) needs --compare";
  else if (o.print_cost && (o.mode == MODE_COMPARE || o.steps.path))
    clash = "--print-cost does not combine with --compare or --emit-steps";
  else if (o.passes.list_applicable && (o.tune.enabled || o.print_cost) && !o.steps.path)
    clash = "--list-applicable does not combine with --tune or --print-cost";
  else if (o.tune.strategy == TUNE_POLICY && !o.tune.policy)
    clash = "--tune=policy needs --policy=CMD";
  else if (o.tune.policy && !o.tune.enabled)
    clash = "--policy needs --tune";
  else if (o.tune.verify_all && !o.tune.enabled)
    clash = "--verify-all needs --tune";
  else if (o.learned && o.target == TARGET_CUDA)
    clash = "--cost=learned is a model of the host: it does not combine with --target=cuda";
  else if (rank_given && !o.tune.enabled)
    clash = "--rank-cost needs --tune";
  else if (sketch_search_given && !o.tune.enabled)
    clash = "--sketch-search needs --tune";
  else if (o.tune.rank_learned && o.target == TARGET_CUDA)
    clash = "--rank-cost=learned is a model of the host: it does not combine with --target=cuda";
  else if (o.tune.rank_learned && o.cost != COST_MEASURE)
    clash = "--rank-cost=learned ranks the candidates that --cost=measure measures: it does not combine with "
            "--cost=model or --cost=learned";
  else if (o.tune.model_save && !(o.tune.enabled && (o.learned || o.tune.rank_learned)))
    clash = "--cost-model-save needs --tune with --rank-cost=learned or --cost=learned";
  if (o.learned && o.target == TARGET_DEFAULT) o.target = TARGET_HOST;
  char misuse[512];
  if (!clash) clash = data_option_misuse(&o, serve, o.passes.seed_given, seeds_given, misuse, sizeof misuse);
  if (clash) {
    drv_pass_free(&o);
    return usage_error("%s", clash);
  }
  if (serve) {
    if (optind < argc || o.mode != MODE_COMPILE || o.tune.enabled || o.steps.path || o.passes.list_passes)
      return usage_error("%s", "--serve takes no input file and no --run, --compare, --tune or --emit-steps");
    o.unsafe_math = unsafe_math;
    int rc = drv_serve(&o, max_programs, (size_t)max_request);
    drv_pass_free(&o);
    return rc;
  }
  if (o.eval.path || o.eval.summary) {
    if (o.mode != MODE_COMPILE || o.steps.path || o.tune.enabled || o.emit_given || o.passes.pipeline ||
        o.check_step_given || (o.eval.path && o.eval.summary)) {
      drv_pass_free(&o);
      return usage_error("%s", "--eval and --eval-summary take no --run, --compare, --emit-steps, --tune, -O, --emit or --check-step");
    }
    if (!o.steps.shard_n) o.steps.shard_n = 1;
    o.unsafe_math = unsafe_math;
    if (o.eval.summary) {
      if (optind >= argc) return usage_error("%s", "--eval-summary needs result files");
      return drv_eval_summary(&o, argc - optind, argv + optind);
    }
    if (optind < argc) return usage_error("--eval takes no other input file ('%s')", argv[optind]);
    return drv_eval(&o, o.eval.path);
  }
  if (o.check_step_given) {
    if (o.mode != MODE_COMPILE || o.steps.path || o.tune.enabled || o.output || o.emit_given || o.passes.pipeline) {
      drv_pass_free(&o);
      return usage_error("%s", "--check-step does not combine with --run, --compare, --emit-steps, --tune, -O, -o or --emit");
    }
    if (argc - optind != 2) return usage_error("%s", "--check-step needs two files: BEFORE.leir AFTER.leir");
    o.unsafe_math = unsafe_math;
    return drv_check_step(&o, argv[optind], argv[optind + 1]);
  }
  if (o.mode == MODE_COMPARE) {
    if (argc - optind != 2) return usage_error("%s", "--compare needs two files: A.leir B.leir");
    return drv_compare(&o, argv[optind], argv[optind + 1]);
  }
  if (o.passes.list_passes) {
    drv_pass_free(&o);
    return drv_pass_list_passes();
  }
  if (optind >= argc) return usage_error("%s", "no input file");
  if (!o.steps.path && (o.steps.sample || o.steps.balance || o.steps.shard_n || o.steps.no_verify ||
                        o.steps.keep_unverified))
    return usage_error("%s", "--sample, --balance, --shard, --no-verify and --keep-unverified need --emit-steps");
  if (!o.steps.path && format_given) return usage_error("%s", "--format needs --emit-steps");
  if (!o.steps.path && o.steps.cache_dir) return usage_error("%s", "--steps-cache needs --emit-steps");
  if (!o.steps.path && o.steps.no_incremental)
    return usage_error("%s", "--no-incremental needs --emit-steps or --eval");
  if (!o.steps.path && o.steps.jit_max_steps_given)
    return usage_error("%s", "--jit-max-steps needs --emit-steps, --eval or --check-step");
  if (o.steps.path) { /* several inputs allowed */
    if (o.mode != MODE_COMPILE || o.output || o.emit_given || o.passes.list_applicable || o.tune.enabled)
      return usage_error("%s", "--emit-steps does not take -o, --emit, --run, --compare, --list-applicable or --tune");
    o.steps.inputs = argv + optind;
    o.steps.ninputs = argc - optind;
    if (!o.steps.shard_n) o.steps.shard_n = 1;
    o.unsafe_math = unsafe_math;
    int rc = drv_emit_steps(&o);
    drv_pass_free(&o);
    return rc;
  }
  if (optind + 1 < argc) return usage_error("more than one input file ('%s')", argv[optind + 1]);
  o.input = argv[optind];
  if (o.mode == MODE_RUN) {
    if (o.output || o.emit_given) return usage_error("%s", "--run does not take -o or --emit");
    if (o.tune.enabled) return usage_error("%s", "--run does not combine with --tune");
    if (o.print_cost) return usage_error("%s", "--run does not combine with --print-cost");
    o.unsafe_math = unsafe_math;
    int rc = drv_run(&o);
    drv_pass_free(&o);
    return rc;
  }
  if (!o.emit_given && o.output && !o.passes.list_applicable) {
    o.emit = emit_from_suffix(o.output);
    if (o.emit == EMIT_NONE) return usage_error("cannot tell the output kind of '%s'; use --emit", o.output);
  }
  if (o.print_decls && !o.emit_given && !o.output) o.emit = EMIT_LEIR;

  LeirCtx ctx;
  leir_ctx_init(&ctx);
  ctx.no_warnings = o.no_warnings;
  ctx.werror = o.werror;
  ctx.quiet_caret = o.no_caret;
  ctx.unsafe_math = unsafe_math;
  ctx.fp_contract = o.fp_contract;
  ctx.max_memory = o.run.max_memory;
  int rc = 1;
  if (ir_read_source(&ctx, o.input)) {
    IrProgram *p = ir_load_program(&ctx, o.decls, NULL);
    if (p) p = drv_pass_run(&ctx, &o, p); /* -O */
    if (p && o.tune.enabled) { /* after -O */
      int trc = 0;
      p = drv_tune(&ctx, &o, p, &trc);
      if (trc) rc = trc;
    }
    if (p && o.print_cost) { /* after -O and --tune */
      rc = drv_print_cost(&ctx, &o, p);
      if (rc) p = NULL;
      else if (o.emit == EMIT_NONE) rc = 0;
    }
    if (p && o.passes.list_applicable) {    /* of the program after -O */
      rc = drv_pass_list_applicable(&ctx, &o, p);
      p = NULL;
    }
    if (p) {
      switch (o.emit) {
      case EMIT_LEIR: rc = emit_leir(&ctx, &o, p); break;
      case EMIT_PTX: case EMIT_LLVM: case EMIT_ASM: case EMIT_TIR: case EMIT_TIRX: case EMIT_CUDA:
        rc = emit_code(&ctx, &o, p); break;
      case EMIT_NONE: rc = 0; break;
      default: rc = 1; break;
      }
    }
  }
  if (ctx.nerrors) rc = 1;
  drv_pass_free(&o);
  leir_ctx_free(&ctx);
  return rc;
}
