#!/usr/bin/env python3
"""
Builds toolproof's tau-retail example data from a checkout of sierra-research/tau-bench, by
running tau-bench's own retail tools (its Python, read from the checkout, never copied here).

    python3 scripts/tau-bench/reference.py /path/to/tau-bench [--out examples/environments/tau-retail]

Writes, under --out:
  dataset.json        the retail data (orders, products, users) as one JSON document
  operations.json     the 16 tools: name, description and parameter schema as get_info() declares
                      them, plus an output schema (ours) that admits everything the tool answers
  upstream.json       the upstream commit and the SHA-256 of every upstream file that was read
  reference/*.json    every task's gold calls (test, train, dev) and the off-gold probes, each
                      replayed on a fresh copy of the data, with each call's answer, the changes
                      it made and the final state (a diff over the dataset and a hash)

The formats and the hash rule are documented in examples/environments/tau-retail/README.md.
Needs Python 3.10+ and pydantic (tau-bench's task files are pydantic models); litellm, which
tau-bench imports for its simulated user, is replaced by an empty module since no model is called.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import types
from typing import Any

# The commit the committed data was computed from. Another checkout still works; the script says so.
PINNED_COMMIT = "59a200c6d575d595120f1cb70fea53cef0632f6b"
REPOSITORY = "https://github.com/sierra-research/tau-bench"

RETAIL = "tau_bench/envs/retail"
UPSTREAM_FILES = [
    "LICENSE",
    f"{RETAIL}/data/orders.json",
    f"{RETAIL}/data/products.json",
    f"{RETAIL}/data/users.json",
    f"{RETAIL}/data/__init__.py",
    f"{RETAIL}/tasks_test.py",
    f"{RETAIL}/tasks_train.py",
    f"{RETAIL}/tasks_dev.py",
    f"{RETAIL}/env.py",
    "tau_bench/envs/base.py",
    "tau_bench/envs/tool.py",
    "tau_bench/types.py",
]
COLLECTIONS = ["orders", "products", "users"]  # load_data()'s order


# --- importing tau-bench without its model-calling parts -------------------------------------

def import_tau_bench(checkout: str) -> dict[str, Any]:
    """
    Imports the retail environment from the checkout. tau_bench/__init__.py pulls in the agents
    and tau_bench/envs/__init__.py the environment factory, both of which reach litellm; the two
    packages are registered here as bare namespaces over the checkout's folders, and litellm as an
    empty module, so only the retail tools, tasks, data loader and Env itself are executed.
    """
    sys.path.insert(0, checkout)
    litellm = types.ModuleType("litellm")

    def no_model(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("reference.py never calls a model")

    litellm.completion = no_model  # type: ignore[attr-defined]
    sys.modules["litellm"] = litellm
    for name, folder in [("tau_bench", "tau_bench"), ("tau_bench.envs", "tau_bench/envs")]:
        package = types.ModuleType(name)
        package.__path__ = [os.path.join(checkout, folder)]  # type: ignore[attr-defined]
        sys.modules[name] = package

    from tau_bench.envs.retail.env import MockRetailDomainEnv
    from tau_bench.envs.retail.data import load_data
    from tau_bench.envs.retail.tools import ALL_TOOLS
    from tau_bench.envs.retail.tasks_test import TASKS_TEST
    from tau_bench.envs.retail.tasks_train import TASKS_TRAIN
    from tau_bench.envs.retail.tasks_dev import TASKS_DEV
    from tau_bench.envs.base import consistent_hash, to_hashable
    from tau_bench.types import Action

    # The human user strategy builds no model client; its input() is never reached because the
    # environment is never reset (each replay assigns fresh data itself).
    env = MockRetailDomainEnv(user_strategy="human", task_split="test", task_index=0)
    # transfer_to_human_agents ends an episode in tau-bench, and ending one replays the task's gold
    # actions to compute the reward, overwriting env.data. The replay wants the call's answer only
    # (the tool changes no data), so no tool ends the episode here.
    env.terminate_tools = []
    return {
        "env": env,
        "load_data": load_data,
        "tools": ALL_TOOLS,
        "splits": {"test": TASKS_TEST, "train": TASKS_TRAIN, "dev": TASKS_DEV},
        "Action": Action,
        "taubench_hash": lambda data: consistent_hash(to_hashable(data)),
    }


# --- canonical JSON and the state hash (mirrored by test/core/environments/tau-retail-data.test.ts) ---

def js_number(value: int | float) -> str:
    """A number as ECMAScript's Number::toString writes it (JSON.stringify in the test)."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int) and abs(value) < 2**53:
        return str(value)
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"not a JSON number: {value}")
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest digits that round-trip, as Number::toString chooses them; only the
    # layout (where the point goes, when an exponent is used) differs, and is redone here.
    text = repr(abs(value))
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    significant = (whole + fraction).lstrip("0")
    # value = 0.<significant> × 10^point
    point = len(significant) + (int(exponent) if exponent else 0) - len(fraction)
    digits = significant.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + ("+" if e >= 0 else "-") + str(abs(e))
    return sign + out


