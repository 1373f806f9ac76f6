import json
from argparse import Namespace

from chat.cli.main import _parser
from chat.evals import aliases

from helpers_tools import open_names_library


def test_eval_aliases_reports_hits_and_candidates(tmp_path_factory, tmp_path, capsys):
    lib = open_names_library(tmp_path_factory.getbasetemp() / "names-index")
    csv_path = tmp_path / "aliases.csv"
    csv_path.write_text("alias,sutta_id,source_url\n"
                        "Kindada Sutta,SN 1.42,http://example.org/a\n"
                        "Lahu-parivaṭṭa Sutta,AN 1.48,http://example.org/b\n"
                        "the first discourse,SN 1.1,http://example.org/c\n", encoding="utf-8")
    out = tmp_path / "report.json"
    assert aliases.run(Namespace(aliases=csv_path, json_out=out), lib.settings, library=lib) == 0
    report = json.loads(out.read_text())
    assert report["n"] == 3
    assert report["hit@1"] == report["hit@4"] == round(2 / 3, 4)
    assert report["no_candidate"] == round(1 / 3, 4) and report["wrong_first"] == 0.0
    rows = {r["alias"]: r for r in report["rows"]}
    assert rows["Kindada Sutta"]["candidates"][0] == {
        "sutta_id": "SN 1.42", "title": "Giving What?", "score": 100.0, "how": "exact Pali title",
        "via": "Kiṁdadasutta"}
    assert rows["Lahu-parivaṭṭa Sutta"]["candidates"][0]["how"] == "Pali text"
    assert rows["the first discourse"]["candidates"] == [] and rows["the first discourse"]["rank"] is None
    assert set(report["by_how"]) == {"exact Pali title", "Pali text", "none"}
    printed = capsys.readouterr().out
    assert "hit@1 0.667" in printed and "'the first discourse' -> SN 1.1: nothing" in printed


def test_cli_wires_the_command():
    args = _parser().parse_args(["eval", "aliases", "--aliases", "a.csv", "--json", "out.json"])
    assert (args.target, str(args.aliases), str(args.json_out)) == ("aliases", "a.csv", "out.json")
