"""Hashes by name: a reader follows "digest 1" and "key A" where the model writes 8 hex digits.

The model names things by hash because that is what its stores compare; a reader needs only to see which
two are the same. Names go in the order things first appear, so they are the same at every tick of a run.
"""

from __future__ import annotations

import string

from model.lifecycles import artifact_instance


def key_names(trace: dict) -> dict[str, str]:
    """Operation keys by name: key A, key B, … in the order they are first sent ("none" is "no key")."""
    keys = [e["carries"]["key"] for f in trace["ticks"] for e in f["events"] if "key" in e["carries"]]
    last = trace["ticks"][-1]["records"] if trace["ticks"] else {}
    keys += [r["key"] for r in last.get("feed_keys", []) + last.get("effects", []) if r.get("key")]
    names: dict[str, str] = {}
    for key in dict.fromkeys(k for k in keys if k != "none"):
        names[key] = f"key {string.ascii_uppercase[len(names) % 26]}"
    return names | {"none": "no key"}


def hash_names(trace: dict) -> dict[str, str]:
    """Every hash the records show, by name: candidate digests ("digest 1"), operation keys ("key A"), and
    what a journal entry read ("s2 of v1"; "s1 of v1 or v2" when the versions agree there)."""
    last = trace["ticks"][-1]["records"] if trace["ticks"] else {}
    names = {}
    for n, digest in enumerate(dict.fromkeys(c["digest"] for c in last.get("candidates", [])), 1):
        names[digest] = f"digest {n}"
    for entry in last.get("journal", []):
        versions = " or ".join(entry["part"]["computed_from"]) or "no version"
        names.setdefault(entry["input_hash"], f"{entry['step']} of {versions}")
    return names | key_names(trace)


def artifact_names(trace: dict, names: dict[str, str]) -> dict[str, str]:
    """Each artifact lifecycle's instance as a reader knows it, "digest 1 (#2)": from every candidate the
    run wrote (one lost later included), its digest by ``names``, and the attempt that assembled it."""
    written = [frame["records"]["candidates"] for frame in trace["ticks"]]
    candidates = [(c["digest"], c["attempt"]) for records in written for c in records]
    return {artifact_instance(d, n): f"{names.get(d, d)} (#{n})" for d, n in candidates}
