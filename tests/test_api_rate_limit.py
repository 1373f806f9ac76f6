from chat.api.security import SlidingWindowLimiter, retry_after_header


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_allows_up_to_the_limit_then_says_how_long_to_wait():
    clock = Clock()
    limiter = SlidingWindowLimiter(3, 60, clock=clock)
    assert [limiter.hit("a") for _ in range(3)] == [None, None, None]
    clock.now += 10
    assert limiter.hit("a") == 50.0  # the first request leaves the window 60 s after it came


def test_window_slides_rather_than_resetting_on_a_boundary():
    clock = Clock()
    limiter = SlidingWindowLimiter(2, 60, clock=clock)
    limiter.hit("a")
    clock.now += 59
    limiter.hit("a")
    clock.now += 2  # the first hit is out, the second still in
    assert limiter.hit("a") is None
    assert limiter.hit("a") is not None


def test_refused_requests_do_not_extend_the_wait():
    clock = Clock()
    limiter = SlidingWindowLimiter(1, 60, clock=clock)
    limiter.hit("a")
    for _ in range(5):
        clock.now += 10
        limiter.hit("a")
    clock.now += 11  # 61 s after the only admitted request
    assert limiter.hit("a") is None


def test_clients_are_counted_separately():
    limiter = SlidingWindowLimiter(1, 60, clock=Clock())
    assert limiter.hit("a") is None
    assert limiter.hit("b") is None
    assert limiter.hit("a") is not None


def test_zero_switches_limiting_off():
    limiter = SlidingWindowLimiter(0, 60, clock=Clock())
    assert all(limiter.hit("a") is None for _ in range(100))


def test_idle_clients_are_forgotten():
    clock = Clock()
    limiter = SlidingWindowLimiter(5, 60, clock=clock)
    for i in range(1023):
        limiter.hit(f"c{i}")
    clock.now += 120
    limiter.hit("last")  # the 1024th call sweeps
    assert len(limiter._hits) == 1


def test_retry_after_is_whole_seconds_never_zero():
    assert retry_after_header(0.01) == "1"
    assert retry_after_header(12.2) == "13"
    assert retry_after_header(0) == "1"
