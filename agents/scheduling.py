"""How the rollout engine orders its work: policy calls first, everything else in quiet moments.

An episode moves through four stages, each counted in `Slots`:

    started (holds a ``prepared`` permit) -> setting up (``setting_up``)
        -> ready, waiting for a slot (``ready``) -> playing (``active``) -> done

* `Slots.prepared` bounds the episodes started (``capacity + prefetch``): only a started
  episode has a task, an env and a record.
* `SetupGate` lets a started episode set up (make and reset its env, template its prompt):
  at once when a slot is free, or about to be, with no episode set up to take it; else in
  a quiet moment of the event loop, a few at a time, or after ``max_wait_s`` at the latest.
* `Slots.playing` bounds the episodes between their first policy call and their end
  (``capacity``).
* An episode is *urgent* while it is on its way to its next policy call: its previous call
  returned (`Slots.hurry`) and the next has not gone out (`Slots.settle`). A finished
  urgent episode hands its slot, and its urgency, to an episode that is ready, whose first
  call is then due.
* `IdleWork` (drift checks) and the gate's setups ahead of demand run only while no episode
  is urgent (`Slots.calm`).

The invariants, true between any two awaits (outside cancellation):

* ``0 <= active <= capacity`` and ``setting_up + ready + active`` is at most the number of
  episodes holding a `prepared` permit;
* ``urgent == handoffs + (the tickets whose urgent flag is set)``: a count enters with
  `Slots.hurry`, leaves with `Slots.settle`, and a handoff carries it from the ticket of
  the episode that ended to the ticket of the ready episode that takes the slot;
* ``handoffs <= ready``: a slot is handed over only when a ready episode waits for it.

Everything here runs on one event loop thread; nothing needs a lock.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
from collections.abc import Callable

IDLE_WAIT_MAX_S = 1.0
"""Longest a setup ahead of demand waits for a quiet moment of the event loop."""


@dataclasses.dataclass
class Ticket:
    """One episode's standing with the slots.

    Attributes:
        urgent: The episode is on its way to its next policy call (counted in
            ``Slots.urgent``).
    """

    urgent: bool = False


@dataclasses.dataclass
class Slots:
    """The engine's slots, and how many episodes are where.

    Attributes:
        prepared: Bounds the episodes started (set up, ready, or playing).
        playing: Bounds the episodes between their first policy call and their end.
        capacity: How many may play at once (``playing``'s bound).
        setting_up: Episodes being set up.
        ready: Episodes set up, waiting for a slot.
        active: Episodes holding a slot.
        urgent: Episodes on their way to their next policy call, and slots handed to a ready
            episode that has not called yet; while any is, work that no policy call waits
            for (setting up beyond demand, drift checks) holds back.
        handoffs: Slots handed over by an urgent episode that ended, not yet taken.
    """

    prepared: asyncio.Semaphore
    playing: asyncio.Semaphore
    capacity: int
    setting_up: int = 0
    ready: int = 0
    active: int = 0
    urgent: int = 0
    handoffs: int = 0

    @classmethod
    def create(cls, capacity: int, prefetch: int) -> Slots:
        """Slots for ``capacity`` playing episodes and ``prefetch`` more set up ahead."""
        return cls(asyncio.Semaphore(capacity + prefetch), asyncio.Semaphore(capacity), capacity)

    def demand(self) -> bool:
        """Whether a slot is free (or about to be) with no episode set up to take it."""
        return self.active + self.ready + self.setting_up < self.capacity

    def ahead_of_demand(self) -> bool:
        """Whether the episodes setting up (counted in) outnumber the slots that need them."""
        return self.active + self.ready + self.setting_up > self.capacity

    def calm(self) -> bool:
        """Whether no episode is on its way to a policy call."""
        return self.urgent <= 0

    def hurry(self, ticket: Ticket) -> None:
        """Marks the episode as on its way to its next policy call."""
        if not ticket.urgent:
            ticket.urgent = True
            self.urgent += 1

    def settle(self, ticket: Ticket) -> None:
        """The episode's call went out (or it ended): it is no longer on its way to one."""
        if ticket.urgent:
            ticket.urgent = False
            self.urgent -= 1

    async def take(self, ticket: Ticket) -> None:
        """Waits, ready, for a slot and takes it (with the urgency of a handed-over slot)."""
        self.ready += 1
        try:
            await self.playing.acquire()
        finally:
            self.ready -= 1
        self.active += 1
        if self.handoffs:
            # A finished episode handed this slot over: the call it owes is due (its count
            # in ``urgent`` passes to this episode).
            self.handoffs -= 1
            ticket.urgent = True

    def leave(self, ticket: Ticket) -> None:
        """Gives the slot back; an urgent episode hands its urgency to a ready one."""
        self.active -= 1
        if ticket.urgent and self.ready > self.handoffs:
            # The slot goes to an episode that is set up and waiting: its first call is due
            # now, and this episode's urgency passes on.
            ticket.urgent = False
            self.handoffs += 1
        self.playing.release()


class SetupGate:
    """Lets episodes start their setup: at once when a slot needs them, else in quiet moments.

    With enough episodes set up (or being set up) for the slots that are free or about to
    be, a setup is not urgent: it waits for a moment when the event loop is idle and no
    episode is on its way to a policy call, instead of competing with their turns. One
    background task watches for those moments (a short timer that fires on time) and lets
    a few waiters go at each, so that waiters neither poll nor go all at once; a waiter
    goes anyway once a slot needs it or after ``max_wait_s``.

    Args:
        slots: The slots whose ``setting_up`` count the gate keeps.
        max_wait_s: Longest a waiter waits for a quiet moment.
    """

    TICK_S = 0.001
    PER_TICK = 2

    def __init__(self, slots: Slots, max_wait_s: float = IDLE_WAIT_MAX_S) -> None:
        self.slots = slots
        self.max_wait_s = max_wait_s
        self.waiters: collections.deque[tuple[asyncio.Future[None], float]] = collections.deque()
        self._task: asyncio.Task[None] | None = None

    async def enter(self) -> bool:
        """Returns when this episode may set up (counted in ``slots.setting_up``).

        Returns:
            Whether the setup is ahead of demand (no slot needs it yet).
        """
        slots = self.slots
        if slots.demand() and not self.waiters:
            slots.setting_up += 1
            return slots.ahead_of_demand()
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self.waiters.append((future, loop.time() + self.max_wait_s))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run())
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                slots.setting_up -= 1  # let go, then cancelled before it could start
            raise
        return slots.ahead_of_demand()

    def leave(self) -> None:
        """The episode's setup ended (it is ready, or it failed)."""
        self.slots.setting_up -= 1

    def _let_go(self) -> bool:
        while self.waiters:
            future, _ = self.waiters.popleft()
            if not future.done():
                self.slots.setting_up += 1
                future.set_result(None)
                return True
        return False

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        slots = self.slots
        while self.waiters:
            asked = loop.time()
            await asyncio.sleep(self.TICK_S)
            now = loop.time()
            while self.waiters and slots.demand() and self._let_go():
                pass
            if now - asked < 2 * self.TICK_S and slots.calm():
                for _ in range(self.PER_TICK):
                    if not self._let_go():
                        break
            while self.waiters and self.waiters[0][1] <= now and self._let_go():
                pass

    def cancel(self) -> None:
        """Stops the background task."""
        if self._task is not None:
            self._task.cancel()


