#!/bin/sh
# steps_poison.sh -- issue 61: the buffers that `leirc --emit-steps` takes
# from its pool without zeroing them (the inputs, what is copied over them,
# what the compiled code writes first, intermediates nothing reads) must
# not change a record: one shard --shard=0/CORPUS_SHARD (default 2000)
# -j JOBS (default 2) of the whole corpus (levels 1 and 2) with a cold
# and then a warm --steps-cache, and with --no-incremental, each run once
# as is and once with LEIRC_POOL_POISON=1 (those buffers filled with 0xFF
# bytes, NaN in every float type, when taken); prints whether each pair
# of record files is the same bytes (and against --no-incremental).
#
#   bench/steps_poison.sh LEIRC CORPUS_DIR
#
# Exit status 1 when a pair differs, 77 without the corpus.
set -eu
leirc=$1
corpus=$2
bench=steps_poison
. "$(dirname "$0")/shard_setup.sh"
echo "[$(load)]"
run() { # NAME POISON FLAGS...
  name=$1 poison=$2
  shift 2
  if [ "$poison" = 1 ]; then
    LEIRC_POOL_POISON=1 "$leirc" --emit-steps=- --shard=0/"$cshard" -j "$jobs" "$@" $progs >"$tmp/$name.jsonl" 2>/dev/null
  else
    "$leirc" --emit-steps=- --shard=0/"$cshard" -j "$jobs" "$@" $progs >"$tmp/$name.jsonl" 2>/dev/null
  fi
}
mkdir "$tmp/c0" "$tmp/c1"
run cold0 0 --steps-cache="$tmp/c0"
run cold1 1 --steps-cache="$tmp/c1"
run warm0 0 --steps-cache="$tmp/c0"
run warm1 1 --steps-cache="$tmp/c1"
run full0 0 --no-incremental
run full1 1 --no-incremental
echo "$(wc -l <"$tmp/full0.jsonl") records [$(load)]"
bad=0
for pair in "cold0 cold1" "warm0 warm1" "full0 full1" "full0 cold1" "full0 warm1"; do
  set -- $pair
  if cmp -s "$tmp/$1.jsonl" "$tmp/$2.jsonl"; then echo "$1 / $2: byte-identical"
  else echo "$1 / $2: DIFFERENT"; bad=1; fi
done
exit $bad
