"""--shard K/N (tests/conftest.py): N calls with K = 0 .. N-1 run every test once."""

from __future__ import annotations

import pytest

from tests.conftest import shard_of


def test_shard_reads_k_of_n():
    assert shard_of("0/3") == (0, 3) and shard_of("2/3") == (2, 3)


@pytest.mark.parametrize("text", ["3/3", "-1/2", "1", "a/b", "1/0", "1/2/3"])
def test_a_shard_it_does_not_understand_is_a_one_line_error(text):
    with pytest.raises(pytest.UsageError) as err:
        shard_of(text)
    msg = str(err.value)
    assert msg.startswith(f"--shard: {text!r}") and "\n" not in msg


def test_the_shards_together_collect_every_test_once():
    """pytest --shard K/N over this file, for K = 0 .. 2: the shares are disjoint and
    together hold every test the file has."""
    import pathlib
    import subprocess
    import sys

    here = pathlib.Path(__file__)
    root = here.parents[2]

    def ids(*extra):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                              "-p", "no:cacheprovider", *extra, str(here)], cwd=root,
                             capture_output=True, text=True, check=True).stdout
        return [line for line in out.splitlines() if "::" in line]

    every = ids()
    shares = [ids("--shard", f"{k}/3") for k in range(3)]
    assert len(every) >= 8 and all(shares)
    assert sorted(x for share in shares for x in share) == sorted(every)
