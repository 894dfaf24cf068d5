"""The MCP server of ``deepdiscovery mcp``: deepdiscovery as tools for coding agents.

It speaks the Model Context Protocol over standard input and output, built on the
official MCP Python SDK (the ``mcp`` extra: ``pip install "deepdiscovery[mcp]"``), and
serves one repository, fixed when it starts. Its tools:

- ``discover(task, budget_tokens, open_paths)``: the context package, as Markdown, with
  the ranked files (path, role, score, view, rationale) as structured content;
- ``locate(task, anchors)``: the anchors with their scores and signals;
- ``related(path)``: a file's typed relations, in and out, strongest first;
- ``explain(task, path, ...)``: why a file is or is not in a task's package.

One :class:`deepdiscovery.Session` serves every call; it revalidates the repository on
each query, so an answer always reflects the files as they are now. Library calls run
in worker threads, so the server keeps answering (and runs calls side by side) while a
query works. A cancelled call returns at once, without an answer; the library call it
started cannot be interrupted, so it finishes in its thread and its result is dropped.

With a language model the queries run the paper's LLM-assisted terms. Under
``--llm sampling`` (:class:`SamplingLLM`) that model is the host agent's own, asked with
``sampling/createMessage`` through the tool call being served; a client that did not
announce the sampling capability gets answers without those terms, and a note saying so.

Every failure the caller can fix (an empty task, a path outside the repository, an
option out of range) comes back as a tool error with a message saying what to change;
nothing a call does stops the server.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import (
    Annotated,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Literal,
    Optional,
    Sequence,
    TypeVar,
)

import anyio.from_thread
import anyio.to_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError, NoBackChannelError
from mcp.shared.message import ServerMessageMetadata
from mcp.types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field, ValidationError

from deepdiscovery import Config, ContextPackage, Session, __version__
from deepdiscovery.formatting import format_anchors, format_definitions
from deepdiscovery.errors import DeepDiscoveryError, PluginError

__all__ = [
    "MAX_ANCHORS",
    "MAX_BUDGET_TOKENS",
    "MAX_RELATIONS",
    "SamplingLLM",
    "build_server",
    "serve",
]

#: The largest ``budget_tokens`` a ``discover`` or ``explain`` call may ask for.
MAX_BUDGET_TOKENS = 64_000
#: The most anchors a ``locate`` call may ask for.
MAX_ANCHORS = 32
#: The most relations ``related`` returns (the strongest ones).
MAX_RELATIONS = 50

_T = TypeVar("_T")
_F = TypeVar("_F", bound=Callable[..., Any])

# ---------------------------------------------------------------------------------
# Arguments, as the model reads them in the tools' input schemas

Task = Annotated[
    str,
    Field(
        description="The coding task in plain language: an issue, a bug report with its "
        "error message or stack trace, or a feature request. Give it whole; error names, "
        "symbols and file names in it steer the search."
    ),
]
BudgetTokens = Annotated[
    int,
    Field(
        ge=1_000,
        le=MAX_BUDGET_TOKENS,
        description="Token budget of the context package; its Markdown never exceeds it. "
        f"From 1000 to {MAX_BUDGET_TOKENS}.",
    ),
]
OpenPaths = Annotated[
    List[str],
    Field(
        description="Files already known to be involved (open in the editor, named by the "
        "user), relative to the repository root. They are hints that steer the ranking."
    ),
]
FilePath = Annotated[
    str,
    Field(
        description="A file of the repository, relative to its root as discover lists "
        "them (for example `src/app/models.py`)."
    ),
]
Anchors = Annotated[
    int,
    Field(ge=1, le=MAX_ANCHORS, description=f"How many anchors to return (1 to {MAX_ANCHORS})."),
]

_READ_ONLY = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

# ---------------------------------------------------------------------------------
# Structured results, published as the tools' output schemas


class PackageFile(BaseModel):
    """One file of the context package."""

    rank: int = Field(description="1 for the most relevant file")
    path: str = Field(description="relative to the repository root")
    role: str = Field(description="source, test, config, docs, build, ...")
    score: float = Field(description="relevance from 0 to 1")
    view: str = Field(
        description="how the Markdown gives it: full_text, spans or metadata (a card)"
    )
    anchor: bool = Field(description="whether the task text points at it directly")
    tokens: int = Field(description="tokens it takes in the Markdown")
    rationale: List[str] = Field(description="why it is included")


class BudgetUse(BaseModel):
    """How the token budget was spent."""

    max_tokens: int
    used_tokens: int
    stop: str = Field(description="why the search stopped")


class LlmUsage(BaseModel):
    """What the language model did for one call: the package's ``budget.llm``."""

    model: str
    calls: int = Field(description="requests sent to the model")
    failures: int = Field(
        description="calls that failed or answered something unusable; their terms kept "
        "the deterministic path"
    )
    refused: int = Field(description="calls not made because the per-query cap was reached")
    prompt_tokens: int = Field(description="estimated tokens sent")
    answer_tokens: int = Field(description="estimated tokens received")
    millis: float = Field(description="time spent waiting for the model")
    notes: List[str] = Field(description="what each answer changed, or why it was not used")