class IdleWork:
    """Runs deferred callables while the event loop has nothing better to do.

    Drift checks are bookkeeping: nothing waits for them until the run ends. A background
    task wakes every millisecond; when its timer fires on time and ``calm()`` holds (no
    episode is on its way to a policy call) the loop is idle, and it works through the
    queue for another millisecond; otherwise the work waits. `drain` finishes
    whatever is left.

    Args:
        calm: Whether work may run now (`Slots.calm`).
    """

    TICK_S = 0.001
    SLICE_S = 0.001

    def __init__(self, calm: Callable[[], bool] = lambda: True) -> None:
        self.items: collections.deque[Callable[[], None]] = collections.deque()
        self.calm = calm
        self._task: asyncio.Task[None] | None = None

    def add(self, item: Callable[[], None]) -> None:
        """Queues a callable (started on the running loop)."""
        self.items.append(item)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.items:
            asked = loop.time()
            await asyncio.sleep(self.TICK_S)
            if loop.time() - asked > self.TICK_S + self.SLICE_S or not self.calm():
                continue  # the loop is busy (its timer came late, or a policy call is due)
            until = loop.time() + self.SLICE_S
            while self.items and loop.time() < until and self.calm():
                self.items.popleft()()

    async def drain(self) -> None:
        """Runs everything still queued."""
        while self.items:
            self.items.popleft()()
            await asyncio.sleep(0)

    def cancel(self) -> None:
        """Stops the background task."""
        if self._task is not None:
            self._task.cancel()
