#!/usr/bin/env python3
"""Fills the `examples` of each retail definition from τ-bench's own answers.

Every definition in examples/environments/tau-retail/definitions/ is written by hand, except its
checked examples: this script picks, for each operation, the first call of each distinct outcome
(each refusal string, and the successful answer) from the committed reference (test, train, dev,
then probes), rebuilds the state that call was made on (the dataset with the earlier calls'
recorded changes applied), and keeps only the records the call can read: its order, that order's
user and the products of its items, or the user or product it names. The example's `expected` is
what τ-bench's Python answered, so saving a definition checks it against τ-bench on those records.

Usage: python3 scripts/tau-bench/examples.py   (rewrites the definitions' "examples" in place)
"""
import copy
import json
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "environments", "tau-retail")
SPLITS = ["test", "train", "dev", "probes"]
# Enough to show each refusal once and the answer once or twice, well inside a definition's 100 KB.
MAX_EXAMPLES = 10
MAX_BYTES = 80_000


def load(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return json.load(f)


def unescape(segment):
    return segment.replace("~1", "/").replace("~0", "~")


def apply_patch(state, patch, copied):
    """RFC 6902 add, remove and replace, the only operations the reference writes.

    `state` holds the dataset's records until a change reaches one: that record is copied first
    (once per sequence, remembered in `copied`), so the dataset itself is never modified.
    """
    for op in patch:
        parts = [unescape(p) for p in op["path"].split("/")[1:]]
        key = (parts[0], parts[1])
        if len(parts) > 2 and key not in copied:
            state[parts[0]][parts[1]] = copy.deepcopy(state[parts[0]][parts[1]])
            copied.add(key)
        parent = state
        for part in parts[:-1]:
            parent = parent[int(part)] if isinstance(parent, list) else parent[part]
        last = parts[-1]
        if isinstance(parent, list):
            index = len(parent) if last == "-" else int(last)
            if op["op"] == "add":
                parent.insert(index, copy.deepcopy(op["value"]))
            elif op["op"] == "remove":
                del parent[index]
            else:
                parent[index] = copy.deepcopy(op["value"])
        elif op["op"] == "remove":
            del parent[last]
        else:
            parent[last] = copy.deepcopy(op["value"])


def outcome_class(call):
    output = call["output"]
    if "text" in output and output["text"].startswith("Error: "):
        text = output["text"]
        # One example per kind of refusal, not per id it names.
        for prefix in ("Error: new item ", "Error: GetOrder", "Error: ListAll"):
            if text.startswith(prefix):
                return prefix
        if text.endswith(" not found") and text.count(" ") == 2:
            return "Error: <id> not found"
        return text
    # A JSON answer and a text answer (a user id, or calculate's "inf") are two outcomes.
    return "json" if "json" in output else "text"


def state_slice(state, name, args, output):
    """The records the call can read, in the dataset's order; every collection present."""
    orders, users, products = {}, {}, {}
    order = state["orders"].get(args.get("order_id")) if isinstance(args.get("order_id"), str) else None
    if order is not None:
        orders[args["order_id"]] = order
        if order["user_id"] in state["users"]:
            users[order["user_id"]] = state["users"][order["user_id"]]
        for item in order["items"]:
            if item["product_id"] in state["products"]:
                products[item["product_id"]] = state["products"][item["product_id"]]
    if isinstance(args.get("user_id"), str) and args["user_id"] in state["users"]:
        users[args["user_id"]] = state["users"][args["user_id"]]
    if isinstance(args.get("product_id"), str) and args["product_id"] in state["products"]:
        products[args["product_id"]] = state["products"][args["product_id"]]
    if name.startswith("find_user_id"):
        # The match (if any) among the first users, so "the first that matches" still means something.
        found = output.get("text")
        ids = list(state["users"])[:3]
        if found in state["users"] and found not in ids:
            ids.append(found)
        users = {uid: state["users"][uid] for uid in state["users"] if uid in ids}
    if name == "list_all_product_types":
        # It reads only names and ids; the variants are left out to keep the example small.
        products = {pid: {"name": p["name"], "product_id": p["product_id"], "variants": {}} for pid, p in state["products"].items()}
    return {"orders": orders, "products": products, "users": users}


def main():
    dataset = load("dataset.json")
    chosen = {}
    for split in SPLITS:
        for sequence in load(f"reference/{split}.json")["tasks"]:
            state = {collection: dict(records) for collection, records in dataset.items()}
            copied = set()
            for call in sequence["calls"]:
                name = call["name"]
                picked = chosen.setdefault(name, {})
                key = outcome_class(call)
                if key not in picked and len(picked) < MAX_EXAMPLES:
                    output = call["output"]
                    picked[key] = {
                        "variant": "retail",
                        "input": call["arguments"],
                        "state": copy.deepcopy(state_slice(state, name, call["arguments"], output)),
                        "expected": output["json"] if "json" in output else output["text"],
                    }
                if call.get("changes"):
                    apply_patch(state, call["changes"], copied)
    folder = os.path.join(ROOT, "definitions")
    for file in sorted(os.listdir(folder)):
        name = file[: -len(".json")]
        path = os.path.join(folder, file)
        with open(path, encoding="utf-8") as f:
            definition = json.load(f)
        examples = list(chosen.get(name, {}).values())
        # Drop the largest examples until the definition fits comfortably.
        while len(json.dumps({**definition, "examples": examples}, separators=(",", ":"), ensure_ascii=False).encode()) > MAX_BYTES:
            examples.remove(max(examples[1:], key=lambda e: len(json.dumps(e))))
        definition["examples"] = examples
        with open(path, "w", encoding="utf-8") as f:
            json.dump(definition, f, indent=2, ensure_ascii=False)
            f.write("\n")
        print(f"{name}: {len(examples)} examples")


if __name__ == "__main__":
    main()
