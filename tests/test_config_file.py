"""The user's config file (mtcli.config.apply_config_file): each setting the default of its MTCLI_* variable, so
a flag wins over the environment, which wins over the file; anything wrong in it is one line and exit 2."""

import os
import subprocess
import sys
import threading
import time

import pytest

from mtcli.config import SETTINGS, apply_config_file
from mtcli.errors import UserError


def _applied(tmp_path, text: str, **environ) -> dict:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    env = {"MTCLI_CONFIG": str(path), **environ}
    apply_config_file(env)
    del env["MTCLI_CONFIG"]
    return env


def test_each_setting_becomes_its_variables_default(tmp_path):
    env = _applied(tmp_path, 'beam = 2\nfrom = "es"\nrequest_timeout = 2.5\nmodel = "my-model"\n')
    assert env == {"MTCLI_BEAM": "2", "MTCLI_FROM": "es", "MTCLI_REQUEST_TIMEOUT": "2.5", "MTCLI_MODEL": "my-model"}


def test_the_environment_wins_over_the_file(tmp_path):
    assert _applied(tmp_path, "beam = 2\n", MTCLI_BEAM="6") == {"MTCLI_BEAM": "6"}


@pytest.mark.parametrize("text, said", [
    ("beem = 2\n", "unknown setting 'beem'"),
    ("Beam = 2\n", "unknown setting 'Beam'"),
    ("beam = [2]\n", "beam must be a string or a number, not list"),
    ("beam = true\n", "beam must be a string or a number, not bool"),
    ("[serve]\nport = 1\n", "unknown setting 'serve'"),
    ("beam = \n", "line 1"),
    ('beam = 2\nbeam = 3\n', "line 2"),
])
def test_a_wrong_file_is_one_line_naming_it(tmp_path, text, said):
    with pytest.raises(UserError) as e:
        _applied(tmp_path, text)
    assert str(tmp_path / "config.toml") in str(e.value) and said in str(e.value) and "\n" not in str(e.value)


def test_a_missing_default_file_is_no_error_but_a_missing_given_one_is(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # platformdirs' config directory on Linux
    env: dict = {}
    apply_config_file(env)
    assert env == {}
    (tmp_path / "mtcli").mkdir()
    (tmp_path / "mtcli" / "config.toml").write_text('to = "en"\n')
    apply_config_file(env)
    assert env == {"MTCLI_TO": "en"}
    with pytest.raises(UserError, match="nowhere.toml: cannot read it"):
        apply_config_file({"MTCLI_CONFIG": str(tmp_path / "nowhere.toml")})
    apply_config_file(env := {"MTCLI_CONFIG": ""})  # set empty: no file at all
    assert env == {"MTCLI_CONFIG": ""}


def test_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b'from = "\xff"\n')
    with pytest.raises(UserError, match="not UTF-8"):
        apply_config_file({"MTCLI_CONFIG": str(path)})


def test_every_setting_is_a_variable_the_cli_reads():
    from pathlib import Path

    import mtcli

    code = "\n".join(p.read_text(encoding="utf-8") for p in Path(mtcli.__file__).parent.rglob("*.py"))
    assert all(f"MTCLI_{key.upper()}" in code for key in SETTINGS)


def test_the_cli_reads_it_and_a_flag_wins(tmp_path):
    """Through the command: the file's model reaches -m (an unknown name is refused, naming it); -m given wins."""
    path = tmp_path / "config.toml"
    path.write_text('model = "no-such-model"\n')
    env = {"MTCLI_CONFIG": str(path), "MTCLI_HOME": str(tmp_path / "home"), "PATH": "/usr/bin:/bin"}
    run = [sys.executable, "-m", "mtcli", "info"]
    bad = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "no-such-model" in bad.stderr and "Traceback" not in bad.stderr
    good = subprocess.run([*run, "-m", "en-es"], capture_output=True, text=True, env=env, timeout=120)
    assert good.returncode == 0, good.stderr
    path.write_text("beam = \n")
    broken = subprocess.run(run, capture_output=True, text=True, env=env, timeout=120)
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1 and "config.toml" in broken.stderr