class Definition(BaseModel):
    """A function, method or class the task likely concerns: where to look."""

    rank: int
    path: str
    name: str = Field(description="its name within the file: Class.method, outer.inner")
    kind: str
    start: int = Field(description="its first line (1-based)")
    end: int = Field(description="its last line")
    score: float
    why: List[str] = Field(description="the evidence that lists it, one line each")


def _definitions(data: Dict[str, Any]) -> List[Definition]:
    return [
        Definition(
            rank=rank,
            path=d["path"],
            name=d["name"],
            kind=d["kind"],
            start=d["span"]["start"],
            end=d["span"]["end"],
            score=d["score"],
            why=list(d["why"]),
        )
        for rank, d in enumerate(data.get("definitions") or [], 1)
    ]


class DiscoverResult(BaseModel):
    """The context package of a task, without the file texts (they are in the Markdown)."""

    task_type: str
    definitions: List[Definition] = Field(
        description="where to look inside the files: the functions, methods and classes "
        "the task most likely concerns, best first"
    )
    files: List[PackageFile] = Field(description="the package's files, best first")
    budget: BudgetUse
    over_budget: List[str] = Field(description="selected files that did not fit the budget")
    filtered: List[str] = Field(
        description="left out by the filter: weak anchors that nothing connects, and "
        "files expansion reached that added no missing role or bridge"
    )
    notes: List[str]
    llm: Optional[LlmUsage] = Field(
        description="the language model's calls, tokens and fallbacks; null without a model"
    )


class Anchor(BaseModel):
    """A file the task text points at."""

    rank: int
    path: str
    role: str
    score: float
    terms: Dict[str, float] = Field(
        description="the score's terms: sem (lexical), sum (summary), rule (structural "
        "signals), prior (file role and history)"
    )
    signals: List[str] = Field(description="what in the task matched the file")


class LocateResult(BaseModel):
    """The anchors of a task, best first, and where to look inside the best files."""

    task_type: str
    anchors: List[Anchor]
    definitions: List[Definition] = Field(
        description="the functions, methods and classes the task most likely concerns, "
        "best first"
    )
    notes: List[str]
    llm: Optional[LlmUsage] = Field(
        description="the language model's calls, tokens and fallbacks; null without a model"
    )


class Relation(BaseModel):
    """One typed relation between the file asked about and another file."""

    path: str = Field(description="the other file")
    relation: str = Field(description="imports, calls, inherits, tests, configures, ...")
    direction: Literal["out", "in"] = Field(
        description="out: the file asked about relates to `path` (it imports it, ...); "
        "in: `path` relates to the file asked about"
    )
    confidence: float
    rationale: str


