"""Calls toolkit-agent agents from Python, with Temporal's own SDK and nothing of ours.

Start the worker first (worker.ts beside this file), then:

    pip install -r examples/python/requirements.txt
    python examples/python/client.py --address 127.0.0.1:7233 --task-queue agents

It starts a run of agent "support" and prints its events as they happen and its answer, finds it among
the agent's runs, then holds a two-turn chat session. Every name and payload used here is in docs/calling-from-any-language.md and
in the JSON Schema schemas/toolkit-agent.schema.json.
"""

import argparse
import asyncio
import os
import sys
import uuid

from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import (
    SearchAttributeKey,
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
)

AGENT_KEY = SearchAttributeKey.for_keyword("ToolkitAgent")
TERMINAL_EVENTS = {"run_completed", "run_cancelled"}


def listing(agent: str, kind: str) -> dict:
    """What every start carries so the run is listed by agent: memo, search attribute, summary."""
    return {
        "memo": {"agent": agent},
        "search_attributes": TypedSearchAttributes([SearchAttributePair(AGENT_KEY, agent)]),
        "static_summary": f"{agent} {kind}",
    }


async def run_once(client: Client, task_queue: str, agent: str, prompt: str) -> None:
    handle = await client.start_workflow(
        "agentRun",
        {"agent": agent, "prompt": prompt},
        id=f"agent-{agent}-{uuid.uuid4()}",
        task_queue=task_queue,
        **listing(agent, "run"),
    )
    print(f"started {handle.id}")
    seq = 0
    while True:
        # The events query costs the run no history; it answers the events after `seq`.
        events = await handle.query("toolkit.events", seq)
        for event in events:
            seq = event["seq"]
            print(f"#{seq} {event['type']}: {event['message']}")
        if any(event["type"] in TERMINAL_EVENTS for event in events):
            break
        await asyncio.sleep(0.2 if events else 0.5)
    result = await handle.result()
    metadata = result["metadata"]
    print(f"answer: {result['output']}")
    print(f"stop_reason: {metadata['stop_reason']}, steps: {metadata['iterations']}, tokens: {metadata['usage']['total_tokens']}")
    # The agent's runs, from Temporal visibility (eventually consistent: a new run shows within a moment).
    for _ in range(50):
        listed = [execution.id async for execution in client.list_workflows(f'ToolkitAgent = "{agent}"')]
        if handle.id in listed:
            print(f"listed {handle.id} among {len(listed)} run(s) of {agent}")
            break
        await asyncio.sleep(0.2)


async def chat(client: Client, task_queue: str, agent: str, prompts: list[str]) -> None:
    session_id = str(uuid.uuid4())
    for prompt in prompts:
        turn_id = str(uuid.uuid4())
        # The first send starts the session (workflow id chat-<sessionId>); later ones join it.
        start = WithStartWorkflowOperation(
            "chatSession",
            {"agent": agent, "sessionId": session_id},
            id=f"chat-{session_id}",
            task_queue=task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            **listing(agent, "chat"),
        )
        answer = await client.execute_update_with_start_workflow(
            "toolkit.send",
            {"prompt": prompt, "turnId": turn_id},
            id=turn_id,
            start_workflow_operation=start,
        )
        print(f"turn {answer['turn']}: {answer['output']}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:7233")
    parser.add_argument("--namespace", default="default")
    parser.add_argument("--task-queue", default="agents")
    parser.add_argument("--agent", default="support")
    args = parser.parse_args()
    client = await Client.connect(args.address, namespace=args.namespace)
    await run_once(client, args.task_queue, args.agent, "Is the billing service up?")
    await chat(client, args.task_queue, args.agent, ["Hello, my name is Ada.", "What is my name?"])


if __name__ == "__main__":
    asyncio.run(main())
    # The SDK's native threads can outlive the event loop and abort the interpreter's teardown
    # ("PyGILState_Release", temporalio/sdk-python#300): once everything is printed, leave without it.
    sys.stdout.flush()
    os._exit(0)