def test_a_bom_is_read_and_a_nul_is_one_line(tmp_path):
    """Windows editors write a BOM (refused as 'Invalid statement' before); a NUL ("\\u0000" in TOML) cannot
    be in an environment variable (a ValueError traceback before)."""
    path = tmp_path / "config.toml"
    path.write_bytes(b'\xef\xbb\xbfbeam = 2\r\nfrom = "es"\r\n')
    env = {"MTCLI_CONFIG": str(path)}
    assert apply_config_file(env) == {"MTCLI_BEAM": path, "MTCLI_FROM": path}
    assert env["MTCLI_BEAM"] == "2" and env["MTCLI_FROM"] == "es"
    path.write_text('model = "a\\u0000b"\n')
    with pytest.raises(UserError, match="model holds a NUL"):
        apply_config_file({"MTCLI_CONFIG": str(path)})


def test_a_tilde_of_no_user_and_a_pipe_with_no_writer_are_one_line(tmp_path, monkeypatch):
    """MTCLI_CONFIG=~nosuchuser/x was a RuntimeError traceback; a named pipe nobody writes to, a silent wait."""
    from mtcli import guards

    with pytest.raises(UserError, match="MTCLI_CONFIG ~nosuchuser-mtcli/c.toml: ~nosuchuser-mtcli cannot be expanded"):
        apply_config_file({"MTCLI_CONFIG": "~nosuchuser-mtcli/c.toml"})
    monkeypatch.setattr(guards, "FIFO_WAIT", 0.5)
    os.mkfifo(tmp_path / "fifo")
    started = time.monotonic()
    with pytest.raises(UserError, match="no program opened to write"):
        apply_config_file({"MTCLI_CONFIG": str(tmp_path / "fifo")})
    assert time.monotonic() - started < 10
    monkeypatch.setattr(guards, "FIFO_WAIT", 30.0)  # a writer that comes: its settings read
    threading.Thread(target=lambda: (tmp_path / "fifo").write_text("beam = 3\n"), daemon=True).start()
    apply_config_file(env := {"MTCLI_CONFIG": str(tmp_path / "fifo")})
    assert env["MTCLI_BEAM"] == "3"


def test_an_error_about_a_value_from_the_file_names_the_file_and_a_flag_still_wins(tmp_path, monkeypatch, run_cli):
    """`beam = 0` in the file was reported as MTCLI_BEAM='0', a variable the user never set; the file is named now.
    The environment set by the user is not the file's (no file named), and --greedy makes the bad value no error."""
    path = tmp_path / "config.toml"
    monkeypatch.setenv("MTCLI_CONFIG", str(path))
    for variable in ("MTCLI_BEAM", "MTCLI_FROM"):  # main sets the file's in os.environ: monkeypatch records them
        monkeypatch.setenv(variable, "")  # now (as they were before the test), to put them back afterwards

    def run(config: str, *args: str, **environ: str):
        path.write_text(config)
        for variable in ("MTCLI_BEAM", "MTCLI_FROM"):
            monkeypatch.delenv(variable, raising=False)
        for variable, value in environ.items():
            monkeypatch.setenv(variable, value)
        return run_cli("translate", *args, "Hi.")

    code, _, err = run('beam = 0\nfrom = "xx"\n', "--from", "en")
    assert code == 2 and "MTCLI_BEAM='0'" in err and f"(MTCLI_BEAM from the config file {path})" in err, err
    code, _, err = run('beam = 0\nfrom = "xx"\n', "--beam", "2")
    assert code == 2 and "'xx'" in err and f"(MTCLI_FROM from the config file {path})" in err, err
    assert err.count("\n") == 1
    code, _, err = run("beam = 0\n", "--greedy", MTCLI_FROM="xx")  # the user's own variable: no file to name
    assert code == 2 and "'xx'" in err and "config file" not in err, err
    code, out, err = run("beam = 0\n", "--greedy", "--from", "en")
    assert code == 0 and out.strip(), err