class RelatedResult(BaseModel):
    """A file's relations, strongest first."""

    path: str
    relations: List[Relation]
    total: int = Field(
        description=f"how many relations the file has (at most {MAX_RELATIONS} shown)"
    )


Status = Literal["included", "over_budget", "filtered", "not_selected", "not_considered"]


class ExplainResult(BaseModel):
    """Why a file is or is not in a task's context package."""

    path: str
    status: Status = Field(
        description="included: in the package; over_budget: selected but did not fit the "
        "token budget; filtered: a weak anchor nothing connects, or a file expansion "
        "reached that added nothing the package lacked; not_selected: ranked "
        "below the files chosen; not_considered: not read for the task"
    )
    package_rank: Optional[int] = Field(description="its rank in the package when included")
    ranked_position: Optional[int] = Field(
        description="its place among every considered file (1 = best), when considered"
    )
    ranked_total: int = Field(description="how many files were considered")
    score: Optional[float] = Field(description="its final score, when considered")
    role: Optional[str] = Field(description="source, test, config, ..., when included")
    view: Optional[str] = Field(description="full_text, spans or metadata, when included")
    anchor: bool
    rationale: List[str] = Field(description="why it was included, or the anchor's signals")
    explanation: str


# ---------------------------------------------------------------------------------
# The host agent's own model, through MCP sampling (`deepdiscovery mcp --llm sampling`)

#: The per-query options that leave every LLM-assisted term on its deterministic path.
_LLM_TERMS_OFF = {"llm_environment": False, "llm_summary": False, "llm_promotion": False}

_SAMPLING_SYSTEM = (
    "You are one step of a code-search tool, not a conversation. Answer with exactly the "
    "one JSON object the request asks for, and nothing else."
)


