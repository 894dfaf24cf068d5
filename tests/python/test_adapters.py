"""The ready-made plug-ins of deepdiscovery.plugins, against a local OpenAI-compatible
server on 127.0.0.1, and the numpy and async support of Session."""

import asyncio
import contextlib
import json
import re
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import deepdiscovery
from deepdiscovery.plugins import (
    OpenAIChat,
    OpenAIEmbeddings,
    SentenceTransformerEmbedder,
    sync_llm,
)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"
CONSTRAINT = "keep it small"


def scripted_answer(prompt):
    """What the scripted model answers: chosen by the prompt's first words, with an
    entry for every numbered file of the prompt."""
    numbers = re.findall(r"<<<DATA file (\d+)>>>", prompt)
    if prompt.startswith("You analyse"):
        answer = {"task_type": "bug_fix", "modules": [], "constraints": [CONSTRAINT]}
    elif prompt.startswith("You rank files"):
        answer = {"scores": {n: 0.5 for n in numbers}}
    elif prompt.startswith("You prepare context"):
        answer = {
            "files": {n: {"likely_modified": False, "metadata_sufficient": True} for n in numbers}
        }
    else:
        answer = {}
    return json.dumps(answer)


def vector(text):
    """The scripted embedding of a text (dimension 3)."""
    return [float(len(text)), float(text.count("e")), 1.0]


