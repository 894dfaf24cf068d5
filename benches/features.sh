#!/bin/sh
# The training data of the learned models (`make train`), on the task sets, in git
# work trees with history (as users run):
# - OUT_DIR/NAME.jsonl: the Location stage's feature rows of every candidate (the
#   learned scorer, `eval_tasks --locate --features`);
# - OUT_DIR/completion/NAME.jsonl: the rows of the learned change-set completion's
#   candidates (`eval_tasks --features`, the whole of discover);
# - OUT_DIR/completion-plain/NAME.jsonl: the same without the history (`--no-history`,
#   as a shallow clone or a plain directory gives it): the completion for those.
#
#   sh benches/features.sh OUT_DIR
#
# Environment: MIRRORS (the git mirrors, default /work/.mirror), CHECKOUTS (where
# the work trees go, one folder per set, default /work/checkouts-features), TASKS
# (default: the development sets of ../shared/bench and the mined sets of
# benches/mine_tasks.py + benches/sample_mined.py, as NAME=FILE words):
#   lite=/work/mined/lite_avail.jsonl   SWE-bench Lite dev tasks whose repository
#                                       could be fetched
#   ml=/work/shared/bench/multilingual_dev.jsonl
#   sample=/work/mined/sample.jsonl     the mined evaluation sample (4 per repo)
#   train=/work/mined/train.jsonl       8 more per repo, apart from the sample
#   single=/work/mined/single_sample.jsonl  single-file tasks of the same repositories
#                                       (mine_tasks.py --gold-files 1-1, 6 per repo)
set -eu
out=${1:?usage: sh benches/features.sh OUT_DIR}
mirrors=${MIRRORS:-/work/.mirror}
checkouts=${CHECKOUTS:-/work/checkouts-features}
tasks=${TASKS:-"lite=/work/mined/lite_avail.jsonl ml=/work/shared/bench/multilingual_dev.jsonl sample=/work/mined/sample.jsonl train=/work/mined/train.jsonl single=/work/mined/single_sample.jsonl"}
mkdir -p "$out/completion" "$out/completion-plain"
cargo build --release -q -p deepdiscovery-core --example eval_tasks
for set in $tasks; do
    name=${set%%=*}
    file=${set#*=}
    target/release/examples/eval_tasks --locate --features --with-history \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/$name.jsonl" "$file" > "$out/$name.txt" 2>&1
    tail -n 3 "$out/$name.txt"
    target/release/examples/eval_tasks --features --with-history \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/completion/$name.jsonl" "$file" > "$out/completion/$name.txt" 2>&1
    tail -n 3 "$out/completion/$name.txt"
    target/release/examples/eval_tasks --features --with-history --no-history \
        --mirrors "$mirrors" --checkouts "$checkouts/$name" \
        --json "$out/completion-plain/$name.jsonl" "$file" > "$out/completion-plain/$name.txt" 2>&1
    tail -n 3 "$out/completion-plain/$name.txt"
done
