"""The installed JSON schemas (``schemas/``) against what ``leirc`` writes.

Each schema is checked as a Draft 2020-12 schema, then every line of the
pinned outputs that the DejaGnu tests compare byte for byte with leirc's
(``testsuite/leirc.checkstep/*.expected*``) and of live runs of
``--check-step --json``, ``--eval -o`` and ``--emit-steps --format=...`` is
validated against its schema: a key added to an output without its schema
(or a schema that no longer matches) fails here.
"""

from __future__ import annotations

import json
import pathlib
import subprocess

import pytest

jsonschema = pytest.importorskip("jsonschema")


def schema(top_srcdir: pathlib.Path, name: str) -> dict:
    """Loads ``schemas/NAME.schema.json`` and checks it is a valid schema."""
    s = json.loads((top_srcdir / "schemas" / f"{name}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(s)
    return s


def validate_lines(s: dict, text: str) -> int:
    """Validates each non-empty line of ``text`` as one JSON object; the count."""
    v = jsonschema.Draft202012Validator(s)
    n = 0
    for line in text.splitlines():
        if line.strip():
            v.validate(json.loads(line))
            n += 1
    return n


def checkstep(top_srcdir: pathlib.Path) -> pathlib.Path:
    return top_srcdir / "testsuite" / "leirc.checkstep"


def test_pinned_outputs_match_their_schemas(top_srcdir: pathlib.Path) -> None:
    d = checkstep(top_srcdir)
    assert validate_lines(schema(top_srcdir, "eval-result"), (d / "eval.expected.jsonl").read_text()) == 13
    assert validate_lines(schema(top_srcdir, "eval-result"), (d / "authors.expected.jsonl").read_text()) == 14
    assert validate_lines(schema(top_srcdir, "steptp"), (d / "steptp.expected").read_text()) == 1
    assert validate_lines(schema(top_srcdir, "chat"), (d / "chat1.expected").read_text()) == 1


def test_eval_result_schema_rejects_an_unknown_key(top_srcdir: pathlib.Path) -> None:
    line = json.loads((checkstep(top_srcdir) / "eval.expected.jsonl").read_text().splitlines()[0])
    line["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(line, schema(top_srcdir, "eval-result"))


@pytest.mark.parametrize("strategy,after,verdict", [
    ("loop_split", "split.leir", "legal"),
    ("loop_split", "trunc.leir", "does not parse"),
    ("loop_reorder", "same.leir", "unchanged"),
    ("loop_split", "extent.leir", None),
])
def test_check_step_json(leirc: str, top_srcdir: pathlib.Path, strategy: str, after: str,
                         verdict: str | None) -> None:
    d = checkstep(top_srcdir)
    r = subprocess.run([leirc, f"--check-step={strategy}", "--json", str(d / "mm.leir"), str(d / after)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == (0 if verdict == "legal" else 1), r.stderr
    assert validate_lines(schema(top_srcdir, "check-step"), r.stdout) == 1
    got = json.loads(r.stdout)["verdict"]
    if verdict is not None:
        assert got == verdict
    else:
        assert got != "legal"


def test_eval_results_live(leirc: str, top_srcdir: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "r.jsonl"
    r = subprocess.run([leirc, f"--eval={checkstep(top_srcdir) / 'eval.jsonl'}", "--target=cuda",
                        "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert validate_lines(schema(top_srcdir, "eval-result"), out.read_text()) == 13


@pytest.mark.parametrize("fmt,name", [("steptp", "steptp"), ("chat", "chat")])
def test_emit_steps_live(leirc: str, top_srcdir: pathlib.Path, fmt: str, name: str) -> None:
    r = subprocess.run([leirc, "--emit-steps=-", f"--format={fmt}", "--sample=3",
                        str(top_srcdir / "examples" / "matmul.leir")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert validate_lines(schema(top_srcdir, name), r.stdout) >= 1