def canonical_json(value: Any) -> str:
    """Keys sorted by UTF-16 code units, no whitespace, strings escaped as JSON.stringify does."""
    if value is None or value is True or value is False:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical_json(value[k]) for k in keys) + "}"
    raise TypeError(f"not a JSON value: {type(value).__name__}")


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def record_hashes(data: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c: {key: sha256_hex(canonical_json(record)) for key, record in data[c].items()} for c in COLLECTIONS}


def state_hash(hashes: dict[str, dict[str, str]]) -> str:
    """SHA-256 of the canonical JSON of {collection: {record id: SHA-256 of the record's canonical JSON}}."""
    return sha256_hex(canonical_json(hashes))


# --- diffs as JSON Patch (RFC 6902: add, remove, replace) ---------------------------------------

def pointer(*tokens: str | int) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


def json_equal(a: Any, b: Any) -> bool:
    """JSON value equality: booleans are never numbers, 1 equals 1.0, object key order is ignored."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def diff(before: Any, after: Any, path: list[str | int], out: list[dict[str, Any]]) -> None:
    """
    Ops that turn `before` into `after`: objects key by key (removals, then changes in `before`'s
    key order, then additions in `after`'s), arrays that only grew as appends at their indices,
    any other array change as one replace of the array.
    """
    if json_equal(before, after):
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before:
            if key not in after:
                out.append({"op": "remove", "path": pointer(*path, key)})
        for key in before:
            if key in after:
                diff(before[key], after[key], [*path, key], out)
        for key in after:
            if key not in before:
                out.append({"op": "add", "path": pointer(*path, key), "value": after[key]})
        return
    if isinstance(before, list) and isinstance(after, list) and len(after) > len(before) and all(
        json_equal(x, y) for x, y in zip(before, after)
    ):
        for i in range(len(before), len(after)):
            out.append({"op": "add", "path": pointer(*path, i), "value": after[i]})
        return
    out.append({"op": "replace", "path": pointer(*path), "value": after})


def state_diff(base: dict[str, Any], data: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for c in COLLECTIONS:
        before, after = base[c], data[c]
        if before.keys() != after.keys():
            diff(before, after, [c], out)
            continue
        for key in before:
            # Python's own deep comparison first, for speed: it differs from JSON equality only in
            # taking True for 1, and no retail tool writes a boolean.
            if before[key] != after[key]:
                diff(before[key], after[key], [c, key], out)
    return out


# --- answers ----------------------------------------------------------------------------------

def strict_json(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise ValueError(name)

    return json.loads(text, parse_constant=refuse)


def answer(observation: str) -> dict[str, Any]:
    """A tool's text as the mock answers it: the JSON value when the text is JSON, else the text."""
    try:
        return {"json": strict_json(observation)}
    except ValueError:
        return {"text": observation}


# The refusals the retail tools word themselves; any other "Error: ..." is the text of a Python
# exception (raised in the tool and caught by calculate or by Env.step), worded by CPython.
OWN_ERRORS = {
    "Error: invalid characters in expression",
    "Error: order not found",
    "Error: user not found",
    "Error: product not found",
    "Error: non-pending order cannot be cancelled",
    "Error: invalid reason",
    "Error: non-delivered order cannot be exchanged",
    "Error: non-delivered order cannot be returned",
    "Error: non-pending order cannot be modified",
    "Error: the number of items to be exchanged should match",
    "Error: payment method not found",
    "Error: insufficient gift card balance to pay for the price difference",
    "Error: insufficient gift card balance to pay for the new item",
    "Error: insufficient gift card balance to pay for the order",
    "Error: there should be exactly one payment for a pending order",
    "Error: the new payment method should be different from the current one",
    "Error: payment method should be either the original payment method or a gift card",
    "Error: some item not found",
}
OWN_ERROR_PATTERNS = [re.compile(r"Error: new item .* not found or available"), re.compile(r"Error: .* not found")]


def python_message(observation: str) -> bool:
    if observation in ("inf", "-inf", "nan"):  # calculate's str() of a float that is not finite
        return True
    if not observation.startswith("Error: ") or observation in OWN_ERRORS:
        return False
    return not any(p.fullmatch(observation) for p in OWN_ERROR_PATTERNS)


class Replayer:
    def __init__(self, tau: dict[str, Any]) -> None:
        self.tau = tau
        self.env = tau["env"]
        self.base = tau["load_data"]()
        self.base_hashes = record_hashes(self.base)

    def touched(self, data: dict[str, Any], name: str, arguments: dict[str, Any]) -> list[tuple[str, str]]:
        """The records a retail tool can write: the order named, that order's user, the user named."""
        keys: list[tuple[str, str]] = []
        order_id = arguments.get("order_id")
        if isinstance(order_id, str) and order_id in data["orders"]:
            keys.append(("orders", order_id))
            keys.append(("users", data["orders"][order_id]["user_id"]))
        user_id = arguments.get("user_id")
        if isinstance(user_id, str) and user_id in data["users"]:
            keys.append(("users", user_id))
        return list(dict.fromkeys(keys))

    def replay(self, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        """Runs the calls in order on a fresh copy of the data, through tau-bench's Env.step."""
        env, Action = self.env, self.tau["Action"]
        env.data = self.tau["load_data"]()
        env.actions = []
        out_calls = []
        for name, arguments in calls:
            keys = self.touched(env.data, name, arguments)
            snapshot = {key: copy.deepcopy(env.data[key[0]][key[1]]) for key in keys}
            observation = env.step(Action(name=name, kwargs=copy.deepcopy(arguments))).observation
            changes: list[dict[str, Any]] = []
            for (c, record_id), before in snapshot.items():
                diff(before, env.data[c][record_id], [c, record_id], changes)
            call = {"name": name, "arguments": arguments, "output": answer(observation)}
            if python_message(observation):
                call["python_message"] = True
            if changes:
                call["changes"] = changes
            out_calls.append(call)
        final = env.data
        final_diff = state_diff(self.base, final)
        # Every write must have been seen by a call's own changes: replaying those on the base must
        # give the final state, or a tool wrote a record touched() does not know about.
        all_changes = [op for call in out_calls for op in call.get("changes", [])]
        keys = self.changed_keys(final_diff + all_changes)
        replayed = copy.deepcopy({c: {k: self.base[c][k] for k in keys[c]} for c in COLLECTIONS})
        apply_patch(replayed, all_changes)
        for c in COLLECTIONS:
            for k, record in replayed[c].items():
                if not json_equal(record, final[c][k]):
                    raise AssertionError(f"per-call changes miss a write to {c}/{k}")
        hashes = {c: dict(self.base_hashes[c]) for c in COLLECTIONS}
        for c, ids in self.changed_keys(final_diff).items():
            for k in ids:
                hashes[c][k] = sha256_hex(canonical_json(final[c][k]))
        return {
            "calls": out_calls,
            "final_state": {"diff": final_diff, "sha256": state_hash(hashes), "taubench_hash": self.tau["taubench_hash"](final)},
        }

    @staticmethod
    def changed_keys(ops: list[dict[str, Any]]) -> dict[str, list[str]]:
        keys: dict[str, list[str]] = {c: [] for c in COLLECTIONS}
        for op in ops:
            c, record_id = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:3]]
            if record_id not in keys[c]:
                keys[c].append(record_id)
        return keys


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> None:
    for op in ops:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]]
        parent = doc
        for t in tokens[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = tokens[-1]
        if isinstance(parent, list):
            if op["op"] == "add":
                parent.insert(int(last), copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                del parent[int(last)]
            else:
                parent[int(last)] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = copy.deepcopy(op["value"])


# --- operations ------------------------------------------------------------------------------

ERROR = {"type": "string", "pattern": "^Error: ", "description": "A refusal or a failure, as tau-bench words it."}
ADDRESS = {
    "type": "object",
    "required": ["address1", "address2", "city", "country", "state", "zip"],
    "properties": {k: {"type": "string"} for k in ["address1", "address2", "city", "country", "state", "zip"]},
}
MONEY = {"type": "number"}
PAYMENT = {
    "type": "object",
    "required": ["transaction_type", "amount", "payment_method_id"],
    "properties": {
        "transaction_type": {"enum": ["payment", "refund"]},
        "amount": MONEY,
        "payment_method_id": {"type": "string"},
    },
}
ORDER = {
    "type": "object",
    "required": ["order_id", "user_id", "address", "items", "fulfillments", "status", "payment_history"],
    "properties": {
        "order_id": {"type": "string"},
        "user_id": {"type": "string"},
        "address": ADDRESS,
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["name", "product_id", "item_id", "price", "options"],
                "properties": {
                    "name": {"type": "string"},
                    "product_id": {"type": "string"},
                    "item_id": {"type": "string"},
                    "price": MONEY,
                    "options": {"type": "object", "additionalProperties": {"type": "string"}},
                },
            },
        },
        "fulfillments": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tracking_id", "item_ids"],
                "properties": {
                    "tracking_id": {"type": "array", "items": {"type": "string"}},
                    "item_ids": {"type": "array", "items": {"type": "string"}},
                },
            },
        },
        "status": {
            "enum": ["pending", "pending (item modified)", "processed", "delivered", "cancelled", "exchange requested", "return requested"]
        },
        "payment_history": {"type": "array", "items": PAYMENT},
        "cancel_reason": {"enum": ["no longer needed", "ordered by mistake"]},
        "exchange_items": {"type": "array", "items": {"type": "string"}},
        "exchange_new_items": {"type": "array", "items": {"type": "string"}},
        "exchange_payment_method_id": {"type": "string"},
        "exchange_price_difference": MONEY,
        "return_items": {"type": "array", "items": {"type": "string"}},
        "return_payment_method_id": {"type": "string"},
    },
}
USER = {
    "type": "object",
    "required": ["name", "address", "email", "payment_methods", "orders"],
    "properties": {
        "name": {
            "type": "object",
            "required": ["first_name", "last_name"],
            "properties": {"first_name": {"type": "string"}, "last_name": {"type": "string"}},
        },
        "address": ADDRESS,
        "email": {"type": "string"},
        "payment_methods": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["source", "id"],
                "properties": {
                    "source": {"enum": ["credit_card", "gift_card", "paypal"]},
                    "id": {"type": "string"},
                    "brand": {"type": "string"},
                    "last_four": {"type": "string"},
                    "balance": MONEY,
                },
            },
        },
        "orders": {"type": "array", "items": {"type": "string"}},
    },
}
PRODUCT = {
    "type": "object",
    "required": ["name", "product_id", "variants"],
    "properties": {
        "name": {"type": "string"},
        "product_id": {"type": "string"},
        "variants": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "required": ["item_id", "options", "available", "price"],
                "properties": {
                    "item_id": {"type": "string"},
                    "options": {"type": "object", "additionalProperties": {"type": "string"}},
                    "available": {"type": "boolean"},
                    "price": MONEY,
                },
            },
        },
    },
}


