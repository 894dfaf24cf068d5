"""A hostile repository, generated at test time, against every surface: the CLI, the
in-process Python API, the C ABI and the MCP server each answer (or fail with a clear
error) within a time and memory bound, never read or return a path outside the root,
and the process survives. The MCP server also gets malformed JSON-RPC, a huge
request, unknown tools, wrong argument types, concurrent calls and a client that
leaves mid-call.

Run by `make test-cross` (part of `make test`) after the C example is built:

    python tests/cross/hostile.py C_EXAMPLE

Exits non-zero, saying which surface failed and how, when any check fails.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional

#: Wall time and address space each surface may use on the hostile repository.
TIME_LIMIT_S = 120
MEMORY_LIMIT = 4 << 30
#: Levels of the generated nestings: far beyond any limit, under the 1 MiB file cap.
DEPTH = 40_000
TASK = "total_due of an invoice is wrong when a line has no amount"
GOLD = "billing/invoice.py"
SECRET = "outside-the-root-secret"


def build(root: Path, outside: Path) -> None:
    """Writes the hostile repository at ``root`` (and a file to leak at ``outside``)."""

    def put(rel: str, data, mode: str = "w") -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, mode) as f:
            f.write(data)

    put(GOLD, "def total_due(invoice):\n    return sum(l.amount for l in invoice.lines)\n")
    (outside / "secret.py").write_text(f"def total_due():\n    return '{SECRET}'\n")
    os.symlink(outside / "secret.py", root / "billing" / "leak.py")
    os.symlink(outside, root / "outside_dir")
    os.symlink(root / "loop_b", root / "loop_a")
    os.symlink(root / "loop_a", root / "loop_b")
    (root / "cycle").mkdir()
    os.symlink("..", root / "cycle" / "up")
    os.symlink("/dev/zero", root / "zero.py")
    os.mkfifo(root / "pipe.py")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(root / "sock.py"))
    listener.close()
    put("unreadable.py", "def total_due_hidden():\n    pass\n")
    os.chmod(root / "unreadable.py", 0)
    put("broken_utf8.py", b"def total_due_\xff\xfe():\n    pass\n", "wb")
    put("huge_line.js", "x" * (10 << 20))
    put("long_line.js", 'var a = "' + "y" * (900 << 10) + '";')
    put("d/" * 300 + "deep.py", "def deepest():\n    pass\n")
    put("odd\nname\tfile.py", "def odd():\n    pass\n")
    with open(os.path.join(os.fsencode(root), b"bad\xffname.py"), "w") as f:
        f.write("def bad():\n    pass\n")
    # Nested far deeper than any reader walks, in every format a reader takes.
    n = DEPTH
    put("config/deep.json", '{"a": ' + "[" * n + "]" * n + "}")
    put("config/deep.yaml", "a: " + "[" * n + "]" * n + "\n")
    put("config/deep.toml", "a = " + "[" * n + "]" * n + "\n")
    put("config/deep.xml", "<r>" + "<a>" * n + "</a>" * n + "</r>")
    put("config/deep.properties", "a=b\\\n" * n)
    put("config/deep.ini", "[s]\nk = v\n" + " x\n" * n)
    put("config/.env", "A=" + "=" * n + "\n")
    put("config/bomb.yaml", "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n"
        for i in range(9)
    ))
    put("config/bomb.xml", '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">' for i in range(9)
    ) + "]><l>&j;</l>")
    open_, close = "(" * n, ")" * n
    sources = {
        "src/deep.py": "x = " + "[" * n + "]" * n + "\n",
        "src/deep.js": "f(" * n + ")" * n + ";\n",
        "src/deep.ts": "let x = " + "[" * n + "]" * n + ";\n",
        "src/deep.go": f"package a\nfunc f() {{ x := {open_}1{close} }}\n",
        "src/deep.rs": "use a::" + "{b::" * n + "c" + "}" * n + ";\n",
        "src/deep.c": f"int x = {open_}1{close};\n",
        "src/deep.cpp": f"int x = {open_}1{close};\n",
        "src/Deep.java": f"class A {{ int x = {open_}1{close}; }}\n",
        "src/Deep.kt": f"val x = {open_}1{close}\n",
        "src/Deep.cs": f"class A {{ int x = {open_}1{close}; }}\n",
        "src/deep.rb": "x = " + "[" * n + "]" * n + "\n",
        "src/deep.php": "<?php $x = " + "[" * n + "]" * n + ";\n",
    }
    for rel, text in sources.items():
        put(rel, text)
    huge_ignore = "".join(f"gen{i}/**/*.x{i}\n" for i in range(40_000))
    put(".gitignore", huge_ignore)
    put("vendor/.gitignore", huge_ignore)
    put("vendor/lib.py", "def vendored():\n    pass\n")
    put("weird/.gitignore", b"[unclosed\n\xff\xfe\n!\n**/**/**/[[[\n\\\n", "wb")
    put("weird/kept.py", "def kept():\n    pass\n")
    put(".git/HEAD", b"\x00garbage that is no ref\n", "wb")
    put(".git/refs/heads/main", "not-a-sha\n")


def bounded() -> None:
    """In the child: an address-space cap (a runaway allocation fails, it does not
    take the machine)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run(argv: List[str], sanitized: bool = False) -> subprocess.CompletedProcess:
    """Runs ``argv`` within the time bound and (unless it is built with AddressSanitizer,
    which reserves terabytes of address space for its shadow) the address-space bound;
    the peak resident size of every child is checked in :func:`main` as well."""
    return subprocess.run(
        argv, capture_output=True, timeout=TIME_LIMIT_S,
        preexec_fn=None if sanitized else bounded,
    )


