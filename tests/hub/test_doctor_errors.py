"""aletheia doctor's error counters, read from the Prometheus text the hub renders."""

from pathlib import Path

from aletheia_hub.commands.doctor_errors import count_errors, error_counters
from aletheia_hub.metrics import ERRORS, RATE_LIMITED, Metrics
from aletheia_hub.settings import Settings
from tests.conftest import free_port


def test_error_kinds_and_rate_limited_calls_are_summed_from_metrics_text() -> None:
    recorder = Metrics()
    recorder.count(ERRORS, kind="invalid_params", method="tools/call")
    recorder.count(ERRORS, kind="invalid_params", method="initialize")
    recorder.count(ERRORS, kind="internal_error", method="tools/call")
    recorder.count(RATE_LIMITED, 4)
    kinds = count_errors(recorder.render())
    assert kinds == {"invalid_params": 2, "internal_error": 1, "rate_limited_calls": 4}
    assert count_errors(Metrics().render()) == {}


def test_without_a_hub_there_is_nothing_to_report(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, port=free_port())
    assert error_counters(settings) == ("errors", True, "no hub answering: nothing counted")
