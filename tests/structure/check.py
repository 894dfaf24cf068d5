"""Structure checks of deepdiscovery-core (issue 25), run by `.ci/run` and `make lint`:

- no import cycle among the crate's top-level modules (a cycle inside one module folder
  is allowed): a module is `src/NAME.rs` or `src/NAME/`, and it depends on another when
  its code (comments and test modules left out) names `crate::OTHER`;
- no source file over 1,000 lines before its unit tests (generated code aside);
- no function over 120 lines before the unit tests: a stage reads as its phases,
  each a named function with its inputs and outputs (issue 36).

Exits 1 and says what is wrong otherwise.
"""

import collections
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "deepdiscovery-core", "src")
MAX_LINES = 1000
MAX_FUNCTION_LINES = 120
FN = re.compile(r"^(\s*)(pub(\([a-z]+\))? )?(const )?(async )?(unsafe )?fn (\w+)")


def code_of(path):
    """The file's lines before its test module (a `#[cfg(test)]` on a `mod`; one on
    a single item does not end the code), without comment lines."""
    lines = []
    text = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(text):
        following = next((t for t in text[i + 1 :] if t.strip()), "")
        if line.startswith("#[cfg(test)]") and re.match(r"(pub(\([a-z]+\))? )?mod ", following):
            break
        if line.lstrip().startswith("//"):
            lines.append("")
            continue
        lines.append(line + "\n")
    return lines


def main():
    deps = collections.defaultdict(set)
    modules = set()
    problems = []
    for folder, _, files in os.walk(ROOT):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            top = os.path.relpath(path, ROOT).split(os.sep)[0].removesuffix(".rs")
            if top in ("lib", "main"):
                continue
            modules.add(top)
            lines = code_of(path)
            if len(lines) > MAX_LINES:
                problems.append(f"{os.path.relpath(path, ROOT)}: {len(lines)} lines before its tests")
            for name, length in long_functions(lines):
                problems.append(
                    f"{os.path.relpath(path, ROOT)}: fn {name} is {length} lines "
                    f"(at most {MAX_FUNCTION_LINES})"
                )
            text = "".join(lines)
            named = re.findall(r"crate::([a-z_]+)", text)
            for group in re.findall(r"crate::\{([^}]*)\}", text):
                named += re.findall(r"(?:^|,)\s*([a-z_]+)", group)
            deps[top].update(m for m in named if m != top)
    for cycle in cycles(modules, deps):
        problems.append("import cycle among modules: " + " -> ".join(cycle))
    for problem in problems:
        print(problem)
    if problems:
        sys.exit(1)
    print(
        f"structure: {len(modules)} modules, no import cycle, no file over {MAX_LINES} lines, "
        f"no function over {MAX_FUNCTION_LINES}"
    )


def long_functions(lines):
    """(name, lines) of each function longer than MAX_FUNCTION_LINES: from its `fn`
    line to the closing brace at the same indentation (as rustfmt writes it). A
    declaration without a body, or a body on one line, is one line."""
    out = []
    for i, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        indent = m.group(1)
        end = i
        stripped = line.rstrip()
        if not (stripped.endswith(";") or (stripped.endswith("}") and "{" in stripped)):
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip() == indent + "}" or (
                    lines[j].startswith(indent + "}") and len(lines[j].strip()) <= 2
                ):
                    end = j
                    break
                if FN.match(lines[j]) and len(FN.match(lines[j]).group(1)) <= len(indent):
                    # A declaration without a body (a trait's): the next item begins.
                    end = i
                    break
        if end - i + 1 > MAX_FUNCTION_LINES:
            out.append((m.group(7), end - i + 1))
    return out


def cycles(modules, deps):
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(modules):
        if start in index:
            continue
        work = [(start, iter(sorted(deps.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            v, children = work[-1]
            w = next(children, None)
            if w is not None:
                if w not in modules:
                    continue
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(deps.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    out.append(sorted(component))
    return out


if __name__ == "__main__":
    main()