class Handler(BaseHTTPRequestHandler):
    """Speaks chat completions and embeddings under ``/<mode>/``: ``ok`` answers,
    ``status<code>`` fails with that code, ``silent`` never answers, ``prose`` answers
    non-JSON, ``nochoices`` answers JSON without choices, ``wide`` embeds in 5 numbers."""

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        mode, _, route = self.path.strip("/").partition("/")
        self.server.requests.append({"route": route, "headers": self.headers, "body": body})
        if mode == "silent":
            self.server.release.wait(10)
            return
        if mode.startswith("status"):
            auth = self.headers.get("Authorization", "")
            message = f"server exploded (credentials: {auth.replace('Bearer ', '')})"
            self.reply(int(mode[len("status") :]), {"error": {"message": message}})
        elif mode == "prose":
            self.reply(200, "<html>Bad gateway</html>")
        elif mode == "nochoices":
            self.reply(200, {"choices": []})
        elif route == "chat/completions":
            content = scripted_answer(body["messages"][-1]["content"])
            choice = {"index": 0, "message": {"role": "assistant", "content": content}}
            self.reply(200, {"object": "chat.completion", "choices": [choice]})
        elif route == "embeddings":
            width = 5 if mode == "wide" else 3
            data = [
                {"object": "embedding", "index": i, "embedding": (vector(t) * 2)[:width]}
                for i, t in enumerate(body["input"])
            ]
            # Out of order on purpose: the adapter must sort by index.
            self.reply(200, {"object": "list", "data": data[::-1]})
        else:
            self.reply(404, {"error": {"message": f"no route {route}"}})

    def reply(self, status, answer):
        raw = (answer if isinstance(answer, str) else json.dumps(answer)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@contextlib.contextmanager
def stub_server():
    """The scripted OpenAI-compatible server on 127.0.0.1, for the life of the block;
    ``url`` is its base and ``requests`` what it was sent (other test modules use it
    too)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.requests = []
    server.release = threading.Event()
    host, port = server.server_address[:2]
    server.url = f"http://{host}:{port}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def http_server():
    with stub_server() as server:
        yield server


@pytest.fixture
def server(http_server):
    """The local server, with no request recorded yet."""
    http_server.requests.clear()
    return http_server


def url(server, mode="ok"):
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/{mode}"


def test_chat_sends_the_model_the_messages_and_the_key_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("DD_TEST_KEY", "sk-from-env")
    model = OpenAIChat(
        "tiny-model",
        base_url=url(server) + "/",
        api_key_env="DD_TEST_KEY",
        system="Answer in JSON.",
        json_mode=True,
        max_tokens=64,
        extra_headers={"X-Trace": "t1"},
    )
    assert (model.name, model.context_window) == ("tiny-model", 16000)
    answer = model.complete("You analyse a software task")
    assert json.loads(answer)["constraints"] == [CONSTRAINT]
    [request] = server.requests
    assert request["route"] == "chat/completions"
    assert request["body"] == {
        "model": "tiny-model",
        "messages": [
            {"role": "system", "content": "Answer in JSON."},
            {"role": "user", "content": "You analyse a software task"},
        ],
        "temperature": 0.0,
        "max_tokens": 64,
        "response_format": {"type": "json_object"},
    }
    assert request["headers"]["Authorization"] == "Bearer sk-from-env"
    assert request["headers"]["Content-Type"] == "application/json"
    assert request["headers"]["X-Trace"] == "t1"
    assert "sk-from-env" not in repr(model)


def test_chat_without_a_key_sends_no_authorization(server, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    OpenAIChat("tiny-model", base_url=url(server)).complete("You rank files")
    [request] = server.requests
    assert "Authorization" not in request["headers"]
    assert request["body"]["messages"] == [{"role": "user", "content": "You rank files"}]
    assert "response_format" not in request["body"]


def test_a_key_given_wins_over_the_environment(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    OpenAIChat("tiny-model", base_url=url(server), api_key="sk-given").complete("hello")
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-given"


def test_a_session_asks_an_openai_compatible_server_and_hears_it(server):
    model = OpenAIChat("tiny-model", base_url=url(server))
    package = deepdiscovery.Session(FIXTURES / "locate_app", llm=model).discover(TASK)
    usage = package.budget["llm"]
    assert usage["calls"] >= 1 and usage["failures"] == 0, usage
    assert usage["model"] == "tiny-model"
    assert package.to_dict()["constraints"] == [CONSTRAINT]
    assert len(server.requests) == usage["calls"]


@pytest.mark.parametrize("status", [500, 401])
def test_an_http_error_is_a_plugin_error_with_the_status_and_never_the_key(server, status):
    model = OpenAIChat("tiny-model", base_url=url(server, f"status{status}"), api_key="sk-secret")
    with pytest.raises(deepdiscovery.PluginError, match=f"HTTP {status}") as caught:
        model.complete("You analyse a software task")
    message = str(caught.value)
    assert "server exploded" in message
    assert "sk-secret" not in message


@pytest.mark.parametrize("status", [500, 401])
def test_a_failing_server_never_breaks_a_query(server, status):
    plain = deepdiscovery.Session(FIXTURES / "locate_app").discover(TASK)
    model = OpenAIChat("tiny-model", base_url=url(server, f"status{status}"))
    package = deepdiscovery.Session(FIXTURES / "locate_app", llm=model).discover(TASK)
    assert package.paths() == plain.paths()
    usage = package.budget["llm"]
    assert usage["calls"] >= 1 and usage["failures"] == usage["calls"], usage
    assert all(f"HTTP {status}" in n for n in usage["notes"]), usage


def test_a_server_that_never_answers_times_out(server):
    model = OpenAIChat("tiny-model", base_url=url(server, "silent"), timeout=0.2)
    with pytest.raises(deepdiscovery.PluginError, match="no answer .* within 0.2 s"):
        model.complete("You analyse a software task")


def test_a_refused_connection_is_a_plugin_error():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = OpenAIChat("tiny-model", base_url=f"http://127.0.0.1:{port}/v1", timeout=5)
    with pytest.raises(deepdiscovery.PluginError, match="cannot reach"):
        model.complete("hello")


@pytest.mark.parametrize(
    "mode, message",
    [("prose", "non-JSON: <html>Bad gateway"), ("nochoices", r"choices\[0\].message.content")],
)
def test_an_answer_without_the_expected_fields_is_a_plugin_error(server, mode, message):
    with pytest.raises(deepdiscovery.PluginError, match=message):
        OpenAIChat("tiny-model", base_url=url(server, mode)).complete("hello")


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"model": ""}, "model"),
        ({"model": "m", "base_url": "localhost:8000"}, "base_url"),
        ({"model": "m", "timeout": 0}, "timeout"),
        ({"model": "m", "context_window": 0}, "context_window"),
        ({"model": "m", "temperature": "hot"}, "temperature"),
    ],
)
def test_chat_arguments_are_checked(arguments, message):
    with pytest.raises(deepdiscovery.PluginError, match=message):
        OpenAIChat(**arguments)


def test_embeddings_are_batched_and_put_back_in_order(server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-emb")
    texts = ["one", "three", "eleven", "seventeen", "twentyseven"]
    embedder = OpenAIEmbeddings("tiny-embed", base_url=url(server), dimension=3, batch_size=2)
    assert embedder.embed(texts) == [vector(t) for t in texts]
    assert [r["route"] for r in server.requests] == ["embeddings"] * 3
    assert [r["body"] for r in server.requests] == [
        {"model": "tiny-embed", "input": texts[0:2]},
        {"model": "tiny-embed", "input": texts[2:4]},
        {"model": "tiny-embed", "input": texts[4:5]},
    ]
    assert all(r["headers"]["Authorization"] == "Bearer sk-emb" for r in server.requests)


def test_embeddings_of_another_dimension_are_a_plugin_error(server):
    embedder = OpenAIEmbeddings("tiny-embed", base_url=url(server, "wide"), dimension=3)
    with pytest.raises(deepdiscovery.PluginError, match="5 numbers, but dimension=3"):
        embedder.embed(["one"])


def test_embeddings_from_a_server_feed_s_sem(server):
    embedder = OpenAIEmbeddings("tiny-embed", base_url=url(server), dimension=3)
    location = deepdiscovery.Session(FIXTURES / "locate_app", embedder=embedder).locate(TASK)
    assert server.requests
    assert any(s.startswith("semantic match: ") for a in location["anchors"] for s in a["signals"])


class FakeArray:
    """Stands for a numpy array: rows of numbers behind ``tolist()``."""

    def __init__(self, rows):
        self.rows = rows

    def tolist(self):
        return [list(r) if isinstance(r, (list, tuple)) else r for r in self.rows]


class FakeSentenceTransformer:
    """Stands for a sentence-transformers model."""

    def __init__(self, dimension=3, as_rows=False):
        self.dimension = dimension
        self.as_rows = as_rows

    def encode(self, texts):
        rows = [tuple(vector(t)) for t in texts]
        return [FakeArray(r) for r in rows] if self.as_rows else FakeArray(rows)

    def get_sentence_embedding_dimension(self):
        return self.dimension


@pytest.mark.parametrize("as_rows", [False, True])
def test_a_sentence_transformer_gives_plain_lists_of_floats(as_rows):
    embedder = SentenceTransformerEmbedder(FakeSentenceTransformer(as_rows=as_rows))
    assert embedder.dimension == 3
    vectors = embedder.embed(["one", "three"])
    assert vectors == [vector("one"), vector("three")]
    assert all(type(x) is float for v in vectors for x in v)


def test_a_sentence_transformer_that_cannot_tell_its_dimension_needs_one():
    model = FakeSentenceTransformer(dimension=None)
    with pytest.raises(deepdiscovery.PluginError, match="dimension="):
        SentenceTransformerEmbedder(model)
    assert SentenceTransformerEmbedder(model, dimension=3).dimension == 3
    with pytest.raises(deepdiscovery.PluginError, match="encode"):
        SentenceTransformerEmbedder(object())


def test_a_sentence_transformer_over_numpy():
    np = pytest.importorskip("numpy")

    class NumpyModel(FakeSentenceTransformer):
        def encode(self, texts):
            return np.array([vector(t) for t in texts], dtype=np.float32)

    assert SentenceTransformerEmbedder(NumpyModel()).embed(["one"]) == [vector("one")]


class BagOfWords:
    """A toy embedder whose answer is wrapped by ``wrap`` (an array, or array rows)."""

    dimension = 4
    words = ("currency", "price", "test", "order")

    def __init__(self, wrap):
        self.wrap = wrap

    def embed(self, texts):
        return self.wrap([[float(t.lower().count(w)) for w in self.words] for t in texts])


def numpy_wraps():
    """Ways an embedder may answer with arrays: real numpy ones when numpy is there."""
    wraps = [("array", FakeArray), ("rows", lambda rows: [FakeArray(r) for r in rows])]
    try:
        import numpy as np
    except ImportError:
        return wraps
    return wraps + [
        ("numpy", lambda rows: np.array(rows, dtype=np.float32)),
        ("numpy rows", lambda rows: [np.array(r) for r in rows]),
    ]


@pytest.mark.parametrize("name, wrap", numpy_wraps())
def test_a_session_accepts_embeddings_as_arrays(name, wrap):
    session = deepdiscovery.Session(FIXTURES / "locate_app", embedder=BagOfWords(wrap))
    package = session.discover(TASK)
    assert not any("embedder failed" in n for n in package.notes), (name, package.notes)
    location = session.locate(TASK)
    assert any(s.startswith("semantic match: ") for a in location["anchors"] for s in a["signals"])


async def async_complete(prompt):
    await asyncio.sleep(0)
    return scripted_answer(prompt)


class AsyncModel:
    name = "async-table"
    context_window = 16000

    async def complete(self, prompt):
        return await async_complete(prompt)


@pytest.mark.parametrize("llm, model", [(async_complete, "async_complete"), (AsyncModel(), "async-table")])
def test_an_async_language_model_is_run_to_its_end(llm, model):
    package = deepdiscovery.Session(FIXTURES / "locate_app", llm=llm).discover(TASK)
    usage = package.budget["llm"]
    assert usage["calls"] >= 1 and usage["failures"] == 0, usage
    assert usage["model"] == model
    assert package.to_dict()["constraints"] == [CONSTRAINT]


def test_sync_llm_keeps_a_blocking_model_and_the_attributes_of_an_async_one():
    blocking = OpenAIChat("tiny-model")
    assert sync_llm(blocking) is blocking
    wrapped = sync_llm(AsyncModel())
    assert (wrapped.name, wrapped.context_window) == ("async-table", 16000)
    assert json.loads(wrapped.complete("You analyse"))["constraints"] == [CONSTRAINT]


def test_an_async_model_inside_a_running_loop_says_how_to_call_it():
    session = deepdiscovery.Session(FIXTURES / "locate_app", llm=async_complete)

    async def in_the_loop():
        with pytest.raises(deepdiscovery.PluginError, match="asyncio.to_thread"):
            sync_llm(async_complete).complete("You analyse")
        blocked = session.discover(TASK)
        beside = await asyncio.to_thread(session.discover, TASK)
        return blocked, beside

    blocked, beside = asyncio.run(in_the_loop())
    usage = blocked.budget["llm"]
    assert usage["calls"] >= 1 and usage["failures"] == usage["calls"], usage
    assert all("event loop is already running" in n for n in usage["notes"]), usage
    assert beside.budget["llm"]["failures"] == 0
    assert beside.to_dict()["constraints"] == [CONSTRAINT]
