"""Mutation testing, round 5 (session 27, c37): tests that kill mutants of the code sessions 25-26 changed
(judge/redact.py, io/perquery.py's TSV/CSV reader at once, cli/once.py, output/json_text.py) that the suite let
survive, each against an outside oracle (the standard library's encoders, the docs' promises, hand-worked
values). NOTES.md "Session 27" (c37) lists the mutants sampled and how the survivors were classified. Each
docstring names the mutant it kills (file, the token changed)."""
from __future__ import annotations

import base64
import random
import string

import pytest

KEY_ALPHABET = string.ascii_letters + string.digits + "-_"


def _key_only(prefix_len: int, key: bytes, suffix_len: int, rng: random.Random) -> tuple[str, int, int]:
    """base64 of ``prefix + key + suffix`` for random surrounding bytes, and the span of its characters that
    depend on the key's bytes only: those the same for 24 other random prefixes and suffixes of the same
    lengths (the oracle is base64 itself, by perturbation, not the redactor's alignment arithmetic)."""
    def enc() -> str:
        return base64.b64encode(rng.randbytes(prefix_len) + key + rng.randbytes(suffix_len)).decode()

    text = enc()
    others = [enc() for _ in range(24)]
    fixed = [all(o[i] == text[i] for o in others) and text[i] != "=" for i in range(len(text))]
    start = fixed.index(True)
    end = start
    while end < len(text) and fixed[end]:
        end += 1
    assert not any(fixed[end:]), "one run of key-only characters"
    return text, start, end


@pytest.mark.parametrize("prefix_len", range(6))
def test_base64_of_the_key_is_redacted_exactly_at_every_alignment(prefix_len):
    """judge/redact.py ``base64_cores``: the alignments' leading characters ``(1, 2)``, ``(2, 3)`` -> 1, 3 / 4 and
    the last character's cut ``(r + len(raw)) % 3`` (one key character of base64 left in the text, or one
    character that also depends on the bytes around it taken as the key's). The redactor must replace exactly
    the characters of base64 that depend on the key's bytes only -- whatever the text around it -- and no
    more (the text's other characters stay: an answer's note is kept)."""
    from pref_eval.judge.redact import Redactor

    rng = random.Random(27 + prefix_len)
    for n in (20, 21, 22, 40):
        key = "".join(rng.choice(KEY_ALPHABET) for _ in range(n))
        redact = Redactor(key)
        for suffix_len in (1, 2, 3):
            text, a, b = _key_only(prefix_len, key.encode(), suffix_len, rng)
            assert b - a >= 8
            assert redact(f"<{text}>") == f"<{text[:a]}***{text[b:]}>", (key, prefix_len, suffix_len, text, a, b)


def test_the_last_code_point_in_an_escape_is_a_character():
    """judge/redact.py ``_unescaped``: ``code <= 0x10FFFF`` -> ``0x10FFFE`` / ``<``. Unicode's last code point is
    U+10FFFF (``chr``'s range, the Unicode standard's codespace): ``&#1114111;`` is that character (a key
    holding it is redacted escaped as plainly); ``&#1114112;`` / ``&#x110000;`` stand for no character and are
    read as U+FFFD, never an exception."""
    from pref_eval.judge.redact import Redactor

    key = "k3y-Z9q\U0010ffff"
    redact = Redactor(key)
    assert redact("a k3y-Z9q&#1114111; b") == "a *** b"
    assert redact("a k3y-Z9q&#x10FFFF; b") == "a *** b"
    assert redact("a k3y-Z9q\\udbff\\udfff b") == "a k3y-Z9q\\udbff\\udfff b"  # JSON's pair: two escapes, kept
    assert redact("a k3y-Z9q&#1114112; b") == "a k3y-Z9q&#1114112; b"
    assert Redactor("k3y-Z9q\ufffd")("a k3y-Z9q&#x110000; b") == "a *** b"


