#!/bin/sh
# The training data of the learned models (`make train`), on the task sets, in git
# work trees with history (as users run):
# - OUT_DIR/NAME.jsonl: the Location stage's feature rows of every candidate (the
#   learned scorer, `eval_tasks --locate --features`);
# - OUT_DIR/NAME-nohist.jsonl: the same without the history (`--no-history`): the
#   scorer for those (ranker_plain.json), and the definitions' held-out rows;
# - OUT_DIR/completion/NAME.jsonl: the rows of the learned change-set completion's
#   candidates (`eval_tasks --features`, the whole of discover);
# - OUT_DIR/completion-plain/NAME.jsonl: the same without the history (`--no-history`,
#   as a shallow clone or a plain directory gives it): the completion for those.
#
#   sh benches/features.sh OUT_DIR
#
# Environment (see benches/README.md): DD_EVAL_MIRRORS (the git mirrors),
# DD_EVAL_CHECKOUTS (where the work trees go, one folder per set), and TASKS (NAME=FILE
# words; by default the development sets in $DD_EVAL_BENCH and the mined sets of
# benches/mine_tasks.py + benches/sample_mined.py in $DD_EVAL_MINED):
#   lite=$DD_EVAL_MINED/lite_avail.jsonl   SWE-bench Lite dev tasks whose repository
#                                          could be fetched
#   ml=$DD_EVAL_BENCH/multilingual_dev.jsonl
#   sample=$DD_EVAL_MINED/sample.jsonl     the mined evaluation sample (4 per repo)
#   train=$DD_EVAL_MINED/train.jsonl       8 more per repo, apart from the sample
#   single=$DD_EVAL_MINED/single_sample.jsonl  single-file tasks of the same
#                                          repositories (mine_tasks.py --gold-files 1-1)
# and EMBEDDER_MODEL (optional): a sentence-transformers folder run in-process for every
# task, so that the rows hold the semantic features (emb_best, emb_top3, emb_rank) the
# models trained for an embedder read.
set -eu
out=${1:?usage: sh benches/features.sh OUT_DIR}
mirrors=${DD_EVAL_MIRRORS:?set DD_EVAL_MIRRORS (see benches/README.md)}
checkouts=${DD_EVAL_CHECKOUTS:?set DD_EVAL_CHECKOUTS (see benches/README.md)}
if [ -z "${TASKS:-}" ]; then
    bench=${DD_EVAL_BENCH:?set DD_EVAL_BENCH or TASKS (see benches/README.md)}
    mined=${DD_EVAL_MINED:?set DD_EVAL_MINED or TASKS (see benches/README.md)}
    TASKS="lite=$mined/lite_avail.jsonl ml=$bench/multilingual_dev.jsonl sample=$mined/sample.jsonl train=$mined/train.jsonl single=$mined/single_sample.jsonl"
fi
tasks=$TASKS
mkdir -p "$out/completion" "$out/completion-plain"
cargo build --release -q -p deepdiscovery-core --features transformer --example eval_tasks
embedder=""
if [ -n "${EMBEDDER_MODEL:-}" ]; then
    # The three passes of a set share an on-disk cache: the second and third embed
    # nothing (answers are the same with or without it).
    embedder="--embedder-model $EMBEDDER_MODEL --cache-dir $out/.cache"
fi
for set in $tasks; do
    name=${set%%=*}
    file=${set#*=}
    # shellcheck disable=SC2086 # $embedder is empty or four words
    target/release/examples/eval_tasks --locate --features --with-history $embedder \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/$name.jsonl" "$file" > "$out/$name.txt" 2>&1
    tail -n 3 "$out/$name.txt"
    # shellcheck disable=SC2086
    target/release/examples/eval_tasks --locate --features --with-history --no-history $embedder \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/$name-nohist.jsonl" "$file" > "$out/$name-nohist.txt" 2>&1
    tail -n 3 "$out/$name-nohist.txt"
    # shellcheck disable=SC2086
    target/release/examples/eval_tasks --features --with-history $embedder \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/completion/$name.jsonl" "$file" > "$out/completion/$name.txt" 2>&1
    tail -n 3 "$out/completion/$name.txt"
    # shellcheck disable=SC2086
    target/release/examples/eval_tasks --features --with-history --no-history $embedder \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/completion-plain/$name.jsonl" "$file" > "$out/completion-plain/$name.txt" 2>&1
    tail -n 3 "$out/completion-plain/$name.txt"
done
