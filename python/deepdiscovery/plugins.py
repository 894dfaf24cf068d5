"""Ready-made plug-ins for :class:`deepdiscovery.Session`, on the standard library only.

* :class:`OpenAIChat` — a language model behind any OpenAI-compatible
  ``/chat/completions`` endpoint (OpenAI, vLLM, the llama.cpp server, Ollama's
  ``/v1``, a LiteLLM proxy, …).
* :class:`OpenAIEmbeddings` — an embedder behind any OpenAI-compatible
  ``/embeddings`` endpoint.
* :class:`SentenceTransformerEmbedder` — an embedder over a sentence-transformers
  model object you have already loaded (this module never imports the package).
* :func:`sync_llm` — a blocking view of an ``async`` model; ``Session`` applies it to
  the ``llm`` it is given.

>>> from deepdiscovery.plugins import OpenAIChat
>>> model = OpenAIChat("qwen2.5-coder", base_url="http://localhost:11434/v1")
>>> (model.name, model.context_window)
('qwen2.5-coder', 16000)

Every failure (an HTTP error status, a timeout, a refused connection, an answer
without the expected fields) raises :class:`deepdiscovery.PluginError` with a message
that says what happened; inside a query the stage then falls back to its
deterministic path and the package's notes say why. Messages never contain the key.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import os
import socket
import types
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

from deepdiscovery.errors import PluginError

__all__ = ["OpenAIChat", "OpenAIEmbeddings", "SentenceTransformerEmbedder", "sync_llm"]

#: The ``base_url`` of OpenAI's own API.
OPENAI_BASE_URL = "https://api.openai.com/v1"
#: How many characters of a server's answer an error message quotes.
_EXCERPT = 300


def _positive(name: str, value: Any, kinds: tuple = (int,)) -> None:
    """Reject a constructor argument that is not a positive number of ``kinds``."""
    if isinstance(value, bool) or not isinstance(value, kinds) or value <= 0:
        raise PluginError(f"{name} must be a positive {kinds[-1].__name__}, got {value!r}")


def _excerpt(text: str) -> str:
    """The start of a server's answer, on one line, for an error message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _EXCERPT else flat[:_EXCERPT] + "…"