def check_paths(paths: List[str], root: Path, surface: str) -> None:
    real_root = root.resolve()
    for path in paths:
        assert not path.startswith("/") and ".." not in path.split("/"), (surface, path)
        assert (root / path).resolve().is_relative_to(real_root), (surface, path)
    assert GOLD in paths, f"{surface}: {GOLD} not in {paths}"


def cli(root: Path, _: str) -> None:
    exe = Path(sys.executable).parent / "deepdiscovery"
    done = run([str(exe), "discover", "--repo", str(root), "--format", "json", TASK])
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    out = done.stdout.decode()
    assert SECRET not in out
    package = json.loads(out)
    check_paths([f["path"] for f in package["files"]], root, "cli")


IN_PROCESS = """
import json, sys, deepdiscovery
session = deepdiscovery.Session(sys.argv[1])
package = session.discover(sys.argv[2])
graph = session.graph()
print(json.dumps([f.path for f in package.files]))
"""


def python(root: Path, _: str) -> None:
    done = run([sys.executable, "-c", IN_PROCESS, str(root), TASK])
    assert done.returncode == 0, (done.returncode, done.stderr.decode(errors="replace")[-2000:])
    out = done.stdout.decode()
    assert SECRET not in out
    check_paths(json.loads(out.strip().splitlines()[-1]), root, "python")


def c_abi(root: Path, example: str) -> None:
    done = run([example, str(root), TASK], sanitized=True)
    assert done.returncode == 0, (done.returncode, done.stderr.decode(errors="replace")[-2000:])
    out = done.stdout.decode(errors="replace")
    assert SECRET not in out
    files = [p[2] for p in (line.split() for line in out.splitlines())
             if len(p) >= 3 and p[0].rstrip(".").isdigit() and p[1] == "*"]
    check_paths(files, root, "c")


class Mcp:
    """A raw JSON-RPC peer on the server's stdio: we send what a broken client sends."""

    def __init__(self, root: Path) -> None:
        exe = Path(sys.executable).parent / "deepdiscovery"
        self.proc = subprocess.Popen(
            [str(exe), "mcp", "--repo", str(root)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=bounded,
        )
        self.next_id = 100

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Optional[dict] = None) -> int:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        return self.next_id

    def answers(self, ids: set, deadline: float) -> dict:
        """Reads lines until every id in ``ids`` is answered (other lines are skipped)."""
        assert self.proc.stdout is not None
        got = {}
        while ids - set(got):
            assert time.monotonic() < deadline, f"no answer to {ids - set(got)}"
            line = self.proc.stdout.readline()
            assert line, "the server closed its output: " + self.stderr_tail()
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") in ids:
                got[message["id"]] = message
        return got

    def stderr_tail(self) -> str:
        self.proc.kill()
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode(errors="replace")[-2000:]


def mcp(root: Path, _: str) -> None:
    deadline = time.monotonic() + TIME_LIMIT_S
    peer = Mcp(root)
    init = peer.request("initialize", {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "hostile", "version": "0"},
    })
    peer.answers({init}, deadline)
    peer.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
    # Malformed JSON-RPC: not JSON, not an object, no method, a wrong version.
    for junk in [b"{not json", b"[1, 2, 3]", b'"just a string"', b'{"jsonrpc": "2.0", "id": 1}',
                 b'{"jsonrpc": "1.0", "id": 2, "method": "tools/list"}', b"\xff\xfe\x00garbage"]:
        peer.send(junk)
    call = lambda name, args: peer.request("tools/call", {"name": name, "arguments": args})
    bad = [
        call("no_such_tool", {}),
        call("discover", {"task": 42}),
        call("discover", {"task": "x", "budget_tokens": "many"}),
        call("related", {"path": "../../etc/passwd"}),
        call("related", {"path": "outside_dir/secret.py"}),
        call("discover", {"task": "   "}),
    ]
    huge = call("discover", {"task": "y " * (4 << 20)})  # an 8 MB request: any answer
    # Concurrent calls on the hostile repository.
    good = [call("discover", {"task": TASK}), call("locate", {"task": TASK}),
            call("discover", {"task": TASK, "budget_tokens": 2000})]
    answered = peer.answers(set(bad) | set(good) | {huge}, deadline)
    for rid in bad:
        message = answered[rid]
        assert "error" in message or message["result"].get("isError"), message
    for rid in good:
        result = answered[rid]["result"]
        assert not result.get("isError"), result
        text = json.dumps(result)
        assert SECRET not in text
        assert GOLD in text
    # The client leaves in the middle of a call: the server ends, without a crash.
    call("discover", {"task": TASK})
    assert peer.proc.stdin is not None
    peer.proc.stdin.close()
    try:
        code = peer.proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        peer.proc.kill()
        raise AssertionError("the server did not end after its client left")
    assert code == 0 or code == 1, f"the server died with {code}: {peer.stderr_tail()}"
    assert code >= 0


def main(argv: List[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    example = argv[1]
    checks: List[tuple] = [("cli", cli), ("python", python), ("c", c_abi), ("mcp", mcp)]
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        root, outside = Path(tmp) / "repo", Path(tmp) / "outside"
        root.mkdir()
        outside.mkdir()
        build(root, outside)
        for name, check in checks:
            start = time.monotonic()
            try:
                check(root, example)
            except Exception as e:  # noqa: BLE001 - report every surface
                failed += 1
                print(f"hostile repository: {name} FAILED: {type(e).__name__}: {e}")
            else:
                print(f"hostile repository: {name} ok ({time.monotonic() - start:.1f} s)")
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss << 10
            if peak > MEMORY_LIMIT:
                failed += 1
                print(f"hostile repository: {name} FAILED: peak resident size {peak >> 20} MiB")
        os.chmod(root / "unreadable.py", 0o600)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
