#!/bin/sh
# Seed corpora for the fuzz targets, from the fixture repositories (written by us):
# config files prefixed by their format's byte, code files by their language's byte,
# task texts from the Python tests' tasks, the built-in rules, option examples.
set -eu
cd "$(dirname "$0")"
fixtures=../tests/fixtures
corpus=target/corpus
mkdir -p "$corpus/config" "$corpus/code_facts" "$corpus/task" "$corpus/rule_specs" "$corpus/options_json" "$corpus/mcp" \
    "$corpus/cache_entry" "$corpus/cache_tables" "$corpus/eval_scores" "$corpus/watch_listing" "$corpus/lexical_pass" "$corpus/history_log" "$corpus/bridge_model" \
    "$corpus/package_svg" "$corpus/task_file" "$corpus/path_words" "$corpus/model_folder" "$corpus/trees_model" "$corpus/static_table"
# Cache payloads are JSON documents (facts) or binary indexes; the tables' payloads
# are records; eval scores a JSON array of task scores.
printf '{}' > "$corpus/cache_entry/seed-empty"
printf '{"definitions":[],"references":[],"imports":[]}' > "$corpus/cache_entry/seed-facts"
printf '{"defs_len":1,"body_len":2,"tokens":[["rate",1,1]],"defs":[["rate",true]],"idents":["rate"]}' \
    > "$corpus/cache_entry/seed-index"
printf '\001\000\000\000' > "$corpus/cache_tables/seed-count"
printf '{"language":"python","facts":{}}' > "$corpus/cache_tables/seed-facts"
printf '[{"gold_ranks":[1,null],"in_anchors":[true,false],"in_set":[true,false],"set_size":3},{"gold_ranks":[]}]' \
    > "$corpus/eval_scores/seed-1"
# A git log of three commits (a rename, a large one), bounds and a split point first.
printf '\017\377\003\001\036!%s\0371700000002\037A\037Fix b\037body\0\nM\0a.py\0R100\0b.py\0c.py\0\036!%s\0371700000001\037A\037Add\037\0\nM\0a.py\0A\0b.py\0M\0d.py\0M\0e.py\0\036!%s\0371700000000\037A\037Start\037\0\nA\0a.py\0' \
    "$(printf '%040d' 3)" "$(printf '%040d' 2)" "$(printf '%040d' 1)" > "$corpus/history_log/seed-log"
# The built-in bridge model, as it is (odd first byte) and with its checksum rewritten.
{ printf '\001'; cat ../deepdiscovery-core/src/bridge/bridge.bin; } > "$corpus/bridge_model/seed-builtin"
{ printf '\000'; head -c 4096 ../deepdiscovery-core/src/bridge/bridge.bin; } > "$corpus/bridge_model/seed-head"
# Packages to draw: files and relations, hostile paths, a file related to itself.
printf '{"files":[{"path":"a.py","role":"source","anchor":true},{"path":"b/<x>.py","role":"test"}],"relations":[{"from":"b/<x>.py","to":"a.py","relation":"imports","confidence":0.5,"rationale":"r"},{"from":"a.py","to":"a.py","relation":"calls"}]}' \
    > "$corpus/package_svg/seed-two"
printf '{"files":3,"relations":[null,{"from":1}]}' > "$corpus/package_svg/seed-odd"
# Task files: a good line, a blank one, numbers for ids, nulls and wrong types.
printf '%s\n\n%s\n' '{"id":"a","repo":"o/r","base_commit":"c0ffee","task":"t","gold_files":["a.py"],"gold_new_files":["b.py"],"language":"python"}' \
    '{"id":7,"repo":"o/r","task":"u","gold_files":[],"gold_new_files":null,"extra":[1]}' > "$corpus/task_file/seed-good"
printf '{"id":["x"],"repo":null,"task":3,"gold_files":"a.py"}\n' > "$corpus/task_file/seed-bad"
# A task line, then paths: nested, at the root, dotted, camel and snake case.
printf 'convert_rate fails in RateParser\nsrc/rates/convert_rate.py\nsrc/rates/RateParser.java\nREADME.md\n.eslintrc\nlib/a.b.c/x_y.go\n' \
    > "$corpus/path_words/seed-paths"