def either(success: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [success, ERROR]}


# What each tool answers when it succeeds (any tool can also answer an "Error: ..." string, its
# own refusals and, through Env.step, any exception's message).
OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {
    # str(round(float(...), 2)): JSON text for finite results; "inf" and "nan" are not JSON.
    "calculate": {"anyOf": [{"type": "number"}, {"type": "string"}]},
    "cancel_pending_order": either(ORDER),
    "exchange_delivered_order_items": either(ORDER),
    "find_user_id_by_email": {"type": "string", "description": "The user id, or an error."},
    "find_user_id_by_name_zip": {"type": "string", "description": "The user id, or an error."},
    "get_order_details": either(ORDER),
    "get_product_details": either(PRODUCT),
    "get_user_details": either(USER),
    "list_all_product_types": either(
        {"type": "object", "additionalProperties": {"type": "string"}, "description": "Product name to product id, sorted by name."}
    ),
    "modify_pending_order_address": either(ORDER),
    "modify_pending_order_items": either(ORDER),
    "modify_pending_order_payment": either(ORDER),
    "modify_user_address": either(USER),
    "return_delivered_order_items": either(ORDER),
    "think": {"anyOf": [{"const": ""}, ERROR]},
    "transfer_to_human_agents": {"anyOf": [{"const": "Transfer successful"}, ERROR]},
}


