"""Plug-ins written in Python, and a session shared across threads."""

import threading
from pathlib import Path

import pytest

import deepdiscovery

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


class BagOfWords:
    """A toy embedder: counts of a few words, enough to be deterministic."""

    dimension = 4
    words = ("currency", "price", "test", "order")

    def __init__(self):
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return [[float(t.lower().count(w)) for w in self.words] for t in texts]


def test_an_embedder_in_python_feeds_the_semantic_evidence():
    embedder = BagOfWords()
    session = deepdiscovery.Session(FIXTURES / "locate_app", embedder=embedder)
    location = session.locate(TASK)
    assert embedder.calls == 1
    assert any(s.startswith("semantic match: ") for a in location["anchors"] for s in a["signals"])


@pytest.mark.parametrize(
    "embed, note",
    [
        (lambda texts: 1 / 0, "embedder failed"),
        (lambda texts: [[1.0, 2.0]] * len(texts), "embedder failed"),
        (lambda texts: "garbage", "embedder failed"),
        (lambda texts: [[float("nan")] * 4] * len(texts), "embedder failed"),
    ],
)
def test_a_failing_embedder_falls_back_and_says_so(embed, note):
    class Failing:
        dimension = 4

    Failing.embed = staticmethod(embed)
    session = deepdiscovery.Session(FIXTURES / "locate_app", embedder=Failing())
    package = session.discover(TASK)
    assert package.paths()[0] == "inventory/pricing/currency.py"
    assert any(note in n for n in package.notes), package.notes


def test_plugins_must_be_usable_as_given():
    with pytest.raises(deepdiscovery.PluginError, match="callable"):
        deepdiscovery.Session(FIXTURES / "locate_app", llm=42)
    with pytest.raises(deepdiscovery.PluginError, match="callable"):
        deepdiscovery.Session(FIXTURES / "locate_app", embedder=42)

    class Declared:
        dimension = 0

        def embed(self, texts):
            return []

    with pytest.raises(deepdiscovery.PluginError, match="dimension"):
        deepdiscovery.Session(FIXTURES / "locate_app", embedder=Declared())


def test_a_plain_function_is_an_embedder_and_its_dimension_is_learned():
    words = BagOfWords()
    calls = []

    def embed(texts):
        calls.append(len(texts))
        # numpy-like rows are fine too; plain lists here.
        return words.embed(texts)

    session = deepdiscovery.Session(FIXTURES / "locate_app", embedder=embed)
    location = session.locate(TASK)
    assert len(calls) == 1
    assert any(s.startswith("semantic match: ") for a in location["anchors"] for s in a["signals"])
    # The same answer as with the dimension declared.
    declared = deepdiscovery.Session(FIXTURES / "locate_app", embedder=BagOfWords()).locate(TASK)
    assert [a["path"] for a in location["anchors"]] == [a["path"] for a in declared["anchors"]]
    assert [a["score"] for a in location["anchors"]] == [a["score"] for a in declared["anchors"]]


def test_an_embedder_that_changes_its_dimension_is_refused_then():
    lengths = iter([4, 5, 5])

    def embed(texts):
        n = next(lengths, 5)
        return [[1.0 + len(t) % 3] * n for t in texts]

    session = deepdiscovery.Session(FIXTURES / "locate_app", embedder=embed)
    first = session.discover(TASK)
    assert not any("embedder failed" in n for n in first.notes), first.notes
    second = session.discover(TASK)
    assert any("embedder failed" in n for n in second.notes), second.notes
    assert second.paths()[0] == "inventory/pricing/currency.py"


def test_a_language_model_never_breaks_a_query():
    plain = deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK)
    for answer in (RuntimeError("model offline"), 42, "no json here", '{"scores": {"1": 9}}'):

        def complete(prompt, answer=answer):
            if isinstance(answer, Exception):
                raise answer
            return answer

        package = deepdiscovery.Session(FIXTURES / "locate_app", llm=complete).discover(TASK)
        assert package.paths() == plain.paths(), answer
        usage = package.budget["llm"]
        assert usage["calls"] >= 2 and usage["failures"] == usage["calls"], usage
        assert all("deterministic path kept" in n for n in usage["notes"]), usage


def test_a_language_model_in_python_is_asked_and_heard():
    prompts = []

    def complete(prompt):
        prompts.append(prompt)
        if prompt.startswith("You analyse"):
            return '{"task_type": "bug_fix", "modules": [], "constraints": ["keep EUR rounding"]}'
        return "{}"

    model = type("Model", (), {"name": "table", "context_window": 16000, "complete": staticmethod(complete)})
    package = deepdiscovery.Session(FIXTURES / "locate_app", llm=model()).discover(TASK)
    assert prompts and prompts[0].startswith("You analyse")
    assert package.to_dict()["constraints"] == ["keep EUR rounding"]
    assert package.budget["llm"]["model"] == "table"


def test_one_session_serves_many_threads_with_the_same_answer():
    embedder = BagOfWords()
    session = deepdiscovery.Session(FIXTURES / "locate_app", embedder=embedder)
    expected = session.discover(TASK).paths()
    results, errors = [], []

    def work():
        try:
            for _ in range(3):
                results.append(session.discover(TASK).paths())
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 12 and all(r == expected for r in results)


def test_the_llm_switches_and_cap_of_the_config_are_honoured():
    prompts = []

    def complete(prompt):
        prompts.append(prompt)
        return "{}"

    config = deepdiscovery.Config(llm_max_calls=1)
    package = deepdiscovery.Session(FIXTURES / "locate_app", llm=complete, config=config).discover(TASK)
    assert len(prompts) == 1 and package.budget["llm"]["refused"] >= 1
    prompts.clear()
    off = deepdiscovery.Config(llm_environment=False, llm_summary=False, llm_promotion=False)
    deepdiscovery.Session(FIXTURES / "locate_app", llm=complete, config=off).discover(TASK)
    assert prompts == []


def test_other_python_threads_run_while_a_discover_is_in_progress(tmp_path):
    # A repository big enough that discover takes a while (graph of every file).
    for i in range(400):
        package = tmp_path / f"pkg{i % 20}"
        package.mkdir(exist_ok=True)
        (package / f"mod{i}.py").write_text(
            f"from pkg{(i + 1) % 20}.mod{(i + 1) % 400} import f{(i + 1) % 400}\n\n"
            + "".join(f"def f{i}_{k}(x):\n    return x + {k}\n\n" for k in range(30))
            + f"def f{i}(x):\n    return f{i}_0(x)\n"
        )
    session = deepdiscovery.Session(tmp_path)
    started = threading.Event()
    done = threading.Event()

    def work():
        started.set()
        session.discover("f17 returns the wrong value in mod17")
        done.set()

    thread = threading.Thread(target=work)
    thread.start()
    started.wait()
    ticks = 0
    while not done.is_set():
        ticks += 1
    thread.join()
    # With the GIL held for the whole query this loop could not run at all while it
    # lasted; released, it spins freely.
    assert ticks > 1000, ticks
