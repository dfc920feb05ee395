"""Entry point: run a job and report how long it took."""

from metrics.report import report
from metrics.timer import Timer


def run_job(size: int) -> int:
    return sum(i * i for i in range(size))


def main() -> None:
    with Timer() as timer:
        result = run_job(100_000)
    print(result)
    print(report("job", timer.elapsed))