def operations(tools: list[Any]) -> list[dict[str, Any]]:
    out = []
    for tool in tools:
        info = tool.get_info()
        function = info["function"]
        out.append(
            {
                "name": function["name"],
                "description": function["description"],
                "input_schema": function["parameters"],
                "output_schema": OUTPUT_SCHEMAS[function["name"]],
            }
        )
    names = [o["name"] for o in out]
    if sorted(names) != sorted(OUTPUT_SCHEMAS):
        raise AssertionError(f"tau-bench's tools are not the 16 this script knows: {names}")
    return out


# --- off-gold probes -------------------------------------------------------------------------

def probes(data: dict[str, Any]) -> list[tuple[str, str, list[tuple[str, dict[str, Any]]]]]:
    """
    Call sequences on states the gold actions never reach, chosen from the data by a fixed seed:
    (id, what it checks, calls). Every argument is valid for its operation's parameter schema.
    """
    rng = random.Random(21)
    orders, users, products = data["orders"], data["users"], data["products"]
    by_status: dict[str, list[str]] = {}
    for order_id, order in orders.items():
        by_status.setdefault(order["status"], []).append(order_id)

    def pick(status: str, n: int, where: Any = lambda o: True) -> list[str]:
        pool = [k for k in by_status[status] if where(orders[k])]
        return rng.sample(pool, min(n, len(pool)))

    def methods(order_id: str) -> dict[str, Any]:
        return users[orders[order_id]["user_id"]]["payment_methods"]

    def paid_with(order_id: str) -> str:
        return orders[order_id]["payment_history"][0]["payment_method_id"]

    def other_variants(item: dict[str, Any], available: bool | None = True) -> list[str]:
        variants = products[item["product_id"]]["variants"]
        return [k for k, v in variants.items() if k != item["item_id"] and (available is None or v["available"] == available)]

    def foreign_method(order_id: str) -> str:
        own = methods(order_id)
        for user in users.values():
            for method_id in user["payment_methods"]:
                if method_id not in own:
                    return method_id
        raise AssertionError("no foreign payment method")

    def item_of_other_order(order_id: str) -> str:
        own = {i["item_id"] for i in orders[order_id]["items"]}
        for other in orders.values():
            for item in other["items"]:
                if item["item_id"] not in own:
                    return item["item_id"]
        raise AssertionError("no foreign item")

    def address(seed: int) -> dict[str, str]:
        return {"address1": f"{100 + seed} Probe Street", "address2": f"Suite {seed}", "city": "Springfield", "state": "IL", "country": "USA", "zip": f"{62700 + seed}"}

    out: list[tuple[str, str, list[tuple[str, dict[str, Any]]]]] = []

    def add(pid: str, about: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
        out.append((pid, about, calls))

    # Reads: unknown ids, ids in the wrong shape, case rules of the two finders.
    some_users = rng.sample(list(users), 8)
    for i, user_id in enumerate(some_users):
        user = users[user_id]
        add(f"read-user-{i}", "a user read, then by email in other case, by name and zip in other case", [
            ("get_user_details", {"user_id": user_id}),
            ("find_user_id_by_email", {"email": user["email"].upper()}),
            ("find_user_id_by_name_zip", {"first_name": user["name"]["first_name"].upper(), "last_name": user["name"]["last_name"].lower(), "zip": user["address"]["zip"]}),
            ("find_user_id_by_name_zip", {"first_name": user["name"]["first_name"], "last_name": user["name"]["last_name"], "zip": user["address"]["zip"] + "0"}),
            ("get_user_details", {"user_id": user_id.upper()}),
        ])
    add("read-unknown", "unknown or misshapen ids and lookups that find nobody", [
        ("get_user_details", {"user_id": "nobody_here_0000"}),
        ("get_user_details", {"user_id": ""}),
        ("get_order_details", {"order_id": "#W0000000"}),
        ("get_order_details", {"order_id": next(iter(orders)).lstrip("#")}),
        ("get_order_details", {"order_id": ""}),
        ("get_product_details", {"product_id": "0000000000"}),
        ("get_product_details", {"product_id": next(iter(next(iter(products.values()))["variants"]))}),
        ("find_user_id_by_email", {"email": "nobody@example.com"}),
        ("find_user_id_by_email", {"email": ""}),
        ("find_user_id_by_name_zip", {"first_name": "", "last_name": "", "zip": ""}),
    ])
    for i, product_id in enumerate(rng.sample(list(products), 5)):
        add(f"read-product-{i}", "a product and the catalogue", [("get_product_details", {"product_id": product_id}), ("list_all_product_types", {})])
    for status in sorted(by_status):
        for j, order_id in enumerate(pick(status, 2)):
            add(f"read-order-{status}-{j}", f"a {status} order read", [("get_order_details", {"order_id": order_id})])

    # calculate, think, transfer_to_human_agents.
    expressions = [
        "2 + 2", "10 / 4", "1 / 3", "2 / 3", "0.1 + 0.2", "100 - 0.01", "-5 / 2", "(1 + 2) * 3", "3 // 2", "2 ** 10",
        "2 ** 0.5", "1.005 * 100", "2.675", "0.125", "0.375", "1 / 8", "-0.005", "1 - 1", "123456789 * 1000000000000",
        "10 / 0", "abc", "5 % 2", "1e5", "", "   ", "(", "1 +", "()", "2 ** 10000", "9" * 400 + ".0 * 10",
    ]
    add("calculate", "arithmetic, rounding to 2 places, and each kind of refusal", [("calculate", {"expression": e}) for e in expressions])
    add("think-transfer", "the two tools that change nothing", [
        ("think", {"thought": "what next"}), ("think", {"thought": ""}),
        ("transfer_to_human_agents", {"summary": "the user asks for a human"}),
        ("get_order_details", {"order_id": next(iter(orders))}),
    ])

    # cancel_pending_order.
    for status in sorted(s for s in by_status if s != "pending"):
        for j, order_id in enumerate(pick(status, 3)):
            add(f"cancel-{status}-{j}", f"cancelling a {status} order", [("cancel_pending_order", {"order_id": order_id, "reason": "no longer needed"})])
    add("cancel-unknown", "cancelling an unknown order", [("cancel_pending_order", {"order_id": "#W0000000", "reason": "ordered by mistake"})])
    gift_pending = pick("pending", 6, lambda o: paid_with(o["order_id"]).startswith("gift_card"))
    other_pending = pick("pending", 6, lambda o: not paid_with(o["order_id"]).startswith("gift_card"))
    for j, order_id in enumerate(gift_pending + other_pending):
        reason = ["no longer needed", "ordered by mistake"][j % 2]
        add(f"cancel-twice-{j}", "a cancellation (gift cards refunded at once), then the same again, then reads", [
            ("cancel_pending_order", {"order_id": order_id, "reason": reason}),
            ("cancel_pending_order", {"order_id": order_id, "reason": reason}),
            ("get_order_details", {"order_id": order_id}),
            ("get_user_details", {"user_id": orders[order_id]["user_id"]}),
            ("modify_pending_order_address", {"order_id": order_id, **address(j)}),
        ])

    # modify_pending_order_address and modify_user_address.
    for j, order_id in enumerate(pick("pending", 5)):
        add(f"address-twice-{j}", "an order's address changed twice, the user's untouched", [
            ("modify_pending_order_address", {"order_id": order_id, **address(j)}),
            ("modify_pending_order_address", {"order_id": order_id, **address(j + 50)}),
            ("get_user_details", {"user_id": orders[order_id]["user_id"]}),
        ])
    for status in sorted(s for s in by_status if s != "pending"):
        for j, order_id in enumerate(pick(status, 2)):
            add(f"address-{status}-{j}", f"changing the address of a {status} order", [("modify_pending_order_address", {"order_id": order_id, **address(j)})])
    add("address-unknown", "unknown order and unknown user", [
        ("modify_pending_order_address", {"order_id": "#W0000000", **address(1)}),
        ("modify_user_address", {"user_id": "nobody_here_0000", **address(2)}),
    ])
    for j, user_id in enumerate(rng.sample(list(users), 5)):
        add(f"user-address-{j}", "a user's address changed, with empty fields, then read back", [
            ("modify_user_address", {"user_id": user_id, **address(j), "address2": ""}),
            ("get_user_details", {"user_id": user_id}),
            ("find_user_id_by_name_zip", {"first_name": users[user_id]["name"]["first_name"], "last_name": users[user_id]["name"]["last_name"], "zip": address(j)["zip"]}),
        ])

    # modify_pending_order_payment, each check in tau-bench's order.
    for status in sorted(s for s in by_status if s != "pending"):
        for j, order_id in enumerate(pick(status, 2)):
            add(f"payment-{status}-{j}", f"changing the payment of a {status} order", [("modify_pending_order_payment", {"order_id": order_id, "payment_method_id": paid_with(order_id)})])
    add("payment-unknown", "changing the payment of an unknown order", [("modify_pending_order_payment", {"order_id": "#W0000000", "payment_method_id": "credit_card_0000000"})])
    for j, order_id in enumerate(pick("pending", 4)):
        add(f"payment-foreign-{j}", "a payment method of another user, then the current one", [
            ("modify_pending_order_payment", {"order_id": order_id, "payment_method_id": foreign_method(order_id)}),
            ("modify_pending_order_payment", {"order_id": order_id, "payment_method_id": paid_with(order_id)}),
        ])
    switchable = pick("pending", 40, lambda o: len(methods(o["order_id"])) > 1)
    j = 0
    for order_id in switchable:
        for method_id, method in methods(order_id).items():
            if method_id == paid_with(order_id):
                continue
            amount = orders[order_id]["payment_history"][0]["amount"]
            short = method["source"] == "gift_card" and method["balance"] < amount
            kind = "short-gift-card" if short else method["source"]
            add(f"payment-switch-{j}", f"switching to a {kind}, then again (one payment only), then back", [
                ("modify_pending_order_payment", {"order_id": order_id, "payment_method_id": method_id}),
                ("modify_pending_order_payment", {"order_id": order_id, "payment_method_id": paid_with(order_id)}),
                ("get_user_details", {"user_id": orders[order_id]["user_id"]}),
                ("cancel_pending_order", {"order_id": order_id, "reason": "no longer needed"}),
                ("get_user_details", {"user_id": orders[order_id]["user_id"]}),
            ])
            j += 1
            break
        if j >= 24:
            break

    # modify_pending_order_items and exchange_delivered_order_items share their checks.
    def item_probes(tool: str, status: str, n: int) -> None:
        short = "modify" if tool == "modify_pending_order_items" else "exchange"
        others = [s for s in sorted(by_status) if s != status]
        for s in others:
            order_id = pick(s, 1)[0]
            item = orders[order_id]["items"][0]
            add(f"{short}-{s}", f"{short} on a {s} order", [(tool, {"order_id": order_id, "item_ids": [item["item_id"]], "new_item_ids": [item["item_id"]], "payment_method_id": paid_with(order_id)})])
        add(f"{short}-unknown", f"{short} on an unknown order", [(tool, {"order_id": "#W0000000", "item_ids": [], "new_item_ids": [], "payment_method_id": "paypal_0000000"})])
        chosen = pick(status, n, lambda o: any(other_variants(i) for i in o["items"]))
        for j, order_id in enumerate(chosen):
            order = orders[order_id]
            items = order["items"]
            item = next(i for i in items if other_variants(i))
            new = rng.choice(other_variants(item))
            unavailable = other_variants(item, available=False)
            other_product_item = next(v for p in products.values() if p["product_id"] != item["product_id"] for v in p["variants"] if products[p["product_id"]]["variants"][v]["available"])
            pay = paid_with(order_id)
            base_args = {"order_id": order_id, "payment_method_id": pay}
            calls: list[tuple[str, dict[str, Any]]] = [
                (tool, {**base_args, "item_ids": [item_of_other_order(order_id)], "new_item_ids": [new]}),
                (tool, {**base_args, "item_ids": [item["item_id"], item["item_id"]], "new_item_ids": [new, new]}),
                (tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [new, new]}),
                (tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [other_product_item]}),
                (tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [item["item_id"] + "0"]}),
            ]
            if unavailable:
                calls.append((tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [unavailable[0]]}))
            calls.append((tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [new], "payment_method_id": foreign_method(order_id)}))
            # The payment method: each of the user's, in turn, until one is accepted.
            for method_id in methods(order_id):
                calls.append((tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [new], "payment_method_id": method_id}))
            calls.append((tool, {**base_args, "item_ids": [item["item_id"]], "new_item_ids": [new]}))
            calls.append(("get_order_details", {"order_id": order_id}))
            calls.append(("get_user_details", {"user_id": order["user_id"]}))
            add(f"{short}-checks-{j}", f"{short}: each refusal in tau-bench's order, then each payment method until one is accepted, then the same again", calls)
        # Whole orders: every item to another variant, and the order's own items unchanged.
        for j, order_id in enumerate(pick(status, max(4, n // 3), lambda o: all(other_variants(i) for i in o["items"]) and len(o["items"]) > 1)):
            order = orders[order_id]
            ids = [i["item_id"] for i in order["items"]]
            news = [rng.choice(other_variants(i)) for i in order["items"]]
            add(f"{short}-all-{j}", f"{short} every item of an order, duplicates included", [
                ("think", {"thought": "start"}),
                (tool, {"order_id": order_id, "item_ids": list(reversed(ids)), "new_item_ids": list(reversed(news)), "payment_method_id": paid_with(order_id)}),
                ("get_user_details", {"user_id": order["user_id"]}),
            ])
        for j, order_id in enumerate(pick(status, 4)):
            order = orders[order_id]
            ids = [i["item_id"] for i in order["items"]]
            add(f"{short}-same-{j}", f"{short} items for themselves, and an empty list", [
                (tool, {"order_id": order_id, "item_ids": [], "new_item_ids": [], "payment_method_id": paid_with(order_id)}),
                (tool, {"order_id": order_id, "item_ids": ids, "new_item_ids": ids, "payment_method_id": paid_with(order_id)}),
            ])
        dup_orders = [k for k in by_status[status] if len(orders[k]["items"]) != len({i["item_id"] for i in orders[k]["items"]})]
        for j, order_id in enumerate(dup_orders):
            order = orders[order_id]
            seen: dict[str, int] = {}
            for i in order["items"]:
                seen[i["item_id"]] = seen.get(i["item_id"], 0) + 1
            dup = next(k for k, v in seen.items() if v > 1)
            item = next(i for i in order["items"] if i["item_id"] == dup)
            variants = other_variants(item) or [dup]
            add(f"{short}-duplicate-{j}", f"{short} an item the order holds twice: three times, then twice", [
                (tool, {"order_id": order_id, "item_ids": [dup] * 3, "new_item_ids": [variants[0]] * 3, "payment_method_id": paid_with(order_id)}),
                (tool, {"order_id": order_id, "item_ids": [dup, dup], "new_item_ids": [variants[0], variants[-1]], "payment_method_id": paid_with(order_id)}),
            ])

    item_probes("modify_pending_order_items", "pending", 30)
    item_probes("exchange_delivered_order_items", "delivered", 30)

    # Gift cards too small for a price difference: the costliest variant, paid by the user's poorest gift card.
    for short, tool, status in [("modify", "modify_pending_order_items", "pending"), ("exchange", "exchange_delivered_order_items", "delivered")]:
        found = 0
        for order_id in by_status[status]:
            gift = [(m["balance"], k) for k, m in methods(order_id).items() if m["source"] == "gift_card"]
            if not gift:
                continue
            balance, card = min(gift)
            for item in orders[order_id]["items"]:
                options = [(products[item["product_id"]]["variants"][v]["price"], v) for v in other_variants(item)]
                if options and max(options)[0] - item["price"] > balance:
                    new = max(options)[1]
                    add(f"{short}-gift-card-short-{found}", f"{short} paid by a gift card smaller than the difference, then by the original method", [
                        (tool, {"order_id": order_id, "item_ids": [item["item_id"]], "new_item_ids": [new], "payment_method_id": card}),
                        (tool, {"order_id": order_id, "item_ids": [item["item_id"]], "new_item_ids": [new], "payment_method_id": paid_with(order_id)}),
                    ])
                    found += 1
                    break
            if found >= 6:
                break

    # return_delivered_order_items.
    for s in sorted(x for x in by_status if x != "delivered"):
        for j, order_id in enumerate(pick(s, 2)):
            add(f"return-{s}-{j}", f"returning from a {s} order", [("return_delivered_order_items", {"order_id": order_id, "item_ids": [orders[order_id]["items"][0]["item_id"]], "payment_method_id": paid_with(order_id)})])
    add("return-unknown", "returning from an unknown order", [("return_delivered_order_items", {"order_id": "#W0000000", "item_ids": [], "payment_method_id": "paypal_0000000"})])
    for j, order_id in enumerate(pick("delivered", 24)):
        order = orders[order_id]
        ids = [i["item_id"] for i in order["items"]]
        own = methods(order_id)
        not_original = [k for k, m in own.items() if k != paid_with(order_id) and m["source"] != "gift_card"]
        gift = [k for k, m in own.items() if m["source"] == "gift_card"]
        calls = [
            ("return_delivered_order_items", {"order_id": order_id, "item_ids": ids[:1], "payment_method_id": foreign_method(order_id)}),
        ]
        if not_original:
            calls.append(("return_delivered_order_items", {"order_id": order_id, "item_ids": ids[:1], "payment_method_id": not_original[0]}))
        calls += [
            ("return_delivered_order_items", {"order_id": order_id, "item_ids": [item_of_other_order(order_id)], "payment_method_id": paid_with(order_id)}),
            ("return_delivered_order_items", {"order_id": order_id, "item_ids": ids + ids[:1], "payment_method_id": paid_with(order_id)}),
            ("return_delivered_order_items", {"order_id": order_id, "item_ids": list(reversed(ids))[: 1 + j % len(ids)], "payment_method_id": (gift[0] if gift and j % 2 else paid_with(order_id))}),
            ("return_delivered_order_items", {"order_id": order_id, "item_ids": ids[:1], "payment_method_id": paid_with(order_id)}),
            ("exchange_delivered_order_items", {"order_id": order_id, "item_ids": [], "new_item_ids": [], "payment_method_id": paid_with(order_id)}),
            ("get_order_details", {"order_id": order_id}),
        ]
        add(f"return-checks-{j}", "return: each refusal in tau-bench's order, one return, then nothing more", calls)
    for j, order_id in enumerate(pick("delivered", 3)):
        add(f"return-empty-{j}", "returning no items at all", [("return_delivered_order_items", {"order_id": order_id, "item_ids": [], "payment_method_id": paid_with(order_id)})])

    # One user's day: several writes on the same user's orders and gift cards, in sequence.
    busy = sorted(users, key=lambda u: (-len(users[u]["orders"]), u))[:10]
    for j, user_id in enumerate(busy):
        calls = [("get_user_details", {"user_id": user_id})]
        gift = [k for k, m in users[user_id]["payment_methods"].items() if m["source"] == "gift_card"]
        for order_id in users[user_id]["orders"]:
            order = orders[order_id]
            if order["status"] == "pending":
                item = next((i for i in order["items"] if other_variants(i)), None)
                if item is not None:
                    calls.append(("modify_pending_order_items", {"order_id": order_id, "item_ids": [item["item_id"]], "new_item_ids": [other_variants(item)[-1]], "payment_method_id": gift[0] if gift else paid_with(order_id)}))
                calls.append(("cancel_pending_order", {"order_id": order_id, "reason": "ordered by mistake"}))
            elif order["status"] == "delivered":
                calls.append(("exchange_delivered_order_items", {"order_id": order_id, "item_ids": [order["items"][0]["item_id"]], "new_item_ids": [(other_variants(order["items"][0]) or [order["items"][0]["item_id"]])[0]], "payment_method_id": gift[0] if gift else paid_with(order_id)}))
            calls.append(("get_order_details", {"order_id": order_id}))
        calls.append(("get_user_details", {"user_id": user_id}))
        add(f"user-day-{j}", "every order of one user modified, cancelled or exchanged in turn", calls)

    # Arguments the schemas admit (they do not forbid other properties) that tau-bench's Python
    # refuses: the answer is the TypeError's message, as Env.step words it.
    order_id = pick("pending", 1)[0]
    add("extra-argument", "an argument the tool does not take", [
        ("get_order_details", {"order_id": order_id, "user_id": orders[order_id]["user_id"]}),
        ("list_all_product_types", {"category": "all"}),
    ])
    return out


# --- output ----------------------------------------------------------------------------------

def write_json(path: str, value: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def write_dataset(path: str, data: dict[str, Any]) -> None:
    """
    The data in upstream order (collections as load_data() builds them, records and fields as the
    files hold them), one record per line so a change shows as a line diff. Python's json writes
    the numbers, so the file is byte-stable for one upstream commit.
    """
    with open(path, "w", encoding="utf-8") as f:
        f.write("{")
        for ci, c in enumerate(COLLECTIONS):
            f.write(("," if ci else "") + "\n" + json.dumps(c) + ":{")
            for ri, (key, record) in enumerate(data[c].items()):
                f.write(("," if ri else "") + "\n" + json.dumps(key) + ":" + json.dumps(record, ensure_ascii=False, separators=(",", ":")))
            f.write("\n}")
        f.write("\n}\n")


def upstream_commit(checkout: str, given: str | None) -> str:
    if given:
        return given
    try:
        return subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        sys.exit("the checkout is not a git work tree: say which commit it is with --commit")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", help="a checkout of sierra-research/tau-bench")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "environments", "tau-retail"))
    parser.add_argument("--commit", help="the checkout's commit, when it is not a git work tree (an archive)")
    args = parser.parse_args()
    checkout = os.path.abspath(args.checkout)
    commit = upstream_commit(checkout, args.commit)
    if commit != PINNED_COMMIT:
        print(f"note: the checkout is {commit}, the committed data came from {PINNED_COMMIT}", file=sys.stderr)

    tau = import_tau_bench(checkout)
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "reference"), exist_ok=True)

    # tau-bench's MIT notice travels with the data derived from it.
    shutil.copyfile(os.path.join(checkout, "LICENSE"), os.path.join(out, "LICENSE"))
    replayer = Replayer(tau)
    base = replayer.base
    write_dataset(os.path.join(out, "dataset.json"), base)
    ops = operations(tau["tools"])
    write_json(os.path.join(out, "operations.json"), ops)
    files = {}
    tools = sorted(f"{RETAIL}/tools/{name}" for name in os.listdir(os.path.join(checkout, RETAIL, "tools")) if name.endswith(".py"))
    for name in UPSTREAM_FILES + tools:
        with open(os.path.join(checkout, name), "rb") as f:
            files[name] = hashlib.sha256(f.read()).hexdigest()
    base_sha = state_hash(replayer.base_hashes)
    write_json(os.path.join(out, "upstream.json"), {"repository": REPOSITORY, "commit": commit, "files": files, "dataset_sha256": base_sha})

    header = {"upstream_commit": commit, "dataset_sha256": base_sha}
    totals = {}
    for split, tasks in tau["splits"].items():
        records = []
        for index, task in enumerate(tasks):
            result = replayer.replay([(a.name, a.kwargs) for a in task.actions])
            records.append({"index": index, "user_id": task.user_id, "instruction": task.instruction, "outputs": task.outputs, **result})
        write_json(os.path.join(out, "reference", f"{split}.json"), {**header, "split": split, "tasks": records})
        totals[split] = (len(records), sum(len(r["calls"]) for r in records))
    records = []
    for pid, about, calls in probes(base):
        records.append({"id": pid, "about": about, **replayer.replay(calls)})
    write_json(os.path.join(out, "reference", "probes.json"), {**header, "split": "probes", "tasks": records})
    totals["probes"] = (len(records), sum(len(r["calls"]) for r in records))
    for split, (n, calls) in totals.items():
        print(f"{split}: {n} sequences, {calls} calls")


if __name__ == "__main__":
    main()