@pytest.mark.parametrize("delim", ["\t", ","])
def test_a_long_line_beside_a_short_one_is_named(tmp_path, delim):
    """io/perquery.py ``_delimited_columns``: the field-count check ``(counts == width - 1).all()`` -> ``.any()``.
    A line with one field too many followed by one with one too few leaves the file's field total a multiple of
    the header's, and every shifted field still a number or a name: the reader at once split it into rows of
    another run (``0.7``). docs/exit-codes.md promises a malformed line refused with its file and line, exit 2;
    the oracle is the file's lines by hand: line 501 holds 5 fields where the header has 4."""
    from pref_eval.errors import InputError
    from pref_eval.io.perquery import read_per_query

    lines = [delim.join(["run", "qid", "measure", "value"])]
    lines += [delim.join([f"r{r}", str(100 + q), "m0", f"0.{q % 9 + 1}"]) for r in range(3) for q in range(300)]
    lines.insert(500, delim.join(["r9", "105", "m0", "0.5", "0.7"]))
    lines.insert(501, delim.join(["106", "m0", "0.3"]))
    path = tmp_path / "pq.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"pq\.txt:501: expected 4 fields as in the header, got 5"):
        read_per_query(path)


def test_keys_beyond_two_to_the_64_are_renumbered_not_wrapped(tmp_path):
    """io/perquery.py ``_delimited_columns``' duplicate check on one int64 key: with 2^62 or more possible
    (runi, runj, qid, measure) combinations the key so far is renumbered densely first. No test reached the
    branch (65,537 runs and 65,536 of each other column here: the key ``((a K + b) K + q) K + m`` with
    K = 2^16 wraps round 2^64 at run 65,536 onto run 0's). Its mutants (``[1:]`` -> ``[0:]``, ``!=`` ->
    ``==``, the branch never taken) raised a traceback or refused a clean file as duplicated. Oracles: the
    file's own rows (pandas' ``read_csv``) and a duplicate row written at a known line."""
    import pandas as pd

    from pref_eval.errors import InputError
    from pref_eval.io.perquery import read_per_query

    k = 2 ** 16
    assert (k + 1) * k ** 3 >= 2 ** 64
    rows = [f"a{i}\tb{i % k}\tq{i % k}\tm{i % k}\t{i % 7}" for i in range(k + 1)]
    path = tmp_path / "pq.tsv"
    path.write_text("runi\trunj\tqid\tmeasure\tvalue\n" + "\n".join(rows) + "\n", encoding="utf-8")
    got = read_per_query(path)
    want = pd.read_csv(path, sep="\t", dtype=str)
    assert got["run"].tolist() == want["runi"].tolist() and got["run_b"].tolist() == want["runj"].tolist()
    assert got["qid"].tolist() == want["qid"].tolist() and got["measure"].tolist() == want["measure"].tolist()
    assert got["value"].tolist() == want["value"].astype(float).tolist()
    path.write_text("runi\trunj\tqid\tmeasure\tvalue\n" + "\n".join([*rows, rows[7]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"pq\.tsv:{k + 3}: duplicate row for run 'a7', query 'q7', measure 'm7'"):
        read_per_query(path)


def test_json_lines_of_both_layouts_read_at_once(tmp_path):
    """io/perquery.py ``_json_columns``: ``pair = pair or run_key == "runi"`` -> ``and`` (the runi/runj layout
    read as one run's: no ``run_b`` column) and the metric lines' ``run_b`` filler ``-1`` -> ``0`` (a metric
    row took the first preference line's ``runj``). The module's docstring: both layouts are read, ``run`` =
    ``runi``, ``run_b`` = ``runj`` and ``''`` for metric rows. Oracle: the lines by hand (json.loads)."""
    import json

    from pref_eval.io.perquery import read_per_query

    pref = [{"runi": f"a{i % 3}", "runj": f"b{i % 2}", "qid": str(i), "measure": "pref", "value": i / 8}
            for i in range(12)]
    metric = [{"run": f"a{i % 3}", "qid": str(i), "measure": "ndcg", "value": i / 16} for i in range(12)]
    for name, lines in (("pairs.jsonl", pref), ("mixed.jsonl", pref + metric), ("metric-first.jsonl", metric + pref)):
        path = tmp_path / name
        path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
        got = read_per_query(path)
        assert got["run"].tolist() == [x.get("runi", x.get("run")) for x in lines], name
        assert got["run_b"].tolist() == [x.get("runj", "") for x in lines], name
        assert got["qid"].tolist() == [x["qid"] for x in lines] and got["value"].tolist() == [x["value"] for x in lines]


@pytest.mark.parametrize("value", [3, -2, 1.5, None, True, ["a", 1], {"k": "v"}])
def test_json_str_of_a_value_that_is_not_a_str(value):
    """output/json_text.py ``json_str``: ``type(s) is str`` -> ``is not`` (an int, None, a list raised
    AttributeError on ``.isascii``). Its docstring: any other value is passed to ``json.dumps`` (the oracle)."""
    import json

    from pref_eval.output.json_text import json_str

    assert json_str(value) == json.dumps(value)


def test_a_plain_run_after_escapes_is_cut_at_its_own_characters():
    """judge/redact.py ``_Escapes.start``: ``i + self._shift(i)`` -> ``i - ...`` (a run of the key written plainly
    after an escape elsewhere in the text was cut at the wrong characters: the escapes' width counted the wrong
    way). Hand-worked: the text around the key stays character for character."""
    from pref_eval.judge.redact import Redactor

    key = "sk-FAKE-0123456789abcdef"
    redact = Redactor(key)
    for before in ("%20", "a%2Fb &#47; \\u0041 ", "\\/\\\"" * 5):
        assert redact(f"{before}x {key} y%21") == f"{before}x *** y%21"
        assert redact(f"{before}x {key[3:15]}%7C{key[:9]} y") == f"{before}x ***%7C*** y"


@pytest.mark.parametrize("value", ["my scores.tsv", " ", ""])
def test_a_value_given_twice_is_shown_as_the_shell_quotes_it(value):
    """cli/once.py ``_shown``: ``any(c.isspace() ...)`` -> ``all`` (``my scores.tsv`` shown bare: two words).
    The message shows each value as the command line typed it: as the POSIX shell quotes it (``shlex.quote``,
    the oracle: pasted back it is one word), for values without control characters."""
    import shlex

    from cli_harness import run_module_inproc

    res = run_module_inproc("group", ["fit", "--output", value, "--output", "b.tsv"])
    assert res.returncode == 2
    assert res.stderr.splitlines()[0] == (f"zelo fit: -o/--output given twice ({shlex.quote(value)} and b.tsv): "
                                          "it takes one value; give it once")


def test_a_peer_option_given_twice_under_the_group_spelling_warns():
    """cli/once.py ``_peer``: ``ctx.parent.info_name != GROUP_SCRIPT`` -> ``==`` (``zelo trec -M 3 -M 100``, the
    group's spelling of zelo_trec, refused the option as one of ours instead of taking the last value as
    trec_eval does). docs/exit-codes.md, "An option given twice": a drop-in peer's option takes the last value
    with a warning, whichever spelling runs the command; the oracle is the command given the last value once."""
    from pathlib import Path

    from cli_harness import run_module_inproc

    root = Path(__file__).resolve().parent.parent
    words = ["trec", "-m", "map", "qrels/dl19-sample.qrels", "runs/bm25.run"]
    res = run_module_inproc("group", [*words[:3], "-M", "3", "-M", "100", *words[3:]], cwd=root)
    last = run_module_inproc("group", [*words[:3], "-M", "100", *words[3:]], cwd=root)
    assert (res.returncode, res.stdout) == (0, last.stdout) and last.returncode == 0 and last.stderr == ""
    assert res.stderr == ("zelo trec: warning: -M/--Max_retrieved_per_topic given twice: 3 dropped, 100 taken (the "
                          "last, as trec_eval takes it)\n")


def test_a_text_that_is_one_window_of_the_key_is_redacted():
    """judge/redact.py ``__call__``: ``len(text) < self.width`` -> ``<=`` (a text exactly 8 characters long -- an
    answer or a header value that is a run of the key and nothing else -- came back whole). The module's
    docstring: every run of at least 8 characters of the key is replaced; a key shorter than 8 whole."""
    from pref_eval.judge.redact import Redactor

    key = "sk-FAKE-0123456789abcdef"
    assert Redactor(key)(key[5:13]) == "***"
    assert Redactor(key)(key[5:12]) == key[5:12]  # 7 characters: kept
    assert Redactor("EMPTY")("EMPTY") == "***"
