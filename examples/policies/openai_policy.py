#!/usr/bin/env python3
"""An LLM policy for `leirc --tune --policy=CMD` (leirc(1), POLICY PROTOCOL):
an adapter to an OpenAI-compatible chat endpoint (vLLM, ms-swift, ...).

For each state leirc sends it builds the Step-TP prompt (the task as the
system message; the current program, the legal candidates with their
cost-model estimates, the history and the costs so far as the user
message), POSTs it to BASE_URL/chat/completions and answers leirc with

  * the candidate spellings that occur in the model's answer, in order of
    appearance (at most --max-choices), else
  * the last ``` block of the answer as a proposed program
    ({"program": TEXT}; leirc matches it with the candidates' programs).

A failed request or an answer with neither is answered with
{"error": WHY} and one line on standard error: leirc refuses that answer,
counts it (policy_refusals) and orders the candidates as without a policy.
Keep --timeout below leirc's --policy-timeout (10 s by default).
Standard library only.

    leirc --tune=policy --cost=model --budget=20 \\
      --policy='python3 openai_policy.py --base-url http://127.0.0.1:8000/v1 --model step-tp' \\
      --trace=t.jsonl -o best.leir prog.leir
"""

import argparse
import json
import os
import re
import sys
import urllib.error
import urllib.request

SYSTEM = (
    "You optimise tensor programs written in LEIR (Loop-Equation IR). "
    "Given a LEIR program and the legal transformation steps from it, propose the "
    "next optimisation step: the one that makes the program fastest in the end. "
    "Answer with the strategy, written exactly as one of the listed spellings, and "
    "the transformed LEIR program in a ``` block. "
    "You may instead answer only spellings from the list, best first."
)


def fmt_cost(x) -> str:
    return "unknown" if x is None else f"{x:.6g} s"


def prompt(state: dict) -> list:
    lines = ["Program:", "```", state.get("program", "").rstrip("\n"), "```", ""]
    lines.append(f"Cost: {fmt_cost(state.get('cost'))} (original {fmt_cost(state.get('original_cost'))}, "
                 f"estimate {fmt_cost(state.get('estimate'))})")
    hist = state.get("history") or []
    lines.append("History:" if hist else "History: none (this is the original program)")
    for k, h in enumerate(hist, 1):
        lines.append(f"{k}. {h.get('spelling')}  cost {fmt_cost(h.get('cost'))}")
    lines.append("")
    lines.append("Candidates (spelling, class, estimated cost after the step):")
    for c in state.get("candidates") or []:
        lines.append(f"- {c.get('spelling')}  class {c.get('class')}  estimate {fmt_cost(c.get('estimate'))}")
    lines.append("")
    lines.append(f"Evaluations so far: {state.get('evaluations')} of budget {state.get('budget')}")
    lines.append("Which step next?")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def ask(args, messages: list) -> str:
    body = json.dumps({"model": args.model, "messages": messages,
                       "temperature": args.temperature, "max_tokens": args.max_tokens}).encode()
    headers = {"Content-Type": "application/json"}
    if args.api_key:
        headers["Authorization"] = f"Bearer {args.api_key}"
    req = urllib.request.Request(args.base_url.rstrip("/") + "/chat/completions", data=body,
                                 headers=headers, method="POST")
    with urllib.request.urlopen(req, timeout=args.timeout) as r:
        answer = json.loads(r.read().decode("utf-8"))
    content = answer["choices"][0]["message"]["content"]
    if not isinstance(content, str):
        raise ValueError("message.content is not a string")
    return content


IDENT = re.compile(r"[A-Za-z0-9_]")


def first_at(text: str, s: str) -> int:
    """Where spelling s first occurs in text as a whole word, else -1."""
    i = text.find(s)
    while i >= 0:
        if i == 0 or not IDENT.match(text[i - 1]):
            return i
        i = text.find(s, i + 1)
    return -1


def parse(content: str, state: dict, max_choices: int) -> dict:
    found = []
    for c in state.get("candidates") or []:
        i = first_at(content, c["spelling"])
        if i >= 0:
            found.append((i, -len(c["spelling"]), c["spelling"]))
    found.sort()
    if found:
        return {"choices": [s for _, _, s in found][:max_choices]}
    blocks = re.findall(r"```[^\n]*\n(.*?)```", content, re.S)
    if blocks and blocks[-1].strip():
        return {"program": blocks[-1]}
    return {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base-url", default=os.environ.get("OPENAI_BASE_URL") or "http://127.0.0.1:8000/v1")
    ap.add_argument("--model", default="default")
    ap.add_argument("--api-key", default=os.environ.get("OPENAI_API_KEY"))
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--max-tokens", type=int, default=2048)
    ap.add_argument("--timeout", type=float, default=8.0, help="seconds for one request")
    ap.add_argument("--max-choices", type=int, default=8)
    args = ap.parse_args()
    for line in sys.stdin:
        try:
            state = json.loads(line)
        except ValueError:
            continue
        if not isinstance(state, dict) or state.get("type") == "done":
            break
        if state.get("type") != "state":
            continue
        try:
            ans = parse(ask(args, prompt(state)), state, max(1, args.max_choices))
            why = None if ans else "the model's answer names no candidate and has no ``` program"
        except Exception as e:  # HTTP, network, timeout, JSON, shape: refused, never fatal
            ans, why = {}, f"request failed: {type(e).__name__}: {e}"
        if why:
            why = " ".join(why.split())
            print(f"openai_policy: {why}", file=sys.stderr, flush=True)
            ans = {"error": why}
        print(json.dumps(ans), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