class _Endpoint:
    """POSTs JSON to one OpenAI-compatible server and reads its JSON answer."""

    def __init__(
        self,
        who: str,
        base_url: str,
        api_key: Optional[str],
        api_key_env: str,
        timeout: float,
        extra_headers: Optional[Mapping[str, str]],
    ) -> None:
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise PluginError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        _positive("timeout", timeout, (int, float))
        self.who = who
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.extra_headers = dict(extra_headers or {})

    def _key(self) -> Optional[str]:
        """The key given, else the environment variable's (read at each call); ``None``
        when neither is set, as local servers need none."""
        key = self._api_key if self._api_key is not None else os.environ.get(self.api_key_env)
        return key or None

    def post(self, route: str, payload: Dict[str, Any]) -> Any:
        """The decoded JSON answer of ``POST {base_url}/{route}``; any failure is a
        :class:`PluginError` that names the URL and what went wrong."""
        url = f"{self.base_url}/{route}"
        key = self._key()
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": "deepdiscovery-python",
        }
        if key:
            headers["Authorization"] = f"Bearer {key}"
        headers.update(self.extra_headers)
        request = urllib.request.Request(
            url, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as e:
            with e:
                body = _excerpt(e.read().decode("utf-8", errors="replace")) or e.reason
            raise self._error(key, f"HTTP {e.code} from {url}: {body}") from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise self._error(key, f"no answer from {url} within {self.timeout:g} s") from None
            raise self._error(key, f"cannot reach {url}: {e.reason}") from None
        except (socket.timeout, TimeoutError):
            raise self._error(key, f"no answer from {url} within {self.timeout:g} s") from None
        except OSError as e:
            raise self._error(key, f"connection to {url} failed: {e}") from None
        text = raw.decode("utf-8", errors="replace")
        try:
            return json.loads(text)
        except ValueError:
            raise self._error(key, f"{url} answered with non-JSON: {_excerpt(text)}") from None

    def _error(self, key: Optional[str], message: str) -> PluginError:
        """A :class:`PluginError` from this plug-in, with the key blanked out should
        the server have echoed it."""
        if key:
            message = message.replace(key, "***")
        return PluginError(f"{self.who}: {message}")


def _field(answer: Any, path: Sequence[Any]) -> Any:
    """``answer[path[0]][path[1]]…``, or ``None`` when any step is missing."""
    for step in path:
        try:
            answer = answer[step]
        except (KeyError, IndexError, TypeError):
            return None
    return answer


class OpenAIChat:
    """A language model behind an OpenAI-compatible ``POST {base_url}/chat/completions``.

    ``complete(prompt)`` sends the prompt as the user message (after ``system``, when
    given) and returns ``choices[0].message.content``. The key is ``api_key``, else the
    environment variable ``api_key_env`` (read at each call); with neither, no
    ``Authorization`` header is sent, as local servers need none. ``json_mode`` asks
    for ``response_format={"type": "json_object"}``, for servers that support it.
    ``extra_headers`` are added to (and may override) every request's headers.
    ``name`` is the model, ``context_window`` the tokens the library may fill.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = OPENAI_BASE_URL,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: Optional[str] = None,
        timeout: float = 60.0,
        temperature: float = 0.0,
        max_tokens: int = 512,
        context_window: int = 16000,
        system: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        json_mode: bool = False,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise PluginError(f"model must be a non-empty str, got {model!r}")
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise PluginError(f"temperature must be a number, got {temperature!r}")
        _positive("max_tokens", max_tokens)
        _positive("context_window", context_window)
        self.name: str = model
        self.context_window: int = context_window
        self.temperature = float(temperature)
        self.max_tokens = max_tokens
        self.system = system
        self.json_mode = bool(json_mode)
        self._endpoint = _Endpoint(model, base_url, api_key, api_key_env, timeout, extra_headers)

    def __repr__(self) -> str:
        return f"OpenAIChat({self.name!r}, base_url={self._endpoint.base_url!r})"

    def complete(self, prompt: str) -> str:
        """The model's answer to ``prompt``; :class:`PluginError` when there is none."""
        messages: List[Dict[str, str]] = []
        if self.system:
            messages.append({"role": "system", "content": self.system})
        messages.append({"role": "user", "content": prompt})
        payload: Dict[str, Any] = {
            "model": self.name,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.json_mode:
            payload["response_format"] = {"type": "json_object"}
        answer = self._endpoint.post("chat/completions", payload)
        content = _field(answer, ("choices", 0, "message", "content"))
        if not isinstance(content, str):
            raise PluginError(
                f"{self.name}: the answer has no choices[0].message.content text: "
                f"{_excerpt(json.dumps(answer))}"
            )
        return content


class OpenAIEmbeddings:
    """An embedder behind an OpenAI-compatible ``POST {base_url}/embeddings``.

    Texts are sent ``batch_size`` at a time as ``{"model", "input": [...]}``; each
    answer's ``data[i].embedding`` are put back in input order by ``index``.
    ``dimension``, when given, must be the length of the model's vectors (an answer of
    another length is an error that says both); without it, the session learns it from
    the first answer. Keys are found as for :class:`OpenAIChat`.
    """

    def __init__(
        self,
        model: str,
        *,
        dimension: Optional[int] = None,
        base_url: str = OPENAI_BASE_URL,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: Optional[str] = None,
        timeout: float = 60.0,
        batch_size: int = 64,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise PluginError(f"model must be a non-empty str, got {model!r}")
        if dimension is not None:
            _positive("dimension", dimension)
        _positive("batch_size", batch_size)
        self.name: str = model
        self.dimension: Optional[int] = dimension
        self.batch_size = batch_size
        self._endpoint = _Endpoint(model, base_url, api_key, api_key_env, timeout, extra_headers)

    def __repr__(self) -> str:
        return f"OpenAIEmbeddings({self.name!r}, base_url={self._endpoint.base_url!r})"

    def embed(self, texts: List[str]) -> List[List[float]]:
        """One vector per text (of ``dimension`` floats when given), in the order of
        ``texts``."""
        vectors: List[List[float]] = []
        for start in range(0, len(texts), self.batch_size):
            vectors.extend(self._batch(list(texts[start : start + self.batch_size])))
        return vectors

    def _batch(self, batch: List[str]) -> List[List[float]]:
        answer = self._endpoint.post("embeddings", {"model": self.name, "input": batch})
        data = _field(answer, ("data",))
        if not isinstance(data, list) or len(data) != len(batch):
            raise PluginError(
                f"{self.name}: expected data with {len(batch)} embeddings, got "
                f"{_excerpt(json.dumps(answer))}"
            )
        try:
            ordered = sorted(enumerate(data), key=lambda item: item[1].get("index", item[0]))
            vectors = [[float(x) for x in item["embedding"]] for _, item in ordered]
        except (AttributeError, KeyError, TypeError, ValueError):
            raise PluginError(
                f"{self.name}: each data item needs an embedding list of numbers: "
                f"{_excerpt(json.dumps(answer))}"
            ) from None
        for vector in vectors:
            if self.dimension is not None and len(vector) != self.dimension:
                raise PluginError(
                    f"{self.name}: returned vectors of {len(vector)} numbers, but "
                    f"dimension={self.dimension}; pass the model's dimension"
                )
        return vectors


class SentenceTransformerEmbedder:
    """An embedder over a loaded sentence-transformers model (or anything with
    ``encode(list[str])`` returning an array or rows, and
    ``get_sentence_embedding_dimension()``); vectors are returned as plain lists of
    floats. ``dimension`` is needed only when the model cannot tell its own.
    """

    def __init__(self, model: Any, *, dimension: Optional[int] = None) -> None:
        if not callable(getattr(model, "encode", None)):
            raise PluginError("model must have an encode(texts) method (a SentenceTransformer)")
        if dimension is None:
            ask = getattr(model, "get_sentence_embedding_dimension", None)
            dimension = ask() if callable(ask) else None
            if dimension is None:
                raise PluginError(
                    "the model does not tell its embedding dimension; pass dimension="
                )
        _positive("dimension", dimension)
        self.model = model
        self.dimension: int = dimension

    def embed(self, texts: List[str]) -> List[List[float]]:
        """``model.encode(texts)`` as one list of floats per text."""
        rows = self.model.encode(list(texts))
        if hasattr(rows, "tolist"):
            rows = rows.tolist()
        rows = [row.tolist() if hasattr(row, "tolist") else row for row in rows]
        return [[float(x) for x in row] for row in rows]


def _is_async(function: Any) -> bool:
    """Whether calling ``function`` returns a coroutine (an ``async def`` function or
    method, or an object whose ``__call__`` is one)."""
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(function, "__call__", None)
    )


def _blocking(complete: Callable[[str], Any]) -> Callable[[str], Any]:
    """``complete`` run to its end with :func:`asyncio.run` at each call."""

    @functools.wraps(complete)
    def run(prompt: str) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(complete(prompt))
        raise PluginError(
            "the async llm cannot run: an event loop is already running in the thread "
            "that called discover/locate; call them from another thread, e.g. "
            "`await asyncio.to_thread(session.discover, task)`"
        )

    return run


def sync_llm(llm: Any) -> Any:
    """``llm`` itself when its ``complete`` (or ``llm``, when it is a function) is
    blocking; when it is ``async``, an object whose ``complete`` runs it with
    :func:`asyncio.run` and which keeps ``llm``'s ``name`` and ``context_window``.

    Plug-ins are called in the thread that runs the query; an async model works when
    no event loop runs there, and raises :class:`PluginError` otherwise.
    """
    complete = getattr(llm, "complete", None) or llm
    if not _is_async(complete):
        return llm
    kept = {attr: getattr(llm, attr) for attr in ("name", "context_window") if hasattr(llm, attr)}
    return types.SimpleNamespace(complete=_blocking(complete), **kept)
