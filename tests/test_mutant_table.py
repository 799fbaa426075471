"""The named mutants of tests/mutants.py still apply: each one's text is found exactly once."""

from __future__ import annotations

import pytest

from tests.mutants import MUTANTS, ROOT


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_applies_to_the_current_tree(mutant):
    assert (ROOT / mutant.path).read_text(encoding="utf-8").count(mutant.old) == 1


def test_a_mutated_tree_is_stamped_with_its_own_digest_so_only_behaviour_catches_it(tmp_path):
    import json
    import shutil

    from tests.mutants import restamp

    shutil.copytree(ROOT / "model", tmp_path / "model")
    (tmp_path / "app").mkdir()
    shutil.copy2(ROOT / "app" / "explore-results.json", tmp_path / "app")
    with open(tmp_path / "model" / "feed.py", "a", encoding="utf-8") as feed:
        feed.write("\nRENAMED = 1\n")  # code, not words: the digest changes
    before = json.loads((tmp_path / "app" / "explore-results.json").read_text())
    digest = restamp(tmp_path)
    after = json.loads((tmp_path / "app" / "explore-results.json").read_text())
    assert digest != before["model"] and after["model"] == digest
    assert {k: v for k, v in after.items() if k != "model"} == {
        k: v for k, v in before.items() if k != "model"
    }
