/* learned.h -- the learned cost model (`leirc --cost=learned`, issue 58
 * item 1): a gradient-boosted regression of ln(host run time, seconds) on a
 * program's features (search/features.h), trained offline on measured
 * programs (tools/costmodel/train.py) and evaluated through XGBoost's C API
 * (Debian's libxgboost-dev; configure finds it).  Without XGBoost leirc
 * still builds: search_learned_load then fails with a diagnostic saying so.
 *
 * The model's attribute leirc_target says what it predicts: "direct"
 * (the default) ln(seconds); "residual" ln(seconds / the analytic host
 * estimate), which is then multiplied back; leirc_blend (default 0) the
 * weight w of the analytic estimate a in the result: exp((1 - w) * e + w *
 * ln a), e the model's ln(seconds).
 *
 * The model file: search_learned_default_path's, in order, the
 * environment variable LEIRC_COST_MODEL; PKGDATADIR/costmodel.json (the
 * installed model); costmodel.json beside the running executable or one
 * folder up (a build tree: leirc is a libtool wrapper running .libs/leirc;
 * make copies the source tree's tools/costmodel/costmodel.json there);
 * costmodel.json beside the shared library holding this code or one
 * folder up (libleir loaded by Python from a build tree or the wheel).
 *
 * Nothing is printed: XGBoost's own log goes to a callback that drops it,
 * and its errors become diagnostics on ctx ("cannot load the learned cost
 * model PATH: ...").  A loaded model predicts deterministically (one
 * thread) and may be shared by threads (predictions are serialised).
 */
#ifndef LEIR_SEARCH_LEARNED_H
#define LEIR_SEARCH_LEARNED_H

#include "ir/ir.h"

typedef struct SearchLearned SearchLearned;

/* Is leirc built with XGBoost? */
bool search_learned_available(void);

/* The model file leirc uses (see above) into buf; false (buf = "") when
 * none is found. */
bool search_learned_default_path(char *buf, size_t n);

/* Loads the model at path (NULL: the default path).  NULL after an error
 * diagnostic on ctx (no XGBoost, no model file, a file XGBoost cannot
 * read, a model of another feature count). */
SearchLearned *search_learned_load(LeirCtx *ctx, const char *path);

/* The model's run-time estimate of an analysed program, in seconds
 * (exp of the prediction).  False after a diagnostic on ctx. */
bool search_learned_seconds(LeirCtx *ctx, SearchLearned *m, const IrProgram *p, double *secs);

/* The model's estimates of n feature vectors (SEARCH_NFEATURES floats each,
 * row after row), ln(seconds) into out[0..n-1]. */
bool search_learned_predict(LeirCtx *ctx, SearchLearned *m, const float *rows, int n, double *out);

/* The online update (`--rank-cost=learned`, issue 58 item 1): a search
 * that measures programs tells the model each measurement; before its
 * next estimate the model is refitted: the model file's trees, then
 * SEARCH_ONLINE_ROUNDS more trees (learning rate SEARCH_ONLINE_ETA, depth
 * at most SEARCH_ONLINE_DEPTH, exact splits, one thread) fitted by
 * XGBoosterUpdateOneIter to every measurement observed so far, the label
 * of each chosen so that the model's estimate of it (with leirc_target
 * and leirc_blend as above) is the measured time.  Each refit starts from
 * the file's model again, so the model never grows beyond it plus
 * SEARCH_ONLINE_ROUNDS trees.  The same observations in the same order
 * give bit-identical estimates and saved models (a measured time itself
 * varies from run to run).  With leirc_blend = 1 the model is the analytic
 * estimate alone and the observations change nothing. */
#define SEARCH_ONLINE_ROUNDS 16
#define SEARCH_ONLINE_ETA 0.3
#define SEARCH_ONLINE_DEPTH 4

/* Observes that analysed program p ran in secs seconds (ignored unless
 * finite and positive).  False after a diagnostic on ctx. */
bool search_learned_observe(LeirCtx *ctx, SearchLearned *m, const IrProgram *p, double secs);

/* The observations so far. */
int search_learned_observed(const SearchLearned *m);

/* Writes the model, refitted to the observations, to path as XGBoost's
 * JSON (a file search_learned_load reads).  False after a diagnostic. */
bool search_learned_save(LeirCtx *ctx, SearchLearned *m, const char *path);

/* The path the model was loaded from. */
const char *search_learned_path(const SearchLearned *m);

void search_learned_free(SearchLearned *m);

#endif /* LEIR_SEARCH_LEARNED_H */
