"""The LLM-assisted mode and embeddings from the CLI, against an OpenAI-compatible
stub server on 127.0.0.1 (the scripted server of test_adapters)."""

import json
from pathlib import Path

import pytest

from deepdiscovery.cli import main
from test_adapters import stub_server

REPO = str(Path(__file__).resolve().parent.parent / "fixtures" / "locate_app")
TASK = "Pricing endpoint crashes: CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`"


@pytest.fixture(scope="module")
def stub():
    with stub_server() as server:
        yield server


def run_json(capsys, *argv):
    code = main(["discover", TASK, "--repo", REPO, "--format", "json", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_the_llm_terms_run_from_the_cli(stub, capsys, monkeypatch):
    monkeypatch.setenv("DD_CLI_KEY", "sk-cli")
    stub.requests.clear()
    package = run_json(
        capsys,
        "--llm-base-url", f"{stub.url}/ok/",
        "--llm-model", "tiny",
        "--llm-api-key-env", "DD_CLI_KEY",
    )
    llm = package["budget"]["llm"]
    assert llm and llm["calls"] >= 1, package["budget"]
    chats = [r for r in stub.requests if r["route"] == "chat/completions"]
    assert chats and chats[0]["body"]["model"] == "tiny"
    assert chats[0]["headers"]["Authorization"] == "Bearer sk-cli"
    assert package["files"][0]["path"] == "inventory/pricing/currency.py"


def test_a_failing_endpoint_falls_back_and_the_package_says_so(stub, capsys):
    package = run_json(capsys, "--llm-base-url", f"{stub.url}/status500/", "--llm-model", "tiny")
    assert package["budget"]["llm"]["failures"] >= 1, package["budget"]["llm"]
    assert package["files"][0]["path"] == "inventory/pricing/currency.py"


def test_embeddings_from_the_cli_learn_their_dimension(stub, capsys):
    stub.requests.clear()
    code = main(
        [
            "locate", TASK, "--repo", REPO, "--format", "json",
            "--embedding-base-url", f"{stub.url}/ok/",
            "--embedding-model", "tiny-embed",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    location = json.loads(out)
    assert any(s.startswith("semantic match: ") for a in location["anchors"] for s in a["signals"])
    assert any(r["route"] == "embeddings" for r in stub.requests)


def test_a_base_url_without_a_model_is_a_usage_error(capsys):
    code = main(["discover", TASK, "--repo", REPO, "--llm-base-url", "http://127.0.0.1:9/"])
    _, err = capsys.readouterr()
    assert code == 2 and "--llm-model" in err
