"""`scholar chat` runs `chainlit run chat/ui/app.py` with the repo as Chainlit's app root (chainlit.md, public/)."""

from __future__ import annotations

from pathlib import Path

from chat.ui.launch import APP, REPO, chainlit_command, chainlit_env


def test_command_and_environment():
    cmd = chainlit_command("127.0.0.1", 8123, headless=True)
    assert cmd[1:4] == ["-m", "chainlit", "run"] and cmd[4] == str(APP)
    assert cmd[cmd.index("--port") + 1] == "8123" and "--headless" in cmd
    assert "--headless" not in chainlit_command("127.0.0.1", 8000, headless=False)
    env = chainlit_env({"PYTHONPATH": "/x", "HF_HUB_OFFLINE": "0"})
    assert env["CHAINLIT_APP_ROOT"] == str(REPO) and env["PYTHONPATH"].split(":")[0] == str(REPO)
    assert env["HF_HUB_OFFLINE"] == "0"  # the caller's choice is kept
    assert (Path(env["CHAINLIT_APP_ROOT"]) / "chainlit.md").is_file()
    # what Chainlit writes into the app root is never committed
    ignored = (REPO / ".gitignore").read_text().split()
    assert ".chainlit/" in ignored and ".files/" in ignored