class SamplingLLM:
    """The session's language model under ``deepdiscovery mcp --llm sampling``: the host
    agent's own model, asked with ``sampling/createMessage`` through the tool call being
    served, so no key and no second model are needed.

    The session holds one; each tool call binds its own request to it in the worker
    thread that runs its query (:meth:`serving`), so calls served side by side each ask
    through their own client request. A client that did not announce the sampling
    capability gets the query without the LLM terms, and a note saying so. An error
    answer (a refusal), an answer that is not text, or none within ``timeout`` seconds
    is a :class:`PluginError`: that term keeps its deterministic path and the package's
    ``llm`` notes say why. ``max_tokens`` bounds each answer; ``context_window`` is what
    the library may fill of the host's model.
    """

    name = "mcp-sampling"

    def __init__(
        self, *, timeout: float = 60.0, max_tokens: int = 1024, context_window: int = 16000
    ) -> None:
        for what, value in (("timeout", timeout), ("max_tokens", max_tokens)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise PluginError(f"{what} must be a positive number, got {value!r}")
        window = context_window
        if isinstance(window, bool) or not isinstance(window, int) or window <= 0:
            raise PluginError(f"context_window must be a positive int, got {window!r}")
        self.timeout = float(timeout)
        self.max_tokens = int(max_tokens)
        self.context_window = context_window
        # Which tool call each worker thread serves: the core calls `complete` in the
        # thread that runs the query.
        self._bound = threading.local()

    def __repr__(self) -> str:
        return f"SamplingLLM(timeout={self.timeout:g}, max_tokens={self.max_tokens})"

    @contextlib.contextmanager
    def serving(self, call: _SamplingCall) -> Iterator[None]:
        """For the block, this thread's prompts go to ``call``'s client."""
        self._bound.call = call
        try:
            yield
        finally:
            self._bound.call = None

    def complete(self, prompt: str) -> str:
        """The host model's answer to ``prompt``, asked through the call this thread
        serves; :class:`PluginError` when there is none."""
        call: Optional[_SamplingCall] = getattr(self._bound, "call", None)
        if call is None:
            raise PluginError(f"{self.name}: no MCP tool call is being served in this thread")
        return call.ask(prompt)


class _SamplingCall:
    """The host's model for one tool call. Built on the event loop from the call's
    context; :meth:`ask` runs in the query's worker thread and sends the request on the
    call's own channel (on streamable HTTP, the stream of that call)."""

    def __init__(self, model: SamplingLLM, ctx: Optional[Context]) -> None:
        self._model = model
        self._ctx = ctx
        #: Why the client cannot be asked, as a note for the package; ``None`` when it can.
        self.unavailable = _why_no_sampling(ctx)

    def ask(self, prompt: str) -> str:
        """The text of the client's answer; any failure is a :class:`PluginError`."""
        name = self._model.name
        if self.unavailable:
            raise PluginError(f"{name}: {self.unavailable}")
        try:
            return anyio.from_thread.run(self._create_message, prompt)
        except PluginError:
            raise
        except NoBackChannelError:
            raise PluginError(f"{name}: the tool call has ended, its channel is closed") from None
        except MCPError as e:
            if e.error.code == REQUEST_TIMEOUT:
                raise PluginError(
                    f"{name}: the client did not answer within {self._model.timeout:g} s"
                ) from None
            if e.error.code == CONNECTION_CLOSED:
                raise PluginError(f"{name}: the connection to the client closed") from None
            raise PluginError(f"{name}: the client answered with an error: {e}") from None
        except ValidationError as e:
            raise PluginError(
                f"{name}: the client's answer is not a sampling result: {e}"
            ) from None
        except Exception as e:  # a failure of the connection must not become the core's
            raise PluginError(f"{name}: the sampling request failed: {e!r}") from None

    async def _create_message(self, prompt: str) -> str:
        assert self._ctx is not None  # `unavailable` is set without a context
        message = SamplingMessage(role="user", content=TextContent(type="text", text=prompt))
        request = CreateMessageRequest(
            params=CreateMessageRequestParams(
                messages=[message],
                system_prompt=_SAMPLING_SYSTEM,
                include_context="none",
                temperature=0.0,
                max_tokens=self._model.max_tokens,
            )
        )
        # What `ServerSession.create_message` sends, without its warning that the
        # 2026-07-28 protocol deprecates sampling (hosts of the handshake era use it).
        result = await self._ctx.session.send_request(
            request,
            CreateMessageResult,
            request_read_timeout_seconds=self._model.timeout,
            metadata=ServerMessageMetadata(related_request_id=self._ctx.request_context.request_id),
        )
        if not isinstance(result.content, TextContent):
            raise PluginError(
                f"{self._model.name}: the client answered with {result.content.type} content, "
                "not text"
            )
        return result.content.text


def _why_no_sampling(ctx: Optional[Context]) -> Optional[str]:
    """Why the client of ``ctx`` cannot be asked to sample, or ``None`` when it can."""
    off = "LLM terms off (--llm sampling): "
    if ctx is None:
        return off + "no MCP request to ask the client through"
    capabilities = ctx.session.client_capabilities
    if capabilities is None or capabilities.sampling is None:
        return off + "the MCP client did not announce the sampling capability"
    if not ctx.session.can_send_request:
        # The 2026-07-28 protocol has no server-to-client requests: sampling comes back
        # as input_required rounds there, which a query cannot pause for.
        return off + (
            f"the MCP connection (protocol {ctx.session.protocol_version}) cannot carry "
            "requests from the server"
        )
    return None


# ---------------------------------------------------------------------------------
# The repository the server is bound to


class Repository:
    """The repository root, fixed at start, and the one session that serves it."""

    def __init__(
        self, root: str, llm: Any = None, embedder: Any = None, config: Optional[Config] = None
    ) -> None:
        self.session = Session(os.path.abspath(root), config=config, llm=llm, embedder=embedder)
        self.root = os.path.realpath(root)
        self._given = os.path.abspath(root)
        self._sampling = llm if isinstance(llm, SamplingLLM) else None

    def sampling(self, ctx: Optional[Context]) -> Optional[_SamplingCall]:
        """The host's model for the tool call of ``ctx``, when the server asks it
        (``--llm sampling``); ``None`` otherwise."""
        return _SamplingCall(self._sampling, ctx) if self._sampling is not None else None

    @contextlib.contextmanager
    def _asking(self, call: Optional[_SamplingCall]) -> Iterator[Dict[str, Any]]:
        """For the block, this thread's prompts go to ``call``'s client; yields the
        query options: the LLM terms off when that client cannot be asked."""
        if self._sampling is None or call is None:
            yield {}
            return
        with self._sampling.serving(call):
            yield dict(_LLM_TERMS_OFF) if call.unavailable else {}

    def relative(self, path: str, what: str = "path") -> str:
        """``path`` (relative to the root, or absolute inside it) as the repository's
        ``/``-separated relative path; a :class:`ToolError` if it leaves the root."""
        if not path.strip():
            raise ToolError(f"{what} is empty: give a file path relative to the repository root")
        if "\x00" in path:
            raise ToolError(f"{what} {path!r} contains a NUL character")
        lexical = os.path.normpath(os.path.join(self.root, path))
        for base in (self.root, self._given):
            if lexical == base or lexical.startswith(base.rstrip(os.sep) + os.sep):
                relative = os.path.relpath(lexical, base)
                break
        else:
            raise ToolError(
                f"{what} {path!r} is outside the repository root {self.root}: "
                "give a path relative to the root, without leaving it"
            )
        if relative == ".":
            raise ToolError(f"{what} {path!r} is the repository root itself, not a file")
        real = os.path.realpath(os.path.join(self.root, relative))
        if not real.startswith(self.root.rstrip(os.sep) + os.sep):
            raise ToolError(
                f"{what} {path!r} is a symbolic link that leads outside the repository root"
            )
        return relative.replace(os.sep, "/")

    def existing_file(self, path: str) -> str:
        """:meth:`relative`, and the file must exist."""
        relative = self.relative(path)
        full = os.path.join(self.root, relative)
        if os.path.isdir(full):
            raise ToolError(f"path {path!r} is a directory: give one file of it")
        if not os.path.isfile(full):
            raise ToolError(
                f"no file {relative!r} in the repository {self.root}: give a path relative "
                "to the root, as discover and related list them"
            )
        return relative

    def package(
        self,
        task: str,
        budget_tokens: int,
        open_paths: Sequence[str],
        sampling: Optional[_SamplingCall] = None,
    ) -> ContextPackage:
        """The session's package for ``task``, with ``open_paths`` (checked) as hints,
        asking the host's model through ``sampling`` when the server does so."""
        hints = {"paths": [self.relative(p, "open_paths entry") for p in open_paths]}
        with self._asking(sampling) as options:
            return self.session.discover(task, budget_tokens=budget_tokens, hints=hints, **options)

    # The tools' bodies: blocking, run in worker threads.

    def discover(
        self,
        task: str,
        budget_tokens: int,
        open_paths: Sequence[str],
        sampling: Optional[_SamplingCall] = None,
    ) -> CallToolResult:
        """The ``discover`` tool: the package's Markdown and its files."""
        package = self.package(task, budget_tokens, open_paths, sampling)
        data = package.to_dict()
        budget = data["budget"]
        result = DiscoverResult(
            task_type=package.task_type,
            definitions=_definitions(data),
            files=[
                PackageFile(
                    rank=rank,
                    path=f.path,
                    role=f.role,
                    score=f.score,
                    view=f.view.kind,
                    anchor=f.anchor,
                    tokens=f.tokens,
                    rationale=list(f.rationale),
                )
                for rank, f in enumerate(package.files, 1)
            ],
            budget=BudgetUse(
                max_tokens=budget["max_tokens"],
                used_tokens=budget["used_tokens"],
                stop=budget["stop"],
            ),
            over_budget=data["skipped"]["over_budget"],
            filtered=data["skipped"]["filtered"],
            notes=package.notes + _unavailable(sampling),
            llm=budget.get("llm"),
        )
        return _result(package.to_markdown(), result)

    def locate(
        self, task: str, anchors: int, sampling: Optional[_SamplingCall] = None
    ) -> CallToolResult:
        """The ``locate`` tool: the anchors as text and as data."""
        with self._asking(sampling) as options:
            location = self.session.locate(task, anchors=anchors, **options)
        result = LocateResult(
            task_type=location["task_type"][0],
            anchors=[
                Anchor(
                    rank=rank,
                    path=a["path"],
                    role=a["role"],
                    score=a["score"],
                    terms=a["terms"],
                    signals=a["signals"],
                )
                for rank, a in enumerate(location["anchors"], 1)
            ],
            definitions=_definitions(location),
            notes=list(location.get("notes", [])) + _unavailable(sampling),
            llm=location.get("llm"),
        )
        text = format_anchors(location)
        if location.get("definitions"):
            text += "\n\nWhere to look:\n" + format_definitions(location)
        return _result(text, result)

    def related(self, path: str) -> CallToolResult:
        """The ``related`` tool: the file's edges in the repository graph, both ways."""
        relative = self.existing_file(path)
        graph = self.session.graph()
        if not any(node[0] == relative for node in graph["nodes"]):
            raise ToolError(
                f"{relative!r} is in the repository but deepdiscovery does not read it "
                "(binary, too large or ignored by .gitignore), so it has no relations"
            )
        relations = [
            Relation(
                path=target if source == relative else source,
                relation=name,
                direction="out" if source == relative else "in",
                confidence=confidence,
                rationale=rationale,
            )
            for source, target, name, confidence, rationale in graph["edges"]
            if relative in (source, target) and source != target
        ]
        relations.sort(key=lambda r: (-r.confidence, r.path, r.relation, r.direction))
        result = RelatedResult(
            path=relative, relations=relations[:MAX_RELATIONS], total=len(relations)
        )
        lines = [f"{len(relations)} relations of `{relative}`, strongest first:"]
        for r in result.relations:
            arrow = (
                f"`{relative}` —{r.relation}→ `{r.path}`"
                if r.direction == "out"
                else f"`{r.path}` —{r.relation}→ `{relative}`"
            )
            lines.append(f"- {arrow} ({r.confidence:.2f}): {r.rationale}")
        if len(relations) > MAX_RELATIONS:
            lines.append(f"({len(relations) - MAX_RELATIONS} weaker relations not shown)")
        if not relations:
            lines = [f"`{relative}` has no relation to another file of the repository."]
        return _result("\n".join(lines), result)

    def explain(
        self,
        task: str,
        path: str,
        budget_tokens: int,
        open_paths: Sequence[str],
        sampling: Optional[_SamplingCall] = None,
    ) -> CallToolResult:
        """The ``explain`` tool: where the file stands in the task's package."""
        relative = self.existing_file(path)
        package = self.package(task, budget_tokens, open_paths, sampling)
        result = _explanation(package, relative)
        return _result(result.explanation, result)


def _unavailable(sampling: Optional[_SamplingCall]) -> List[str]:
    """The note saying why the host's model could not be asked, if it could not."""
    return [sampling.unavailable] if sampling is not None and sampling.unavailable else []


def _explanation(package: ContextPackage, path: str) -> ExplainResult:
    """Where ``path`` stands in ``package``, and why."""
    data = package.to_dict()
    ranked = [r["path"] for r in data["ranked_files"]]
    position = ranked.index(path) + 1 if path in ranked else None
    score = data["ranked_files"][position - 1]["score"] if position else None
    anchor = next((a for a in data["anchors"] if a["path"] == path), None)
    common: Dict[str, Any] = {
        "path": path,
        "ranked_position": position,
        "ranked_total": len(ranked),
        "score": score,
        "anchor": anchor is not None,
    }
    place = (
        f"rank {position} of {len(ranked)} considered files, score {score:.2f}"
        if position
        else "not ranked"
    )
    for rank, f in enumerate(package.files, 1):
        if f.path == path:
            why = "\n".join(f"- {reason}" for reason in f.rationale)
            return ExplainResult(
                status="included",
                package_rank=rank,
                role=f.role,
                view=f.view.kind,
                rationale=list(f.rationale),
                explanation=(
                    f"`{path}` is in the package: file {rank} of {len(package.files)}, "
                    f"{f.role}, given as {f.view.kind} ({f.tokens} tokens)"
                    f"{', an anchor of the task' if f.anchor else ''}. Why:\n{why}"
                ),
                **{**common, "score": f.score},
            )
    signals: List[str] = list(anchor["signals"]) if anchor else []
    skipped = data["skipped"]
    budget = data["budget"]
    status: Status
    if path in skipped["over_budget"]:
        status = "over_budget"
        text = (
            f"`{path}` was selected ({place}) but left out: it did not fit the token budget "
            f"({budget['used_tokens']} of {budget['max_tokens']} tokens used). Ask again "
            "with a larger budget_tokens to include it."
        )
    elif path in skipped["filtered"]:
        status = "filtered"
        if anchor:
            text = (
                f"`{path}` matched the task as an anchor ({place}) but was filtered out: a "
                "weak anchor that no other file of the package links to, or one scoring "
                "below min_score_ratio of the best file."
            )
        else:
            text = (
                f"`{path}` was reached from the package ({place}) but filtered out: it "
                "added no missing role and no bridge, and only an import or a call tied "
                "it to the package."
            )
    elif position is not None:
        status = "not_selected"
        text = (
            f"`{path}` was considered ({place}) but not selected: the files chosen rank "
            f"above it (the search stopped: {budget['stop']}). Pass it in open_paths if "
            "the task needs it."
        )
    else:
        status = "not_considered"
        reasons = [
            reason
            for reason, examples in skipped["unreadable"]["examples"].items()
            if path in examples
        ]
        text = f"`{path}` was not considered for this task: " + (
            f"it was skipped ({', '.join(reasons)})."
            if reasons
            else "deepdiscovery does not read it (binary, too large or ignored by .gitignore)."
        )
    if signals:
        text += "\nWhat matched the task:\n" + "\n".join(f"- {s}" for s in signals)
    return ExplainResult(
        status=status,
        package_rank=None,
        role=None,
        view=None,
        rationale=signals,
        explanation=text,
        **common,
    )


def _result(text: str, data: BaseModel) -> CallToolResult:
    """A tool result: ``text`` for the model to read, ``data`` as structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=data.model_dump(mode="json"),
    )


async def _run(work: Callable[[], _T], ctx: Optional[Context] = None) -> _T:
    """``work()`` in a worker thread, its library errors turned into tool errors; with
    ``ctx``, a progress notification at the start and one at the end (when the client
    asked for progress). On cancellation the call returns at once and the thread
    finishes on its own."""
    if ctx is not None:
        await ctx.report_progress(0, 1, "finding the files of the task")
    try:
        result = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    except DeepDiscoveryError as e:
        raise ToolError(str(e)) from None
    if ctx is not None:
        await ctx.report_progress(1, 1, "done")
    return result


# ---------------------------------------------------------------------------------
# The server


def _tool(server: MCPServer, title: str) -> Callable[[_F], _F]:
    """Registers a read-only tool; its docstring, as one paragraph, is its description."""

    def register(fn: _F) -> _F:
        description = " ".join((fn.__doc__ or "").split())
        server.add_tool(fn, title=title, description=description, annotations=_READ_ONLY)
        return fn

    return register


def build_server(
    root: str, llm: Any = None, embedder: Any = None, config: Optional[Config] = None
) -> MCPServer:
    """The MCP server of the repository at ``root`` (its session is opened here, so a
    missing root raises :class:`deepdiscovery.RepositoryError` before anything is served).
    ``llm`` and ``embedder`` are the session's plug-ins (see :class:`deepdiscovery.Session`):
    with a model, every query runs the paper's LLM-assisted terms. A :class:`SamplingLLM`
    asks the host agent's own model, through each tool call's client. ``config`` holds
    the session's options (``embedder_model`` among them); the defaults without it."""
    repo = Repository(root, llm=llm, embedder=embedder, config=config)
    server: MCPServer = MCPServer(
        "deepdiscovery",
        version=__version__,
        instructions=(
            f"deepdiscovery finds the files a coding task needs in the repository at "
            f"{repo.root}. Call `discover` with the task first: it returns the ranked files "
            "with their text or a summary card and why each one matters, within a token "
            "budget. Use `related` to see what a file is connected to, `explain` when a file "
            "you expected is missing, and `locate` for the anchors alone. Paths are relative "
            "to the repository root; answers always reflect the files as they are now."
        ),
        log_level="WARNING",
    )

    @_tool(server, "Discover the context of a task")
    async def discover(
        task: Task,
        budget_tokens: BudgetTokens = 8_000,
        open_paths: OpenPaths = [],  # noqa: B006 - read only, copied by validation
        ctx: Optional[Context] = None,
    ) -> Annotated[CallToolResult, DiscoverResult]:
        """Find the files a coding task needs in this repository and return them as a
        context package: ranked files, each with its role (source, test, config, ...),
        its text or a compact card of its definitions, and why it was included, within a
        token budget. Call it first, with the task as the user wrote it. Files edited
        since the last call are read again, so the answer is always current."""
        sampling = repo.sampling(ctx)
        return await _run(lambda: repo.discover(task, budget_tokens, open_paths, sampling), ctx)

    @_tool(server, "Locate the anchors of a task")
    async def locate(
        task: Task, anchors: Anchors = 8, ctx: Optional[Context] = None
    ) -> Annotated[CallToolResult, LocateResult]:
        """The anchors of a task: the few files its text points at directly, with their
        scores and the signals that matched (error and symbol names, file names, tests,
        recent history). Quicker than discover, without relations or file texts: use it
        to check where a task lands."""
        sampling = repo.sampling(ctx)
        return await _run(lambda: repo.locate(task, anchors, sampling))

    @_tool(server, "Relations of a file")
    async def related(path: FilePath) -> Annotated[CallToolResult, RelatedResult]:
        """The typed relations of one file, strongest first: the files it imports, calls,
        inherits from, configures, registers, tests or changes together with (direction
        out), and the files that do so to it (direction in), each with a confidence and
        a rationale. Use it to see what else an edit to the file may touch."""
        return await _run(lambda: repo.related(path))

    @_tool(server, "Explain a file's place in a task's context")
    async def explain(
        task: Task,
        path: FilePath,
        budget_tokens: BudgetTokens = 8_000,
        open_paths: OpenPaths = [],  # noqa: B006 - read only, copied by validation
        ctx: Optional[Context] = None,
    ) -> Annotated[CallToolResult, ExplainResult]:
        """Why a file is or is not in the context package of a task: its rank, role, view
        and rationale when included; otherwise whether it was selected but cut by the
        token budget, filtered out (a weak anchor, or an expanded file that added nothing),
        ranked below the files chosen, or not
        considered at all. Give the same task, budget_tokens and open_paths as the
        discover call it is about."""
        sampling = repo.sampling(ctx)
        return await _run(
            lambda: repo.explain(task, path, budget_tokens, open_paths, sampling), ctx
        )

    return server


def serve(
    root: str, llm: Any = None, embedder: Any = None, config: Optional[Config] = None
) -> int:
    """Serves the repository at ``root`` over standard input and output until the client
    closes them; returns the exit status."""
    server = build_server(root, llm=llm, embedder=embedder, config=config)
    try:
        server.run("stdio")
    except KeyboardInterrupt:
        return 130
    return 0
