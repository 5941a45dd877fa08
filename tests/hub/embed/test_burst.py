"""A woken embedding worker waits while a burst of saves goes on (embed/burst.py)."""

import pytest

from aletheia_hub.embed.burst import Burst


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def burst_on(clock: Clock, enough: int = 10) -> Burst:
    return Burst(enough, quiet_s=0.2, longest_s=2.0, clock=clock)


def test_without_saves_the_worker_does_not_wait() -> None:
    assert burst_on(Clock()).wait_s() == 0.0


def test_the_worker_waits_until_the_saves_go_quiet() -> None:
    clock = Clock()
    burst = burst_on(clock)
    burst.saved()
    assert burst.wait_s() == pytest.approx(0.2)
    clock.now += 0.15
    burst.saved()  # another save restarts the quiet
    assert burst.wait_s() == pytest.approx(0.2)
    clock.now += 0.2
    assert burst.wait_s() == 0.0


def test_a_steady_stream_waits_no_longer_than_the_longest() -> None:
    clock = Clock()
    burst = burst_on(clock, enough=1000)
    for _ in range(15):
        burst.saved()
        clock.now += 0.125
    burst.saved()  # 1.875 s after the first, and never quiet for 0.2 s
    assert burst.wait_s() == pytest.approx(0.125)
    clock.now += 0.125
    assert burst.wait_s() == 0.0


def test_a_batch_of_saves_goes_at_once() -> None:
    clock = Clock()
    burst = burst_on(clock, enough=3)
    burst.saved()
    burst.saved()
    assert burst.wait_s() > 0
    burst.saved()
    assert burst.wait_s() == 0.0


def test_taken_saves_are_counted_afresh() -> None:
    clock = Clock()
    burst = burst_on(clock)
    burst.saved()
    burst.saved()
    assert burst.take() == 2
    assert burst.wait_s() == 0.0
    clock.now += 5.0
    burst.saved()  # the longest wait runs from this save, not from the taken ones
    assert burst.wait_s() == pytest.approx(0.2)
