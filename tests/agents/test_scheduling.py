"""The rollout engine's scheduling: slots, urgency handoffs, the setup gate, idle work."""

from __future__ import annotations

import asyncio

from palaestra.agents.scheduling import IdleWork, SetupGate, Slots, Ticket


def _check_urgency(slots: Slots, *tickets: Ticket) -> None:
    assert slots.urgent == slots.handoffs + sum(t.urgent for t in tickets)
    assert 0 <= slots.handoffs <= slots.ready
    assert 0 <= slots.active <= slots.capacity


def test_a_finished_urgent_episode_hands_its_slot_and_urgency_to_a_ready_one():
    async def scenario():
        slots = Slots.create(capacity=1, prefetch=1)
        first, second = Ticket(), Ticket()
        await slots.take(first)
        waiting = asyncio.ensure_future(slots.take(second))
        await asyncio.sleep(0)
        assert (slots.active, slots.ready) == (1, 1)
        slots.hurry(first)  # its policy call returned
        assert not slots.calm()
        _check_urgency(slots, first, second)
        slots.leave(first)  # it ended before calling again
        assert not first.urgent and slots.handoffs == 1
        _check_urgency(slots, first, second)
        await waiting
        assert second.urgent and slots.handoffs == 0
        assert (slots.active, slots.ready) == (1, 0)
        _check_urgency(slots, first, second)
        slots.settle(second)  # its first call went out
        assert slots.calm()
        _check_urgency(slots, first, second)

    asyncio.run(scenario())


def test_urgency_stays_with_its_episode_when_no_one_is_ready():
    async def scenario():
        slots = Slots.create(capacity=2, prefetch=0)
        ticket = Ticket()
        await slots.take(ticket)
        slots.hurry(ticket)
        slots.hurry(ticket)  # counted once
        assert slots.urgent == 1
        slots.leave(ticket)
        assert ticket.urgent and slots.handoffs == 0 and slots.urgent == 1
        slots.settle(ticket)
        slots.settle(ticket)  # counted once
        assert slots.urgent == 0 and slots.active == 0

    asyncio.run(scenario())


def test_the_gate_lets_a_needed_setup_go_at_once():
    async def scenario():
        slots = Slots.create(capacity=2, prefetch=2)
        gate = SetupGate(slots, max_wait_s=60.0)
        background = await gate.enter()
        assert slots.setting_up == 1 and background is False
        gate.leave()
        assert slots.setting_up == 0

    asyncio.run(scenario())


def test_a_setup_ahead_of_demand_waits_until_no_episode_is_urgent():
    async def scenario():
        slots = Slots.create(capacity=1, prefetch=1)
        playing = Ticket()
        await slots.take(playing)
        slots.hurry(playing)
        gate = SetupGate(slots, max_wait_s=60.0)
        entering = asyncio.ensure_future(gate.enter())
        for _ in range(20):
            await asyncio.sleep(gate.TICK_S)
        assert not entering.done() and slots.setting_up == 0
        slots.settle(playing)
        background = await asyncio.wait_for(entering, timeout=30.0)
        assert background is True and slots.setting_up == 1
        gate.leave()
        gate.cancel()

    asyncio.run(scenario())


def test_idle_work_waits_for_calm_and_drain_runs_the_rest():
    async def scenario():
        calm = False
        done: list[int] = []
        idle = IdleWork(lambda: calm)
        idle.add(lambda: done.append(1))
        for _ in range(20):
            await asyncio.sleep(idle.TICK_S)
        assert done == []
        calm = True
        for _ in range(30_000):
            if done:
                break
            await asyncio.sleep(idle.TICK_S)
        assert done == [1]
        calm = False
        idle.add(lambda: done.append(2))
        await idle.drain()
        assert done == [1, 2]
        idle.cancel()

    asyncio.run(scenario())
