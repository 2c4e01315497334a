"""The seed's InvoiceDesk agent (Microsoft Agent Framework for Python) as a toolproof external agent.

NOT RUN HERE: the machine this was written on cannot install agent-framework. The toolproof side
(the job, its signature, the complete body) is the one the TypeScript example in ../agent.ts uses
and the worker tests drive; the agent-framework calls follow its 1.0.0rc6 documentation. Pin the
versions, as the seed says (the API moved between release candidates):

    pip install agent-framework-core==1.0.0rc6 agent-framework-openai==1.0.0rc6 azure-identity==1.25.3

What it does, per job (one per repetition of a run):

1. Takes the POST at /jobs, checks the Standard Webhooks signature (HMAC-SHA256 of
   "webhook-id.webhook-timestamp.body" under the whsec_ secret, timestamp within five minutes),
   answers 202 at once and works on the job in the background.
2. Builds the seed's agent (same instructions and client as invoice_agent.build_agent()), but its
   tools are the attempt's, over MCP: MCPStreamableHTTPTool against the job's mcp_url with the
   attempt token, and the approval modes the job lists (the suite's, or its policy's).
3. Runs the query. A tool marked always_require does not execute: the run returns with an approval
   request, which is what the harness scores (the seed's tool_calls_from collects them).
4. Reports POST complete_url: the final text, the approval requests (name, arguments, call id).

    TOOLPROOF_AGENT_SECRET=whsec_... python toolproof_exporter.py      # listens on 127.0.0.1:8790
"""

import asyncio
import base64
import hashlib
import hmac
import json
import os
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent_framework import Agent, MCPStreamableHTTPTool
from agent_framework.openai import OpenAIChatCompletionClient
from azure.identity import AzureCliCredential

SECRET = os.environ.get("TOOLPROOF_AGENT_SECRET", "")
PORT = int(os.environ.get("PORT", "8790"))
TOLERANCE_SECONDS = 5 * 60
INSTRUCTIONS = (
    "You answer accounts payable questions about single invoices. "
    "Use get_invoice for facts. Only place an invoice on hold when the user asks for it. "
    "You cannot pay, approve or delete invoices; say so if asked."
)


def signature_valid(headers, body: bytes) -> bool:
    """Standard Webhooks: any v1 entry of webhook-signature is the HMAC of id.timestamp.body."""
    msg_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    expected = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    for entry in headers.get("webhook-signature", "").split(" "):
        version, _, mac = entry.partition(",")
        if version == "v1" and hmac.compare_digest(base64.b64decode(mac or "="), expected):
            return True
    return False


def build_agent(job: dict) -> Agent:
    """The seed's build_agent(), with the attempt's tools over MCP instead of local functions."""
    client = OpenAIChatCompletionClient(
        model="<your-deployment-name>",
        azure_endpoint="https://<your-resource-name>.openai.azure.com/",
        credential=AzureCliCredential(),
        function_invocation_configuration={"max_iterations": 4, "max_function_calls": 6},
    )
    always = [t["name"] for t in job["tools"] if t["approval_mode"] == "always_require"]
    never = [t["name"] for t in job["tools"] if t["approval_mode"] != "always_require"]
    attempt_tools = MCPStreamableHTTPTool(
        name="attempt",
        url=job["mcp_url"],
        headers={"Authorization": f"Bearer {job['attempt_token']}"},
        approval_mode={"always_require_approval": always, "never_require_approval": never},
        allowed_tools=[t["name"] for t in job["tools"]],
    )
    return Agent(client=client, name="InvoiceDesk", instructions=INSTRUCTIONS, tools=[attempt_tools])


def approval_requests_from(result) -> list[dict]:
    """The calls the run paused on for approval, in the complete body's shape (seed: tool_calls_from)."""
    requests = {}
    for message in result.messages:
        for content in message.contents:
            if content.type == "function_approval_request":
                call = content.function_call
                requests[call.call_id] = {"name": call.name, "arguments": call.parse_arguments() or {}, "call_id": call.call_id}
    return list(requests.values())


async def work(job: dict) -> None:
    agent = build_agent(job)
    result = await agent.run(job["query"])
    body = json.dumps({"output": result.text or None, "approval_requests": approval_requests_from(result)}).encode()
    request = urllib.request.Request(
        job["complete_url"],
        data=body,
        method="POST",
        headers={"Authorization": f"Bearer {job['attempt_token']}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        print(f"{job['scenario_id']} #{job['repetition']}: completed ({response.status})")


class JobHandler(BaseHTTPRequestHandler):
    seen: set[str] = set()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if not signature_valid(self.headers, body):
            self.send_response(401)
            self.end_headers()
            return
        self.send_response(202)
        self.end_headers()
        msg_id = self.headers.get("webhook-id", "")
        if msg_id in self.seen:  # a retried job carries the same webhook-id
            return
        self.seen.add(msg_id)
        job = json.loads(body)["data"]
        threading.Thread(target=lambda: asyncio.run(work(job)), daemon=True).start()


if __name__ == "__main__":
    if not SECRET:
        raise SystemExit("set TOOLPROOF_AGENT_SECRET to the secret PUT /api/agent-secrets/:name showed")
    print(f"external agent taking jobs at http://127.0.0.1:{PORT}/jobs")
    ThreadingHTTPServer(("127.0.0.1", PORT), JobHandler).serve_forever()
