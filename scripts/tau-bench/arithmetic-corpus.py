#!/usr/bin/env python3
"""CPython's answers for arithmetic(): the corpus src/core/contract/arithmetic.ts is tested against.

τ-bench's `calculate` tool checks that an expression holds only `0123456789+-*/(). ` and then
evaluates it with Python's eval. toolproof's arithmetic() CEL function reproduces that without
running code; this script writes what CPython itself gives for a few thousand such expressions
(hand-picked edge cases, expressions from a small grammar, and random strings of those
characters), so the test can compare every one.

Each entry is {"expression", "value"} with value = repr(float(eval(expression))) (so "inf",
"nan" and "-0.0" survive JSON), or {"expression", "error"} with error = str(exception), the text
calculate puts after "Error: ". Expressions CPython needs more than a second for are left out.

Usage: python3 scripts/tau-bench/arithmetic-corpus.py > test/fixtures/arithmetic/cpython.json
(CPython 3.11; the seed is fixed, so the output is the same on every run of one version.)
"""
import json
import random
import signal
import sys
import warnings

ALPHABET = "0123456789+-*/(). "
HAND_PICKED = [
    "", "   ", "(", ")", "()", "( )", "(())", "()()", "2(3)", "(1)(2)", "(1)(1/0)", "(1/0)(2)",
    "1 +", "1 2", "(1 2)", "(1 2", "1 2)", "(1) 2", "(1 2) 3", "1 (2 3)", "(() 1)", "(1 ())",
    "1.2.3", "(1.2.3)", "007", "00", "000.5", "08.5", "09", "0 07", "1.", ".5", ".", "..", "1..2",
    "1 .5", "(1 .)", "1 / 0", "1 // 0", "1.0 // 0", "1 / 0.0", "0 ** -1", "0.0 ** -1", "0 ** 0",
    "(-8) ** 0.5", "(-8) ** (1/3)", "(-8) ** 0.5 // 1", "(-1) ** 0.5 * 0", "1 / ((-1) ** 0.5 * 0)",
    "((-1) ** 0.5) ** 2", "((-2) ** 0.5) ** 101", "0 ** ((-1) ** 0.5)", "10.0 ** 400", "10 ** 400",
    "10 ** -400", "2 ** 1023 * 2", "2.0 ** 1024", "2 ** 10000", "2 ** 0.5", "-2 ** 2", "2 ** -1",
    "(-2) ** -1", "(-2) ** 3", "(-2.0) ** 3", "2 ** 3 ** 2", "() + ()", "() * 2", "2 * ()", "() * -5",
    "() * 2.0", "() * ()", "() + 1", "1 + ()", "() - 1", "() / 1", "() // 1", "() ** 2", "-()", "+()",
    "() * (2 ** 100)", "1 ++ 2", "1 -- 2", "- - 1", "+-+1", "7 // 2", "-7 // 2", "7 // -2", "-7.5 // 2",
    "7.5 // -2", "-0.0 // 1", "0.0 // -1", "1 / 3", "2 / 3", "10 / 4", "-5 / 2", "0.1 + 0.2",
    "1.005 * 100", "123456789 * 1000000000000", "10 ** 20 / 3", "(10 ** 30 + 1) / 10 ** 15",
    "2 ** 200 / 3 ** 100", "1 / 2 ** 1074", "1 / 2 ** 1080", "(2 ** 1024 - 1) / 1",
    "2 ** 2000 // 2 ** 1990", "9" * 400 + ".0", "9" * 400 + ".0 - " + "9" * 400 + ".0",
    "(" * 200 + "1" + ")" * 200, "(" * 201 + "1" + ")" * 201, "-" * 500 + "1", "1" + " ** 1" * 100,
    "(*1)", "(*())", "2(*())", "2(*3)", "2.5(*3)", "10000000000000000.0(*1)", "0.00001(*1)", "()(*2)",
    "((-1) ** 0.5)(*1)", "(*1 + 2)", "(*1)(2)", "2 * (*3)", "(* 1 2)", "(*)", "((*1))", "1 + (*2)", "(1 .2 3)",
    "(1 . 2)", "2(*(1/0))", "(1/0)(*3)", "5(*1", "(*404", "659(.7.42.", " 5-0 64(-)",
    "1319.43 - 302.67 + 271.89", "155.33 - 147.05 + 268.77 - 235.13", "2.675", "0.125", "-0.005",
]


def cpython(expression):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return {"value": repr(float(eval(expression, {"__builtins__": None}, {})))}
        except Exception as error:  # noqa: BLE001 - every exception is an answer here
            return {"error": str(error)}


def number(rng):
    kind = rng.random()
    if kind < 0.4:
        return str(rng.randint(0, 999))
    if kind < 0.7:
        return f"{rng.randint(0, 9999)}.{rng.randint(0, 99):02d}"
    if kind < 0.8:
        return rng.choice(["0", "00", "0.0", ".5", "5.", "1", "2", "10", "3"])
    if kind < 0.9:
        return str(rng.randint(10**15, 10**25))
    return "0" + str(rng.randint(1, 9)) if rng.random() < 0.5 else f"{rng.random() * 10:.3f}"


def expression(rng, depth=0):
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return number(rng)
    if roll < 0.45:
        return rng.choice(["-", "+", "- "]) + expression(rng, depth + 1)
    if roll < 0.55:
        return "(" + expression(rng, depth + 1) + ")"
    if roll < 0.6:
        return number(rng) + " ** " + rng.choice(["2", "3", "0.5", "-1", "-2", "10", "0"])
    op = rng.choice(["+", "-", "*", "/", "//", "+", "-", "*", "/"])
    space = rng.choice([" ", "", " "])
    return expression(rng, depth + 1) + space + op + space + expression(rng, depth + 1)


def timed_out(signum, frame):
    raise TimeoutError


def main():
    rng = random.Random(20260521)
    candidates = list(HAND_PICKED)
    candidates += [expression(rng) for _ in range(2500)]
    candidates += ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 10))) for _ in range(2500)]
    seen = set()
    corpus = []
    signal.signal(signal.SIGALRM, timed_out)
    for text in candidates:
        if text in seen:
            continue
        seen.add(text)
        signal.alarm(1)
        try:
            answer = cpython(text)
        except TimeoutError:
            continue
        finally:
            signal.alarm(0)
        corpus.append({"expression": text, **answer})
    json.dump({"python": sys.version.split()[0], "entries": corpus}, sys.stdout, indent=0, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