# Change scripts of the watched listing: (operation, argument) byte pairs.
printf '\000\001\003\003\004\017\005\002\010\001\377\000\011\002\006\001' > "$corpus/watch_listing/seed-rounds"
n=0
seed() { # seed TARGET BYTE FILE
    n=$((n + 1))
    { printf "\\$(printf '%03o' "$2")"; cat "$3"; } > "$corpus/$1/seed-$n"
}
# The byte order follows FORMATS in fuzz_targets/config.rs and CODE_LANGUAGES.
find "$fixtures" -type f | sort | while read -r f; do
    case "$f" in
        *.yaml|*.yml) seed config 0 "$f" ;;
        *.json) seed config 1 "$f"; cp "$f" "$corpus/cache_entry/$(echo "$f" | tr '/' '_')" ;;
        *.toml) seed config 2 "$f" ;;
        *.xml) seed config 3 "$f" ;;
        *.properties) seed config 4 "$f" ;;
        *.cfg|*.ini) seed config 5 "$f" ;;
        *.env|*/.env*) seed config 6 "$f" ;;
        *.py) seed code_facts 0 "$f" ;;
        *.java) seed code_facts 1 "$f" ;;
        *.kt) seed code_facts 2 "$f" ;;
        *.js) seed code_facts 3 "$f" ;;
        *.ts) seed code_facts 4 "$f" ;;
        *.tsx) seed code_facts 5 "$f" ;;
        *.go) seed code_facts 6 "$f" ;;
        *.rs) seed code_facts 7 "$f" ;;
        *.c|*.h) seed code_facts 8 "$f" ;;
        *.cpp|*.hpp|*.cc) seed code_facts 9 "$f" ;;
        *.cs) seed code_facts 10 "$f" ;;
        *.rb) seed code_facts 11 "$f" ;;
        *.php) seed code_facts 12 "$f" ;;
        *.md) cp "$f" "$corpus/task/$(echo "$f" | tr '/' '_')" ;;
    esac
    case "$f" in
        *.py|*.java|*.go|*.rs|*.ts|*.rb|*.md) cp "$f" "$corpus/lexical_pass/$(echo "$f" | tr '/' '_')" ;;
    esac
done
grep -ho '"[^"]*Error[^"]*"' ../tests/python/*.py | head -50 | while read -r t; do
    n=$((n + 1)); printf '%s' "$t" > "$corpus/task/t-$n"
done
cp ../deepdiscovery-core/src/rules/builtin.toml "$corpus/rule_specs/builtin.toml"
printf '{"budget_tokens": 4000, "anchors": 3, "ablation": {"no_implicit": true}}' > "$corpus/options_json/a"
printf '{"builtin_rules": false, "history": false, "rules": "[[rule]]"}' > "$corpus/options_json/b"
printf '{"watch": true, "cache": false, "cache_dir": "/nonexistent"}' > "$corpus/options_json/d"
printf '{"paths": ["a.py"], "symbols": ["f"], "failing_tests": ["t"]}' > "$corpus/options_json/c"
printf '{"scope": {"rounds": 2, "max_file_bytes": 262144}, "hints": {"paths": ["a.py"]}}' > "$corpus/options_json/e"
printf '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"discover","arguments":{"task":"Pricing endpoint crashes in convert_currency","budget_tokens":4000}}}' > "$corpus/mcp/discover"
printf '{"name":"related","arguments":{"path":"inventory/pricing/currency.py"}}' > "$corpus/mcp/related"
printf '{"name":"explain","arguments":{"task":"currency conversion","path":"../secret.py"}}' > "$corpus/mcp/explain"
printf '{"name":"locate","arguments":{"task":"CurrencyMismatchError","anchors":3}}' > "$corpus/mcp/locate"
# The tiny model's files, each after the byte that makes the target replace that file
# (0 config, 1 tokenizer, 2 weights, 3 pooling, 4 sentence config); a text to embed (6).
tiny=$(mktemp -d)
python3 ../tests/support/tiny_model.py "$tiny"
k=0
for f in config.json tokenizer.json model.safetensors 1_Pooling/config.json sentence_bert_config.json; do
    { printf "\\$(printf '%03o' "$k")"; cat "$tiny/$f"; } > "$corpus/model_folder/seed-$k"
    k=$((k + 1))
done
rm -rf "$tiny"
printf '\006the cache is slow when the table has many columns' > "$corpus/model_folder/seed-text"
# The tiny model with int8 weights (8: the sound file, signed again after edits; none here).
printf '\010' > "$corpus/model_folder/seed-int8"
# The learned models we ship, as the trees reader's seeds.
# Tables built by the target from words (first byte even), and texts for the shipped one.
printf '\000slow perf crash ##s [UNK] readCsv' > "$corpus/static_table/seed-words"
printf '\042Slow performance when a DataFrame has many columns' > "$corpus/static_table/seed-camel"
printf '\001Café 日本語 read_csv() “quoted”' > "$corpus/static_table/seed-text"
for m in ../deepdiscovery-core/src/locate/ranker.json ../deepdiscovery-core/src/locate/definitions.json \
    ../deepdiscovery-core/src/infer/completion.json; do
    cp "$m" "$corpus/trees_model/seed-$(basename "$m")"
done

