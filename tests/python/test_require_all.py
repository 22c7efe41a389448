"""`make test` refuses a skip for anything its setup provides: under WLANSEC_REQUIRE_ALL=1 the
conftest turns such a skip into a failure, and lets through only a CPU feature the machine
lacks. Checked on an inner pytest run with this very conftest."""

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()

INNER_TESTS = '''
import shutil, pytest
from conftest import skip_for_cpu

@pytest.mark.skipif(not shutil.which("no-such-tool-wlansec"), reason="needs no-such-tool-wlansec (make setup)")
def test_marked_for_a_missing_tool():
    pass

def test_skipping_for_a_missing_tool():
    pytest.skip("needs tshark")

def test_skipping_for_a_cpu_feature():
    skip_for_cpu("AVX-512 (vaes kernel)")
'''

INNER_MODULE_SKIP = '''
import pytest
pytest.importorskip("no_such_module_wlansec")

def test_never_collected():
    pass
'''


@pytest.fixture
def inner(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_inner=INNER_TESTS, test_inner_module=INNER_MODULE_SKIP)
    return pytester


def test_a_skip_for_a_tool_fails_under_require_all_and_a_cpu_feature_is_listed(inner, monkeypatch):
    monkeypatch.setenv("WLANSEC_REQUIRE_ALL", "1")
    result = inner.runpytest_subprocess("-rs", "test_inner.py")
    assert result.parseoutcomes() == {"failed": 1, "errors": 1, "skipped": 1}, result.stdout.str()
    result.stdout.fnmatch_lines_random(["*skipped with WLANSEC_REQUIRE_ALL=1: needs tshark*",
                                        "*skipped with WLANSEC_REQUIRE_ALL=1: needs no-such-tool-wlansec*",
                                        "SKIPPED*this CPU lacks AVX-512 (vaes kernel)"])


def test_a_module_skipped_for_a_missing_import_stops_the_run_under_require_all(inner, monkeypatch):
    monkeypatch.setenv("WLANSEC_REQUIRE_ALL", "1")
    result = inner.runpytest_subprocess("-rs")
    assert result.ret != 0 and result.parseoutcomes() == {"errors": 1}, result.stdout.str()
    result.stdout.fnmatch_lines(["*skipped with WLANSEC_REQUIRE_ALL=1: could not import 'no_such_module_wlansec'*"])


def test_without_require_all_every_skip_is_only_listed(inner, monkeypatch):
    monkeypatch.setenv("WLANSEC_REQUIRE_ALL", "0")
    result = inner.runpytest_subprocess("-rs")
    assert result.ret == 0 and result.parseoutcomes() == {"skipped": 4}, result.stdout.str()
